//! Where the original a rewritten file is recognised against comes from:
//! the file itself when its export embedded it (`extras.msh.original`, as
//! every export did before the fingerprint), else the model the import was
//! given (the one it writes over, or one named), taken only when it is the
//! one the file's `extras.msh.original_fingerprint` names.

use crate::codes::Code;
use crate::extras::ModelExtras;
use mshconv_convert::look::file_fingerprint;
use std::borrow::Cow;

/// A note that says why a file was not recognised: its code and message.
pub(in crate::import) type Note = (Code, String);

/// The largest original a file of `input_len` bytes may carry: an export
/// holds the original's tables as glTF content too (floats for packed
/// values), so a genuine original is about half its file (at most 13 times
/// a file Blender rewrote, measured over the fixtures and the generated
/// corpus: a model of a few triangles and long raw tables); bounding it by
/// the file keeps what the comparison allocates a multiple of the input.
fn embedded_limit(input_len: usize) -> usize {
    input_len.saturating_mul(16)
}

/// The original MSH file `extras` and `given` give (module docs), a strictly
/// valid model; else the note that says why there is none: `None` for a file
/// that records neither the original nor its fingerprint, or embeds a
/// damaged one (the caller says it rebuilt the model).
pub(super) fn find<'a>(
    extras: &ModelExtras,
    given: Option<&'a [u8]>,
    input_len: usize,
) -> Result<Cow<'a, [u8]>, Option<Note>> {
    if let Some(text) = extras.original.as_deref() {
        let bytes = crate::original::decode(text, embedded_limit(input_len)).map_err(|_| None)?;
        msh::open(&bytes, msh::Mode::Strict).map_err(|_| None)?;
        return Ok(Cow::Owned(bytes));
    }
    let Some(expected) = extras.original_fingerprint.as_deref() else {
        return Err(None);
    };
    let Some(given) = given else {
        return Err(Some((Code::ImportOriginalMissing, missing())));
    };
    let actual = file_fingerprint(given);
    if actual != expected {
        return Err(Some((
            Code::ImportOriginalChanged,
            changed(&actual, expected),
        )));
    }
    msh::open(given, msh::Mode::Strict).map_err(|_| None)?;
    Ok(Cow::Borrowed(given))
}

/// `import.original_missing`'s message.
fn missing() -> String {
    "the file is an mshconv export another tool rewrote, and it records only the fingerprint of \
     the model it was exported from, which was not given: the model was rebuilt from its content. \
     To get its unedited parts back byte for byte, write it over the model it came from \
     (ARCHIVE:ENTRY or the .msh file) or give that model as the original \
     (--original FILE, original=); or export with --embed-original (embed_original=true) \
     for a file that carries it"
        .to_string()
}

/// `import.original_changed`'s message.
fn changed(actual: &str, expected: &str) -> String {
    format!(
        "the model given as the original (the one written over, or --original) is not the one \
         the file was exported from (its fingerprint is {actual}, the export's {expected}): it \
         changed since the export, or it is another model. The model was rebuilt from its \
         content; give the model as it was exported (--original FILE, original=), or export it \
         again"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fixture model.
    fn model() -> Vec<u8> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../fixtures/small/models/m252_wreck.msh"
        );
        std::fs::read(path).unwrap()
    }

    fn extras(fingerprint: Option<&str>, embedded: Option<&[u8]>) -> ModelExtras {
        ModelExtras {
            original_fingerprint: fingerprint.map(str::to_string),
            original: embedded.map(crate::original::encode),
            ..ModelExtras::default()
        }
    }

    #[test]
    fn the_given_model_is_taken_only_when_its_fingerprint_matches() {
        let m = model();
        // An independent oracle: SHA-256's first 16 bytes, here of "abc".
        assert_eq!(file_fingerprint(b"abc"), "ba7816bf8f01cfea414140de5dae2223");
        let fp = file_fingerprint(&m);
        let found = find(&extras(Some(&fp), None), Some(&m), 10).unwrap();
        assert_eq!(&*found, m.as_slice());
        let mut other = m.clone();
        let last = other.len() - 1;
        other[last] ^= 1;
        let (code, message) = find(&extras(Some(&fp), None), Some(&other), 10)
            .unwrap_err()
            .unwrap();
        assert_eq!(code.code(), "import.original_changed");
        assert!(message.contains(&fp), "{message}");
        let (code, message) = find(&extras(Some(&fp), None), None, 10)
            .unwrap_err()
            .unwrap();
        assert_eq!(code.code(), "import.original_missing");
        assert!(message.contains("--original FILE"), "{message}");
        // Neither record: no note (the caller says it rebuilt the model).
        assert_eq!(find(&extras(None, None), Some(&m), 10), Err(None));
    }

    #[test]
    fn an_embedded_original_wins_over_the_given_one() {
        let m = model();
        let fp = file_fingerprint(b"another model");
        let found = find(&extras(Some(&fp), Some(&m)), Some(b"x"), m.len()).unwrap();
        assert_eq!(&*found, m.as_slice());
        // An older export: the original without a fingerprint.
        let found = find(&extras(None, Some(&m)), None, m.len()).unwrap();
        assert_eq!(&*found, m.as_slice());
        // Damaged, or larger than the file may carry: none, no note.
        assert_eq!(find(&extras(None, Some(&m)), None, 1), Err(None));
        let damaged = ModelExtras {
            original: Some("not base64!".into()),
            ..ModelExtras::default()
        };
        assert_eq!(find(&damaged, Some(&m), m.len()), Err(None));
    }
}

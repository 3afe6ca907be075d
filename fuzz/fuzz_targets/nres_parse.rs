//! NRes container: parsing never panics; the directory-only parse agrees with
//! the whole-file one; a parsed archive writes back byte for byte
//! (when its payloads do not overlap) and canonically to a file that parses again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use nres::{Archive, Directory, OwnedArchive, WriteMode};

fuzz_target!(|data: &[u8]| {
    // The header and directory alone reach the same verdict as the whole file.
    let len = data.len() as u64;
    let directory = Directory::locate(data, len)
        .and_then(|at| Directory::parse(data, &data[at.start as usize..], len));
    assert_eq!(
        directory.map(|d| d.raw_entries().to_vec()).map_err(|e| e.code()),
        Archive::parse(data).map(|a| a.raw_entries().to_vec()).map_err(|e| e.code()),
        "Directory and Archive disagree"
    );
    if let Ok(archive) = Archive::parse(data) {
        for entry in archive.entries() {
            let _ = (entry.data(), entry.name());
            let found = archive.find_by_name(&entry.name());
            let _ = found;
        }
        let _ = archive
            .nested_models()
            .filter(|e| Archive::parse(e.data()).is_ok())
            .count();
        let owned = OwnedArchive::from_archive(&archive);
        if archive.layout().physical_order.is_some() {
            assert_eq!(owned.write(WriteMode::Lossless).unwrap(), data, "lossless rewrite differs");
        }
        let canonical = owned.write(WriteMode::Canonical).unwrap();
        let again = Archive::parse(&canonical).expect("canonical output must parse");
        assert_eq!(again.len(), archive.len());
    }
    if let Ok((archive, _problems)) = Archive::parse_tolerant(data) {
        let _ = archive.layout();
        for entry in archive.entries() {
            let _ = entry.data();
        }
    }
});

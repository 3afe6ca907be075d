//! JSON forms of extras values that Blender keeps as they are.
//!
//! Blender's glTF importer stores extras as custom properties; a value it
//! cannot store (an integer of 2^31 or more, an array mixing numbers and
//! strings) makes it store the Python text of the whole top-level value
//! instead, so one such number inside `extras.msh` loses all of it
//! (../shared/design/BLENDER.md section 2; measured with bpy 4.2 on the
//! fixtures `attrs_noncanonical`, `sort_index_out_of_range`, `padding_gaps_odd`).
//! These forms avoid both; the importer reads the older forms too.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The largest integer Blender stores as a number.
pub const LARGEST_KEPT: i64 = (1 << 31) - 1;

/// A number Blender may not keep, or its decimal text.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Number {
    Int(i64),
    Text(String),
}

impl Number {
    fn get<E: serde::de::Error>(self) -> Result<i64, E> {
        match self {
            Number::Int(v) => Ok(v),
            Number::Text(t) => t
                .parse()
                .map_err(|_| E::custom(format!("{t:?} is not an integer"))),
        }
    }
}

/// Whether `v` is written as text.
pub fn as_text(v: i64) -> bool {
    !(-LARGEST_KEPT..=LARGEST_KEPT).contains(&v)
}

/// `Option<u32>`: a number below 2^31, else its decimal text.
pub mod opt_u32 {
    use super::*;

    /// Writes the value.
    pub fn serialize<S: Serializer>(v: &Option<u32>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(v) if as_text(i64::from(*v)) => s.serialize_str(&v.to_string()),
            Some(v) => s.serialize_u32(*v),
            None => s.serialize_none(),
        }
    }

    /// Reads a number or its text.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
        let v = Option::<Number>::deserialize(d)?;
        v.map(|n| {
            n.get()
                .and_then(|v| u32::try_from(v).map_err(|_| D::Error::custom("out of range")))
        })
        .transpose()
    }
}

/// `u32`: a number below 2^31, else its decimal text (the MAT0 and Texm
/// fields of a material's and an image's extras).
pub mod u32_or_text {
    use super::*;

    /// The JSON value of `v` (for `json!` built extras).
    pub fn value(v: u32) -> serde_json::Value {
        if as_text(i64::from(v)) {
            serde_json::Value::String(v.to_string())
        } else {
            serde_json::Value::from(v)
        }
    }

    /// Reads a number or its text.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
        Number::deserialize(d)?
            .get()
            .and_then(|v| u32::try_from(v).map_err(|_| D::Error::custom("out of range")))
    }
}

/// `Option<[i64; 3]>` entry attributes: numbers, or all three as text when
/// one is 2^31 or more (an array of one kind).
pub mod attrs {
    use super::*;

    /// Writes the attributes.
    pub fn serialize<S: Serializer>(v: &Option<[i64; 3]>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some(a) if a.iter().any(|&v| as_text(v)) => a.map(|v| v.to_string()).serialize(s),
            Some(a) => a.serialize(s),
            None => s.serialize_none(),
        }
    }

    /// Reads numbers or texts.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<[i64; 3]>, D::Error> {
        let v = Option::<[Number; 3]>::deserialize(d)?;
        match v {
            Some([a, b, c]) => Ok(Some([a.get()?, b.get()?, c.get()?])),
            None => Ok(None),
        }
    }
}

/// `Option<(u32, String)>` filler after a payload: `{"after": LEN, "bytes": B64}`
/// (the older `[LEN, B64]` mixes a number and a string in one array).
pub mod filler {
    use super::*;

    #[derive(Serialize, Deserialize)]
    struct Filler {
        after: u32,
        bytes: String,
    }

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Form {
        Object(Filler),
        Pair(u32, String),
    }

    /// Writes the object form.
    pub fn serialize<S: Serializer>(v: &Option<(u32, String)>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            Some((after, bytes)) => Filler {
                after: *after,
                bytes: bytes.clone(),
            }
            .serialize(s),
            None => s.serialize_none(),
        }
    }

    /// Reads either form.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<(u32, String)>, D::Error> {
        Ok(Option::<Form>::deserialize(d)?.map(|f| match f {
            Form::Object(f) => (f.after, f.bytes),
            Form::Pair(after, bytes) => (after, bytes),
        }))
    }
}

#[cfg(test)]
mod tests {
    use crate::extras::EntryExtras;

    #[test]
    fn large_numbers_are_text_and_fillers_objects_and_both_forms_read() {
        let e = EntryExtras {
            type_id: 10,
            name: "res10".into(),
            attrs: Some([-1, 4294967295, 7]),
            sort_index: Some(u32::MAX),
            filler: Some((30, "AAA=".into())),
            ..EntryExtras::default()
        };
        let text = serde_json::to_string(&e).unwrap();
        assert!(
            text.contains(r#""attrs":["-1","4294967295","7"]"#),
            "{text}"
        );
        assert!(text.contains(r#""sort_index":"4294967295""#), "{text}");
        assert!(
            text.contains(r#""filler":{"after":30,"bytes":"AAA="}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<EntryExtras>(&text).unwrap(), e);
        let small = EntryExtras {
            attrs: Some([-1, 5, 2147483647]),
            sort_index: Some(7),
            ..e.clone()
        };
        let text = serde_json::to_string(&small).unwrap();
        assert!(text.contains(r#""attrs":[-1,5,2147483647]"#), "{text}");
        assert!(text.contains(r#""sort_index":7"#), "{text}");
        let old = r#"{"type":10,"name":"res10","attrs":[-1,4294967295,7],"sort_index":4294967295,"filler":[30,"AAA="]}"#;
        assert_eq!(serde_json::from_str::<EntryExtras>(old).unwrap(), e);
    }
}

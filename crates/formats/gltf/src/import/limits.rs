//! What a glTF may make the importer allocate (docs/ROBUSTNESS.md).
//!
//! Two things can make a small file expensive without any count in it being
//! out of range, and both are bounded here:
//!
//! - the parsed document: `gltf-json` turns `{}` (3 bytes) into a 240-byte
//!   node, so a JSON chunk of empty objects grows 80-fold. `check_json`
//!   counts the elements of the arrays that hold such objects (without
//!   building them) and refuses a document whose parsed form would be more
//!   than [`JSON_FACTOR`] times its size plus [`JSON_SLACK`];
//! - reading accessors: an accessor can be named by many primitives, nodes
//!   can share a mesh, channels a sampler, accessors a buffer view, so the
//!   same bytes can be read any number of times. `ReadBudget` allows
//!   [`READ_FACTOR`] elements per byte of the file (JSON and buffers), plus
//!   [`READ_SLACK`] elements for instancing (an MSH model holds at most 65535
//!   triangles, so a legitimately instanced model stays well within it); each
//!   accessor read and each primitive visited costs [`READ_OVERHEAD`] more, so
//!   that empty primitives on many nodes are bounded too. A file read once
//!   (the exact rebuild, then possibly the generic path: twice) stays within
//!   it: its elements lie in its buffers, and every accessor and primitive
//!   takes more than [`READ_OVERHEAD`] / [`READ_FACTOR`] bytes of JSON.

use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::cell::Cell;
use std::fmt;
use std::mem::size_of;

/// The parsed document may take this many times the JSON's size ...
pub const JSON_FACTOR: usize = 16;
/// ... plus this many bytes.
pub const JSON_SLACK: usize = 1 << 20;
/// Accessor elements that may be read per byte of the file (JSON and buffers) ...
pub const READ_FACTOR: usize = 2;
/// ... plus this many elements.
pub const READ_SLACK: usize = 1 << 19;
/// Every accessor read and every primitive visited also costs this many elements.
pub const READ_OVERHEAD: usize = 16;
/// Compressed buffer views (`EXT_meshopt_compression`) may decode to this
/// many bytes per byte of the file ...
pub const DECODED_FACTOR: usize = 64;
/// ... plus this many bytes (an MSH model of 65535 vertices with every
/// attribute takes a few MiB).
pub const DECODED_SLACK: usize = 32 << 20;

/// The bytes the compressed buffer views of a file of `bytes` bytes may decode to.
pub(crate) fn decoded_limit(bytes: usize) -> usize {
    bytes
        .saturating_mul(DECODED_FACTOR)
        .saturating_add(DECODED_SLACK)
}

/// A BTreeMap leaf (a primitive's attributes), roughly: counted per primitive.
const ATTRIBUTE_MAP: usize = 256;

fn too_large(code: &str, message: String) -> Error {
    Error::new(ErrorKind::Unsupported, code, message)
}

/// Refuses a JSON document whose parsed form would be more than
/// [`JSON_FACTOR`] x its size + [`JSON_SLACK`] bytes. Malformed JSON is left
/// to the real parser (which gives the error).
pub(crate) fn check_json(json: &str) -> Result<()> {
    let limit = json
        .len()
        .saturating_mul(JSON_FACTOR)
        .saturating_add(JSON_SLACK);
    // A quick bound first: a counted element the parser builds is an object, so
    // there are at most as many as `{` bytes (inside strings too). When that
    // many of the largest element fit the limit, so does the parse, and the
    // scan below (a second full parse) is not needed: it is for documents
    // dense in small objects. Our own exports take one `{` per 50 bytes or more.
    let mut blocks = json.as_bytes().chunks_exact(64);
    // Counted per 64-byte block in a byte (at most 64, no overflow): vectorised.
    let braces = |block: &[u8]| {
        usize::from(
            block
                .iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b'{'))),
        )
    };
    let objects = (&mut blocks).map(braces).sum::<usize>() + braces(blocks.remainder());
    if objects.saturating_mul(Array::largest_element()) <= limit {
        return Ok(());
    }
    let mut de = serde_json::Deserializer::from_str(json);
    let Ok(footprint) = de.deserialize_map(RootScan) else {
        return Ok(());
    };
    if footprint > limit {
        return Err(too_large(
            Code::GltfJsonTooLarge.code(),
            format!(
                "the glTF JSON ({} bytes) describes so many objects that parsing it would take about {footprint} bytes, more than {JSON_FACTOR} times its size: it is not a model (an MSH model holds at most 65535 nodes and triangles)",
                json.len()
            ),
        ));
    }
    Ok(())
}

/// The arrays counted, by key, and the size each element takes once parsed.
/// One table: the largest element, the scan and the lookup all read it, so an
/// array added here is counted everywhere.
const COUNTED: [(&str, usize); 13] = {
    use gltf_json as j;
    [
        ("nodes", size_of::<j::Node>()),
        ("meshes", size_of::<j::Mesh>()),
        ("materials", size_of::<j::Material>()),
        ("accessors", size_of::<j::Accessor>()),
        ("bufferViews", size_of::<j::buffer::View>()),
        ("buffers", size_of::<j::Buffer>()),
        ("images", size_of::<j::Image>()),
        ("samplers", size_of::<j::texture::Sampler>()),
        ("textures", size_of::<j::Texture>()),
        ("scenes", size_of::<j::Scene>()),
        ("animations", size_of::<j::Animation>()),
        ("cameras", size_of::<j::Camera>()),
        ("skins", size_of::<j::Skin>()),
    ]
};

/// Arrays inside elements that are counted too: (outer array's key, key,
/// element size).
const INNER: [(&str, &str, usize); 3] = [
    (
        "meshes",
        "primitives",
        size_of::<gltf_json::mesh::Primitive>() + ATTRIBUTE_MAP,
    ),
    (
        "animations",
        "channels",
        size_of::<gltf_json::animation::Channel>(),
    ),
    (
        "animations",
        "samplers",
        size_of::<gltf_json::animation::Sampler>(),
    ),
];

/// A counted array: its row in [`COUNTED`].
#[derive(Clone, Copy)]
struct Array(usize);

impl Array {
    /// The counted array under `key`, if it is one.
    fn of(key: &str) -> Option<Array> {
        COUNTED.iter().position(|c| c.0 == key).map(Array)
    }

    fn element_size(self) -> usize {
        COUNTED[self.0].1
    }

    /// The largest size [`Array::element_size`] or [`Array::inner`] gives.
    fn largest_element() -> usize {
        COUNTED
            .iter()
            .map(|c| c.1)
            .chain(INNER.iter().map(|i| i.2))
            .max()
            .unwrap_or(0)
    }

    /// Arrays inside each element that are counted too: (key, element size).
    fn inner(self, key: &str) -> Option<usize> {
        let outer = COUNTED[self.0].0;
        INNER
            .iter()
            .find(|i| i.0 == outer && i.1 == key)
            .map(|i| i.2)
    }
}

/// A map key, read without keeping it.
struct Key<F>(F);

impl<'de, T, F: FnOnce(&str) -> T> DeserializeSeed<'de> for Key<F> {
    type Value = T;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<T, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de, T, F: FnOnce(&str) -> T> Visitor<'de> for Key<F> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E>(self, v: &str) -> std::result::Result<T, E> {
        Ok((self.0)(v))
    }
}

/// The root object: the bytes its counted arrays take once parsed.
struct RootScan;

impl<'de> Visitor<'de> for RootScan {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a glTF object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<usize, A::Error> {
        let mut total = 0usize;
        while let Some(array) = map.next_key_seed(Key(Array::of))? {
            let bytes = match array {
                Some(array) => map.next_value_seed(Elements(array))?,
                None => {
                    map.next_value::<IgnoredAny>()?;
                    0
                }
            };
            total = total.saturating_add(bytes);
        }
        Ok(total)
    }
}

/// One counted array: its elements' parsed size, and that of their inner arrays.
struct Elements(Array);

impl<'de> DeserializeSeed<'de> for Elements {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Elements {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
        let size = self.0.element_size();
        let mut total = 0usize;
        while let Some(inner) = seq.next_element_seed(Element(self.0))? {
            total = total.saturating_add(size).saturating_add(inner);
        }
        Ok(total)
    }
}

/// One element: the parsed size of its counted inner arrays.
struct Element(Array);

impl<'de> DeserializeSeed<'de> for Element {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<usize, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Element {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<usize, A::Error> {
        let mut total = 0usize;
        while let Some(size) = map.next_key_seed(Key(|k: &str| self.0.inner(k)))? {
            total = total.saturating_add(match size {
                Some(size) => map.next_value_seed(Count)?.saturating_mul(size),
                None => {
                    map.next_value::<IgnoredAny>()?;
                    0
                }
            });
        }
        Ok(total)
    }
    // Anything else is not an object; the real parser says so.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(0)
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_unit<E>(self) -> std::result::Result<usize, E> {
        Ok(0)
    }
}

/// The number of elements of an array (anything else counts 0).
struct Count;

impl<'de> DeserializeSeed<'de> for Count {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> std::result::Result<usize, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Count {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an array")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<usize, A::Error> {
        let mut n = 0usize;
        while seq.next_element::<IgnoredAny>()?.is_some() {
            n += 1;
        }
        Ok(n)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<usize, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(0)
    }
    fn visit_bool<E>(self, _: bool) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_i64<E>(self, _: i64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_u64<E>(self, _: u64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_f64<E>(self, _: f64) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_str<E>(self, _: &str) -> std::result::Result<usize, E> {
        Ok(0)
    }
    fn visit_unit<E>(self) -> std::result::Result<usize, E> {
        Ok(0)
    }
}

/// How many more accessor elements the import may read.
#[derive(Debug)]
pub(crate) struct ReadBudget {
    left: Cell<usize>,
    limit: usize,
}

impl ReadBudget {
    /// The budget for a file of `bytes` bytes (JSON and buffers).
    pub fn new(bytes: usize) -> ReadBudget {
        let limit = bytes.saturating_mul(READ_FACTOR).saturating_add(READ_SLACK);
        ReadBudget {
            left: Cell::new(limit),
            limit,
        }
    }

    /// Takes `count` elements of an accessor the importer builds (one without
    /// a buffer view, or a sparse one) from the budget, or refuses the file:
    /// the file holds no data for them, so they are counted before they are made.
    pub fn take_built(&self, count: usize, accessor: usize) -> Result<()> {
        self.take(count).map_err(|_| {
            too_large(
                Code::GltfAccessorTooLarge.code(),
                format!(
                    "/accessors/{accessor}/count: {count} elements without data in the file (zeros or sparse) are more than a file of this size may make (at most {} accessor elements are read in all)",
                    self.limit
                ),
            )
        })
    }

    /// Takes `count` elements from the budget, or refuses the file.
    pub fn take(&self, count: usize) -> Result<()> {
        match self.left.get().checked_sub(count) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => Err(too_large(
                Code::GltfDataReused.code(),
                format!(
                    "the file reads its data over and over (meshes shared by many nodes, accessors shared by many primitives or channels): more than {} accessor elements for a file of {} bytes; an MSH model has no instancing and holds at most 65535 triangles",
                    self.limit,
                    self.limit.saturating_sub(READ_SLACK) / READ_FACTOR
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_inner_array_belongs_to_a_counted_one_and_sizes_are_real() {
        for (outer, key, size) in INNER {
            let array = Array::of(outer).expect("the outer array is counted");
            assert_eq!(array.inner(key), Some(size));
            assert!(size <= Array::largest_element());
        }
        for (key, size) in COUNTED {
            assert!(size > 0, "{key}");
            assert_eq!(Array::of(key).map(Array::element_size), Some(size));
            assert!(size <= Array::largest_element());
        }
        assert!(Array::of("extensionsUsed").is_none());
    }

    /// What the scan counts for a document.
    fn footprint(json: &str) -> usize {
        serde_json::Deserializer::from_str(json)
            .deserialize_map(RootScan)
            .unwrap()
    }

    /// Every row of the tables is reached by the scan, with its size: a row
    /// the scan missed would count 0 here.
    #[test]
    fn every_counted_array_is_scanned_with_its_size() {
        for (key, size) in COUNTED {
            let json = format!("{{\"{key}\":[{{}},{{}},{{}}],\"other\":[{{}}]}}");
            assert_eq!(footprint(&json), 3 * size, "{key}");
        }
        for (outer, key, size) in INNER {
            let outer_size = Array::of(outer).unwrap().element_size();
            let json = format!("{{\"{outer}\":[{{\"{key}\":[{{}},{{}}],\"x\":[{{}}]}}]}}");
            assert_eq!(footprint(&json), outer_size + 2 * size, "{outer}.{key}");
        }
    }

    #[test]
    fn empty_objects_are_counted_and_refused() {
        let n = 200_000;
        let json = format!(
            "{{\"asset\":{{\"version\":\"2.0\"}},\"nodes\":[{}]}}",
            vec!["{}"; n].join(",")
        );
        let e = check_json(&json).unwrap_err();
        assert_eq!(e.code(), "gltf.json_too_large");
        // A few thousand are within the slack; malformed JSON is the parser's to report.
        let json = format!("{{\"nodes\":[{}]}}", vec!["{}"; 1000].join(","));
        check_json(&json).unwrap();
        check_json("{\"nodes\":[{}").unwrap();
        check_json("[]").unwrap();
    }

    #[test]
    fn primitives_count_inside_meshes() {
        let prims = vec!["{\"attributes\":{}}"; 100_000].join(",");
        let json = format!("{{\"meshes\":[{{\"primitives\":[{prims}]}}]}}");
        assert!(check_json(&json).is_err());
        let json = format!("{{\"meshes\":[{{\"primitives\":[{}]}}]}}", "{}");
        check_json(&json).unwrap();
    }

    #[test]
    fn the_read_budget_runs_out() {
        let budget = ReadBudget::new(10);
        budget.take(READ_SLACK).unwrap();
        budget.take(20).unwrap();
        assert_eq!(budget.take(1).unwrap_err().code(), "gltf.data_reused");
    }
}

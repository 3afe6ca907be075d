//! The `msh` extras: what glTF cannot express, kept for the way back.
//!
//! The schema is the contract between exporter and importer (docs/GLTF.md).
//! Model-level data lives on `scenes[0]` (Blender keeps scene custom
//! properties, not asset extras), per-slot data on meshes (Blender drops
//! primitive extras), per-node data on nodes. Bulk per-element data sits in
//! accessors that the extras name by index. Integers that may reach 2^31 are
//! written as numbers but read back from numbers or numeric strings (Blender
//! turns large ints into strings); byte blobs are base64.

use crate::options::{parse_rotation, Axis, Rotation};
use msh::ModelKind;
use serde::{Deserialize, Serialize};

/// Version of this schema, written as `format` ([`Format::V1`]).
pub const FORMAT: &str = "mshconv/1";

/// A member whose JSON is one of a few known strings: the enum (with an
/// `Other` variant that keeps any other text as read), its text, and serde
/// through that text. A file may hold any string there (another version's,
/// an edited one): it reads, and the importer treats it as it treated an
/// unknown string when these members were `String`s (each type says how). A
/// value that is not a string is refused, as it was then (the extras are
/// then not read at all), which the derived serde of an enum would not do
/// (it also takes `{"cw": null}`).
macro_rules! text_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $($(#[$vmeta:meta])* $variant:ident = $text:literal,)+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant,)+
            /// Any other text, as read.
            Other(String),
        }

        impl $name {
            /// The text written for it.
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$variant => $text,)+
                    Self::Other(text) => text,
                }
            }
        }

        impl From<String> for $name {
            fn from(text: String) -> Self {
                match text.as_str() {
                    $($text => Self::$variant,)+
                    _ => Self::Other(text),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                String::deserialize(d).map(Self::from)
            }
        }
    };
}

text_enum! {
    /// `format`: the schema version. A file whose extras record any other
    /// version is imported as a foreign glTF (its extras are not used).
    pub enum Format {
        /// `mshconv/1` ([`FORMAT`]), what this crate writes.
        #[default]
        V1 = "mshconv/1",
    }
}

text_enum! {
    /// `kind`: which tables the model has (`msh::ModelKind`). Any other text
    /// is rebuilt as `legacy_nodes` is: the node hierarchy is not read from
    /// the glTF nodes.
    pub enum Kind {
        /// `standard`: the node hierarchy is rebuilt from the glTF nodes.
        #[default]
        Standard = "standard",
        /// `legacy_nodes`: the legacy node table travels raw.
        LegacyNodes = "legacy_nodes",
        /// `terrain`: every table travels raw and the model comes back from them
        /// alone; the meshes only show the geometry (an edited one is refused).
        Terrain = "terrain",
    }
}

text_enum! {
    /// `winding`: which way the MSH triangles turn, seen from their normals'
    /// side. Any other text is read as `ccw` (the triangles are taken as
    /// they are).
    pub enum Winding {
        /// `ccw`: counter-clockwise, written as they are.
        #[default]
        Ccw = "ccw",
        /// `cw`: clockwise; the exporter reversed every triangle for glTF and
        /// the importer reverses them back.
        Cw = "cw",
    }
}

text_enum! {
    /// `options.axis`: the up axis the file was written with. Any other text
    /// is read as the `axis` option would read it (`z`, `Z-UP`, ...; the
    /// default when it does not parse), but is not the recorded frame, so the
    /// exact rebuild does not apply.
    pub enum UpAxis {
        /// `y-up` ([`Axis::YUp`]).
        #[default]
        YUp = "y-up",
        /// `z-up` ([`Axis::ZUp`]).
        ZUp = "z-up",
    }
}

text_enum! {
    /// `options.rotation`: the rotation reading the file was written with.
    /// Any other text is read as the `rotation` option would read it (the
    /// default when it does not parse), but is not the recorded frame, so the
    /// exact rebuild does not apply.
    pub enum RotationReading {
        /// `conjugate` ([`Rotation::Conjugate`]).
        #[default]
        Conjugate = "conjugate",
        /// `stored` ([`Rotation::Stored`]).
        Stored = "stored",
    }
}

impl From<ModelKind> for Kind {
    fn from(kind: ModelKind) -> Self {
        match kind {
            ModelKind::Standard => Kind::Standard,
            ModelKind::LegacyNodes => Kind::LegacyNodes,
            ModelKind::Terrain => Kind::Terrain,
        }
    }
}

impl From<Axis> for UpAxis {
    fn from(axis: Axis) -> Self {
        match axis {
            Axis::YUp => UpAxis::YUp,
            Axis::ZUp => UpAxis::ZUp,
        }
    }
}

impl UpAxis {
    /// The axis recorded: other text as the `axis` option parses it, `None`
    /// when it does not.
    pub fn axis(&self) -> Option<Axis> {
        match self {
            UpAxis::YUp => Some(Axis::YUp),
            UpAxis::ZUp => Some(Axis::ZUp),
            UpAxis::Other(text) => text.parse().ok(),
        }
    }
}

impl From<Rotation> for RotationReading {
    fn from(rotation: Rotation) -> Self {
        match rotation {
            Rotation::Conjugate => RotationReading::Conjugate,
            Rotation::Stored => RotationReading::Stored,
        }
    }
}

impl RotationReading {
    /// The reading recorded: other text as the `rotation` option parses it,
    /// `None` when it does not.
    pub fn rotation(&self) -> Option<Rotation> {
        match self {
            RotationReading::Conjugate => Some(Rotation::Conjugate),
            RotationReading::Stored => Some(Rotation::Stored),
            RotationReading::Other(text) => parse_rotation(text).ok(),
        }
    }
}

/// `scenes[0].extras.msh`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelExtras {
    /// Schema version.
    pub format: Format,
    /// The options the file was written with.
    pub options: OptionsExtras,
    /// Which tables the model has.
    pub kind: Kind,
    /// Whether the exporter reversed the triangles for glTF.
    pub winding: Winding,
    /// Res2 header, 140 bytes, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header: Option<String>,
    /// Record counts of the tables, for the lossless rebuild.
    pub counts: Counts,
    /// Res19 `attr2`.
    pub frame_count: u32,
    /// Whether `frame_count` is kept as it is rather than derived from the keys
    /// (set with the raw animation tables, even when they are empty).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keep_frame_count: bool,
    /// Directory entries in order.
    pub entries: Vec<EntryExtras>,
    /// Bytes between the container header and the first payload, base64.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leading: Option<String>,
    /// Physical payload order when it is not the directory order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub physical_order: Option<Vec<u32>>,
    /// Whether the stored `sort_index` values are written as read.
    #[serde(default)]
    pub keep_sort_index: bool,
    /// Accessors holding raw tables the glTF content cannot reproduce exactly.
    #[serde(default)]
    pub raw: RawAccessors,
    /// Vertex ranges no batch covers, with every stream's raw bytes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vertex_gaps: Vec<Gap>,
    /// Index ranges no batch covers, raw u16 little-endian.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index_gaps: Vec<Gap>,
    /// Batch records no slot covers, raw (20 bytes each).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub batch_gaps: Vec<Gap>,
    /// Number of accessors and length of buffer 0 as written: when they differ
    /// on import, another tool rebuilt the buffers and the accessor indices in
    /// these extras no longer hold.
    #[serde(default)]
    pub accessors: u32,
    /// See `accessors`.
    #[serde(default)]
    pub buffer_length: u64,
    /// Slots with no drawable batch (they have no mesh).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub empty_slots: Vec<SlotExtras>,
    /// The original MSH file, raw DEFLATE, base64, when the export was asked
    /// to embed it (every export before the fingerprint did): what an import
    /// compares a file another tool rewrote with (Blender keeps scene custom
    /// properties but rebuilds the buffers), so the parts that tool left
    /// unedited come back as their original bytes (`import/recognise/`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original: Option<String>,
    /// The fingerprint of the original MSH file
    /// (`mshconv_convert::look::file_fingerprint`): the import recognises a
    /// rewritten file against the original it is given only when it matches.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_fingerprint: Option<String>,
}

/// Options recorded in the output.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OptionsExtras {
    /// LOD shown.
    pub lod: u8,
    /// Group shown.
    pub group: u8,
    /// Frames per second of the timeline.
    pub fps: f32,
    /// Up axis.
    pub axis: UpAxis,
    /// Rotation reading.
    pub rotation: RotationReading,
}

/// Table sizes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    /// Res3 records.
    pub vertices: u32,
    /// Res6 records.
    pub indices: u32,
    /// Res7 records.
    pub tri_descs: u32,
    /// Res13 records.
    pub batches: u32,
    /// Res2 slots.
    pub slots: u32,
    /// Res8 records.
    pub keys: u32,
    /// Res19 words.
    pub map_words: u32,
}

/// One directory entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EntryExtras {
    /// Resource type.
    #[serde(rename = "type")]
    pub type_id: u32,
    /// Name text.
    pub name: String,
    /// The whole 36-byte name field, base64, when the text alone does not reproduce it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_field: Option<String>,
    /// Attributes that are not derived from the tables: `[attr1, attr2, attr3]`,
    /// `-1` for derived (all three as text when one is 2^31 or more: `extras_safe`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::extras_safe::attrs"
    )]
    pub attrs: Option<[i64; 3]>,
    /// `sort_index` as stored (when the archive keeps stored values; text when
    /// 2^31 or more: `extras_safe`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::extras_safe::opt_u32"
    )]
    pub sort_index: Option<u32>,
    /// Filler after the payload, base64, when it is not canonical zero padding,
    /// with the payload length it followed (`{"after": LEN, "bytes": B64}`;
    /// the older `[LEN, B64]` reads too: `extras_safe`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "super::extras_safe::filler"
    )]
    pub filler: Option<(u32, String)>,
    /// For an empty payload in a non-canonical layout, the `data_offset` it had.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
    /// The payload, base64, for a resource carried raw.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<String>,
}

/// Accessor indices of raw tables (absent: rebuilt from the glTF content).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RawAccessors {
    /// Res4 as BYTE VEC4, one per vertex (normals' 4th byte and exact quantisation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub normals: Option<u32>,
    /// Res15 as UNSIGNED_SHORT VEC4, when it is not written as TEXCOORD_1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream15: Option<u32>,
    /// Res16 as UNSIGNED_SHORT VEC4.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream16: Option<u32>,
    /// Res7 as UNSIGNED_SHORT VEC4, two elements per descriptor, when it differs
    /// from what the importer would derive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tri_descs: Option<u32>,
    /// Res8 as UNSIGNED_SHORT VEC4, three elements per key, when the animation
    /// channels and node poses do not reproduce the keys exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<u32>,
    /// Res19 as UNSIGNED_SHORT SCALAR, with `keys`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<u32>,
}

/// A range of records with their raw bytes.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Gap {
    /// First record.
    pub start: u32,
    /// Number of records.
    pub count: u32,
    /// Raw bytes, base64 (for vertices: per vertex, every present stream in type order 3, 4, 5, 15, 16, 18).
    pub data: String,
}

/// `nodes[i].extras.msh` of an MSH node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeExtras {
    /// MSH node index.
    pub node: u32,
    /// Res1 `hdr0`.
    pub hdr0: u16,
    /// Raw Res10 name bytes, base64, when the glTF name does not give them back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_raw: Option<String>,
    /// Whether Res10 has no record text for this node (`len == 0`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unnamed: bool,
    /// Stored rest quaternion `[x, y, z, w]` when `rotation` cannot give it back exactly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rest_quat: Option<[i16; 4]>,
    /// `anim_map_start` and `fallback_key` as stored, with raw keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anim: Option<[u16; 2]>,
}

/// `nodes[j].extras.msh` of a node that holds one LOD/group slot of an MSH node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SlotNodeExtras {
    /// Owning MSH node.
    pub owner: u32,
    /// LOD 0..=2.
    pub lod: u8,
    /// Group 0..=4.
    pub group: u8,
    /// Whether this LOD/group is the one shown (the others have scale 0).
    pub shown: bool,
    /// The MSH slot (its mesh is `slot<k>`; a slot without drawable batches has no mesh).
    pub slot: u32,
}

/// `nodes[i].extras.msh`: an MSH node's, or a slot node's (serialised as the
/// one it holds).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum NodeMsh {
    /// An MSH node.
    Node(NodeExtras),
    /// A node holding one LOD/group slot.
    Slot(SlotNodeExtras),
}

/// `meshes[k].extras.msh`: one MSH slot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SlotExtras {
    /// Slot index.
    pub slot: u32,
    /// First triangle descriptor.
    pub tri_start: u32,
    /// Number of triangle descriptors.
    pub tri_count: u32,
    /// First batch.
    pub batch_start: u32,
    /// `Slot68` bounds and opaque tail (bytes 8..68), base64, when they differ from
    /// what the importer recomputes (the bounds) or are not zero (the tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<String>,
    /// The slot's batches, in primitive order.
    pub batches: Vec<BatchExtras>,
}

/// One batch of a slot.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BatchExtras {
    /// Material index.
    pub material: u16,
    /// `batch_flags`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flags: u16,
    /// `opaque4`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub opaque4: u16,
    /// `opaque6`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub opaque6: u16,
    /// `opaque14`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub opaque14: u16,
    /// `index_start` in Res6.
    pub index_start: u32,
    /// `base_vertex`.
    pub base_vertex: u32,
    /// First vertex of the primitive's vertex range (`base_vertex + min(index)`).
    pub first_vertex: u32,
    /// Number of indices.
    pub index_count: u32,
    /// Number of vertices of the primitive (its vertex range).
    pub vertex_count: u32,
}

fn is_zero(v: &u16) -> bool {
    *v == 0
}

/// `animations[i].extras.msh` of an animation the export made from a clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnimationExtras {
    /// The clip the animation plays.
    pub clip: ClipExtras,
}

/// Where a clip lies on the MSH timeline (its name is the animation's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClipExtras {
    /// First game frame (the animation's time 0).
    pub first: u32,
    /// Last game frame, inclusive.
    pub last: u32,
    /// `loop`, `once` or `pingpong`.
    pub mode: String,
    /// Game frames per second of the animation's times.
    pub fps: f32,
}

impl ClipExtras {
    /// The extras of `clip` exported at `fps`.
    pub fn new(clip: &crate::clips::Clip, fps: f32) -> Self {
        ClipExtras {
            first: clip.first,
            last: clip.last,
            mode: clip.mode.as_str().to_string(),
            fps,
        }
    }
}

/// Wraps a value as `{"msh": value}` raw JSON for an `extras` field.
pub fn wrap<T: Serialize>(value: &T) -> Option<Box<serde_json::value::RawValue>> {
    #[derive(Serialize)]
    struct Wrapper<'a, T> {
        msh: &'a T,
    }
    // Serialised once and kept as written (no second parse to check it).
    serde_json::value::to_raw_value(&Wrapper { msh: value }).ok()
}

/// Reads `{"msh": T}` from an `extras` value; `None` when absent or of another shape.
pub fn unwrap<T: serde::de::DeserializeOwned>(
    extras: &Option<Box<serde_json::value::RawValue>>,
) -> Option<T> {
    #[derive(Deserialize)]
    struct Wrapper<T> {
        msh: T,
    }
    let raw = extras.as_ref()?;
    serde_json::from_str::<Wrapper<T>>(raw.get())
        .ok()
        .map(|w| w.msh)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A model's extras with every optional member set.
    pub(crate) fn full() -> ModelExtras {
        ModelExtras {
            format: Format::V1,
            options: OptionsExtras {
                lod: 2,
                group: 4,
                fps: 12.5,
                axis: UpAxis::ZUp,
                rotation: RotationReading::Stored,
            },
            kind: Kind::LegacyNodes,
            winding: Winding::Cw,
            header: Some("AAEC".into()),
            counts: Counts {
                vertices: 1,
                indices: 2,
                tri_descs: 3,
                batches: 4,
                slots: 5,
                keys: 6,
                map_words: u32::MAX,
            },
            frame_count: 7,
            keep_frame_count: true,
            entries: vec![
                EntryExtras {
                    type_id: 1,
                    name: "res\"01\"\u{1}".into(),
                    name_field: Some("cmVz".into()),
                    attrs: Some([-1, 0, i64::from(u32::MAX)]),
                    sort_index: Some(3),
                    filler: Some((9, "AA==".into())),
                    offset: Some(16),
                    data: Some("/w==".into()),
                },
                EntryExtras::default(),
            ],
            leading: Some("AQ==".into()),
            physical_order: Some(vec![1, 0]),
            keep_sort_index: true,
            raw: RawAccessors {
                normals: Some(1),
                stream15: Some(2),
                stream16: Some(3),
                tri_descs: Some(4),
                keys: Some(5),
                map: Some(6),
            },
            vertex_gaps: vec![Gap {
                start: 1,
                count: 2,
                data: "AAAA".into(),
            }],
            index_gaps: vec![Gap::default()],
            batch_gaps: vec![Gap::default(), Gap::default()],
            accessors: 8,
            buffer_length: u64::MAX,
            empty_slots: vec![SlotExtras {
                record: Some("AA==".into()),
                ..SlotExtras::default()
            }],
            original: Some("AA==".into()),
            original_fingerprint: Some("00ff".into()),
        }
    }

    /// A model's extras with no optional member, the other ones as the
    /// default options write them.
    pub(crate) fn bare() -> ModelExtras {
        ModelExtras {
            format: Format::V1,
            options: OptionsExtras {
                fps: 24.0,
                axis: UpAxis::YUp,
                rotation: RotationReading::Conjugate,
                ..OptionsExtras::default()
            },
            kind: Kind::Standard,
            winding: Winding::Ccw,
            ..ModelExtras::default()
        }
    }

    /// The text every export writes for the scene is pinned: serde's, member
    /// for member as before the members of known strings became enums.
    #[test]
    fn model_extras_are_written_as_the_schema_says() {
        let full_text = concat!(
            r#"{"msh":{"format":"mshconv/1","options":{"lod":2,"group":4,"fps":12.5,"axis":"z-up","rotation":"stored"},"#,
            r#""kind":"legacy_nodes","winding":"cw","header":"AAEC","#,
            r#""counts":{"vertices":1,"indices":2,"tri_descs":3,"batches":4,"slots":5,"keys":6,"map_words":4294967295},"#,
            r#""frame_count":7,"keep_frame_count":true,"#,
            r#""entries":[{"type":1,"name":"res\"01\"\u0001","name_field":"cmVz","attrs":["-1","0","4294967295"],"sort_index":3,"filler":{"after":9,"bytes":"AA=="},"offset":16,"data":"/w=="},{"type":0,"name":""}],"#,
            r#""leading":"AQ==","physical_order":[1,0],"keep_sort_index":true,"#,
            r#""raw":{"normals":1,"stream15":2,"stream16":3,"tri_descs":4,"keys":5,"map":6},"#,
            r#""vertex_gaps":[{"start":1,"count":2,"data":"AAAA"}],"index_gaps":[{"start":0,"count":0,"data":""}],"#,
            r#""batch_gaps":[{"start":0,"count":0,"data":""},{"start":0,"count":0,"data":""}],"#,
            r#""accessors":8,"buffer_length":18446744073709551615,"#,
            r#""empty_slots":[{"slot":0,"tri_start":0,"tri_count":0,"batch_start":0,"record":"AA==","batches":[]}],"original":"AA==","original_fingerprint":"00ff"}}"#,
        );
        let bare_text = concat!(
            r#"{"msh":{"format":"mshconv/1","options":{"lod":0,"group":0,"fps":24.0,"axis":"y-up","rotation":"conjugate"},"#,
            r#""kind":"standard","winding":"ccw","#,
            r#""counts":{"vertices":0,"indices":0,"tri_descs":0,"batches":0,"slots":0,"keys":0,"map_words":0},"#,
            r#""frame_count":0,"entries":[],"keep_sort_index":false,"raw":{},"accessors":0,"buffer_length":0}}"#,
        );
        for (e, text) in [(full(), full_text), (bare(), bare_text)] {
            let raw = wrap(&e).expect("serialisable");
            assert_eq!(raw.get(), text);
            // And read back as written.
            assert_eq!(unwrap::<ModelExtras>(&Some(raw)), Some(e));
        }
    }

    #[test]
    fn the_known_texts_are_the_schemas_and_other_strings_are_kept() {
        fn check<T>(known: &[(T, &str)], other: T)
        where
            T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug + Clone,
        {
            for (value, text) in known {
                let json = format!("\"{text}\"");
                assert_eq!(serde_json::to_string(value).unwrap(), json);
                assert_eq!(&serde_json::from_str::<T>(&json).unwrap(), value);
            }
            // Another string (other case, another version) is kept as read and
            // written back as it was.
            let json = serde_json::to_string(&other).unwrap();
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), other);
            // Not a string: refused, as a `String` member refused it.
            for bad in ["5", "null", "true", "[\"cw\"]", "{\"cw\":null}", "{}"] {
                assert!(serde_json::from_str::<T>(bad).is_err(), "{bad}");
            }
        }
        check(&[(Format::V1, FORMAT)], Format::Other("mshconv/2".into()));
        check(
            &[
                (Kind::Standard, "standard"),
                (Kind::LegacyNodes, "legacy_nodes"),
                (Kind::Terrain, "terrain"),
            ],
            Kind::Other("Standard".into()),
        );
        check(
            &[(Winding::Ccw, "ccw"), (Winding::Cw, "cw")],
            Winding::Other("CW".into()),
        );
        check(
            &[(UpAxis::YUp, "y-up"), (UpAxis::ZUp, "z-up")],
            UpAxis::Other("Z-UP".into()),
        );
        check(
            &[
                (RotationReading::Conjugate, "conjugate"),
                (RotationReading::Stored, "stored"),
            ],
            RotationReading::Other("".into()),
        );
        // Other text reads as the options would read it.
        assert_eq!(UpAxis::from("Z-UP".to_string()).axis(), Some(Axis::ZUp));
        assert_eq!(UpAxis::from("z".to_string()).axis(), Some(Axis::ZUp));
        assert_eq!(UpAxis::from("up".to_string()).axis(), None);
        assert_eq!(
            RotationReading::from("STORED".to_string()).rotation(),
            Some(Rotation::Stored)
        );
        assert_eq!(RotationReading::from("x".to_string()).rotation(), None);
        for axis in [Axis::YUp, Axis::ZUp] {
            assert_eq!(UpAxis::from(axis).axis(), Some(axis));
            assert_eq!(UpAxis::from(axis).as_str(), axis.to_string());
        }
        for r in [Rotation::Conjugate, Rotation::Stored] {
            assert_eq!(RotationReading::from(r).rotation(), Some(r));
            assert_eq!(
                RotationReading::from(r).as_str(),
                crate::options::rotation_name(r)
            );
        }
    }
}

//! Findings: what validation says about a file, each with a stable code and a location.

use std::fmt;

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "lowercase"))]
pub enum Severity {
    /// A fact worth knowing (legacy layout, terrain model).
    Info,
    /// The file is valid but not canonical; converters carry it through exactly.
    Warning,
    /// The file breaks a rule of FORMAT.md section 4; strict mode rejects it.
    Error,
}

/// Stable machine-readable codes: the model layer's one registry, the
/// validator's findings and the errors of opening, sampling and writing
/// animation ([`Code::ALL`]). The string form (`Code::as_str`) never changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Code {
    /// The NRes container itself is damaged; the code is the container's own (`nres.*`).
    Container(nres::ErrorKind),
    /// The file could not be read for a reason other than the container (not expected).
    Unreadable,
    /// Two payloads of the container overlap.
    PayloadOverlap,
    /// A required resource (1, 2, 3, 6, 13) is missing.
    MissingResource,
    /// A decoded resource type appears twice.
    DuplicateResource,
    /// A fixed-stride payload is not a whole number of records.
    PartialRecord,
    /// `attr3` does not match the stride table.
    BadAttr3,
    /// `Res2.attr1` differs from the slot count.
    SlotCountMismatch,
    /// Res2 is shorter than its 0x8C-byte header.
    ShortHeader,
    /// A node's slot reference is past the slot table.
    SlotOutOfRange,
    /// A slot's batch range is past the batch table.
    BatchRangeOutOfRange,
    /// A slot's triangle range is past the descriptor table.
    TriRangeOutOfRange,
    /// A batch's index range is past the index buffer.
    IndexRangeOutOfRange,
    /// A batch's index count is not a multiple of 3.
    IndexCountNotTriangles,
    /// `base_vertex + index` is past the vertex streams.
    VertexOutOfRange,
    /// A per-vertex stream has a different record count than Res3.
    StreamLengthMismatch,
    /// Res10 does not parse to exactly one record per node.
    BadNames,
    /// A triangle link is past the descriptor table.
    LinkOutOfRange,
    /// A parent index is not smaller than the node's own index.
    BadParent,
    /// `fallback_key` is past the key table.
    FallbackOutOfRange,
    /// An animated node's map block is past the map.
    MapOutOfRange,
    /// A map value below the fallback has no following key. (While the fallback
    /// itself is in range this cannot happen, as `value + 1 <= fallback`; the check
    /// stays because FORMAT.md lists it and the sampler relies on it.)
    MapValueOutOfRange,
    /// Key times do not strictly increase within a track.
    KeyTimesNotIncreasing,
    /// An animated node's track has fewer than two keys.
    TrackTooShort,
    /// `frame_count` (Res19.attr2) is 0.
    ZeroFrameCount,
    /// Animation data needs Res8 but it is missing.
    MissingKeys,
    /// Warning: `fallback_key` does not strictly increase over nodes.
    NonCanonicalFallbackOrder,
    /// Warning: a track does not start at time 0.
    NonCanonicalTrackStart,
    /// Warning: `frame_count` is not the last key time + 1.
    NonCanonicalFrameCount,
    /// Warning: map blocks are not back to back in node order.
    NonCanonicalMapLayout,
    /// Warning: a map value differs from the canonical value for its frame.
    NonCanonicalMapValue,
    /// Warning: a key time is not a whole number.
    NonCanonicalKeyTime,
    /// Warning: payloads are not 8-byte aligned with zero padding, or bytes lie between them.
    NonCanonicalPadding,
    /// Warning: the `sort_index` table is not the canonical one.
    NonCanonicalSortIndex,
    /// Warning: an `attr1`/`attr2` differs from its derived value.
    NonCanonicalAttr,
    /// Warning: a name field has bytes after its NUL terminator.
    NonCanonicalNameField,
    /// Warning: a Res10 name ends in a byte other than NUL (kept as read).
    NonCanonicalNameTerminator,
    /// Info: the node table uses the legacy 24-byte layout; it is carried through undecoded.
    LegacyNodeTable,
    /// Info: a terrain model (Res21 instead of Res6/Res13); carried through, not decoded.
    TerrainModel,
    /// Not a finding: strict validation refused a model whose report has no error (not expected).
    Invalid,
    /// Not a finding: the model has a layout an operation does not handle (legacy nodes, terrain).
    Unsupported,
    /// Not a finding: a node sampled is past the node table ([`crate::anim::SampleError`]).
    NoSuchNode,
    /// Not a finding: animation to write has not one track per node ([`crate::derive::AnimError`]).
    TrackCount,
    /// Not a finding: an animated node's track to write has no key.
    EmptyTrack,
    /// Not a finding: animation to write has more keys, frames or map words than u16 fields address.
    AnimTooLarge,
}

impl Code {
    /// The stable string form, e.g. `slot.batch_range`.
    pub fn as_str(self) -> &'static str {
        use Code::*;
        match self {
            Container(kind) => kind.code(),
            Unreadable => "msh.unreadable",
            PayloadOverlap => nres::ErrorKind::PayloadOverlap.code(),
            MissingResource => "resource.missing",
            DuplicateResource => "resource.duplicate",
            PartialRecord => "resource.partial_record",
            BadAttr3 => "resource.attr3",
            SlotCountMismatch => "slots.count_mismatch",
            ShortHeader => "slots.short_header",
            SlotOutOfRange => "node.slot_range",
            BatchRangeOutOfRange => "slot.batch_range",
            TriRangeOutOfRange => "slot.tri_range",
            IndexRangeOutOfRange => "batch.index_range",
            IndexCountNotTriangles => "batch.index_count",
            VertexOutOfRange => "batch.vertex_range",
            StreamLengthMismatch => "stream.length",
            BadNames => "names.malformed",
            LinkOutOfRange => "tri.link_range",
            BadParent => "node.parent",
            FallbackOutOfRange => "anim.fallback_range",
            MapOutOfRange => "anim.map_range",
            MapValueOutOfRange => "anim.map_value",
            KeyTimesNotIncreasing => "anim.key_order",
            TrackTooShort => "anim.track_short",
            ZeroFrameCount => "anim.frame_count_zero",
            MissingKeys => "anim.missing_keys",
            NonCanonicalFallbackOrder => "canon.fallback_order",
            NonCanonicalTrackStart => "canon.track_start",
            NonCanonicalFrameCount => "canon.frame_count",
            NonCanonicalMapLayout => "canon.map_layout",
            NonCanonicalMapValue => "canon.map_value",
            NonCanonicalKeyTime => "canon.key_time",
            NonCanonicalPadding => "canon.padding",
            NonCanonicalSortIndex => "canon.sort_index",
            NonCanonicalAttr => "canon.attr",
            NonCanonicalNameField => "canon.name_field",
            NonCanonicalNameTerminator => "canon.name_terminator",
            LegacyNodeTable => "model.legacy_nodes",
            TerrainModel => "model.terrain",
            Invalid => "msh.invalid",
            Unsupported => "msh.unsupported",
            NoSuchNode => "anim.no_such_node",
            TrackCount => "anim.track_count",
            EmptyTrack => "anim.empty_track",
            AnimTooLarge => "anim.too_large",
        }
    }

    /// Every code of the model layer, for documentation and tests. Not listed:
    /// [`Code::Container`] and [`Code::PayloadOverlap`], whose codes are the
    /// container's (`nres::ErrorKind::ALL`).
    pub const ALL: [Code; 43] = {
        use Code::*;
        [
            Unreadable,
            MissingResource,
            DuplicateResource,
            PartialRecord,
            BadAttr3,
            SlotCountMismatch,
            ShortHeader,
            SlotOutOfRange,
            BatchRangeOutOfRange,
            TriRangeOutOfRange,
            IndexRangeOutOfRange,
            IndexCountNotTriangles,
            VertexOutOfRange,
            StreamLengthMismatch,
            BadNames,
            LinkOutOfRange,
            BadParent,
            FallbackOutOfRange,
            MapOutOfRange,
            MapValueOutOfRange,
            KeyTimesNotIncreasing,
            TrackTooShort,
            ZeroFrameCount,
            MissingKeys,
            NonCanonicalFallbackOrder,
            NonCanonicalTrackStart,
            NonCanonicalFrameCount,
            NonCanonicalMapLayout,
            NonCanonicalMapValue,
            NonCanonicalKeyTime,
            NonCanonicalPadding,
            NonCanonicalSortIndex,
            NonCanonicalAttr,
            NonCanonicalNameField,
            NonCanonicalNameTerminator,
            LegacyNodeTable,
            TerrainModel,
            Invalid,
            Unsupported,
            NoSuchNode,
            TrackCount,
            EmptyTrack,
            AnimTooLarge,
        ]
    };

    /// The severity findings with this code have.
    pub fn severity(self) -> Severity {
        use Code::*;
        match self {
            LegacyNodeTable | TerrainModel => Severity::Info,
            NonCanonicalFallbackOrder
            | NonCanonicalTrackStart
            | NonCanonicalFrameCount
            | NonCanonicalMapLayout
            | NonCanonicalMapValue
            | NonCanonicalKeyTime
            | NonCanonicalPadding
            | NonCanonicalSortIndex
            | NonCanonicalAttr
            | NonCanonicalNameField
            | NonCanonicalNameTerminator => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// One finding: code, where (resource, record, byte offset) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Finding {
    /// Stable code.
    pub code: Code,
    /// Severity (follows from the code).
    pub severity: Severity,
    /// Resource type the finding is about, if any.
    pub resource: Option<u32>,
    /// Record index inside that resource, if any.
    pub record: Option<u64>,
    /// Absolute byte offset in the file, if known.
    pub offset: Option<u64>,
    /// A path such as `Res13[4].index_start`.
    pub path: String,
    /// What is wrong, with expected and actual values.
    pub message: String,
}

impl Finding {
    /// A finding about a resource as a whole.
    pub fn new(
        code: Code,
        resource: Option<u32>,
        path: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Finding {
            code,
            severity: code.severity(),
            resource,
            record: None,
            offset: None,
            path: path.into(),
            message: message.into(),
        }
    }

    /// A finding for a damaged container, with the container's own code and offset.
    pub fn container(e: &nres::Error) -> Self {
        let path = e
            .entry_index()
            .map_or_else(|| "container".to_string(), |i| format!("directory[{i}]"));
        let mut f = Finding::new(Code::Container(e.kind()), None, path, e.message());
        f.offset = e.offset();
        f
    }

    /// Sets the record index.
    pub fn record(mut self, record: usize) -> Self {
        self.record = Some(record as u64);
        self
    }

    /// Sets the absolute byte offset.
    pub fn offset(mut self, offset: u64) -> Self {
        self.offset = Some(offset);
        self
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        };
        write!(f, "{sev}[{}] {}: {}", self.code, self.path, self.message)?;
        if let Some(offset) = self.offset {
            write!(f, " (byte {offset}, 0x{offset:x})")?;
        }
        Ok(())
    }
}

/// Everything validation found, in the order it was found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Report {
    /// The findings.
    pub findings: Vec<Finding>,
}

impl Report {
    /// Adds a finding.
    pub fn push(&mut self, finding: Finding) {
        self.findings.push(finding);
    }
    /// True when no finding is an error.
    pub fn is_valid(&self) -> bool {
        !self.findings.iter().any(|f| f.severity == Severity::Error)
    }
    /// The error findings.
    pub fn errors(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
    }
    /// The warning findings.
    pub fn warnings(&self) -> impl Iterator<Item = &Finding> {
        self.findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
    }
    /// True when some finding has this code.
    pub fn has(&self, code: Code) -> bool {
        self.findings.iter().any(|f| f.code == code)
    }
}

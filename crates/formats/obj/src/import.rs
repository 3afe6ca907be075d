//! OBJ (+ MTL) -> scene description -> MSH.
//!
//! A hand-written parser (`docs/OBJ.md` says why not `tobj`): one pass over the
//! lines, every error with its line number, nothing sized by a number read from
//! the file (every vector grows with the text), indices checked before use.

use super::triangulate::triangulate;
use super::ObjImportOptions;
use crate::assemble::{assemble, AssembleOptions, MAX_TRIANGLES};
use crate::axes::Axes;
use crate::codes::Code;
use crate::error::{Error, ErrorKind, Result};
use crate::names;
use crate::report::Report;
use crate::scene::{SceneBatch, SceneModel, SceneNode, SceneSlot};
use std::collections::{HashMap, HashSet};

/// Converts an OBJ (and optionally its MTL) to MSH bytes.
pub fn import(
    obj: &[u8],
    mtl: Option<&[u8]>,
    options: &ObjImportOptions,
) -> Result<(Vec<u8>, Report)> {
    let (scene, mut report) = to_scene(obj, mtl, options)?;
    let (model, assembled) = assemble(&scene, &AssembleOptions::default())?;
    // Each stage is let go once the next is built: the peak holds two, not all.
    drop(scene);
    report.notes.extend(assembled.notes);
    let bytes = model.to_bytes()?;
    Ok((bytes, report))
}

/// Parses an OBJ (and optionally its MTL) into the scene description the
/// assembler takes: one root node per object, geometry at LOD 0 group 0 in the
/// game's frame. The MTL only tells which material names are defined (MSH
/// materials are indices; colours and textures are not kept).
pub fn to_scene(
    obj: &[u8],
    mtl: Option<&[u8]>,
    options: &ObjImportOptions,
) -> Result<(SceneModel, Report)> {
    let mut report = Report::default();
    let text = utf8(obj, Code::ObjNotUtf8.code(), "the OBJ")?;
    let defined = match mtl {
        Some(m) => Some(mtl_names(utf8(m, Code::ObjMtlNotUtf8.code(), "the MTL")?)),
        None => None,
    };
    let parsed = Parser::default().run(text, &mut report)?;
    let scene = build(parsed, defined.as_ref(), options, &mut report)?;
    Ok((scene, report))
}

fn utf8<'a>(bytes: &'a [u8], code: &'static str, what: &str) -> Result<&'a str> {
    std::str::from_utf8(bytes).map_err(|e| {
        let line = 1 + bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        Error::new(
            ErrorKind::InvalidInput,
            code,
            format!(
                "line {line}: {what} is not UTF-8 text (byte offset {}); save it as UTF-8",
                e.valid_up_to()
            ),
        )
    })
}

/// The `newmtl` names of an MTL, as a set (each used material is looked up
/// once), borrowed from its text.
fn mtl_names(text: &str) -> HashSet<&str> {
    text.lines()
        .filter_map(|l| {
            let l = l.trim();
            let rest = l.strip_prefix("newmtl")?;
            (rest.is_empty() || rest.starts_with(char::is_whitespace)).then(|| rest.trim())
        })
        .collect()
}

/// One face corner, indices resolved to 0-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct Corner {
    v: u32,
    vt: Option<u32>,
    vn: Option<u32>,
}

#[derive(Debug)]
struct Face {
    /// The `o` in force (index into `Parsed::objects`), if any.
    object: Option<usize>,
    /// The `g` in force (index into `Parsed::groups`), if any.
    group: Option<usize>,
    /// The `usemtl` in force (index into `Parsed::materials`), if any.
    material: Option<usize>,
    /// Corners `first .. first + count` of `Parsed::corners`.
    first: usize,
    count: usize,
    line: usize,
}

#[derive(Debug, Default)]
struct Parsed {
    positions: Vec<[f32; 3]>,
    colours: Vec<Option<[f32; 3]>>,
    uvs: Vec<[f32; 2]>,
    normals: Vec<[f32; 3]>,
    corners: Vec<Corner>,
    faces: Vec<Face>,
    /// `o` statements in order: name and line.
    objects: Vec<(String, usize)>,
    /// `g` names (merged by name) in order of first appearance.
    groups: Vec<String>,
    /// `usemtl` names in order of first appearance, with the line of first use.
    materials: Vec<(String, usize)>,
}

#[derive(Default)]
struct Parser {
    parsed: Parsed,
    object: Option<usize>,
    group: Option<usize>,
    material: Option<usize>,
    group_index: HashMap<String, usize>,
    material_index: HashMap<String, usize>,
    ignored: Vec<String>,
    lines_or_points: usize,
    /// Triangles the faces so far make (`n - 2` each).
    triangles: usize,
    /// Faces whose texture coordinates / normals were dropped (an index past
    /// those defined), and the first line of each.
    dropped: [(usize, usize); 2],
}

fn strip_cr(line: &str) -> &str {
    line.strip_suffix('\r').unwrap_or(line)
}

fn bad(code: &'static str, line: usize, message: impl std::fmt::Display) -> Error {
    Error::new(
        ErrorKind::InvalidInput,
        code,
        format!("line {line}: {message}"),
    )
}

impl Parser {
    fn run(mut self, text: &str, report: &mut Report) -> Result<Parsed> {
        let mut lines = text.split('\n').enumerate();
        while let Some((i, raw)) = lines.next() {
            let first = strip_cr(raw);
            if !first.trim_end().ends_with('\\') {
                self.statement(first, i + 1)?;
                continue;
            }
            // A trailing backslash continues the statement on the next line.
            let mut joined = String::new();
            let mut current = first;
            loop {
                match current.trim_end().strip_suffix('\\') {
                    Some(head) => {
                        joined.push_str(head);
                        joined.push(' ');
                        match lines.next() {
                            Some((_, next)) => current = strip_cr(next),
                            None => break,
                        }
                    }
                    None => {
                        joined.push_str(current);
                        break;
                    }
                }
            }
            self.statement(&joined, i + 1)?;
        }
        for ((faces, line), what) in self.dropped.iter().zip(["texture coordinates", "normals"]) {
            if *faces > 0 {
                report.note(
                    Code::ObjAttributeDropped.code(),
                    format!("{faces} face(s) (the first on line {line}) name {what} past those defined: those faces have no {what}"),
                );
            }
        }
        if self.lines_or_points > 0 {
            report.note(
                Code::ObjLinesIgnored.code(),
                format!(
                    "{} line/point statement(s) (`l`, `p`) were ignored: MSH holds triangles only",
                    self.lines_or_points
                ),
            );
        }
        for keyword in &self.ignored {
            report.note(
                Code::ObjStatementIgnored.code(),
                format!("`{keyword}` statements were ignored (not geometry MSH can hold)"),
            );
        }
        Ok(self.parsed)
    }

    fn statement(&mut self, line: &str, n: usize) -> Result<()> {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            return Ok(());
        }
        let mut words = trimmed.split_ascii_whitespace();
        let keyword = words.next().unwrap_or("");
        let rest = trimmed[keyword.len()..].trim();
        match keyword {
            "v" => {
                let mut nums = [0f32; 7];
                let count = numbers(words, &mut nums, n, "a vertex position (`v x y z`)")?;
                // x y z, optionally w (ignored) or an r g b colour (a common extension).
                let colour = match count {
                    3 | 4 => None,
                    6 | 7 => Some([nums[3], nums[4], nums[5]]),
                    _ => {
                        return Err(bad(
                            Code::ObjBadNumber.code(),
                            n,
                            format!("`v` needs 3 numbers (x y z), optionally a 4th (w) or 3 more (r g b); found {count}"),
                        ))
                    }
                };
                self.parsed.positions.push([nums[0], nums[1], nums[2]]);
                self.parsed.colours.push(colour);
            }
            "vt" => {
                let mut nums = [0f32; 3];
                let count = numbers(words, &mut nums, n, "a texture coordinate (`vt u v`)")?;
                if !(1..=3).contains(&count) {
                    return Err(bad(
                        Code::ObjBadNumber.code(),
                        n,
                        format!("`vt` needs 1 to 3 numbers (u [v [w]]), found {count}"),
                    ));
                }
                self.parsed.uvs.push([nums[0], nums[1]]);
            }
            "vn" => {
                let mut nums = [0f32; 3];
                let count = numbers(words, &mut nums, n, "a normal (`vn x y z`)")?;
                if count != 3 {
                    return Err(bad(
                        Code::ObjBadNumber.code(),
                        n,
                        format!("`vn` needs 3 numbers (x y z), found {count}"),
                    ));
                }
                self.parsed.normals.push(nums);
            }
            "f" | "fo" => self.face(words, n)?,
            "l" | "p" => self.lines_or_points += 1,
            "o" => {
                self.parsed.objects.push((rest.to_string(), n));
                self.object = Some(self.parsed.objects.len() - 1);
            }
            "g" => {
                // `g a b` puts the faces in groups a and b; one node is named by all of them.
                let name = words.collect::<Vec<_>>().join(" ");
                self.group = if name.is_empty() {
                    None
                } else {
                    let next = self.parsed.groups.len();
                    let index = *self.group_index.entry(name.clone()).or_insert(next);
                    if index == next {
                        self.parsed.groups.push(name);
                    }
                    Some(index)
                };
            }
            "usemtl" => {
                self.material = if rest.is_empty() {
                    None
                } else {
                    let next = self.parsed.materials.len();
                    let index = *self.material_index.entry(rest.to_string()).or_insert(next);
                    if index == next {
                        self.parsed.materials.push((rest.to_string(), n));
                    }
                    Some(index)
                };
            }
            // Smoothing groups and material libraries carry nothing MSH keeps (the
            // MTL is given separately, never opened by name).
            "s" | "mtllib" => {}
            other => {
                if !self.ignored.iter().any(|k| k == other) && self.ignored.len() < 32 {
                    self.ignored.push(other.chars().take(32).collect());
                }
            }
        }
        Ok(())
    }

    fn face<'a>(&mut self, words: impl Iterator<Item = &'a str>, n: usize) -> Result<()> {
        let first = self.parsed.corners.len();
        for word in words {
            let mut parts = word.split('/');
            let v = parts.next().unwrap_or("");
            let vt = parts.next();
            let vn = parts.next();
            if parts.next().is_some() || v.is_empty() {
                return Err(bad(
                    Code::ObjBadFace.code(),
                    n,
                    format!(
                        "face corner {:?} is not v, v/vt, v//vn or v/vt/vn",
                        word.chars().take(40).collect::<String>()
                    ),
                ));
            }
            let p = &self.parsed;
            let corner = Corner {
                v: index(v, p.positions.len(), n, ("vertex", "vertices"))??,
                vt: match vt.filter(|s| !s.is_empty()) {
                    Some(s) => index(
                        s,
                        p.uvs.len(),
                        n,
                        ("texture coordinate", "texture coordinates"),
                    )?
                    .map_or(Some(DROPPED), Some),
                    None => None,
                },
                vn: match vn.filter(|s| !s.is_empty()) {
                    Some(s) => index(s, p.normals.len(), n, ("normal", "normals"))?
                        .map_or(Some(DROPPED), Some),
                    None => None,
                },
            };
            self.parsed.corners.push(corner);
        }
        let count = self.parsed.corners.len() - first;
        // An index past the texture coordinates or normals defined drops that
        // attribute for the whole face (as obj2gltf does); positions stay errors.
        let corners = &mut self.parsed.corners[first..];
        for (k, get) in [
            (
                0,
                (|c: &mut Corner| &mut c.vt) as fn(&mut Corner) -> &mut Option<u32>,
            ),
            (1, |c: &mut Corner| &mut c.vn),
        ] {
            if corners.iter_mut().any(|c| *get(c) == Some(DROPPED)) {
                corners.iter_mut().for_each(|c| *get(c) = None);
                let d = &mut self.dropped[k];
                if d.0 == 0 {
                    d.1 = n;
                }
                d.0 += 1;
            }
        }
        if count < 3 {
            return Err(bad(
                Code::ObjBadFace.code(),
                n,
                format!("a face needs at least 3 corners, this one has {count}"),
            ));
        }
        // Checked while reading (the assembler would refuse the model anyway), so
        // that a file of many faces is not held in memory several times first.
        // Every node has a face, so this bounds the nodes (65535) as well.
        self.triangles += count - 2;
        if self.triangles > MAX_TRIANGLES {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ModelTooManyTriangles.code(),
                format!(
                    "line {n}: the faces so far make {} triangles; MSH models hold at most {MAX_TRIANGLES}: decimate it or split it into several models",
                    self.triangles
                ),
            ));
        }
        self.parsed.faces.push(Face {
            object: self.object,
            group: self.group,
            material: self.material,
            first,
            count,
            line: n,
        });
        Ok(())
    }
}

/// Parses the numbers of a statement into `out`; returns how many there were.
fn numbers<'a>(
    words: impl Iterator<Item = &'a str>,
    out: &mut [f32],
    n: usize,
    what: &str,
) -> Result<usize> {
    let mut count = 0;
    for word in words {
        let x: f32 = word.parse().map_err(|_| {
            bad(
                Code::ObjBadNumber.code(),
                n,
                format!(
                    "{:?} is not a number in {what}",
                    word.chars().take(40).collect::<String>()
                ),
            )
        })?;
        if !x.is_finite() {
            return Err(bad(
                Code::ObjNonFinite.code(),
                n,
                format!(
                    "{:?} in {what} is not a finite number (or is too large for 32-bit floats)",
                    word.chars().take(40).collect::<String>()
                ),
            ));
        }
        if let Some(slot) = out.get_mut(count) {
            *slot = x;
        }
        count += 1;
    }
    Ok(count)
}

/// Marks a texture coordinate or normal index past those defined, until the
/// face is complete (no real index: at most `u32::MAX` elements are defined).
const DROPPED: u32 = u32::MAX;

/// Resolves one OBJ index (1-based, or negative: relative to the end) against
/// the `defined` elements so far. A malformed index (not an integer, 0, or
/// beyond 32 bits) is an error; one merely past those defined is the inner
/// error, which the caller may propagate (positions) or turn into a drop.
fn index(
    word: &str,
    defined: usize,
    n: usize,
    (what, plural): (&str, &str),
) -> Result<Result<u32>> {
    let shown: String = word.chars().take(40).collect();
    let value: i64 = word
        .parse()
        .ok()
        .filter(|v: &i64| v.unsigned_abs() <= u64::from(u32::MAX))
        .ok_or_else(|| {
            bad(
                Code::ObjBadIndex.code(),
                n,
                format!("{shown:?} is not a {what} index (an integer within range)"),
            )
        })?;
    let resolved = match value {
        0 => {
            return Err(bad(
                Code::ObjBadIndex.code(),
                n,
                format!(
                "{what} index 0: OBJ indices start at 1 (negative ones count back from the last)"
            ),
            ))
        }
        v if v > 0 => v - 1,
        v => defined as i64 + v,
    };
    if resolved < 0 || resolved >= defined as i64 || resolved >= i64::from(DROPPED) {
        return Ok(Err(bad(
            Code::ObjBadIndex.code(),
            n,
            format!("{what} index {shown} is out of range: {defined} {plural} are defined before this line"),
        )));
    }
    Ok(Ok(resolved as u32))
}

/// Groups the faces into nodes and batches, maps materials, triangulates.
fn build(
    p: Parsed,
    defined: Option<&HashSet<&str>>,
    options: &ObjImportOptions,
    report: &mut Report,
) -> Result<SceneModel> {
    if p.faces.is_empty() {
        return Err(Error::new(
            ErrorKind::InvalidInput,
            Code::ObjNoFaces.code(),
            "the OBJ has no faces (`f` statements), so there is no geometry for an MSH model",
        ));
    }
    let materials = map_materials(&p, defined, report)?;
    let axes = Axes {
        axis: options.axis,
        rotation: Default::default(),
    };
    // Nodes: one per `o`; without any `o`, one per `g`. Faces before the first
    // of them go to an unnamed node.
    let by_object = !p.objects.is_empty();
    let key = |f: &Face| if by_object { f.object } else { f.group };
    let mut node_of: HashMap<Option<usize>, usize> = HashMap::new();
    let mut node_keys: Vec<Option<usize>> = Vec::new();
    for f in &p.faces {
        let k = key(f);
        node_of.entry(k).or_insert_with(|| {
            node_keys.push(k);
            node_keys.len() - 1
        });
    }
    if by_object {
        let empty = p.objects.len() - node_keys.iter().filter(|k| k.is_some()).count();
        if empty > 0 {
            report.note(
                Code::ObjEmptyObjects.code(),
                format!("{empty} object(s) without faces were left out"),
            );
        }
    }
    // One batch per (node, material), in order of first appearance; in one
    // list (a list per node would reserve room for several batches in each of
    // up to 65535 nodes).
    let mut builders: Vec<(usize, u16, BatchBuilder)> = Vec::new();
    let mut fan_fallbacks = 0usize;
    let mut batch_of: HashMap<(usize, u16), usize> = HashMap::new();
    for f in &p.faces {
        let node = node_of[&key(f)];
        let material = materials[f.material.map_or(0, |m| m + 1)];
        let at = *batch_of.entry((node, material)).or_insert_with(|| {
            builders.push((node, material, BatchBuilder::default()));
            builders.len() - 1
        });
        let corners = &p.corners[f.first..f.first + f.count];
        let points: Vec<[f64; 3]> = corners
            .iter()
            .map(|c| p.positions[c.v as usize].map(f64::from))
            .collect();
        let (tris, fell_back) = triangulate(&points);
        fan_fallbacks += fell_back as usize;
        let b = &mut builders[at].2;
        let local: Vec<u32> = corners.iter().map(|c| b.vertex(*c)).collect();
        b.triangles.extend(tris.iter().map(|t| t.map(|k| local[k])));
    }
    if fan_fallbacks > 0 {
        report.note(
            Code::ObjFanTriangulation.code(),
            format!("{fan_fallbacks} non-convex polygon(s) could not be ear-clipped (self-intersecting or very large) and were cut as fans"),
        );
    }
    drop((node_of, batch_of));
    // By node, each node's batches still in order of first appearance (a
    // stable sort); every node has a face, so a batch.
    builders.sort_by_key(|b| b.0);
    let counts: Vec<usize> = builders
        .chunk_by(|a, b| a.0 == b.0)
        .map(<[_]>::len)
        .collect();
    let mut builders = builders.into_iter();
    let mut nodes = Vec::with_capacity(node_keys.len());
    let mut partial_uv = false;
    let mut partial_normals = false;
    for (k, &count) in node_keys.iter().zip(&counts) {
        // Taken by count, so each node's list is allocated to its size.
        let list = builders.by_ref().take(count);
        let name = match k {
            Some(i) if by_object => p.objects[*i].0.as_str(),
            Some(i) => p.groups[*i].as_str(),
            None => "",
        };
        let msh_name = names::node_name_from_gltf(name);
        let scene_batches = list
            .map(|(_, material, b)| {
                let (batch, uv, normals) = b.finish(&p, material, axes);
                partial_uv |= uv;
                partial_normals |= normals;
                batch
            })
            .collect();
        nodes.push(SceneNode {
            name: (!msh_name.is_empty()).then(|| msh_name.as_bytes().to_vec()),
            parent: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            hdr0: 0,
            slots: vec![SceneSlot {
                opaque: [0; 5],
                lod: 0,
                group: 0,
                batches: scene_batches,
            }],
            track: None,
        });
    }
    if partial_uv {
        report.note(
            Code::ObjPartialUvs.code(),
            "some face corners have no texture coordinate while others in the same material do; those were set to 0",
        );
    }
    if partial_normals {
        report.note(
            Code::ObjPartialNormals.code(),
            "some face corners have no usable normal (missing or zero length); their meshes' normals are computed from the faces",
        );
    }
    Ok(SceneModel { nodes })
}

/// How many materials missing from the MTL get a note each (the rest, one note).
const UNDEFINED_NOTED: usize = 16;

/// MSH material per `Parsed::materials` entry, after one for "no material":
/// `mat<k>` (and Blender's `mat<k>.001`) is `k`; every other name, and faces
/// without `usemtl`, get the lowest indices no `mat<k>` in use takes, in order
/// of appearance.
fn map_materials(
    p: &Parsed,
    defined: Option<&HashSet<&str>>,
    report: &mut Report,
) -> Result<Vec<u16>> {
    let mut used = vec![false; p.materials.len()];
    let mut unmaterialed = None;
    for f in &p.faces {
        match f.material {
            Some(m) => used[m] = true,
            None => unmaterialed = unmaterialed.or(Some(f.line)),
        }
    }
    let reserved: std::collections::BTreeSet<u16> = p
        .materials
        .iter()
        .zip(&used)
        .filter(|(_, &u)| u)
        .filter_map(|((name, _), _)| names::material_index(name))
        .collect();
    let mut out = vec![0u16; p.materials.len() + 1];
    // (line of first appearance, place in `out`, what it is)
    let mut pending: Vec<(usize, usize, String)> = Vec::new();
    if let Some(line) = unmaterialed {
        pending.push((
            line,
            0,
            format!("faces without `usemtl` (from line {line})"),
        ));
    }
    // Looked up once per material: a set, not a scan of the MTL's names (with
    // tens of thousands of both, the scan took seconds). The first names the
    // MTL lacks are noted one by one, the rest counted in one note.
    let mut undefined = 0usize;
    for (m, (name, line)) in p.materials.iter().enumerate() {
        if !used[m] {
            continue;
        }
        if defined.is_some_and(|d| !d.contains(name.as_str())) {
            undefined += 1;
            if undefined <= UNDEFINED_NOTED {
                report.note(
                    Code::ObjMaterialUndefined.code(),
                    format!("material {name:?} (line {line}) is not defined in the MTL"),
                );
            }
        }
        match names::material_index(name) {
            Some(k) => out[m + 1] = k,
            None => pending.push((*line, m + 1, format!("material {name:?} (line {line})"))),
        }
    }
    if undefined > UNDEFINED_NOTED {
        report.note(
            Code::ObjMaterialUndefined.code(),
            format!(
                "and {} more material(s) are not defined in the MTL",
                undefined - UNDEFINED_NOTED
            ),
        );
    }
    pending.sort_by_key(|p| p.0);
    let mut free = (0..=u16::MAX).filter(|k| !reserved.contains(k));
    for (_, at, what) in pending {
        let Some(k) = free.next() else {
            return Err(Error::new(
                ErrorKind::Unsupported,
                Code::ObjTooManyMaterials.code(),
                "more than 65536 materials: MSH material indices are 16-bit; merge materials first",
            ));
        };
        out[at] = k;
        report.note(
            Code::ObjMaterialAssigned.code(),
            format!("{what} has no mat<index> name; it becomes MSH material {k}"),
        );
    }
    Ok(out)
}

/// One batch being built: corners deduplicated by their (v, vt, vn) triple.
#[derive(Default)]
struct BatchBuilder {
    corners: Vec<Corner>,
    /// Corner -> vertex, once the batch has more than [`SCANNED`] vertices
    /// (below, a scan of `corners` is as fast and a batch of one face, of which
    /// an OBJ may have tens of thousands, costs no map, and a pointer's room).
    #[allow(clippy::box_collection)] // a pointer, not a map's 48 bytes, in every batch
    index: Option<Box<HashMap<Corner, u32>>>,
    triangles: Vec<[u32; 3]>,
}

/// Vertices a batch finds its corners among by a scan.
const SCANNED: usize = 16;

impl BatchBuilder {
    fn vertex(&mut self, c: Corner) -> u32 {
        let next = self.corners.len() as u32;
        if self.corners.len() <= SCANNED {
            if let Some(at) = self.corners.iter().position(|&k| k == c) {
                return at as u32;
            }
            self.corners.push(c);
            if self.corners.len() > SCANNED {
                self.index = Some(Box::new(
                    (0..).zip(&self.corners).map(|(i, &k)| (k, i)).collect(),
                ));
            }
            return next;
        }
        let index = self.index.get_or_insert_default();
        *index.entry(c).or_insert_with(|| {
            self.corners.push(c);
            next
        })
    }

    /// The scene batch, and whether UVs or normals were only partly present.
    fn finish(self, p: &Parsed, material: u16, axes: Axes) -> (SceneBatch, bool, bool) {
        let c = &self.corners;
        let any_uv = c.iter().any(|c| c.vt.is_some());
        let uv0 = any_uv.then(|| {
            c.iter()
                .map(|c| c.vt.map_or([0.0, 0.0], |t| p.uvs[t as usize]))
                .collect::<Vec<_>>()
        });
        let partial_uv = any_uv && c.iter().any(|c| c.vt.is_none());
        let normals: Option<Vec<[f32; 3]>> = c
            .iter()
            .map(|c| {
                let n = p.normals[c.vn? as usize].map(f64::from);
                let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                (len > 1e-12).then(|| axes.vec_back(n.map(|x| (x / len) as f32)))
            })
            .collect();
        let partial_normals = normals.is_none() && c.iter().any(|c| c.vn.is_some());
        let colors = c
            .iter()
            .map(|c| {
                p.colours[c.v as usize].map(|rgb| {
                    let b = rgb.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8);
                    [b[0], b[1], b[2], 255]
                })
            })
            .collect();
        let batch = SceneBatch {
            fields: [0; 4],
            material,
            positions: c
                .iter()
                .map(|c| axes.vec_back(p.positions[c.v as usize]))
                .collect(),
            normals,
            uv0,
            uv1: None,
            colors,
            triangles: self.triangles,
        };
        (batch, partial_uv, partial_normals)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch numbers its vertices in order of first appearance whether it
    /// finds a corner by its scan (small batches) or its map (past
    /// [`SCANNED`]), and across the switch.
    #[test]
    fn corners_are_numbered_by_first_appearance_on_both_paths() {
        let corner = |i: u32| Corner {
            v: i,
            vt: i.is_multiple_of(3).then_some(i),
            vn: i.is_multiple_of(2).then_some(i / 2),
        };
        let mut b = BatchBuilder::default();
        let n = 3 * SCANNED as u32;
        for round in 0..3 {
            for i in 0..n {
                // Each round walks the corners in another order; the numbers stay.
                let i = if round == 1 { n - 1 - i } else { i };
                assert_eq!(b.vertex(corner(i)), i, "round {round}, corner {i}");
            }
        }
        assert_eq!(b.corners.len(), n as usize);
        assert_eq!(
            b.index.as_ref().map(|m| m.len()),
            Some(n as usize),
            "the map holds every vertex"
        );
        // Same position, other UV or normal: another vertex.
        let mut other = corner(4);
        other.vt = Some(99);
        assert_eq!(b.vertex(other), n);
        let mut small = BatchBuilder::default();
        assert_eq!(
            [corner(1), corner(2), corner(1), corner(3), corner(2)].map(|c| small.vertex(c)),
            [0, 1, 0, 2, 1]
        );
        assert!(small.index.is_none(), "a small batch has no map");
    }
}

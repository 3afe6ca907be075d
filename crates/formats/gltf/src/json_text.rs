//! The JSON text of an exported glTF document, written straight into bytes.
//!
//! serde_json, through gltf-json's derived `Serialize`, spent about a third of
//! an export on the shapes every model has by the hundred: accessors, buffer
//! views, meshes and their primitives, nodes (a call per field, every key
//! escaped, an output that grows by doubling). This writer produces exactly the
//! bytes `serde_json::to_vec(&root)` produces (tests compare the two over every
//! generated model and over documents that set every field), with the keys as
//! constants and the numbers through the formatters serde_json itself uses
//! (itoa for integers, zmij for floats).
//!
//! Every struct it writes is destructured in full, so a field that a new
//! gltf-json adds fails to compile here rather than going missing from the
//! output. The `msh` extras of meshes, nodes and the scene are written here
//! from their typed form too (serde, through a raw value per mesh and per
//! node, was another 5% of an export, and about 3% for the nodes; the
//! scene's, once per model, ~1%: measured in bench/RESULTS.md, session 8).
//! The rarer shapes (animations, materials, the asset, and the fields the
//! exporter never sets, such as cameras or sparse accessors) are handed to
//! serde, so they are written exactly as before too.

use super::extras::{
    BatchExtras, Counts, EntryExtras, Gap, ModelExtras, NodeExtras, NodeMsh, OptionsExtras,
    RawAccessors, SlotExtras, SlotNodeExtras,
};
use super::extras_safe;
use gltf_json as json;
use json::validation::Checked;
use serde::Serialize;
use serde_json::Value;

/// The `msh` extras the exporter keeps typed: `meshes[i]` for mesh `i`,
/// `nodes[i]` for node `i` (either list may be shorter than the document's),
/// `scene` for the first scene.
#[derive(Debug, Clone, Copy, Default)]
pub struct Typed<'a> {
    /// The first scene's (the model's).
    pub scene: Option<&'a ModelExtras>,
    /// Per mesh.
    pub meshes: &'a [SlotExtras],
    /// Per node.
    pub nodes: &'a [NodeMsh],
}

/// Appends the JSON of `root` to `out`: the same bytes as `serde_json::to_vec`
/// of `root` with each mesh's and node's `extras` set to `{"msh": typed}`
/// from `typed` (one whose `extras` is already set keeps its own).
///
/// # Errors
/// As serde_json's: an `Invalid` enum value (which the exporter never builds)
/// cannot be written.
pub fn write(root: &json::Root, typed: Typed<'_>, out: &mut Vec<u8>) -> serde_json::Result<()> {
    let json::Root {
        accessors,
        animations,
        asset,
        buffers,
        buffer_views,
        scene,
        extensions,
        extras,
        extensions_used,
        extensions_required,
        cameras,
        images,
        materials,
        meshes,
        nodes,
        samplers,
        scenes,
        skins,
        textures,
    } = root;
    out.reserve(
        256 + accessors.len() * 112
            + buffer_views.len() * 72
            + meshes.len() * 512
            + nodes.len() * 160,
    );
    let mut o = Object::open(out);
    if !accessors.is_empty() {
        o.key(b"accessors");
        array(o.out, accessors, accessor)?;
    }
    o.serde_if(b"animations", !animations.is_empty(), animations)?;
    o.serde(b"asset", asset)?;
    o.serde_if(b"buffers", !buffers.is_empty(), buffers)?;
    if !buffer_views.is_empty() {
        o.key(b"bufferViews");
        array(o.out, buffer_views, view)?;
    }
    if let Some(scene) = scene {
        o.key(b"scene");
        index(o.out, scene);
    }
    o.serde_opt(b"extensions", extensions)?;
    o.extras(extras);
    o.serde_if(
        b"extensionsUsed",
        !extensions_used.is_empty(),
        extensions_used,
    )?;
    o.serde_if(
        b"extensionsRequired",
        !extensions_required.is_empty(),
        extensions_required,
    )?;
    o.serde_if(b"cameras", !cameras.is_empty(), cameras)?;
    o.serde_if(b"images", !images.is_empty(), images)?;
    o.serde_if(b"materials", !materials.is_empty(), materials)?;
    if !meshes.is_empty() {
        o.key(b"meshes");
        array_typed(o.out, meshes, typed.meshes, mesh)?;
    }
    if !nodes.is_empty() {
        o.key(b"nodes");
        array_typed(o.out, nodes, typed.nodes, node)?;
    }
    o.serde_if(b"samplers", !samplers.is_empty(), samplers)?;
    if !scenes.is_empty() {
        o.key(b"scenes");
        array_typed(o.out, scenes, typed.scene.as_slice(), scene_object)?;
    }
    o.serde_if(b"skins", !skins.is_empty(), skins)?;
    o.serde_if(b"textures", !textures.is_empty(), textures)?;
    o.close();
    Ok(())
}

fn accessor(out: &mut Vec<u8>, a: &json::Accessor) -> serde_json::Result<()> {
    let json::Accessor {
        buffer_view,
        byte_offset,
        count,
        component_type,
        extensions,
        extras,
        type_,
        min,
        max,
        name,
        normalized,
        sparse,
    } = a;
    let mut o = Object::open(out);
    if let Some(v) = buffer_view {
        o.key(b"bufferView");
        index(o.out, v);
    }
    if let Some(offset) = byte_offset {
        o.key(b"byteOffset");
        uint(o.out, offset.0);
    }
    o.key(b"count");
    uint(o.out, count.0);
    o.key(b"componentType");
    match component_type {
        Checked::Valid(c) => uint(o.out, u64::from(c.0.as_gl_enum())),
        Checked::Invalid => serde(o.out, component_type)?,
    }
    o.serde_opt(b"extensions", extensions)?;
    o.extras(extras);
    o.key(b"type");
    match type_ {
        Checked::Valid(t) => o.out.extend_from_slice(type_name(*t)),
        Checked::Invalid => serde(o.out, type_)?,
    }
    if let Some(min) = min {
        o.key(b"min");
        value(o.out, min)?;
    }
    if let Some(max) = max {
        o.key(b"max");
        value(o.out, max)?;
    }
    o.name(name)?;
    if *normalized {
        o.key(b"normalized");
        o.out.extend_from_slice(b"true");
    }
    o.serde_opt(b"sparse", sparse)?;
    o.close();
    Ok(())
}

fn view(out: &mut Vec<u8>, v: &json::buffer::View) -> serde_json::Result<()> {
    let json::buffer::View {
        buffer,
        byte_length,
        byte_offset,
        byte_stride,
        name,
        target,
        extensions,
        extras,
    } = v;
    let mut o = Object::open(out);
    o.key(b"buffer");
    index(o.out, buffer);
    o.key(b"byteLength");
    uint(o.out, byte_length.0);
    if let Some(offset) = byte_offset {
        o.key(b"byteOffset");
        uint(o.out, offset.0);
    }
    o.serde_opt(b"byteStride", byte_stride)?;
    o.name(name)?;
    match target {
        Some(Checked::Valid(t)) => {
            o.key(b"target");
            uint(
                o.out,
                match t {
                    json::buffer::Target::ArrayBuffer => u64::from(json::buffer::ARRAY_BUFFER),
                    json::buffer::Target::ElementArrayBuffer => {
                        u64::from(json::buffer::ELEMENT_ARRAY_BUFFER)
                    }
                },
            );
        }
        Some(invalid) => o.serde(b"target", invalid)?,
        None => {}
    }
    o.serde_opt(b"extensions", extensions)?;
    o.extras(extras);
    o.close();
    Ok(())
}

fn scene_object(
    out: &mut Vec<u8>,
    s: &json::Scene,
    typed: Option<&&ModelExtras>,
) -> serde_json::Result<()> {
    let json::Scene {
        extensions,
        extras,
        name,
        nodes,
    } = s;
    let mut o = Object::open(out);
    o.serde_opt(b"extensions", extensions)?;
    o.extras_or(extras, typed.copied(), model_extras)?;
    o.name(name)?;
    // serde skips it when empty.
    if !nodes.is_empty() {
        o.key(b"nodes");
        array(o.out, nodes, |out, i| {
            index(out, i);
            Ok(())
        })?;
    }
    o.close();
    Ok(())
}

fn mesh(out: &mut Vec<u8>, m: &json::Mesh, typed: Option<&SlotExtras>) -> serde_json::Result<()> {
    let json::Mesh {
        extensions,
        extras,
        name,
        primitives,
        weights,
    } = m;
    let mut o = Object::open(out);
    o.serde_opt(b"extensions", extensions)?;
    o.extras_or(extras, typed, slot_extras)?;
    o.name(name)?;
    o.key(b"primitives");
    array(o.out, primitives, primitive)?;
    o.serde_opt(b"weights", weights)?;
    o.close();
    Ok(())
}

fn primitive(out: &mut Vec<u8>, p: &json::mesh::Primitive) -> serde_json::Result<()> {
    let json::mesh::Primitive {
        attributes,
        extensions,
        extras,
        indices,
        material,
        mode,
        targets,
    } = p;
    let mut o = Object::open(out);
    o.key(b"attributes");
    let mut a = Object::open(&mut *o.out);
    for (semantic, accessor) in attributes {
        match semantic {
            Checked::Valid(json::mesh::Semantic::Positions) => a.key(b"POSITION"),
            Checked::Valid(json::mesh::Semantic::Normals) => a.key(b"NORMAL"),
            Checked::Valid(json::mesh::Semantic::TexCoords(set)) => {
                a.key_numbered(b"TEXCOORD_", *set)
            }
            Checked::Valid(json::mesh::Semantic::Colors(set)) => a.key_numbered(b"COLOR_", *set),
            // The rest as serde writes a map key: the semantic's name as a string.
            other => {
                a.comma();
                serde(a.out, other)?;
                a.out.push(b':');
            }
        }
        index(a.out, accessor);
    }
    a.close();
    o.serde_opt(b"extensions", extensions)?;
    o.extras(extras);
    if let Some(indices) = indices {
        o.key(b"indices");
        index(o.out, indices);
    }
    if let Some(material) = material {
        o.key(b"material");
        index(o.out, material);
    }
    // serde skips the default mode (triangles).
    match mode {
        Checked::Valid(json::mesh::Mode::Triangles) => {}
        Checked::Valid(m) => {
            o.key(b"mode");
            uint(o.out, u64::from(m.as_gl_enum()));
        }
        Checked::Invalid => o.serde(b"mode", mode)?,
    }
    o.serde_opt(b"targets", targets)?;
    o.close();
    Ok(())
}

fn node(out: &mut Vec<u8>, n: &json::Node, typed: Option<&NodeMsh>) -> serde_json::Result<()> {
    let json::Node {
        camera,
        children,
        extensions,
        extras,
        matrix,
        mesh,
        name,
        rotation,
        scale,
        translation,
        skin,
        weights,
    } = n;
    let mut o = Object::open(out);
    if let Some(camera) = camera {
        o.key(b"camera");
        index(o.out, camera);
    }
    if let Some(children) = children {
        o.key(b"children");
        o.out.push(b'[');
        for (i, child) in children.iter().enumerate() {
            if i > 0 {
                o.out.push(b',');
            }
            index(o.out, child);
        }
        o.out.push(b']');
    }
    o.serde_opt(b"extensions", extensions)?;
    o.extras_or(extras, typed, node_extras)?;
    if let Some(matrix) = matrix {
        o.key(b"matrix");
        floats(o.out, matrix);
    }
    if let Some(mesh) = mesh {
        o.key(b"mesh");
        index(o.out, mesh);
    }
    o.name(name)?;
    if let Some(rotation) = rotation {
        o.key(b"rotation");
        floats(o.out, &rotation.0);
    }
    if let Some(scale) = scale {
        o.key(b"scale");
        floats(o.out, scale);
    }
    if let Some(translation) = translation {
        o.key(b"translation");
        floats(o.out, translation);
    }
    if let Some(skin) = skin {
        o.key(b"skin");
        index(o.out, skin);
    }
    o.serde_opt(b"weights", weights)?;
    o.close();
    Ok(())
}

/// The scene's `extras.msh`, as serde writes [`ModelExtras`].
fn model_extras(out: &mut Vec<u8>, e: &ModelExtras) -> serde_json::Result<()> {
    let ModelExtras {
        format,
        options,
        kind,
        winding,
        header,
        counts,
        frame_count,
        keep_frame_count,
        entries,
        leading,
        physical_order,
        keep_sort_index,
        raw,
        vertex_gaps,
        index_gaps,
        batch_gaps,
        accessors,
        buffer_length,
        empty_slots,
        original,
    } = e;
    let mut o = Object::open(out);
    o.string(b"format", format.as_str())?;
    let OptionsExtras {
        lod,
        group,
        fps,
        axis,
        rotation,
    } = options;
    o.key(b"options");
    let mut p = Object::open(o.out);
    p.uint(b"lod", u64::from(*lod));
    p.uint(b"group", u64::from(*group));
    p.key(b"fps");
    float(p.out, *fps);
    p.string(b"axis", axis.as_str())?;
    p.string(b"rotation", rotation.as_str())?;
    p.close();
    o.string(b"kind", kind.as_str())?;
    o.string(b"winding", winding.as_str())?;
    o.string_opt(b"header", header)?;
    let Counts {
        vertices,
        indices,
        tri_descs,
        batches,
        slots,
        keys,
        map_words,
    } = counts;
    o.key(b"counts");
    let mut c = Object::open(o.out);
    for (key, v) in [
        (&b"vertices"[..], vertices),
        (b"indices", indices),
        (b"tri_descs", tri_descs),
        (b"batches", batches),
        (b"slots", slots),
        (b"keys", keys),
        (b"map_words", map_words),
    ] {
        c.uint(key, u64::from(*v));
    }
    c.close();
    o.uint(b"frame_count", u64::from(*frame_count));
    // serde skips it when false.
    if *keep_frame_count {
        o.bool(b"keep_frame_count", true);
    }
    o.key(b"entries");
    array(o.out, entries, entry_extras)?;
    o.string_opt(b"leading", leading)?;
    if let Some(order) = physical_order {
        o.key(b"physical_order");
        ints(o.out, order.iter().map(|&i| i64::from(i)));
    }
    o.bool(b"keep_sort_index", *keep_sort_index);
    let RawAccessors {
        normals,
        stream15,
        stream16,
        tri_descs,
        keys,
        map,
    } = raw;
    o.key(b"raw");
    let mut r = Object::open(o.out);
    for (key, v) in [
        (&b"normals"[..], normals),
        (b"stream15", stream15),
        (b"stream16", stream16),
        (b"tri_descs", tri_descs),
        (b"keys", keys),
        (b"map", map),
    ] {
        if let Some(v) = v {
            r.uint(key, u64::from(*v));
        }
    }
    r.close();
    for (key, gaps) in [
        (&b"vertex_gaps"[..], vertex_gaps),
        (b"index_gaps", index_gaps),
        (b"batch_gaps", batch_gaps),
    ] {
        if !gaps.is_empty() {
            o.key(key);
            array(o.out, gaps, gap)?;
        }
    }
    o.uint(b"accessors", u64::from(*accessors));
    o.uint(b"buffer_length", *buffer_length);
    if !empty_slots.is_empty() {
        o.key(b"empty_slots");
        array(o.out, empty_slots, slot_extras)?;
    }
    o.string_opt(b"original", original)?;
    o.close();
    Ok(())
}

/// One directory entry of [`ModelExtras`], as serde writes [`EntryExtras`].
fn entry_extras(out: &mut Vec<u8>, e: &EntryExtras) -> serde_json::Result<()> {
    let EntryExtras {
        type_id,
        name,
        name_field,
        attrs,
        sort_index,
        filler,
        offset,
        data,
    } = e;
    let mut o = Object::open(out);
    o.uint(b"type", u64::from(*type_id));
    o.string(b"name", name)?;
    o.string_opt(b"name_field", name_field)?;
    // The forms of `extras_safe`, which Blender keeps.
    if let Some(attrs) = attrs {
        o.key(b"attrs");
        if attrs.iter().any(|&v| extras_safe::as_text(v)) {
            o.out.push(b'[');
            for (k, v) in attrs.iter().enumerate() {
                if k > 0 {
                    o.out.push(b',');
                }
                string(o.out, &v.to_string())?;
            }
            o.out.push(b']');
        } else {
            ints(o.out, attrs.iter().copied());
        }
    }
    if let Some(v) = sort_index {
        if extras_safe::as_text(i64::from(*v)) {
            o.string(b"sort_index", &v.to_string())?;
        } else {
            o.uint(b"sort_index", u64::from(*v));
        }
    }
    if let Some((len, bytes)) = filler {
        o.key(b"filler");
        let mut f = Object::open(o.out);
        f.uint(b"after", u64::from(*len));
        f.string(b"bytes", bytes)?;
        f.close();
    }
    if let Some(v) = offset {
        o.uint(b"offset", u64::from(*v));
    }
    o.string_opt(b"data", data)?;
    o.close();
    Ok(())
}

/// A range of raw records, as serde writes [`Gap`].
fn gap(out: &mut Vec<u8>, g: &Gap) -> serde_json::Result<()> {
    let Gap { start, count, data } = g;
    let mut o = Object::open(out);
    o.uint(b"start", u64::from(*start));
    o.uint(b"count", u64::from(*count));
    o.string(b"data", data)?;
    o.close();
    Ok(())
}

/// A mesh's `extras.msh`, as serde writes [`SlotExtras`].
fn slot_extras(out: &mut Vec<u8>, e: &SlotExtras) -> serde_json::Result<()> {
    let SlotExtras {
        slot,
        tri_start,
        tri_count,
        batch_start,
        record,
        batches,
    } = e;
    let mut o = Object::open(out);
    o.key(b"slot");
    uint(o.out, u64::from(*slot));
    o.key(b"tri_start");
    uint(o.out, u64::from(*tri_start));
    o.key(b"tri_count");
    uint(o.out, u64::from(*tri_count));
    o.key(b"batch_start");
    uint(o.out, u64::from(*batch_start));
    o.string_opt(b"record", record)?;
    o.key(b"batches");
    array(o.out, batches, |out, b| {
        batch_extras(out, b);
        Ok(())
    })?;
    o.close();
    Ok(())
}

/// A node's `extras.msh`, as serde writes [`NodeMsh`].
fn node_extras(out: &mut Vec<u8>, e: &NodeMsh) -> serde_json::Result<()> {
    let mut o = Object::open(out);
    match e {
        NodeMsh::Node(NodeExtras {
            node,
            hdr0,
            name_raw,
            unnamed,
            rest_quat,
            anim,
        }) => {
            o.uint(b"node", u64::from(*node));
            o.uint(b"hdr0", u64::from(*hdr0));
            o.string_opt(b"name_raw", name_raw)?;
            // serde skips it when false.
            if *unnamed {
                o.bool(b"unnamed", true);
            }
            if let Some(q) = rest_quat {
                o.key(b"rest_quat");
                ints(o.out, q.iter().map(|&c| i64::from(c)));
            }
            if let Some(anim) = anim {
                o.key(b"anim");
                ints(o.out, anim.iter().map(|&c| i64::from(c)));
            }
        }
        NodeMsh::Slot(SlotNodeExtras {
            owner,
            lod,
            group,
            shown,
            slot,
        }) => {
            o.uint(b"owner", u64::from(*owner));
            o.uint(b"lod", u64::from(*lod));
            o.uint(b"group", u64::from(*group));
            o.bool(b"shown", *shown);
            o.uint(b"slot", u64::from(*slot));
        }
    }
    o.close();
    Ok(())
}

fn batch_extras(out: &mut Vec<u8>, b: &BatchExtras) {
    let BatchExtras {
        material,
        flags,
        opaque4,
        opaque6,
        opaque14,
        index_start,
        base_vertex,
        first_vertex,
        index_count,
        vertex_count,
    } = b;
    let mut o = Object::open(out);
    o.key(b"material");
    uint(o.out, u64::from(*material));
    // serde skips these when zero.
    for (key, v) in [
        (&b"flags"[..], flags),
        (b"opaque4", opaque4),
        (b"opaque6", opaque6),
        (b"opaque14", opaque14),
    ] {
        if *v != 0 {
            o.key(key);
            uint(o.out, u64::from(*v));
        }
    }
    for (key, v) in [
        (&b"index_start"[..], index_start),
        (b"base_vertex", base_vertex),
        (b"first_vertex", first_vertex),
        (b"index_count", index_count),
        (b"vertex_count", vertex_count),
    ] {
        o.key(key);
        uint(o.out, u64::from(*v));
    }
    o.close();
}

/// An object being written: commas between members, keys written as given.
struct Object<'a> {
    out: &'a mut Vec<u8>,
    empty: bool,
}

impl<'a> Object<'a> {
    fn open(out: &'a mut Vec<u8>) -> Self {
        out.push(b'{');
        Object { out, empty: true }
    }

    fn close(self) {
        self.out.push(b'}');
    }

    fn comma(&mut self) {
        if !self.empty {
            self.out.push(b',');
        }
        self.empty = false;
    }

    /// A key that needs no escaping (the callers' are glTF names).
    fn key(&mut self, key: &[u8]) {
        self.comma();
        self.out.push(b'"');
        self.out.extend_from_slice(key);
        self.out.extend_from_slice(b"\":");
    }

    /// `prefix` followed by a set number, as `TEXCOORD_0`.
    fn key_numbered(&mut self, prefix: &[u8], set: u32) {
        self.comma();
        self.out.push(b'"');
        self.out.extend_from_slice(prefix);
        uint(self.out, u64::from(set));
        self.out.extend_from_slice(b"\":");
    }

    /// `name`, when present.
    fn name(&mut self, name: &Option<String>) -> serde_json::Result<()> {
        if let Some(name) = name {
            self.key(b"name");
            string(self.out, name)?;
        }
        Ok(())
    }

    /// `extras`, when present: the raw JSON as stored.
    fn extras(&mut self, extras: &json::extras::Extras) {
        if let Some(raw) = extras {
            self.key(b"extras");
            self.out.extend_from_slice(raw.get().as_bytes());
        }
    }

    /// An unsigned integer member.
    fn uint(&mut self, key: &[u8], v: u64) {
        self.key(key);
        uint(self.out, v);
    }

    /// A string member.
    fn string(&mut self, key: &[u8], v: &str) -> serde_json::Result<()> {
        self.key(key);
        string(self.out, v)
    }

    /// A string member when present (serde's `skip_serializing_if = "Option::is_none"`).
    fn string_opt(&mut self, key: &[u8], v: &Option<String>) -> serde_json::Result<()> {
        match v {
            Some(v) => self.string(key, v),
            None => Ok(()),
        }
    }

    /// A boolean member.
    fn bool(&mut self, key: &[u8], v: bool) {
        self.key(key);
        self.out
            .extend_from_slice(if v { &b"true"[..] } else { b"false" });
    }

    /// `extras`: the raw JSON as stored when present, else `{"msh": typed}`
    /// written by `write_typed`, else nothing.
    fn extras_or<T>(
        &mut self,
        extras: &json::extras::Extras,
        typed: Option<&T>,
        write_typed: fn(&mut Vec<u8>, &T) -> serde_json::Result<()>,
    ) -> serde_json::Result<()> {
        match (extras, typed) {
            (None, Some(typed)) => {
                self.key(b"extras");
                self.out.extend_from_slice(b"{\"msh\":");
                write_typed(self.out, typed)?;
                self.out.push(b'}');
            }
            _ => self.extras(extras),
        }
        Ok(())
    }

    fn serde<T: Serialize + ?Sized>(&mut self, key: &[u8], v: &T) -> serde_json::Result<()> {
        self.key(key);
        serde(self.out, v)
    }

    fn serde_if<T: Serialize + ?Sized>(
        &mut self,
        key: &[u8],
        present: bool,
        v: &T,
    ) -> serde_json::Result<()> {
        if present {
            self.serde(key, v)?;
        }
        Ok(())
    }

    fn serde_opt<T: Serialize>(&mut self, key: &[u8], v: &Option<T>) -> serde_json::Result<()> {
        match v {
            Some(v) => self.serde(key, v),
            None => Ok(()),
        }
    }
}

fn array<T>(
    out: &mut Vec<u8>,
    items: &[T],
    mut write: impl FnMut(&mut Vec<u8>, &T) -> serde_json::Result<()>,
) -> serde_json::Result<()> {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item)?;
    }
    out.push(b']');
    Ok(())
}

/// [`array`], each item written with its typed extras (`typed[i]`, if any).
fn array_typed<T, U>(
    out: &mut Vec<u8>,
    items: &[T],
    typed: &[U],
    write: fn(&mut Vec<u8>, &T, Option<&U>) -> serde_json::Result<()>,
) -> serde_json::Result<()> {
    let mut typed = typed.iter();
    array(out, items, |out, item| write(out, item, typed.next()))
}

fn serde<T: Serialize + ?Sized>(out: &mut Vec<u8>, v: &T) -> serde_json::Result<()> {
    serde_json::to_writer(out, v)
}

fn uint(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// Signed integers as a JSON array.
fn ints(out: &mut Vec<u8>, v: impl Iterator<Item = i64>) {
    out.push(b'[');
    for (i, v) in v.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
    }
    out.push(b']');
}

fn index<T>(out: &mut Vec<u8>, i: &json::Index<T>) {
    uint(out, i.value() as u64);
}

/// An f32 as serde_json writes one: shortest round-trip digits, `null` if not finite.
fn float(out: &mut Vec<u8>, v: f32) {
    if v.is_finite() {
        out.extend_from_slice(zmij::Buffer::new().format_finite(v).as_bytes());
    } else {
        out.extend_from_slice(b"null");
    }
}

fn floats(out: &mut Vec<u8>, v: &[f32]) {
    out.push(b'[');
    for (i, &x) in v.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        float(out, x);
    }
    out.push(b']');
}

/// A JSON value; arrays and numbers (accessor bounds) directly, the rest by serde.
fn value(out: &mut Vec<u8>, v: &Value) -> serde_json::Result<()> {
    match v {
        Value::Array(items) => array(out, items, value),
        Value::Number(n) => {
            if let Some(u) = n.as_u64() {
                uint(out, u);
            } else if let Some(i) = n.as_i64() {
                out.extend_from_slice(itoa::Buffer::new().format(i).as_bytes());
            } else {
                match n.as_f64() {
                    Some(f) if f.is_finite() => {
                        out.extend_from_slice(zmij::Buffer::new().format_finite(f).as_bytes())
                    }
                    _ => serde(out, n)?,
                }
            }
            Ok(())
        }
        other => serde(out, other),
    }
}

/// A string: as is between quotes when nothing in it needs escaping, else by serde.
fn string(out: &mut Vec<u8>, s: &str) -> serde_json::Result<()> {
    if s.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.push(b'"');
        out.extend_from_slice(s.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        serde(out, s)
    }
}

fn type_name(t: json::accessor::Type) -> &'static [u8] {
    use json::accessor::Type;
    match t {
        Type::Scalar => b"\"SCALAR\"",
        Type::Vec2 => b"\"VEC2\"",
        Type::Vec3 => b"\"VEC3\"",
        Type::Vec4 => b"\"VEC4\"",
        Type::Mat2 => b"\"MAT2\"",
        Type::Mat3 => b"\"MAT3\"",
        Type::Mat4 => b"\"MAT4\"",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::document;
    use crate::extras::wrap;
    use crate::options::ExportOptions;
    use proptest::prelude::*;

    /// What serde writes for the same document, typed extras set as raw values.
    fn by_serde(root: &json::Root, typed: Typed<'_>) -> Vec<u8> {
        let mut root = root.clone();
        for (m, e) in root.meshes.iter_mut().zip(typed.meshes) {
            if m.extras.is_none() {
                m.extras = wrap(e);
            }
        }
        for (n, e) in root.nodes.iter_mut().zip(typed.nodes) {
            if n.extras.is_none() {
                n.extras = wrap(e);
            }
        }
        for (s, e) in root.scenes.iter_mut().zip(typed.scene) {
            if s.extras.is_none() {
                s.extras = wrap(e);
            }
        }
        serde_json::to_vec(&root).unwrap()
    }

    fn ours(root: &json::Root, typed: Typed<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        write(root, typed, &mut out).unwrap();
        out
    }

    #[test]
    fn every_generated_model_is_written_as_serde_writes_it() {
        let files = mshconv_fixtures::generate(
            mshconv_fixtures::Set::Small,
            mshconv_fixtures::DEFAULT_SEED,
        );
        let (mut written, mut with_nodes) = (0, 0);
        for f in files
            .iter()
            .filter(|f| !f.path.starts_with("damaged/") && f.path.ends_with(".msh"))
        {
            let Ok(doc) = document(&f.bytes, &ExportOptions::default()) else {
                continue;
            };
            assert!(
                !doc.root.meshes.is_empty() || doc.mesh_extras.is_empty(),
                "{}",
                f.path
            );
            assert!(doc.node_extras.len() <= doc.root.nodes.len(), "{}", f.path);
            with_nodes += usize::from(!doc.node_extras.is_empty());
            let text = String::from_utf8(ours(&doc.root, doc.typed())).unwrap();
            assert_eq!(
                text,
                String::from_utf8(by_serde(&doc.root, doc.typed())).unwrap(),
                "{}",
                f.path
            );
            assert!(
                text.contains(r#""scenes":[{"extras":{"msh":{"format":"mshconv/1","#),
                "{}",
                f.path
            );
            written += 1;
        }
        assert!(written > 40, "only {written} models exported");
        assert!(with_nodes > 30, "only {with_nodes} models with node extras");
    }

    /// Every field of the shapes written by hand set, and the rare ones handed
    /// to serde: the text is still serde's.
    #[test]
    fn a_document_with_every_field_set_is_written_as_serde_writes_it() {
        let text = r#"{
          "asset": {"version": "2.0", "generator": "t\"ab\u0001"},
          "extensionsUsed": ["KHR_x"], "extensionsRequired": ["KHR_x"],
          "extras": {"a": [1, -2, 3.5]},
          "scene": 0, "scenes": [{"nodes": [0]}],
          "buffers": [{"byteLength": 64, "uri": "a.bin"}],
          "bufferViews": [
            {"buffer": 0, "byteLength": 64, "byteOffset": 4, "byteStride": 12, "name": "v\n", "target": 34963, "extras": {"k": 1}},
            {"buffer": 0, "byteLength": 8}
          ],
          "accessors": [
            {"bufferView": 0, "byteOffset": 8, "count": 2, "componentType": 5121, "type": "MAT4",
             "normalized": true, "name": "a\\b", "min": [0, -1, 1e300, 2.5e-8], "max": [18446744073709551615, -9223372036854775808],
             "extras": [1], "sparse": {"count": 1, "indices": {"bufferView": 1, "componentType": 5123}, "values": {"bufferView": 1}}},
            {"count": 0, "componentType": 5126, "type": "SCALAR", "min": ["x", null, true, {"o": 1}], "max": []}
          ],
          "meshes": [
            {"name": "m", "weights": [0.5, 1e-9], "extras": {"own": true}, "primitives": [
              {"attributes": {"POSITION": 0, "NORMAL": 1, "TANGENT": 2, "TEXCOORD_3": 3, "COLOR_1": 4, "JOINTS_0": 5, "WEIGHTS_2": 6, "_CUSTOM": 7},
               "indices": 1, "material": 0, "mode": 5, "targets": [{"POSITION": 1}], "extras": {"p": 1}},
              {"attributes": {}, "mode": 4}
            ]},
            {"primitives": []}
          ],
          "nodes": [
            {"camera": 0, "children": [1, 2], "matrix": [1,0,0,0,0,1,0,0,0,0,1,0,0.1,0.2,0.3,1], "mesh": 0, "skin": 0, "weights": [0.25],
             "name": "n\u00e9\t", "extras": {"n": 0}},
            {"rotation": [0, 0, 0.70710677, 0.70710677], "scale": [1e-30, 3.4028235e38, -0.0], "translation": [-1.5, 0, 7e-45]},
            {}
          ],
          "cameras": [{"type": "perspective", "perspective": {"yfov": 1, "znear": 0.1}}],
          "skins": [{"joints": [0]}],
          "materials": [{"name": "mat"}],
          "animations": [{"channels": [], "samplers": []}],
          "images": [{"uri": "i.png"}], "samplers": [{}], "textures": [{"source": 0}]
        }"#;
        let root: json::Root = serde_json::from_str(text).unwrap();
        let typed = SlotExtras {
            slot: 3,
            record: Some("AAAA".into()),
            ..Default::default()
        };
        let node = NodeMsh::Slot(SlotNodeExtras {
            owner: 1,
            shown: true,
            ..Default::default()
        });
        // The first mesh and node keep their own extras, the second get the
        // typed ones.
        let mut expected_root = root.clone();
        expected_root.meshes[1].extras = wrap(&typed);
        expected_root.nodes[1].extras = wrap(&node);
        let meshes = [SlotExtras::default(), typed];
        let nodes = [NodeMsh::Node(NodeExtras::default()), node];
        let expected = serde_json::to_vec(&expected_root).unwrap();
        let typed = Typed {
            scene: None,
            meshes: &meshes,
            nodes: &nodes,
        };
        assert_eq!(
            String::from_utf8(ours(&root, typed)).unwrap(),
            String::from_utf8(expected).unwrap()
        );
        assert_eq!(
            ours(&root, Typed::default()),
            serde_json::to_vec(&root).unwrap()
        );
    }

    /// The scene's model extras with every optional member set, with none,
    /// and with other text in the members of known strings (some of it to
    /// escape): serde's text each time; a scene with its own extras keeps them.
    #[test]
    fn model_extras_with_and_without_every_member_are_written_as_serde_writes_them() {
        use crate::extras::{tests as fixture, Format, Kind, RotationReading, UpAxis, Winding};
        let mut other = fixture::full();
        other.format = Format::Other("mshconv/2".into());
        other.kind = Kind::Other("Standard\"\u{1}".into());
        other.winding = Winding::Other("".into());
        other.options.axis = UpAxis::Other("Z-UP\\".into());
        other.options.rotation = RotationReading::Other("\u{e9}".into());
        let mut root = json::Root::default();
        root.scenes.push(json::Scene {
            extensions: None,
            extras: None,
            name: Some("n".into()),
            nodes: vec![json::Index::new(0), json::Index::new(2)],
        });
        root.scenes.push(json::Scene {
            extensions: None,
            extras: None,
            name: None,
            nodes: Vec::new(),
        });
        for e in [
            fixture::full(),
            fixture::bare(),
            other,
            ModelExtras::default(),
        ] {
            let typed = Typed {
                scene: Some(&e),
                ..Typed::default()
            };
            let text = String::from_utf8(ours(&root, typed)).unwrap();
            assert_eq!(text, String::from_utf8(by_serde(&root, typed)).unwrap());
            assert!(text.contains("\"scenes\":[{\"extras\":{\"msh\":{\"format\""));
        }
        let mut own = root.clone();
        own.scenes[0].extras = wrap(&serde_json::json!({"mine": 1}));
        let typed = Typed {
            scene: Some(&ModelExtras::default()),
            ..Typed::default()
        };
        assert_eq!(ours(&own, typed), serde_json::to_vec(&own).unwrap());
    }

    #[test]
    fn an_invalid_value_is_an_error_as_with_serde() {
        let mut root = json::Root::default();
        root.accessors.push(json::Accessor {
            buffer_view: None,
            byte_offset: None,
            count: json::validation::USize64(1),
            component_type: Checked::Invalid,
            extensions: None,
            extras: None,
            type_: Checked::Valid(json::accessor::Type::Scalar),
            min: None,
            max: None,
            name: None,
            normalized: false,
            sparse: None,
        });
        assert!(serde_json::to_vec(&root).is_err());
        assert!(write(&root, Typed::default(), &mut Vec::new()).is_err());
    }

    fn batch() -> impl Strategy<Value = BatchExtras> {
        (any::<[u16; 5]>(), any::<[u32; 5]>(), any::<[bool; 4]>()).prop_map(|(a, b, zero)| {
            let z = |v: u16, z: bool| if z { 0 } else { v };
            BatchExtras {
                material: a[0],
                flags: z(a[1], zero[0]),
                opaque4: z(a[2], zero[1]),
                opaque6: z(a[3], zero[2]),
                opaque14: z(a[4], zero[3]),
                index_start: b[0],
                base_vertex: b[1],
                first_vertex: b[2],
                index_count: b[3],
                vertex_count: b[4],
            }
        })
    }

    proptest! {
        #[test]
        fn slot_extras_are_written_as_serde_writes_them(
            n in any::<[u32; 4]>(),
            record in proptest::option::of("[ -~\\n\\u{e9}]{0,12}"),
            batches in proptest::collection::vec(batch(), 0..4),
        ) {
            let e = SlotExtras { slot: n[0], tri_start: n[1], tri_count: n[2], batch_start: n[3], record, batches };
            let mut out = Vec::new();
            slot_extras(&mut out, &e).unwrap();
            prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&e).unwrap());
        }

        #[test]
        fn node_extras_are_written_as_serde_writes_them(
            n in any::<(u32, u16, u8, u8, u32)>(),
            flags in any::<[bool; 2]>(),
            name_raw in proptest::option::of("[ -~\n\u{e9}]{0,12}"),
            rest_quat in proptest::option::of(any::<[i16; 4]>()),
            anim in proptest::option::of(any::<[u16; 2]>()),
        ) {
            for e in [
                NodeMsh::Node(NodeExtras { node: n.0, hdr0: n.1, name_raw: name_raw.clone(), unnamed: flags[0], rest_quat, anim }),
                NodeMsh::Slot(SlotNodeExtras { owner: n.0, lod: n.2, group: n.3, shown: flags[1], slot: n.4 }),
            ] {
                let mut out = Vec::new();
                node_extras(&mut out, &e).unwrap();
                prop_assert_eq!(String::from_utf8(out).unwrap(), serde_json::to_string(&e).unwrap());
            }
        }
    }
}

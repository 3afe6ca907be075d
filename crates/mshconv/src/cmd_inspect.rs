//! `mshconv inspect`: what a model holds, as stable text or JSON.
//!
//! One [`Inspection`] is built from the model by the application layer
//! ([`mshconv_app::report`], shared with the HTTP service) and then printed
//! either way, so the text and the JSON always agree. An archive of models
//! named without an entry is listed instead, each model in a few numbers
//! ([`ArchiveInspection`]).

use crate::cli::InspectArgs;
use crate::input;
use crate::out::Out;
use crate::table::Table;
use anyhow::Context;
use msh::{Mode, ModelKind, Opened};
use mshconv_app::archive;
use mshconv_app::report::{inspect, inspect_archive, type_label, ArchiveInspection, Inspection};
use std::fmt::Write as _;
use std::process::ExitCode;

fn list(values: &[u32]) -> String {
    if values.is_empty() {
        return "none".to_string();
    }
    values
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn opt<T: ToString>(value: Option<T>) -> String {
    value.map_or("none".to_string(), |v| v.to_string())
}

fn quoted(name: &Option<String>) -> String {
    name.as_ref()
        .map_or("(unnamed)".to_string(), |n| format!("{n:?}"))
}

/// The stable text form of an inspection.
pub fn render(i: &Inspection) -> String {
    let mut s = String::new();
    let kind = match i.kind {
        Some(ModelKind::Standard) | None => "standard",
        Some(ModelKind::LegacyNodes) => {
            "legacy node table (Res1 with 24-byte records: nodes are not decoded)"
        }
        Some(ModelKind::Terrain) => {
            "terrain (Res21 triangles, no Res6/Res13: only partially understood, not decoded)"
        }
    };
    let _ = writeln!(s, "file: {}", i.file);
    let _ = writeln!(s, "size: {} bytes", i.bytes);
    let _ = writeln!(s, "kind: {kind}");
    let _ = writeln!(s, "entries: {}", i.entries.len());
    let mut table = Table::new(&[
        "index",
        "type",
        "resource",
        "name",
        "size",
        "attr1",
        "attr2",
        "attr3",
        "offset",
        "sort_index",
    ]);
    table.left_align(&[2, 3]);
    for e in &i.entries {
        table.row(vec![
            e.index.to_string(),
            e.type_id.to_string(),
            e.resource.to_string(),
            format!("{:?}", e.name),
            e.size.to_string(),
            e.attr1.to_string(),
            e.attr2.to_string(),
            e.attr3.to_string(),
            e.offset.to_string(),
            e.sort_index.to_string(),
        ]);
    }
    s.push_str(&table.render("  "));
    let r = &i.resources;
    let _ = write!(
        s,
        "resources: required present {}; required missing {}; optional present {}; optional absent {}",
        list(&r.required_present),
        list(&r.required_missing),
        list(&r.optional_present),
        list(&r.optional_absent),
    );
    if !r.other.is_empty() {
        let _ = write!(s, "; other {}", list(&r.other));
    }
    s.push('\n');
    if let Some(t) = &i.totals {
        let materials: Vec<String> = t.materials_used.iter().map(u16::to_string).collect();
        let _ = writeln!(
            s,
            "totals: {}, {}, {}, {}, {}, {}, {}, {}{}",
            t.nodes.map_or("nodes not decoded".to_string(), |n| plural(
                n, "node", "nodes"
            )),
            plural(t.slots, "slot", "slots"),
            plural(t.batches, "batch", "batches"),
            plural(t.vertices, "vertex", "vertices"),
            plural(t.indices, "index", "indices"),
            plural(t.triangles, "triangle", "triangles"),
            plural(
                t.tri_descriptors,
                "triangle descriptor",
                "triangle descriptors"
            ),
            plural(t.materials_used.len(), "material used", "materials used"),
            if materials.is_empty() {
                String::new()
            } else {
                format!(" [{}]", materials.join(" "))
            },
        );
    }
    if let Some(t) = &i.terrain {
        let _ = writeln!(
            s,
            "terrain: {}, {} (Res21), {} (Res11)",
            plural(t.vertices, "vertex", "vertices"),
            plural(t.triangles, "triangle", "triangles"),
            plural(t.material_records, "material record", "material records"),
        );
    }
    if let Some(l) = &i.legacy {
        let _ = writeln!(
            s,
            "legacy nodes: Res1.attr1 says {}, {} bytes kept as read; names:",
            plural(l.node_count as usize, "node", "nodes"),
            l.node_table_bytes
        );
        for (index, name) in l.names.iter().enumerate() {
            let _ = writeln!(s, "  node {index} {}", quoted(name));
        }
    }
    if i.kind == Some(ModelKind::Standard) {
        let _ = writeln!(s, "nodes: {}", i.nodes.len());
        for n in &i.nodes {
            let slots: Vec<String> = n
                .slots
                .iter()
                .map(|r| format!("L{}G{}={}", r.lod, r.group, r.slot))
                .collect();
            let _ = writeln!(
                s,
                "  node {} {}: parent {}, flags 0x{:04x}, anim_map_start {}, fallback_key {}, slots {}",
                n.index,
                quoted(&n.name),
                opt(n.parent),
                n.flags,
                opt(n.anim_map_start),
                n.fallback_key,
                if slots.is_empty() { "none".to_string() } else { slots.join(" ") },
            );
        }
    }
    if i.kind != Some(ModelKind::Terrain) {
        let _ = writeln!(s, "slots: {}", i.slots.len());
        if let Some(why) = &i.slot_batches_left_out {
            let _ = writeln!(s, "  (batches and vertices left out: {why})");
        }
        for slot in &i.slots {
            let used = match &slot.used_by {
                None => String::new(),
                Some(nodes) if nodes.is_empty() => ", used by no node".to_string(),
                Some(nodes) => {
                    let list: Vec<String> = nodes.iter().map(usize::to_string).collect();
                    format!(", used by node {}", list.join(" "))
                }
            };
            let _ = writeln!(
                s,
                "  slot {}: {}, {}, descriptors {}+{}, batches {}+{}{used}",
                slot.index,
                plural(slot.vertices, "vertex", "vertices"),
                plural(slot.triangles, "triangle", "triangles"),
                slot.tri_start,
                slot.tri_count,
                slot.batch_start,
                slot.batch_count,
            );
            for b in &slot.batches {
                let _ = writeln!(
                    s,
                    "    batch {}: material {}, {} at {}, base vertex {}",
                    b.index,
                    b.material,
                    plural(b.index_count as usize, "index", "indices"),
                    b.index_start,
                    b.base_vertex
                );
            }
        }
    }
    let a = &i.animation;
    let mut parts = Vec::new();
    if let Some(n) = a.animated_nodes {
        parts.push(plural(n, "animated node", "animated nodes"));
    }
    parts.push(
        a.keys
            .map_or("no Res8".to_string(), |k| plural(k, "key", "keys")),
    );
    parts.push(a.map_words.map_or("no Res19".to_string(), |w| {
        plural(w, "map word", "map words")
    }));
    parts.push(format!("frame_count {}", opt(a.frame_count)));
    match a.canonical {
        Some(true) => parts.push("canonical".to_string()),
        Some(false) => parts.push(format!("not canonical ({})", a.non_canonical.join(" "))),
        None => {}
    }
    let _ = writeln!(s, "animation: {}", parts.join(", "));
    let f = &i.findings;
    let _ = writeln!(
        s,
        "findings: {}, {}, {} (`mshconv validate` lists them)",
        plural(f.errors, "error", "errors"),
        plural(f.warnings, "warning", "warnings"),
        plural(f.info, "info", "info"),
    );
    s
}

/// Opens a model for reading in a mode, with the file in the error.
pub fn open<'a>(label: &str, bytes: &'a [u8], tolerant: bool) -> anyhow::Result<Opened<'a>> {
    let mode = Mode::from_tolerant(tolerant);
    msh::open(bytes, mode).with_context(|| format!("cannot open {label}"))
}

/// Runs `inspect`.
pub fn run(args: &InspectArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let input = input::load(&args.file, args.entry.as_deref(), args.tolerant)?;
    if input.entry.is_none() {
        if let Some(whole) = archive_inspection(&input.label, &input.bytes, args.tolerant)? {
            let text = if args.json {
                let mut text = serde_json::to_string_pretty(&whole)?;
                text.push('\n');
                text
            } else {
                render_archive(&whole)
            };
            out.text(&text)?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    let opened = open(&input.label, &input.bytes, args.tolerant)?;
    let inspection = inspect(&input.label, &opened);
    let text = if args.json {
        let mut text = serde_json::to_string_pretty(&inspection)?;
        text.push('\n');
        text
    } else {
        render(&inspection)
    };
    out.text(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// The inspection of an archive of models (`None` for anything else). The
/// container is read strictly, or tolerantly with `--tolerant`; model entries
/// that share their bytes past the archive's size are refused
/// (`archive.entries_overlap`), as `batch` refuses them.
fn archive_inspection(
    label: &str,
    bytes: &[u8],
    tolerant: bool,
) -> anyhow::Result<Option<ArchiveInspection>> {
    let parsed = if tolerant {
        nres::Archive::parse_tolerant(bytes).map(|(a, _)| a)
    } else {
        nres::Archive::parse(bytes)
    };
    let Ok(parsed) = parsed else {
        return Ok(None);
    };
    if !archive::is_model_archive(&parsed) {
        return Ok(None);
    }
    archive::check_models_disjoint(&archive::models(&parsed)).map_err(|e| e.context(label))?;
    Ok(Some(inspect_archive(
        label,
        &parsed,
        Mode::from_tolerant(tolerant),
    )))
}

/// The text form of an archive's inspection: a header, the entries with a
/// summary of each model, and the models' verdicts.
pub fn render_archive(a: &ArchiveInspection) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "file: {}", a.file);
    let _ = writeln!(s, "size: {} bytes", a.bytes);
    let _ = writeln!(
        s,
        "kind: archive of {}",
        plural(a.models, "model", "models")
    );
    let _ = writeln!(s, "entries: {}", a.entries.len());
    let mut table = Table::new(&[
        "index",
        "type",
        "name",
        "size",
        "model",
        "nodes",
        "slots",
        "triangles",
        "animated",
        "verdict",
    ]);
    table.left_align(&[1, 2, 4, 8, 9]);
    let dash = |v: Option<usize>| v.map_or("-".to_string(), |n| n.to_string());
    let (mut valid, mut readable, mut invalid) = (0, 0, 0);
    for e in &a.entries {
        let mut row = vec![
            e.index.to_string(),
            type_label(e.type_id),
            format!("{:?}", e.name),
            e.size.to_string(),
        ];
        if let Some(m) = &e.model {
            let verdict = match (m.valid, m.errors > 0) {
                (false, _) => {
                    invalid += 1;
                    "INVALID"
                }
                (true, true) => {
                    readable += 1;
                    "readable"
                }
                (true, false) => {
                    valid += 1;
                    "valid"
                }
            };
            row.extend([
                match m.kind {
                    Some(ModelKind::Standard) => "standard",
                    Some(ModelKind::LegacyNodes) => "legacy nodes",
                    Some(ModelKind::Terrain) => "terrain",
                    None => "unreadable",
                }
                .to_string(),
                dash(m.nodes),
                dash(m.slots),
                dash(m.triangles),
                m.animated
                    .map_or("-", |yes| if yes { "yes" } else { "no" })
                    .to_string(),
                verdict.to_string(),
            ]);
        }
        table.row(row);
    }
    s.push_str(&table.render("  "));
    let _ = writeln!(
        s,
        "models: {valid} valid, {}{invalid} invalid ({}; `mshconv validate {}` lists the findings)",
        if readable > 0 {
            format!("{readable} readable, ")
        } else {
            String::new()
        },
        a.mode,
        a.file
    );
    s
}

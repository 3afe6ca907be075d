//! How often a reader may visit the same table rows (docs/ROBUSTNESS.md).
//!
//! A valid model may let its ranges overlap: slots may share batches, batches
//! may share indices, nodes may share slots, animated nodes may share frame-map
//! blocks (non-canonical, but valid, and carried through exactly). Each
//! sharing repeats work and output: a 140 KB model whose batches all cover the
//! same 65,535 indices made a 53 MB GLB, one whose animated nodes all read the
//! same map block took 1.5 GB to bake. An export visits at most [`REPEAT`]
//! times a table's rows plus [`SLACK`]: more than a whole model at MSH's limits
//! (65,535 triangles, 196,605 indices) visited once, and more sharing than a
//! real model has; past it an export is refused (`export.ranges_overlap`)
//! before any work is done, and an inspection leaves out the slots' batch
//! lists.

use crate::ModelRef;

/// Times a reader may visit each row of a table ...
pub const REPEAT: u64 = 4;
/// ... plus this many visits.
pub const SLACK: u64 = 1 << 18;

/// What a reader is about to visit, against the rows the model has.
struct Visits {
    what: &'static str,
    visits: u64,
    rows: u64,
    table: &'static str,
}

/// Whether the model's overlapping ranges would make a reader visit a
/// table's rows more than [`REPEAT`] x + [`SLACK`] times, and which table, in
/// words; `None` within the bound. `per_node` is the LOD and group a reader
/// visits once for every node that shows it (an OBJ export); without it each
/// slot counts once (a glTF export, an inspection).
pub fn excess(view: &ModelRef<'_>, per_node: Option<(usize, usize)>) -> Option<String> {
    let slot_range = |s: u16| {
        view.slots.get(s as usize).map_or(0..0, |s| {
            let start = (s.batch_start.get() as usize).min(view.batches.len());
            start..(start + s.batch_count.get() as usize).min(view.batches.len())
        })
    };
    // Indices of the batches before each one: a range's indices in O(1), so
    // counting costs the slots and nodes, not the batches they name.
    let mut before = Vec::with_capacity(view.batches.len() + 1);
    before.push(0u64);
    for b in view.batches {
        let last = before[before.len() - 1];
        before.push(last + u64::from(b.index_count.get()));
    }
    let indices_of = |range: std::ops::Range<usize>| before[range.end] - before[range.start];
    let slots = || (0..view.slots.len()).map(|s| slot_range(s as u16));
    let animated = view
        .nodes
        .iter()
        .filter(|n| n.map_start().is_some())
        .count() as u64;
    let mut checks = vec![
        Visits {
            what: "the batches' indices",
            visits: indices_of(0..view.batches.len()),
            rows: view.indices.len() as u64,
            table: "Res6 indices",
        },
        Visits {
            what: "the slots' batches",
            visits: slots().map(|r| r.len() as u64).sum(),
            rows: view.batches.len() as u64,
            table: "Res13 batches",
        },
        Visits {
            what: "the slots' indices",
            visits: slots().map(indices_of).sum(),
            rows: view.indices.len() as u64,
            table: "Res6 indices",
        },
        Visits {
            what: "the animated nodes' frames",
            visits: animated.saturating_mul(u64::from(view.frame_count) + 1),
            rows: view.anim_map.map_or(0, <[_]>::len) as u64,
            table: "Res19 frame-map words",
        },
    ];
    if let Some((lod, group)) = per_node {
        checks.push(Visits {
            what: "the nodes' shown slots' indices",
            visits: view
                .nodes
                .iter()
                .filter_map(|n| n.slot(lod, group))
                .map(|s| indices_of(slot_range(s)))
                .sum(),
            rows: view.indices.len() as u64,
            table: "Res6 indices",
        });
    }
    checks.into_iter().find_map(|c| {
        let allowed = c.rows.saturating_mul(REPEAT).saturating_add(SLACK);
        (c.visits > allowed).then(|| {
            format!(
                "{} overlap so much that a reader would visit {} rows of the {} {} (at most {REPEAT} x + {SLACK})",
                c.what, c.visits, c.rows, c.table
            )
        })
    })
}

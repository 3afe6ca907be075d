//! `mshconv pose`: every node's local pose at one time, as the engine samples it.

use crate::cli::PoseArgs;
use crate::cmd_inspect::open;
use crate::input;
use crate::out::Out;
use crate::table::Table;
use anyhow::Context;
use mshconv_app::report::{not_poseable, FrameInfo, PoseDoc, Timeline, F32};
use std::process::ExitCode;

fn numbers<const N: usize>(values: [F32; N]) -> String {
    values
        .iter()
        .map(|v| v.0.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The document as JSON with one node per line (readable and diffable; the
/// same value `serde_json` would print in one line), with where the time falls
/// on the timeline (`frame`, `frame_count`, `timeline`) after `time`.
pub fn json(doc: &PoseDoc) -> serde_json::Result<String> {
    let frame = &doc.at;
    let mut text = format!(
        "{{\"time\": {}, \"frame\": {}, \"frame_count\": {}, \"timeline\": {}, \"nodes\": [",
        serde_json::to_string(&doc.time)?,
        frame.frame,
        frame.frame_count,
        serde_json::to_string(&frame.timeline)?,
    );
    for (i, node) in doc.nodes.iter().enumerate() {
        text.push_str(if i == 0 { "\n  " } else { ",\n  " });
        text.push_str(&serde_json::to_string(node)?);
    }
    text.push_str(if doc.nodes.is_empty() {
        "]}\n"
    } else {
        "\n]}\n"
    });
    Ok(text)
}

/// Runs `pose`.
pub fn run(args: &PoseArgs, out: &mut Out) -> anyhow::Result<ExitCode> {
    let input = input::load(&args.file, args.entry.as_deref(), args.tolerant)?;
    let opened = open(&input.label, &input.bytes, args.tolerant)?;
    let view = &opened.view;
    if let Some(what) = not_poseable(view.kind) {
        return Err(msh::Error::Unsupported(format!(
            "{} is {what}: its nodes are not decoded, so they cannot be posed",
            input.label
        ))
        .into());
    }
    let t = args.time;
    let poses = msh::pose::local_poses(view, t)
        .map_err(msh::Error::from)
        .with_context(|| format!("cannot sample {} at time {t}", input.label))?;
    let doc = PoseDoc::new(view, t, &poses);
    let frame = doc.at;
    let text = if args.json {
        json(&doc)?
    } else {
        let mut text = format!("time {t}: {}\n", frame_line(&frame));

        let mut table = Table::new(&[
            "node",
            "name",
            "key",
            "fallback",
            "translation (x y z)",
            "rotation (w x y z)",
        ]);
        table.left_align(&[1, 3, 4, 5]);
        for (node, pose) in doc.nodes.iter().zip(&poses) {
            table.row(vec![
                node.index.to_string(),
                node.name
                    .as_ref()
                    .map_or("-".to_string(), |n| format!("{n:?}")),
                pose.key.to_string(),
                if node.fallback { "yes" } else { "no" }.to_string(),
                numbers(node.translation),
                numbers(node.rotation),
            ]);
        }
        text.push_str(&table.render(""));
        text
    };
    out.text(&text)?;
    Ok(ExitCode::SUCCESS)
}

/// `frame F of frame_count N`, and where that is when it is not within the
/// timeline. A negative frame is printed signed (the engine reads it unsigned,
/// so it is past every `frame_count` unless it wraps back into it).
pub fn frame_line(f: &FrameInfo) -> String {
    let head = |frame: String| format!("frame {frame} of frame_count {}", f.frame_count);
    match f.timeline {
        Timeline::Before => format!(
            "{} (before the timeline: every node shows its fallback key)",
            head(f.frame.to_string())
        ),
        Timeline::Past => format!(
            "{} (past the timeline: every node shows its fallback key)",
            head(f.used.to_string())
        ),
        Timeline::Within if f.frame < 0 => format!(
            "{} (read unsigned by the engine: frame {})",
            head(f.frame.to_string()),
            f.used
        ),
        Timeline::Within => head(f.used.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mshconv_app::report::NodePose;

    #[test]
    fn json_is_one_node_per_line_and_parses() {
        let node = |index, name: Option<&str>| NodePose {
            index,
            name: name.map(str::to_string),
            translation: [F32(0.1), F32(-2.0), F32(f32::NAN)],
            rotation: [F32(1.0), F32(0.0), F32(-0.0), F32(0.5)],
            fallback: index == 0,
        };
        let doc = PoseDoc {
            time: F32(-0.5),
            at: FrameInfo::new(-0.5, 11),
            nodes: vec![node(0, Some("a")), node(1, None)],
        };
        let text = json(&doc).unwrap();
        // The same value as serde's (the service's /v1/pose), one node per line.
        let serde: serde_json::Value =
            serde_json::from_str(&serde_json::to_string(&doc).unwrap()).unwrap();
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&text).unwrap(),
            serde
        );
        assert_eq!(
            text,
            "{\"time\": -0.5, \"frame\": -1, \"frame_count\": 11, \"timeline\": \"before\", \"nodes\": [\n  \
             {\"index\":0,\"name\":\"a\",\"translation\":[0.1,-2.0,\"NaN\"],\"rotation\":[1.0,0.0,-0.0,0.5],\"fallback\":true},\n  \
             {\"index\":1,\"name\":null,\"translation\":[0.1,-2.0,\"NaN\"],\"rotation\":[1.0,0.0,-0.0,0.5],\"fallback\":false}\n]}\n"
        );
        let value: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(value["nodes"][1]["index"], 1);
        let empty = json(&PoseDoc {
            time: F32(0.0),
            at: FrameInfo::new(0.0, 1),
            nodes: Vec::new(),
        })
        .unwrap();
        assert_eq!(
            empty,
            "{\"time\": 0.0, \"frame\": 0, \"frame_count\": 1, \"timeline\": \"within\", \"nodes\": []}\n"
        );
        assert!(serde_json::from_str::<serde_json::Value>(&empty).is_ok());
    }
}

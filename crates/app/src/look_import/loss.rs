//! What a texture's format could not hold of the pixels painted into it,
//! said with a note of its own: a palette texture (format 0) shows each
//! colour its palette lacks as the nearest palette colour
//! (`look.palette_reduced`); a grey-and-alpha texture (88) shows colours as
//! grey (`look.grey_reduced`); an opaque texture (565, 556, 888) shows
//! alpha painted into it as opaque (`look.alpha_dropped`). Both the look
//! import and `textures import` say it, with the texture's name, how many
//! pixels changed and the worst error in a channel.

use crate::codes::NoteCode;
use mshconv_convert::Report;
use mshconv_material::texm::{PixelFormat, Rgba8Image};
use mshconv_material::Texm;

/// The pixels of `painted` that `texm`'s level 0 shows otherwise in the
/// `channels` (R, G, B, A: 0 to 3): how many, and the largest difference in
/// one of them (0 to 255).
fn differences(texm: &Texm, painted: &Rgba8Image, channels: &[usize]) -> (usize, u8) {
    let Ok(shown) = texm.decode_rgba8() else {
        return (0, 0);
    };
    if (shown.width, shown.height) != (painted.width, painted.height) {
        return (0, 0);
    }
    shown
        .pixels
        .chunks_exact(4)
        .zip(painted.pixels.chunks_exact(4))
        .filter_map(|(a, b)| {
            let off = channels.iter().map(|&c| a[c].abs_diff(b[c])).max()?;
            (off > 0).then_some(off)
        })
        .fold((0, 0), |(count, worst), off| (count + 1, worst.max(off)))
}

/// Notes in `report` what the texture `name` (`texm`, just encoded from
/// `painted`) could not hold, when it is a palette, a grey or an opaque
/// texture.
pub(crate) fn note_reduced(report: &mut Report, name: &str, texm: &Texm, painted: &Rgba8Image) {
    const ALL: &[usize] = &[0, 1, 2, 3];
    const ALPHA: &[usize] = &[3];
    let (code, what, channels) = match texm.format {
        PixelFormat::Indexed8 => (
            NoteCode::LookPaletteReduced,
            "is a palette texture (format 0): pixels painted in colours its palette lacks became the nearest palette colour".to_string(),
            ALL,
        ),
        PixelFormat::La88 => (
            NoteCode::LookGreyReduced,
            "holds grey and alpha (format 88): pixels painted in colour became grey".to_string(),
            ALL,
        ),
        PixelFormat::Rgb565 | PixelFormat::Rgb556 | PixelFormat::Rgb888 => (
            NoteCode::LookAlphaDropped,
            format!(
                "is opaque (format {}): alpha painted into it was dropped",
                texm.format.code()
            ),
            ALPHA,
        ),
        PixelFormat::Argb4444 | PixelFormat::Argb8888 => return,
    };
    let (count, worst) = differences(texm, painted, channels);
    if count > 0 {
        report.note(
            code.code(),
            format!(
                "texture {name:?} {what}: {count} of {} pixels, at most {worst} off in a channel",
                painted.pixels.len() / 4
            ),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(pixels: &[[u8; 4]]) -> Rgba8Image {
        Rgba8Image {
            width: pixels.len() as u32,
            height: 1,
            pixels: pixels.concat(),
        }
    }

    #[test]
    fn a_colour_the_palette_lacks_and_colour_in_grey_are_noted() {
        let mut palette = [[0u8; 4]; 256];
        palette[1] = [200, 0, 0, 255];
        let painted = image(&[[0, 0, 0, 0], [190, 10, 0, 255], [200, 0, 0, 255]]);
        let texm = Texm::from_rgba8(&painted, PixelFormat::Indexed8, Some(palette)).unwrap();
        let mut report = Report::default();
        note_reduced(&mut report, "CAMO", &texm, &painted);
        let [note] = &report.notes[..] else {
            panic!("{:?}", report.notes)
        };
        assert_eq!(note.code, "look.palette_reduced");
        assert!(
            note.message.contains("1 of 3 pixels, at most 10 off"),
            "{}",
            note.message
        );
        let painted = image(&[[10, 10, 10, 255], [255, 0, 0, 128]]);
        let texm = Texm::from_rgba8(&painted, PixelFormat::La88, None).unwrap();
        let mut report = Report::default();
        note_reduced(&mut report, "SMOKE", &texm, &painted);
        assert_eq!(report.notes.len(), 1);
        assert_eq!(report.notes[0].code, "look.grey_reduced");
        assert!(report.notes[0].message.contains("1 of 2 pixels"));
        // What the format holds exactly says nothing.
        let grey = image(&[[10, 10, 10, 255]]);
        let texm = Texm::from_rgba8(&grey, PixelFormat::La88, None).unwrap();
        let mut report = Report::default();
        note_reduced(&mut report, "SMOKE", &texm, &grey);
        assert!(report.notes.is_empty());
    }

    #[test]
    fn alpha_painted_into_an_opaque_texture_is_noted_and_colour_precision_is_not() {
        let painted = image(&[[255, 0, 0, 255], [0, 255, 0, 100], [3, 5, 7, 255]]);
        let texm = Texm::from_rgba8(&painted, PixelFormat::Rgb565, None).unwrap();
        let mut report = Report::default();
        note_reduced(&mut report, "BODY", &texm, &painted);
        let [note] = &report.notes[..] else {
            panic!("{:?}", report.notes)
        };
        assert_eq!(note.code, "look.alpha_dropped");
        assert!(
            note.message.contains("format 565")
                && note.message.contains("1 of 3 pixels, at most 155 off"),
            "{}",
            note.message
        );
    }
}

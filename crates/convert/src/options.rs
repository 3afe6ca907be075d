//! Conversion options shared by every direction.

use std::fmt;
use std::str::FromStr;

pub use msh::pose::Rotation;

/// Which way is up in the output (glTF: the input's frame is given by the same option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Hash)]
pub enum Axis {
    /// Y up (glTF's convention, what viewers and Blender expect): game `(x, y, z)` is `(x, z, -y)`.
    #[default]
    YUp,
    /// Z up, the game's own frame, unchanged.
    ZUp,
}

/// An option value that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadOption(pub String);

impl fmt::Display for BadOption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadOption {}

impl FromStr for Axis {
    type Err = BadOption;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "y-up" | "yup" | "y" => Ok(Axis::YUp),
            "z-up" | "zup" | "z" => Ok(Axis::ZUp),
            _ => Err(BadOption(format!("axis must be y-up or z-up, not {s:?}"))),
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Axis::YUp => "y-up",
            Axis::ZUp => "z-up",
        })
    }
}

/// Parses `conjugate` or `stored`.
pub fn parse_rotation(s: &str) -> Result<Rotation, BadOption> {
    match s.to_ascii_lowercase().as_str() {
        "conjugate" => Ok(Rotation::Conjugate),
        "stored" => Ok(Rotation::Stored),
        _ => Err(BadOption(format!(
            "rotation must be conjugate or stored, not {s:?}"
        ))),
    }
}

/// The option's name as the CLI and the output spell it.
pub fn rotation_name(r: Rotation) -> &'static str {
    match r {
        Rotation::Conjugate => "conjugate",
        Rotation::Stored => "stored",
    }
}

/// The highest LOD (0, 1 or 2).
pub const LOD_MAX: u8 = 2;
/// The highest group (0 to 4).
pub const GROUP_MAX: u8 = 4;
/// The highest frame rate of an export's timeline.
pub const FPS_MAX: f32 = 1000.0;

/// Checks the LOD and group an export shows: lod 0..=2, group 0..=4.
pub fn check_lod_group(lod: u8, group: u8) -> Result<(), BadOption> {
    check_lod(lod)?;
    check_group(group)
}

/// Checks a LOD: 0 to [`LOD_MAX`] (the one range check; the application
/// layer's `Lod` asks it).
pub fn check_lod(lod: u8) -> Result<(), BadOption> {
    if lod > LOD_MAX {
        return Err(BadOption(format!("lod must be 0, 1 or 2, not {lod}")));
    }
    Ok(())
}

/// Checks a group: 0 to [`GROUP_MAX`].
pub fn check_group(group: u8) -> Result<(), BadOption> {
    if group > GROUP_MAX {
        return Err(BadOption(format!("group must be 0 to 4, not {group}")));
    }
    Ok(())
}

/// Checks the frames per second of an export's timeline: finite, above 0,
/// at most [`FPS_MAX`].
pub fn check_fps(fps: f32) -> Result<(), BadOption> {
    if !(fps.is_finite() && fps > 0.0 && fps <= FPS_MAX) {
        return Err(BadOption(format!(
            "fps must be a number above 0 and at most 1000, not {fps}"
        )));
    }
    Ok(())
}

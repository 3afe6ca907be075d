//! JSON helpers: f32 values that survive the trip, and hex for raw bytes.
//!
//! serde_json writes an `f32` with the shortest decimal that parses back to the
//! same `f32` (it formats the f32 itself, not a widened f64). JSON has no NaN
//! or infinity; serde_json would write `null`, which loses the fact. They are
//! written as the strings `"NaN"`, `"Infinity"` and `"-Infinity"` instead (a
//! NaN's payload bits are not kept). [`F32`] lives in [`msh::inspect`], shared
//! with the HTTP service; its tests stay here.

pub use msh::inspect::F32;

/// Lower-case hex of bytes.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 15) as usize] as char);
    }
    out
}

/// Bytes from hex (either case); `None` for an odd length or a non-hex digit.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    let digits = text.as_bytes();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let value = |d: u8| (d as char).to_digit(16).map(|v| v as u8);
    digits
        .chunks_exact(2)
        .map(|pair| Some(value(pair[0])? << 4 | value(pair[1])?))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_strings() {
        let values = [F32(f32::NAN), F32(f32::INFINITY), F32(f32::NEG_INFINITY)];
        assert_eq!(
            serde_json::to_string(&values).unwrap(),
            r#"["NaN","Infinity","-Infinity"]"#
        );
    }

    #[test]
    fn finite_values_are_shortest_f32_decimals() {
        let values = [F32(0.1), F32(-0.0), F32(1.0e-45), F32(f32::MAX), F32(1.0)];
        let text = serde_json::to_string(&values).unwrap();
        assert_eq!(text, "[0.1,-0.0,1e-45,3.4028235e+38,1.0]");
    }

    #[test]
    fn hex_round_trips() {
        let bytes: Vec<u8> = (0..=255).collect();
        assert_eq!(unhex(&hex(&bytes)).unwrap(), bytes);
        assert_eq!(unhex("0A"), Some(vec![10]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }
}

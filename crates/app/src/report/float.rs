//! [`F32`]: an `f32` that survives the trip through JSON.

/// An `f32` that serialises finite values as numbers (the shortest decimal
/// that parses back to the same `f32`) and the others as the strings `"NaN"`,
/// `"Infinity"` and `"-Infinity"` (JSON has no such numbers; `null` would lose
/// the fact). A NaN's payload bits are not kept.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct F32(pub f32);

impl serde::Serialize for F32 {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.0;
        if v.is_nan() {
            s.serialize_str("NaN")
        } else if v == f32::INFINITY {
            s.serialize_str("Infinity")
        } else if v == f32::NEG_INFINITY {
            s.serialize_str("-Infinity")
        } else {
            s.serialize_f32(v)
        }
    }
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
}

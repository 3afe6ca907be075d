//! Small glTF documents written by the tests: one embedded buffer, a view
//! and an accessor per array.

/// A glTF builder: one buffer (a `data:` URI), a view and an accessor per array.
#[derive(Default)]
pub struct Doc {
    /// The buffer.
    pub bin: Vec<u8>,
    /// The buffer views.
    pub views: Vec<serde_json::Value>,
    /// The accessors.
    pub accessors: Vec<serde_json::Value>,
}

impl Doc {
    /// Adds `values` (`n` floats each) as an accessor of `ty`; its index.
    pub fn floats(&mut self, values: &[f32], n: usize, ty: &str, minmax: bool) -> usize {
        let offset = self.bin.len();
        self.bin.extend(values.iter().flat_map(|v| v.to_le_bytes()));
        self.views.push(serde_json::json!({
            "buffer": 0, "byteOffset": offset, "byteLength": 4 * values.len()
        }));
        let mut a = serde_json::json!({
            "bufferView": self.views.len() - 1, "componentType": 5126,
            "count": values.len() / n, "type": ty
        });
        if minmax {
            let col = |k: usize| values.iter().skip(k).step_by(n).copied();
            a["min"] = (0..n)
                .map(|k| col(k).fold(f32::INFINITY, f32::min))
                .collect();
            a["max"] = (0..n)
                .map(|k| col(k).fold(f32::NEG_INFINITY, f32::max))
                .collect();
        }
        self.accessors.push(a);
        self.accessors.len() - 1
    }

    /// Adds u16 `indices` as an index accessor; its index.
    pub fn indices(&mut self, indices: &[u16]) -> usize {
        let offset = self.bin.len();
        self.bin
            .extend(indices.iter().flat_map(|i| i.to_le_bytes()));
        self.views.push(serde_json::json!({
            "buffer": 0, "byteOffset": offset, "byteLength": 2 * indices.len()
        }));
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        self.accessors.push(serde_json::json!({
            "bufferView": self.views.len() - 1, "componentType": 5123,
            "count": indices.len(), "type": "SCALAR"
        }));
        self.accessors.len() - 1
    }

    /// The document `doc` with the asset, buffer, views and accessors set.
    pub fn finish(self, mut doc: serde_json::Value) -> Vec<u8> {
        use base64::Engine as _;
        doc["asset"] = serde_json::json!({"version": "2.0"});
        doc["buffers"] = serde_json::json!([{
            "byteLength": self.bin.len(),
            "uri": format!("data:application/octet-stream;base64,{}",
                base64::engine::general_purpose::STANDARD.encode(&self.bin))
        }]);
        doc["bufferViews"] = self.views.into();
        doc["accessors"] = self.accessors.into();
        serde_json::to_vec(&doc).unwrap()
    }
}

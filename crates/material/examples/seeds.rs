//! Writes the crate's samples as fuzz seeds:
//! `cargo run -p mshconv-material --example seeds -- fuzz/corpus`
//! fills `fuzz/corpus/{wear_parse,mat0_parse,texm_parse}/` (the MAT0 seeds
//! start with the version byte, as the `mat0_parse` target reads them).

use mshconv_material::samples;
use std::path::PathBuf;

fn main() -> std::io::Result<()> {
    let root = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus".into()),
    );
    let put = |target: &str, name: &str, bytes: &[u8]| -> std::io::Result<()> {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        std::fs::write(dir.join(format!("seed_{name}")), bytes)
    };
    for (name, bytes) in samples::wear() {
        put("wear_parse", name, &bytes)?;
    }
    for (name, version, bytes) in samples::mat0() {
        let mut seed = vec![version as u8];
        seed.extend_from_slice(&bytes);
        put("mat0_parse", name, &seed)?;
    }
    for (name, bytes) in samples::texm() {
        put("texm_parse", &name, &bytes)?;
    }
    Ok(())
}

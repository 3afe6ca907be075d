//! Imports a glTF/GLB and reports the outcome (a debugging aid).
fn main() {
    let path = std::env::args().nth(1).expect("a .glb or .gltf");
    let bytes = std::fs::read(&path).expect("read");
    let start = std::time::Instant::now();
    let result = mshconv_gltf::gltf_to_msh(&bytes, &Default::default(), &|_| None);
    match result {
        Ok((msh, report)) => println!(
            "ok: {} bytes, {} notes, {:?}",
            msh.len(),
            report.notes.len(),
            start.elapsed()
        ),
        Err(e) => println!("error: {e} ({:?})", start.elapsed()),
    }
}

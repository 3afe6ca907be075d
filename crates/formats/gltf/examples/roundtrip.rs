//! Converts an MSH to GLB and back, writing `<out>.glb` and `<out>.msh`
//! (a debugging aid for the direct round trip).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).expect("read the input");
    let (glb, _) =
        mshconv_gltf::msh_to_gltf(&bytes, &mshconv_gltf::ExportOptions::default()).expect("export");
    let (back, report) =
        mshconv_gltf::gltf_to_msh(&glb, &Default::default(), &|_| None).expect("import");
    std::fs::write(format!("{}.glb", args[2]), &glb).expect("write");
    std::fs::write(format!("{}.msh", args[2]), &back).expect("write");
    println!("identical: {}; notes: {:?}", back == bytes, report.notes);
}

//! `cargo run -p mshconv-obj --example obj_export -- in.msh out.obj`: writes
//! `out.obj` and `model.mtl` beside it (default options), prints the report.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, input, output] = &args[..] else {
        eprintln!("usage: obj_export IN.msh OUT.obj");
        std::process::exit(2);
    };
    let bytes = std::fs::read(input).expect("read the input");
    match mshconv_obj::msh_to_obj(&bytes, &mshconv_obj::ObjExportOptions::default()) {
        Ok((files, report)) => {
            let out = std::path::Path::new(output);
            std::fs::write(out, &files.obj).expect("write the OBJ");
            std::fs::write(out.with_file_name(&files.mtl_name), &files.mtl).expect("write the MTL");
            for n in &report.notes {
                eprintln!("{}: {}", n.code, n.message);
            }
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}

//! Embeds the project's vectors (`vectors/<spec>/*.json` at the workspace
//! root) into the binary as a generated list of `(spec, file name, text)`.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("..").join("vectors");
    let mut out = String::from("&[\n");
    for spec in ["0.1", "draft"] {
        let dir = root.join(spec);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p| p.extension().is_some_and(|e| e == "json"));
        files.sort();
        for file in files {
            println!("cargo:rerun-if-changed={}", file.display());
            let name = file
                .file_name()
                .expect("a file name")
                .to_string_lossy()
                .into_owned();
            let _ = writeln!(
                out,
                "    ({spec:?}, {name:?}, include_str!({:?})),",
                file.canonicalize()
                    .expect("readable vector file")
                    .display()
                    .to_string()
            );
        }
    }
    out.push_str("]\n");
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("embedded_vectors.rs");
    std::fs::write(dest, out).expect("write the embedded vector list");
}

//! Embeds the project's vector sets and clause catalogs, of every suite, as
//! generated Rust source:
//!
//! * `embedded_vectors.rs`: every `vectors/<spec>/*.json` at the workspace
//!   root, as `(spec, file name, text)`;
//! * `embedded_catalogs.rs`: every `spec/<spec>/clauses.json` that exists,
//!   as `(spec, text)`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const SPECS: [&str; 4] = ["0.1", "draft", "ahp/0.1", "ahp/draft"];

fn canonical(path: &Path) -> String {
    path.canonicalize()
        .expect("readable embedded file")
        .display()
        .to_string()
}

fn write(name: &str, text: &str) {
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join(name);
    std::fs::write(dest, text).expect("write generated source");
}

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("..");
    let vectors = root.join("vectors");
    let mut out = String::from("&[\n");
    for spec in SPECS {
        let dir = vectors.join(spec);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
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
                canonical(&file)
            );
        }
    }
    out.push_str("]\n");
    write("embedded_vectors.rs", &out);

    // The folder is scanned whole, so a catalog that appears later re-runs
    // this script.
    println!("cargo:rerun-if-changed={}", root.join("spec").display());
    let mut out = String::from("&[\n");
    for spec in SPECS {
        let file = root.join("spec").join(spec).join("clauses.json");
        if file.is_file() {
            let _ = writeln!(out, "    ({spec:?}, include_str!({:?})),", canonical(&file));
        }
    }
    out.push_str("]\n");
    write("embedded_catalogs.rs", &out);
}

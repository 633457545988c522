//! Embeds `declaration_schema_1_1.rs`: `Some(text)` of
//! `schemas/host-declaration-1.1.schema.json` when the file exists at build
//! time, `None` otherwise.

use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let schemas = Path::new(&manifest).join("../..").join("schemas");
    // The folder is scanned whole, so a schema that appears later re-runs
    // this script.
    println!("cargo:rerun-if-changed={}", schemas.display());
    let schema = schemas.join("host-declaration-1.1.schema.json");
    let out = if schema.is_file() {
        let path = schema
            .canonicalize()
            .expect("readable embedded file")
            .display()
            .to_string();
        format!("Some(include_str!({path:?}))\n")
    } else {
        "None\n".to_owned()
    };
    let dest = Path::new(&std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("declaration_schema_1_1.rs");
    std::fs::write(dest, out).expect("write generated source");
}

//! The core and the report code import no suite (issue 28): cargo keeps
//! them apart only while their manifests name no suite crate, so this test
//! reads the manifests. A suite type reaching a report would tie every
//! protocol's reports to one protocol's model.

use std::path::Path;

/// The kit's crates a protocol-neutral crate may depend on.
const NEUTRAL: &[&str] = &["ctk-core", "ctk-support"];

/// The `ctk-*` crates a manifest names in any dependency table.
fn kit_dependencies(manifest: &Path) -> Vec<String> {
    let text =
        std::fs::read_to_string(manifest).unwrap_or_else(|e| panic!("{}: {e}", manifest.display()));
    let mut in_dependencies = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line.contains("dependencies");
            continue;
        }
        if in_dependencies && line.starts_with("ctk-") {
            let name = line.split(['=', '.', ' ']).next().unwrap_or_default();
            out.push(name.to_owned());
        }
    }
    out
}

#[test]
fn the_core_and_the_report_code_depend_on_no_suite() {
    let here = Path::new(env!("CARGO_MANIFEST_DIR"));
    for manifest in [
        here.join("Cargo.toml"),
        here.join("../core/Cargo.toml"),
        here.join("../support/Cargo.toml"),
    ] {
        let deps = kit_dependencies(&manifest);
        let foreign: Vec<&String> = deps
            .iter()
            .filter(|d| !NEUTRAL.contains(&d.as_str()))
            .collect();
        assert!(
            foreign.is_empty(),
            "{} depends on {foreign:?}: only {NEUTRAL:?} keep it protocol-neutral",
            manifest.display()
        );
    }
}

#[test]
fn the_manifest_reader_sees_a_suite_dependency() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let manifest = dir.path().join("Cargo.toml");
    std::fs::write(
        &manifest,
        "[package]\nname = \"x\"\n\n[dependencies]\nctk-core.workspace = true\nctk-ahp-suite = { path = \"../ahp/suite\" }\nserde = \"1\"\n\n[dev-dependencies]\nctk-agent-hooks-suite.workspace = true\n",
    )
    .expect("write");
    assert_eq!(
        kit_dependencies(&manifest),
        ["ctk-core", "ctk-ahp-suite", "ctk-agent-hooks-suite"]
    );
}

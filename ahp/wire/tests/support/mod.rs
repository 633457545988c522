//! Where upstream's AHP material is, and what a test does without it.
//!
//! Upstream files are read at test time from `../shared/upstream` beside
//! the workspace (or `$CTK_UPSTREAM_DIR`), never copied into the project.
//! Without them a test is skipped VISIBLY: a `SKIPPED (upstream data
//! missing: <path>)` line on stderr, written past libtest's capture; with
//! `CTK_REQUIRE_UPSTREAM=1` (CI) it fails instead.

use std::io::Write as _;
use std::path::PathBuf;

/// Overrides the upstream root (the folder holding `agent-hooks-protocol/`).
pub(crate) const DIR_VAR: &str = "CTK_UPSTREAM_DIR";
/// Set to `1` to turn every missing-upstream skip into a failure.
pub(crate) const REQUIRE_VAR: &str = "CTK_REQUIRE_UPSTREAM";

/// The upstream root: `$CTK_UPSTREAM_DIR`, else `../shared/upstream`
/// beside the workspace.
fn root() -> PathBuf {
    std::env::var_os(DIR_VAR)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/../../../shared/upstream"
            ))
        })
}

/// `rel` under the upstream root if it exists; otherwise panics when
/// `CTK_REQUIRE_UPSTREAM=1`, else prints the skip line and returns `None`
/// (the caller then returns).
pub(crate) fn upstream(rel: &str) -> Option<PathBuf> {
    let path = root().join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1") {
        panic!(
            "upstream data missing: {} ({REQUIRE_VAR}=1 requires it; check out ../shared beside \
             the workspace or point {DIR_VAR} at the upstream folder)",
            path.display()
        );
    }
    // Straight to the stderr handle: `eprintln!` output of a passing test
    // is captured and hidden.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED (upstream data missing: {})",
        path.display()
    );
    None
}

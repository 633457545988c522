//! Where the upstream Agent Hooks checkout is, and what a test does when it
//! is not there.
//!
//! Upstream data is read at test time, never copied into the project, so a
//! fresh clone without `../shared` beside it has none. A test that needs it
//! calls [`upstream`]: without the data the test is skipped VISIBLY (a
//! `SKIPPED (upstream data missing: <path>)` line on stderr, written past
//! libtest's output capture), and with `CTK_REQUIRE_UPSTREAM=1` (CI sets it)
//! it fails instead, so CI can never pass on a silently skipped check.

use std::io::Write as _;
use std::path::PathBuf;

/// Overrides the upstream root (default `<workspace>/../shared/upstream`).
pub(crate) const DIR_VAR: &str = "CTK_UPSTREAM_DIR";
/// Set to `1` to turn every missing-upstream skip into a failure.
pub(crate) const REQUIRE_VAR: &str = "CTK_REQUIRE_UPSTREAM";

/// The upstream root: `$CTK_UPSTREAM_DIR`, else `../shared/upstream` beside
/// the workspace.
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

/// `rel` (e.g. `agent-hooks/spec/reserved-reasons.json`) under the upstream
/// root if it exists. Otherwise panics when `CTK_REQUIRE_UPSTREAM=1`, and
/// else prints the skip line and returns `None`: the caller returns.
pub(crate) fn upstream(rel: &str) -> Option<PathBuf> {
    let path = root().join(rel);
    if path.exists() {
        return Some(path);
    }
    if std::env::var(REQUIRE_VAR).is_ok_and(|v| v == "1") {
        panic!(
            "upstream data missing: {} ({REQUIRE_VAR}=1 requires it; check out ../shared \
             beside the workspace or point {DIR_VAR} at the upstream directory)",
            path.display()
        );
    }
    // Straight to the stderr handle: `eprintln!` would be captured and
    // hidden for a passing test.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED (upstream data missing: {})",
        path.display()
    );
    None
}

//! Policy preconditions. The suite cannot know what a backend decides, so
//! gating vectors check structure only (a valid decision, whichever it is).
//! A few vectors carry `"policy": "<name>"`: they expect a particular
//! decision, and run only against a backend whose declaration states that
//! policy ([`crate::SuiteConfig::policies`]); otherwise they are skipped,
//! never failed. The names and their meaning are fixed here.

/// `ctk.deny-force-push`: the backend denies a `tool.before` whose
/// `tool.kind` is `shell` and whose `tool.input.command` contains
/// `git push --force` (the spec's own example, 8.1 and 8.3), with a
/// non-empty reason.
pub const DENY_FORCE_PUSH: &str = "ctk.deny-force-push";

/// `ctk.no-effect-file-read`: the backend returns no effect for a
/// `tool.before` whose `tool.kind` is `file_read` and whose
/// `tool.input.path` is `README.md`.
pub const NO_EFFECT_FILE_READ: &str = "ctk.no-effect-file-read";

/// Every policy name a vector may name, with its meaning.
pub const ALL: &[(&str, &str)] = &[
    (
        DENY_FORCE_PUSH,
        "deny a shell tool.before whose input.command contains `git push --force`",
    ),
    (
        NO_EFFECT_FILE_READ,
        "no effect for a file_read tool.before whose input.path is `README.md`",
    ),
];

/// Whether `name` is a policy this suite defines.
pub fn is_known(name: &str) -> bool {
    ALL.iter().any(|(n, _)| *n == name)
}

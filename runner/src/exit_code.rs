//! Process exit codes of the `ctk` binary.
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | every applicable vector passed (or the subcommand succeeded) |
//! | 1 | at least one vector failed, `verify`/`claim` refused the report, or `coverage` found an error |
//! | 2 | usage or input error: bad flags, an unreadable or malformed vector, declaration or report, zero vectors |
//! | 3 | host or harness error: the host could not be started or a vector ended in `error` |
//!
//! When a run has both failures and harness errors, 3 wins: a broken adapter
//! must not read as mere non-conformance.

/// Every applicable vector passed; the subcommand succeeded.
pub const SUCCESS: u8 = 0;
/// At least one vector failed, a report was refused, or coverage failed.
pub const FAILURES: u8 = 1;
/// Usage or input error; nothing was run.
pub const USAGE: u8 = 2;
/// Host or harness error.
pub const HARNESS: u8 = 3;

/// The text `--help` shows after the options.
pub const HELP: &str = "Exit codes:\n  0  every applicable vector passed (or the subcommand succeeded)\n  1  a vector failed, verify/claim refused the report, or coverage found an error\n  2  usage or input error (bad flags, malformed vector, declaration or report, zero vectors)\n  3  host or harness error (the host could not start, or a vector ended in error)";

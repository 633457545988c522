//! Process exit codes of the `ctk` binary.
//!
//! | code | meaning |
//! | --- | --- |
//! | 0 | every applicable vector passed (or the subcommand succeeded) |
//! | 1 | at least one vector failed, `verify`/`claim` refused the report, or `coverage` found an error |
//! | 2 | usage or input error: bad flags, an unreadable or malformed vector, declaration or report, zero vectors |
//! | 3 | host or harness error: the host could not be started or a vector ended in `error` |
//! | 4 | no vector ran: the filters matched nothing or no vector applies to the surface (`--no-tests fail`, the default) |
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

/// No vector ran, and `--no-tests` is `fail` (nextest's code for the same case).
pub const NO_TESTS: u8 = 4;

/// The text `ctk --help` and `ctk run --help` show after the options.
pub const HELP: &str = "Exit codes:\n  0  every applicable gating vector passed (or the subcommand succeeded)\n  1  a gating vector failed, verify/claim refused the report, or coverage found an error\n  2  usage or input error (bad flags, malformed vector, declaration or report, zero vectors in a folder)\n  3  host or harness error (the host could not start, or a vector ended in error)\n  4  no vector ran: the filters matched nothing or no vector applies (see --no-tests)\nAdvisory vectors never change the exit code.";

/// The exit codes of `ctk list`.
pub const LIST_HELP: &str = "Exit codes:\n  0  the vectors were listed\n  2  usage or input error (bad flags, malformed vector or declaration, no vector selected)";

/// The exit codes of `ctk validate`.
pub const VALIDATE_HELP: &str = "Exit codes:\n  0  every file is valid\n  2  at least one file is not (each problem is printed with its file and JSON pointer)";

/// The exit codes of `ctk claim`.
pub const CLAIM_HELP: &str = "Exit codes:\n  0  the report backs a claim; the CLAIMS.md row is printed\n  1  no claim can be made (every reason is printed)\n  2  the report cannot be read or is not a report";

/// The exit codes of `ctk verify`.
pub const VERIFY_HELP: &str = "Exit codes:\n  0  every digest verifies\n  1  a digest does not verify (each problem is printed)\n  2  the report or the vector folder cannot be read";

/// The exit codes of `ctk matrix`.
pub const MATRIX_HELP: &str = "Exit codes:\n  0  the matrix was printed, or --check found it equal\n  1  a report does not verify, a failure is unclassified, a triage entry is stale or a kit defect, or --check found a difference\n  2  a report or the triage file cannot be read";

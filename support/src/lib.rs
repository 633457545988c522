//! The infrastructure every crate of agent-hooks-ctk shares, written once so
//! that a fix lands everywhere: the suites, both ends of each adapter
//! contract, the wire crates and the report code all reach it, and none of
//! it knows a protocol.
//!
//! The reference implementations the kit certifies (the reference host, the
//! AHP reference backend and harness) keep their own small copies of what
//! they need instead: code shared by the judge and the judged would hide
//! a bug they share, and their mutation scores are kept per file.
//!
//! * [`child`]: a child process that speaks in lines, bounded and ended
//!   with everything it started;
//! * [`clock`]: one millisecond clock every process of a run can read;
//! * [`depth`]: the kit's nesting bound on any JSON text it reads, checked
//!   without recursion before serde_json parses;
//! * [`lines`]: capped line framing, without I/O;
//! * [`mod@pointer`]: JSON pointers (RFC 6901) naming where an input problem
//!   sits;
//! * [`process`]: ending a child process with its group and every process
//!   it left behind, even one that called `setsid`.

pub mod child;
pub mod clock;
pub mod depth;
pub mod lines;
pub mod pointer;
pub mod process;

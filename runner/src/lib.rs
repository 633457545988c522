//! `ctk`: the conformance test kit runner for Agent Hooks and AHP: the
//! command line, a thin frame over the core and the report code.
//!
//! The core lives in `ctk-core`, re-exported here: [`suite`] (which
//! protocol and line a run, report or claim is for), [`set`] (the
//! suite-neutral view of vectors: ids, parts, digests, advisory marking,
//! covered clauses), [`outcome`] and [`event`] (what one vector's run came
//! to, and what a run reports while it goes), [`catalog`], and the one
//! vector loop every suite runs in (`ctk_core::vector_loop`). [`report`] is
//! the crate `ctk-report` (the model, its writers, `verify`, `claim`, the
//! interop `matrix`), which imports no suite. Here: [`cli`] (the frame, the
//! terminal, `events.jsonl`, one module per protocol), [`coverage`], and the
//! released sets each suite knows ([`set::released`]). Each suite owns its
//! vector model, engine and assertions: Agent Hooks in
//! `ctk-agent-hooks-suite` (wired in by `cli/run.rs`), AHP in `ctk-ahp-suite`
//! (wired in by `cli/run_ahp.rs`).
//!
//! The engine strips `expect` when it builds a vector's setup, so no host
//! sees the answers. Only [`cli`] prints, and only `cli/host.rs` names a
//! concrete Agent Hooks host.
//!
//! # Clause catalogs and coverage
//!
//! [`catalog`] reads `spec/<version>/clauses.json` (compiled in when present
//! at build time; `--clauses FILE` overrides). [`coverage`] builds the clause ×
//! vector matrix of `ctk coverage` and its findings; it fails (exit 1) on a
//! MUST clause that no vector covers unless it is marked
//! `not_vector_testable` with at least one unit test pinning it, on a
//! unit-test reference that is not `<repo-relative file>::<fn name>` or (in a
//! checkout) does not exist, on a vector naming an unknown clause, and on a
//! project vector covering nothing. Upstream vectors (`AH-CTK-NNN`, no
//! `covers`) are counted apart. Draft clause ids carry the prefix `d-`; under
//! the draft, the 0.1 clauses it does not change hold as well, so draft
//! vectors may name them.

pub use ctk_core::{catalog, digest, event, outcome, suite};

pub mod cli;
/// `ctk coverage` for Agent Hooks: the clause × vector matrix (it moved to
/// the suite, whose vectors and surfaces it reads).
pub use ctk_agent_hooks_suite::coverage;
pub mod errors;
pub mod exit_code;
/// The report code, a crate of its own so that cargo keeps it free of
/// every suite.
pub use ctk_report as report;
pub mod set;

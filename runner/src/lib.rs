//! `ctk`: the Agent Hooks conformance test kit runner.
//!
//! Data flows one way:
//!
//! ```text
//! vector file --vector::load--> Vector --surface--> Applies | Skip(reason) --engine--> VectorSetup
//!   --Harness::setup/run/teardown--> RunRecord --assert--> [AssertionFailure] --> VectorOutcome
//!   --Event::VectorFinished--> report::build --> Report --> report.json | report.md | junit.xml | terminal
//! ```
//!
//! The engine strips `expect` when it builds the `VectorSetup`, so no host
//! sees the answers; the scripted interceptors, resolver and redactor live in
//! [`script`] behind the `Callbacks` trait. Only [`cli`] prints, and only
//! `cli/host.rs` names a concrete host.
//!
//! # Project extensions of the vector grammar
//!
//! `schemas/vector.schema.json` accepts the upstream vectors unchanged and adds:
//! top-level `covers` (clause ids such as `"6.3-c"`), `spec_versions`
//! (`"0.1"` / `"draft"`, default `["0.1"]`), `interceptor_timeout_ms` and
//! `approval_timeout_ms` (forwarded in the setup); interceptor rule fault
//! `"timeout"` (the callback never answers, so the host's timeout fires) and
//! rule member `return_raw` (any JSON returned verbatim); scenario
//! `respond.parallel` and `scenario.turns`.
//!
//! # Decisions
//!
//! * Numbers compare by mathematical value (`1 == 1.0`) in every `context`,
//!   `assert`, `match`, `final_output`, `released_output` and
//!   `tool_invocations` comparison ([`json_path::json_eq`]).
//! * Identity pairs for `identities_equal` come from the host's records.
//! * The tool-seam posture comes from the declaration's
//!   `configuration.posture.tool_seam_host_error` (default `continue`).

pub mod assert;
pub mod catalog;
pub mod cli;
pub mod coverage;
pub mod declaration;
pub mod digest;
pub mod engine;
pub mod errors;
pub mod event;
pub mod exit_code;
pub mod json_path;
pub mod outcome;
pub mod report;
pub mod script;
pub mod surface;
pub mod vector;

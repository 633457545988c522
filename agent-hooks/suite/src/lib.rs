//! The Agent Hooks suite of the kit: the vector model and its loader
//! ([`vector`]), the surface filter ([`surface`], over the host's
//! [`declaration`]), the scripted interceptors, resolver and redactor
//! ([`script`]), the [`engine`] that drives a host through the
//! `ctk_agent_hooks_adapter::HostAdapter` trait, and the assertions
//! ([`mod@assert`]) that turn a run record into a verdict, and the
//! clause × vector matrix of `ctk coverage` ([`coverage`]). It produces the
//! core's per-vector outcomes and events (`ctk-core`); the runner (`ctk`)
//! turns those into reports and claims. AHP is the other suite, in the
//! `ctk-ahp-*` crates, in the same shape.
//!
//! Data flows one way:
//!
//! ```text
//! vector file --vector::load--> Vector --surface--> Applies | Skip(reason) --engine--> VectorSetup
//!   --HostAdapter::setup/run/teardown--> RunRecord --assert--> [AssertionFailure] --> VectorOutcome
//!   --Event::VectorFinished--> (the runner) report::build --> Report --> report.json | report.md | junit.xml | html
//! ```
//!
//! The engine strips `expect` when it builds the `VectorSetup`, so no host
//! sees the answers; the scripted interceptors, resolver and redactor live in
//! [`script`] behind the `Callbacks` trait. Nothing here prints or names a
//! concrete host: the runner's CLI does both.
//!
//! # Project extensions of the vector grammar
//!
//! `schemas/vector.schema.json` accepts the upstream vectors unchanged and adds:
//! top-level `covers` (clause ids such as `"6.3-c"`), `spec_versions`
//! (`"0.1"` / `"draft"`, default `["0.1"]`), `interceptor_timeout_ms` and
//! `approval_timeout_ms` (forwarded in the setup); interceptor rule fault
//! `"timeout"` (the callback never answers, so the host's timeout fires) and
//! rule member `return_raw` (any JSON returned verbatim); scenario
//! `respond.parallel` and `scenario.turns`; vector ids `CTK-Dnnn` for the
//! draft line; expect key `principal_notices` (an array of objects matched in
//! order against `RunRecord.principal_notices`: equal lengths, every member
//! an expected notice names equals the actual member, numbers by value).
//!
//! Declaration vectors: `host_declaration` may hold any JSON value but
//! `null` (a root that is not an object must be refused as
//! `declaration_error:malformed`); `host_declaration_text` carries the
//! document as raw text (duplicate keys, trailing content, text that is not
//! JSON: what a parsed value cannot hold), and `host_declaration_file` one of
//! the file faults `missing`, `directory`, `bom`, `invalid_utf8`,
//! `oversized` that the host materialises and loads through its file path
//! only (the file's bytes come from the document's text). Both reach the
//! host unchanged as `VectorSetup::declaration_text` / `declaration_file`;
//! `PROTOCOL.md` §2.2 says which construction paths apply to each.
//!
//! # Vector lint (`ctk validate vector`)
//!
//! Unique ids, non-blank titles, known parts, well-formed clause ids present
//! in the catalog of each of the vector's spec versions, schema-valid
//! `host_declaration`s (unless marked invalid), and no dependence on the wall
//! clock or chance ([`vector::load::nondeterminism`]): no expectation or
//! script `match` may pin a `timestamp`, or a non-null `*_identity` value
//! (every `jcs-sha256` identity hashes the timestamp). Each finding names the
//! file and the JSON pointer.
//!
//! # Declarations
//!
//! `ctk run --declaration FILE` checks the document against the schema of
//! the version it names (1.0; 1.1 only when its schema was present at build
//! time, and only with `--spec draft`), requires its `spec` member (the
//! run's spec; a draft run also takes `agent-hooks/0.1`), and refuses it
//! before any vector runs with `declaration_error:surface_unsupported` (exit
//! 2, naming the pointer) when it asks for a point, capability, profile,
//! knob value, declaration version or unbuffered output that the host's own
//! declaration does not offer ([`declaration::unsupported`]).
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
pub mod coverage;
pub mod declaration;
pub mod engine;
pub mod errors;
pub mod identity;
pub mod json_path;
pub mod script;
pub mod surface;
pub mod vector;

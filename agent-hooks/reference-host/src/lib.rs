//! The reference Agent Hooks host: a complete `agent-hooks/0.1` emitter (plus
//! the draft line, `agent-hooks/draft`), a host declaration loader (§7.7), and
//! a small real agent loop, behind the runner's `HostAdapter` trait.
//!
//! Spec sections and the modules that implement them:
//!
//! | section | module |
//! | --- | --- |
//! | §3 points | [`point`] |
//! | §4.1-4.3 contexts, target write-back | [`context::build`] |
//! | §4.4 value domain, §12.3 bounds | [`context::domain`] |
//! | §5 verdict gate, evidence cap, response envelope | [`verdict::gate`], [`verdict::model`] |
//! | §5.2 path grammar and transforms | [`verdict::path`], [`compose::fold`] |
//! | §6 propagation | [`agent_loop`]; the tool-seam posture and blocked-call message: [`propagate`] |
//! | §6.3 failures, timeouts | [`compose::dispatch`] |
//! | §7 composition profiles, §8 modes | [`compose`] |
//! | §9 approval and redaction seams | [`seam`] |
//! | §10.1 providers, §10.2 jcs-sha256 | [`identity`] |
//! | §10.2 envelope validation | [`context::envelope`] |
//! | §10.3 records | [`record`] |
//! | §11 reserved reasons | [`reason`] |
//! | §12.1 output mediation | [`output`] |
//! | §12.2 sequences under concurrency | [`emitter`] |
//! | §7.7 host declarations, kinds, sealing | [`declaration`] |
//! | draft §6.3.1 best-effort bindings | [`compose::dispatch`], [`emitter`] |
//! | spec versions | [`spec_version`] |
//! | the agent loop | [`agent_loop`] |
//! | `impl HostAdapter` | [`host_adapter`] |
//! | error types | [`errors`] |
//!
//! Nothing reachable from an interceptor, a resolver, a redactor or a
//! context panics the emitter: every bad value becomes a reserved
//! `host_error:*` deny, and the record says so.

pub mod agent_loop;
pub mod compose;
pub mod context;
pub mod declaration;
pub mod emitter;
pub mod errors;
pub mod freedoms;
pub mod host_adapter;
pub mod identity;
pub mod output;
pub mod point;
pub mod propagate;
pub mod readings;
pub mod reason;
pub mod record;
pub mod seam;
pub mod spec_version;
pub mod verdict;

pub use emitter::{Emitted, Emitter, EmitterBuilder, PrincipalNotice};
pub use host_adapter::{ReferenceHost, HOST_DECLARATION};
pub use spec_version::{
    SpecVersion, SPEC_VERSION_0_1, SPEC_VERSION_DRAFT, SUPPORTED_SPEC_VERSIONS,
};

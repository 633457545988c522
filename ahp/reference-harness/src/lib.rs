//! The reference AHP 0.1 harness of agent-hooks-ctk.
//!
//! A conformant harness the kit bundles so the harness-role suite runs out
//! of the box and tests itself. It loads a portable registration document
//! with the kit's own loader ([`ctk_ahp_wire::registration`]), and for
//! each tool call builds `tool.before`, runs it through the intercept
//! subscriptions in registration order, one at a time, each under its own
//! deadline and failure policy, and notifies observers without waiting for
//! them. Backends are reached over stdio (persistent or per event) or HTTP.
//!
//! The binary `ctk-ahp-harness` is its own adapter: it speaks the
//! `ctk-ahp-adapter/1` contract ([`adapter`]) on its stdio.
//!
//! The harness also has a **draft line** ([`draft`]): run as
//! `ctk-ahp-harness --spec draft` (`ctk ahp-harness --spec draft` for the
//! copy bundled in `ctk`), or built with [`harness::Harness::with_line`]
//! and served with [`adapter::serve_line`], it declares `protocolVersions`
//! `["draft"]`, loads only `"draft"` registrations and speaks the upstream
//! mutable draft (its `tool.before` shape, its reply rules, observation of
//! uncalled interceptors) instead of 0.1, so the kit's draft vectors
//! (`vectors/ahp/draft/AHP-DH-*`) run against it. One process serves one
//! line; the default is 0.1.
//!
//! With `--freedoms` (issue 26) the binary takes, at the places the text
//! leaves open, the other allowed choice: rewrites of what it sends
//! ([`freedoms`]) and behavioural readings ([`readings`]), set once before
//! it serves; every other use of the crate keeps the reference choices.
//!
//! Choices where the text leaves room are listed in `README.md`; the main
//! ones: no retries; a fail-closed synthetic denial carries the generic
//! reason [`SYNTHETIC_REASON`]; a per-event backend's valid deny stands
//! even with a nonzero exit (decision D-02).

pub mod adapter;
pub mod classify;
pub mod draft;
pub mod freedoms;
pub mod harness;
pub mod http;
mod loading;
pub mod process;
pub mod readings;
pub mod stdio;

/// The adapter contract this harness speaks on its stdio.
pub const ADAPTER: &str = ctk_ahp_adapter::ADAPTER_CONTRACT;

/// The generic local reason of a synthetic (fail-closed) denial: it names
/// no backend content, network detail or credential (spec 14.3).
pub const SYNTHETIC_REASON: &str = "Required policy backend unavailable.";

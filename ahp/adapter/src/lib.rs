//! The AHP harness adapter contract of agent-hooks-ctk, `ctk-ahp-adapter/1`:
//! the kit's link to a harness under test (`ADAPTER.md`, schemas in
//! `schemas/ahp/adapter/`).
//!
//! To certify an AHP harness the kit plays its backends and drives the
//! harness through a thin adapter: a program the kit starts, which loads a
//! registration into the harness and makes it perform tool calls as its
//! agent loop would. This crate holds what both ends share:
//!
//! - [`messages`]: the contract id and the messages either end reads or
//!   writes;
//! - [`client`]: the kit's end, which starts the adapter, bounds every call
//!   and ends the adapter's whole process tree;
//! - [`server`]: the harness's end, [`server::serve`] for any
//!   [`server::HarnessAdapter`] (the reference harness is served so).
//!
//! The Agent Hooks counterpart is `ctk-agent-hooks-adapter`
//! (`ctk-harness/1`), with the same three parts.

pub mod client;
pub mod messages;
pub mod server;

pub use client::{AdapterClient, AdapterCommand, AdapterError, AdapterLine};
pub use messages::{
    AdapterInfo, HostPermission, LoadResult, Outcome, Refusal, ToolCall, ToolCallResult,
    ToolOutcome, ADAPTER_CONTRACT, FEATURE_PARALLEL_TOOL_CALLS,
};
pub use server::{serve, HarnessAdapter};

use std::sync::OnceLock;

use ctk_core::features::FeatureCatalog;

/// The features `ctk-ahp-adapter/1` gained after its base (`features.json`
/// beside `ADAPTER.md`, whose "Changes" section is their changelog): what
/// an adapter may announce in `initialize` and a harness vector may list in
/// `adapter_features`.
pub fn features() -> &'static FeatureCatalog {
    static CATALOG: OnceLock<FeatureCatalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        // The file is the crate's own, checked by a test: a broken one is a
        // bug of this build, not an input a user could fix.
        FeatureCatalog::parse(include_str!("../features.json"))
            .expect("ahp/adapter/features.json is a valid feature catalog")
    })
}

//! The Agent Hooks adapter contract of agent-hooks-ctk (`ctk-harness/1`): the
//! kit's link to a host under test.
//!
//! Two traits meet here. [`HostAdapter`] is what the runner calls: set up one
//! vector, run it, tear it down. [`Callbacks`] is what a host calls back while a
//! vector runs: the scripted interceptors, the approval resolver and the
//! redactor all live in the runner, so no host ever embeds the script engine
//! or sees a vector's expectations.
//!
//! The runner cannot tell a linked host from a remote one. Two transports:
//!
//! - linked: any Rust type implementing [`HostAdapter`] (the reference host);
//! - stdio: [`client::StdioHost`] implements [`HostAdapter`] by driving a host
//!   process in any language over the wire protocol (`PROTOCOL.md`, schemas in
//!   `schemas/harness-protocol/`), and [`server::serve`] wraps any [`HostAdapter`]
//!   so that a Rust host process can be driven that way.
//!
//! [`wire`] holds what both ends share: JSON-RPC envelopes decoded by hand,
//! one message per line with the length limit enforced while reading, the
//! typed params and results of each method, and the embedded schemas every
//! received message is checked against.
//!
//! The runner builds a stdio host from `ctk run ... -- CMD ARGS` like this,
//! and calls [`kill_all_hosts`] on Ctrl-C:
//!
//! ```no_run
//! # async fn demo(cmd: String, args: Vec<String>) {
//! use std::time::Duration;
//! let host = ctk_agent_hooks_adapter::StdioHost::builder(cmd)
//!     .args(args)
//!     .message_timeout(Duration::from_secs(10))
//!     .vector_timeout(Duration::from_secs(30)) // --vector-timeout-ms
//!     .max_line_bytes(16 * 1024 * 1024)
//!     .restart_budget(10)
//!     .isolate(false) // --isolate
//!     .build();
//! tokio::spawn(async {
//!     if tokio::signal::ctrl_c().await.is_ok() {
//!         ctk_agent_hooks_adapter::kill_all_hosts();
//!         std::process::exit(3); // host or harness error
//!     }
//! });
//! # drop(host);
//! # }
//! ```
//!
//! The traits use `impl Future + Send` for the runner-facing side (generic,
//! zero cost) and boxed futures for [`Callbacks`], because a host holds its
//! callbacks as a shared trait object across spawned tasks.

pub mod client;
pub mod errors;
pub mod interface;
pub mod model;
pub mod server;
pub mod wire;

pub use client::{
    kill_all_hosts, StdioHost, StdioHostBuilder, StdioHostConfig, WireEvent, WireTap,
};
pub use errors::{AdapterError, AdapterErrorKind, Phase};
pub use interface::{
    BoxFuture, Callbacks, HostAdapter, InterceptorReply, KnownAnswers, RedactorReply,
    ResolverReply, SharedReply,
};
pub use model::host::HostInfo;
pub use model::record::{LoadOutcome, LoadRecord, RunOutcome, RunRecord, ToolInvocation};
pub use model::setup::{
    Composition, DeclarationFileFault, InterceptorBinding, Knob, Mode, OnApproval, Profile,
    VectorSetup, JCS_SHA256_PROVIDER, MAX_DECLARATION_BYTES,
};
pub use server::{serve, serve_stdio, serve_with, ServeError, ServeOptions};

use std::sync::OnceLock;

use ctk_core::features::FeatureCatalog;

/// The adapter feature by which a host answers, itself, the interceptor calls
/// whose answers the runner sends in `vector/run` (PROTOCOL.md §2.2). A host
/// served by [`serve`] implements it and announces it without doing anything.
pub const KNOWN_ANSWERS: &str = "known-answers";

/// The adapter feature by which a host that answers an interceptor itself
/// (`known-answers`) reports the context it handed it in a `callback/record`
/// notification, where the runner records that interceptor's contexts
/// (PROTOCOL.md §3). A host served by [`serve`] implements and announces it.
pub const RECORDED_CONTEXTS: &str = "recorded-contexts";

/// The features `ctk-harness/1` gained after its base (`features.json`
/// beside `PROTOCOL.md`, whose §7 is their changelog): what a host may
/// announce in `initialize` and a vector may list in `adapter_features`.
pub fn features() -> &'static FeatureCatalog {
    static CATALOG: OnceLock<FeatureCatalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        // The file is the crate's own, checked by a test: a broken one is a
        // bug of this build, not an input a user could fix.
        FeatureCatalog::parse(include_str!("../features.json"))
            .expect("agent-hooks/adapter/features.json is a valid feature catalog")
    })
}

//! The host interface of agent-hooks-ctk.
//!
//! Two traits meet here. [`Harness`] is what the runner calls: set up one
//! vector, run it, tear it down. [`Callbacks`] is what a host calls back while a
//! vector runs: the scripted interceptors, the approval resolver and the
//! redactor all live in the runner, so no host ever embeds the script engine
//! or sees a vector's expectations.
//!
//! The runner cannot tell a linked host from a remote one: the stdio client
//! (`client`) implements [`Harness`] by speaking the wire protocol
//! (`PROTOCOL.md`), and the server (`server`) wraps any [`Harness`] so that a
//! host process can be driven over stdin/stdout.
//!
//! The traits use `impl Future + Send` for the runner-facing side (generic,
//! zero cost) and boxed futures for [`Callbacks`], because a host holds its
//! callbacks as a shared trait object across spawned tasks.

pub mod client;
pub mod errors;
pub mod harness;
pub mod model;
pub mod server;
pub mod wire;

pub use client::{kill_all_hosts, StdioHarness, StdioHarnessBuilder, StdioHarnessConfig};
pub use errors::{HarnessError, HarnessErrorKind, Phase};
pub use harness::{BoxFuture, Callbacks, Harness, InterceptorReply, RedactorReply, ResolverReply};
pub use model::host::HostInfo;
pub use model::record::{LoadOutcome, LoadRecord, RunOutcome, RunRecord, ToolInvocation};
pub use model::setup::{
    Composition, InterceptorBinding, Knob, Mode, OnApproval, Profile, VectorSetup,
    JCS_SHA256_PROVIDER,
};
pub use server::{serve, serve_stdio, serve_with, ServeError, ServeOptions};

//! The AHP 0.1 harness-role suite: the harness is under test, the kit
//! plays its control backends.
//!
//! - [`vector`]: harness vectors (`vectors/ahp/0.1/AHP-H-*.json`);
//! - [`script`]: what a scripted backend does, message by message;
//! - [`scripted`]: the scripted stdio backend (`ctk ahp-backend script`);
//! - [`http`]: the scripted HTTP backends (a loopback server);
//! - [`adapter`]: the client of the vendor's adapter (`ctk-ahp-adapter/1`,
//!   ahp/adapter/ADAPTER.md);
//! - [`engine`]: vector + adapter → run record → [`crate::Outcome`];
//! - [`mod@assert`]: the judgement;
//! - [`matrix`]: which failure classes run where, and the holes.

pub mod adapter;
pub mod assert;
pub use ctk_support::clock;
pub mod engine;
pub mod http;
pub mod matrix;
pub mod record;
pub mod script;
pub mod scripted;
pub mod vector;

pub use adapter::AdapterInfo;
pub use adapter::{AdapterCommand, AdapterError, ADAPTER_CONTRACT};
pub use engine::{
    probe_adapter, run_harness_suite, run_harness_suite_blocking, run_harness_vector,
    run_harness_vector_recorded, run_harness_vector_releasing, HarnessConfig, ScriptedCommand,
};
pub use vector::{load_harness_dir, load_harness_file, HarnessVector};

//! The command line: parse, plan, dispatch; the only place that prints.

pub mod args;
pub mod badge;
pub mod baseline;
pub mod claim;
pub mod coverage;
mod dispatch;
pub mod host;
pub mod list;
pub mod matrix;
pub mod merge;
pub mod mutation;
pub mod plan;
pub mod report;
pub mod repro;
pub mod run;
pub mod run_ahp;
pub mod terminal;
pub mod transcript;
pub mod validate;
pub mod verify;

pub(crate) use dispatch::error_chain;
pub use dispatch::{main, CliError};

//! Typed errors of the runner: a report that does not read, verify or
//! claim, and a command line that asks for something impossible. The
//! errors of the inputs each suite reads are its own, re-exported here.

pub use ctk_agent_hooks_suite::errors::{DeclarationError, LoadError};
pub use ctk_core::errors::{CatalogError, Location};
pub use ctk_report::ReportError;

/// The command line asks for something impossible.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

//! Typed errors of the runner: a report that does not read, verify or
//! claim, and a command line that asks for something impossible. The
//! errors of the inputs each suite reads are its own, re-exported here.

use std::path::PathBuf;

pub use ctk_agent_hooks_suite::errors::{DeclarationError, LoadError};
pub use ctk_core::errors::{CatalogError, Location};

/// A report could not be read, verified or claimed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReportError {
    /// Reading or writing a file failed.
    #[error("failed to access report file {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The report is not JSON or not a report.
    #[error("{location}: not a ctk report: {detail}")]
    Malformed {
        /// Where.
        location: Location,
        /// What is wrong.
        detail: String,
    },
    /// Rendering JUnit failed.
    #[error("failed to render junit.xml: {0}")]
    Junit(String),
}

/// The command line asks for something impossible.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

//! What can go wrong with a report file.

use std::path::PathBuf;

use ctk_core::errors::Location;

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
    /// The file a run spools its report's entries to could not be made,
    /// written or read back; the message names its folder.
    #[error("{0}")]
    Spool(String),
    /// Rendering JUnit failed.
    #[error("failed to render junit.xml: {0}")]
    Junit(String),
}

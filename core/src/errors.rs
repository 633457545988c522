//! Typed errors of the kit's core: where an input problem sits, and a clause
//! catalog that does not load.

use std::path::PathBuf;

/// Where an input problem sits: a file and a JSON pointer into it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The file (or `embedded:<spec>/<name>` for a compiled-in vector).
    pub file: PathBuf,
    /// RFC 6901 pointer into the document; empty for the whole document.
    pub pointer: String,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {}",
            self.file.display(),
            if self.pointer.is_empty() {
                "/"
            } else {
                &self.pointer
            }
        )
    }
}

/// A clause catalog (`spec/<version>/clauses.json`) could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// Reading the file failed.
    #[error("failed to read clause catalog {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Not JSON, or not a catalog.
    #[error("{location}: not a clause catalog: {detail}")]
    Malformed {
        /// Where.
        location: Location,
        /// What is wrong.
        detail: String,
    },
    /// No catalog for this spec version is compiled in.
    #[error("no clause catalog for spec {spec} in this build (pass --clauses FILE)")]
    Missing {
        /// The short spec name.
        spec: String,
    },
}

//! Typed errors of the runner. Every input error names the file, the JSON
//! pointer inside it and, when known, the vector id.

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

/// A vector file or folder could not be loaded.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LoadError {
    /// Reading a file or folder failed.
    #[error("failed to read {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON.
    #[error("{location}: not valid JSON: {detail}")]
    Json {
        /// Where.
        location: Location,
        /// Parser message.
        detail: String,
    },
    /// The vector breaks `schemas/vector.schema.json`.
    #[error("{location}: {detail} (vector {vector})")]
    Schema {
        /// Where.
        location: Location,
        /// The vector id, or `?` when unreadable.
        vector: String,
        /// Validator message.
        detail: String,
    },
    /// A lint rule failed (duplicate id, bad clause id, ...).
    #[error("{location}: {detail} (vector {vector})")]
    Lint {
        /// Where.
        location: Location,
        /// The vector id.
        vector: String,
        /// What is wrong.
        detail: String,
    },
    /// The folder or embedded set held no vector: a run of zero vectors must
    /// never read as a pass.
    #[error("no vectors found in {source_name}")]
    NoVectors {
        /// The folder or embedded set.
        source_name: String,
    },
}

/// A host declaration could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DeclarationError {
    /// Reading the file failed.
    #[error("failed to read declaration {path}")]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Not JSON.
    #[error("{location}: declaration is not valid JSON: {detail}")]
    Json {
        /// Where.
        location: Location,
        /// Parser message.
        detail: String,
    },
    /// Breaks `schemas/host-declaration-1.0.schema.json` (or `-1.1`), or a
    /// rule of the runner (the `spec` member is required; 1.1 only with
    /// `--spec draft`).
    #[error("{location}: declaration: {detail}")]
    Schema {
        /// Where.
        location: Location,
        /// Validator message.
        detail: String,
    },
    /// The document asks for more than the host's own surface offers
    /// (`declaration_error:surface_unsupported`); nothing runs.
    #[error("{location}: declaration_error:surface_unsupported: {detail}")]
    SurfaceUnsupported {
        /// Where, in the `--declaration` document.
        location: Location,
        /// What the host lacks.
        detail: String,
    },
}

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

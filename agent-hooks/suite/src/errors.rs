//! Typed errors of the Agent Hooks suite: a vector or a host declaration
//! that does not load. Every one names the file, the JSON pointer inside it
//! and, when known, the vector id.

use std::path::PathBuf;

pub use ctk_core::errors::Location;

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
    /// The file nests deeper than the kit reads
    /// (`ctk_agent_hooks_adapter::wire::depth::MAX_NESTING`); never parsed.
    #[error("{location}: {source}")]
    TooDeep {
        /// Where (the file's root).
        location: Location,
        /// The bound and the byte where it was passed.
        #[source]
        source: ctk_agent_hooks_adapter::wire::depth::TooDeep,
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

//! Typed errors of the suite: loading vectors, and reaching a backend.

use std::path::PathBuf;

/// A vector file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// The file or folder cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The path.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not strict JSON.
    #[error("{path} is not strict JSON: {source}")]
    Json {
        /// The path.
        path: PathBuf,
        /// What is wrong.
        source: ctk_ahp_wire::json::JsonError,
    },
    /// The JSON does not have the vector shape (schemas/ahp/vector.schema.json).
    #[error("{path} is not a backend-role vector: {source}")]
    Shape {
        /// The path.
        path: PathBuf,
        /// Which member is wrong.
        source: serde_json::Error,
    },
    /// The JSON does not have the harness-vector shape
    /// (schemas/ahp/harness-vector.schema.json).
    #[error("{path}: the member at JSON pointer {pointer:?} does not fit a harness-role vector: {source}")]
    HarnessShape {
        /// The path.
        path: PathBuf,
        /// Where: the innermost member that does not fit (`""`: the document).
        pointer: String,
        /// What is wrong.
        source: serde_json::Error,
    },
    /// The vector breaks a rule the schema cannot state.
    #[error("{path} breaks vector rules: {}", problems.join("; "))]
    Lint {
        /// The path.
        path: PathBuf,
        /// One message per broken rule.
        problems: Vec<String>,
    },
    /// Two vectors share an id.
    #[error("vector id {id} appears twice (again in {path})")]
    DuplicateId {
        /// The id.
        id: String,
        /// The second file.
        path: PathBuf,
    },
}

/// The backend or the link to it broke in a way that is not a conformance
/// verdict: the outcome of the vector is `error`, not `fail`.
#[derive(Debug, Clone, thiserror::Error)]
pub enum LinkError {
    /// The stdio command could not be started.
    #[error("cannot start backend command {program:?}: {message} (check the path and that it is executable)")]
    Spawn {
        /// The program.
        program: String,
        /// The OS error.
        message: String,
    },
    /// The HTTP endpoint could not be reached at all.
    #[error("cannot connect to {url}: {message} (is the backend listening?)")]
    Connect {
        /// The URL.
        url: String,
        /// What failed.
        message: String,
    },
    /// The HTTP client could not be built or the URL is unusable.
    #[error("HTTP client setup failed: {0}")]
    Client(String),
    /// The vector took longer than the per-vector timeout.
    #[error("vector exceeded its timeout of {ms} ms; the backend was killed")]
    VectorTimeout {
        /// The timeout.
        ms: u64,
    },
}

//! HostAdapter errors: the host or the link to it failed, apart from any
//! conformance question.

use std::fmt;

/// Where in a vector's life a harness error happened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Phase {
    /// Starting the host process.
    Spawn,
    /// The handshake.
    Handshake,
    /// Setting up a vector.
    Setup,
    /// Running a vector.
    Run,
    /// Tearing a vector down.
    Teardown,
    /// Shutting the host down.
    Shutdown,
}

impl fmt::Display for Phase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Phase::Spawn => "spawn",
            Phase::Handshake => "handshake",
            Phase::Setup => "setup",
            Phase::Run => "run",
            Phase::Teardown => "teardown",
            Phase::Shutdown => "shutdown",
        })
    }
}

/// What went wrong with the host or the link.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum AdapterErrorKind {
    /// The host process could not be started.
    #[error("could not start the host: {0}")]
    Spawn(String),
    /// The host process exited.
    #[error("the host exited ({status})")]
    Exited {
        /// Exit status as text.
        status: String,
    },
    /// The host did not answer in time.
    #[error("the host did not answer within {millis} ms")]
    Timeout {
        /// The limit that expired.
        millis: u64,
    },
    /// The host sent something that is not a valid protocol message.
    #[error("protocol violation: {0}")]
    Protocol(String),
    /// The host sent a line longer than the limit.
    #[error("the host sent a line longer than {limit} bytes")]
    OversizedLine {
        /// The limit in bytes.
        limit: usize,
    },
    /// The host reported that it cannot do what was asked.
    #[error("the host reported an error: {0}")]
    Host(String),
    /// Reading or writing the link failed.
    #[error("i/o on the host link failed: {0}")]
    Io(String),
    /// The runner's own message would break the wire's rules (a vector
    /// whose data nests deeper than a line may), so it was not sent.
    #[error("the runner cannot send this message: {0}")]
    Unsendable(String),
}

/// A host or link failure during one phase of one vector; it makes that
/// vector an `error`, never a pass or a conformance failure.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{phase}: {kind}")]
#[non_exhaustive]
pub struct AdapterError {
    /// The phase that failed.
    pub phase: Phase,
    /// What failed.
    #[source]
    pub kind: AdapterErrorKind,
    /// The last lines the host wrote to stderr, oldest first.
    pub stderr_tail: Vec<String>,
}

impl AdapterError {
    /// A harness error with no stderr captured.
    pub fn new(phase: Phase, kind: AdapterErrorKind) -> Self {
        Self {
            phase,
            kind,
            stderr_tail: Vec::new(),
        }
    }

    /// The same error, carrying the host's last stderr lines.
    #[must_use]
    pub fn with_stderr(mut self, tail: Vec<String>) -> Self {
        self.stderr_tail = tail;
        self
    }
}

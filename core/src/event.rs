//! What the engine reports while it runs; renderers turn events into output.

use crate::outcome::VectorOutcome;

/// One engine event.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The run starts with this many vectors.
    RunStarted {
        /// Number of vectors.
        total: usize,
    },
    /// A worker started a vector that applies (skips never start).
    VectorStarted {
        /// Position of the vector in the run.
        index: usize,
    },
    /// A vector finished (events arrive in completion order).
    VectorFinished {
        /// Position of the vector in the run.
        index: usize,
        /// Its outcome.
        outcome: VectorOutcome,
    },
    /// Every vector finished.
    RunFinished,
}

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

impl Event {
    /// The position of the vector the event is about, if it is about one.
    pub fn index(&self) -> Option<usize> {
        match self {
            Event::VectorStarted { index } | Event::VectorFinished { index, .. } => Some(*index),
            Event::RunStarted { .. } | Event::RunFinished => None,
        }
    }
}

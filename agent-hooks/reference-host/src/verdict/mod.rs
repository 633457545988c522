//! Verdicts: the typed model, the §5 gate, and the §5.2 path grammar.

pub mod gate;
pub mod model;
pub mod path;

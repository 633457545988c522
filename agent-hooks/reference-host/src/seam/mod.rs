//! The approval and redaction seams (§9).

pub mod approval;
pub mod redaction;

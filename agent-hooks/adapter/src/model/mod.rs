//! The typed values that cross the host interface, linked or over stdio.

pub mod host;
pub mod record;
pub mod setup;

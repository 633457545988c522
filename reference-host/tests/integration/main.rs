//! The reference host's integration tests: one binary, modules only.

mod driver;
mod vectors;

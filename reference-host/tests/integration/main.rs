//! The reference host's integration tests: one binary, modules only.

mod driver;
mod golden;
mod reserved_reasons;
mod support;
mod vectors;

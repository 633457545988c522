//! The reference host's integration tests: one binary, modules only.

mod composition;
mod driver;
mod golden;
mod props;
mod reserved_reasons;
mod support;
mod vectors;

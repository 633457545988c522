//! The reference host's integration tests: one binary, modules only.

mod agent_loop;
mod best_effort;
mod composition;
mod freedoms;
mod golden;
mod harness;
mod props;
mod reserved_reasons;
mod support;
mod upstream;

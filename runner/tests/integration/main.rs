//! Integration tests of the ctk runner and binary.

mod adapter_features;
mod ahp_validate;
mod baseline;
mod claim_rows;
mod cli;
mod coverage;
mod declarations;
mod engine;
mod expect_keys;
mod freedoms;
mod html_badge;
mod identity;
mod matrix;
mod mutation;
mod partition;
mod reports;
mod repro;
mod run_ahp;
mod run_cli;
mod support;
mod upstream;
mod vector_lint;

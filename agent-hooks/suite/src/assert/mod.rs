//! Assertions: pure functions of (`Expect`, `RunRecord`, recorded contexts,
//! declared posture). Non-conformance is data, never `Err`.
//!
//! Pass order (all failures are collected): `load` → `interceptions`
//! (+ `interceptions_absent`, context checks) → run record (`run_outcome` /
//! `run_outcome_by_posture`, `final_output`, `tool_invocations`,
//! `tool_not_invoked`, `released_output`, `persisted_must_not_contain`,
//! `persisted_must_contain`, `principal_notices`) →
//! `records` → the implicit sequence check → `identities_equal` → the implicit
//! recomputation of `jcs-sha256` input identities → the implicit check of
//! every approval request's shape.

pub mod approval;
mod check;
pub use ctk_core::diff;
pub mod interceptions;
pub mod load;
pub mod records;
pub mod run;

pub use check::{assert_vector, AssertionFailure, Observed};

//! The AHP suite of agent-hooks-ctk, both roles and both lines (0.1 and
//! the draft). In the backend role, the backend is under test and the kit
//! plays the harness (below); in the harness role ([`harness`]), the kit
//! plays the backends and drives the harness through its adapter
//! (`ctk-ahp-adapter/1`). Both yield the core's failures
//! ([`assert::AssertionFailure`]) with expected and actual values, and run
//! in the core's vector loop.
//!
//! - [`vector`]: the vector model (`schemas/ahp/vector.schema.json`) and
//!   the loader of `vectors/ahp/0.1/*.json`;
//! - the driver (private): sends a vector's steps to a stdio command
//!   (persistent or per_event) or an HTTP URL, bounded in time and bytes,
//!   and writes a [`record::RunRecord`];
//! - [`mod@assert`]: run record + expectations → failures;
//! - [`draft`]: how replies to draft-line vectors (`"ahp": "draft"`,
//!   `vectors/ahp/draft/AHP-DB-*.json`, never claimable) are judged;
//! - [`suite`]: [`run_suite`], the entry point, and [`Outcome`].
//!
//! A report built from the outcomes names the role (`backend`), the
//! binding and lifecycle ([`Target::binding`], [`Target::lifecycle`]), the
//! profiles the vectors cite, and both version strings
//! ([`WIRE_VERSION`] `"0.1"` and [`REVISION`] `0.1.0-draft.1`), as spec
//! 6, 7.2 and 21 require of a conformance report. Advisory outcomes
//! ([`Outcome::advisory`]) are reported apart and never gate.

pub mod assert;
pub mod draft;
mod driver;
pub mod error;
pub mod harness;
pub mod policy;
pub mod record;
pub mod suite;
pub mod vector;

pub use ctk_ahp_wire::version::{REVISION, WIRE_VERSION};
pub use error::{LinkError, VectorError};
pub use suite::{
    run_suite, run_suite_blocking, run_vector, Lifecycle, Outcome, StdioCommand, SuiteConfig,
    Target, Verdict,
};
pub use vector::{load_dir, load_file, Vector};

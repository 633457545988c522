//! The protocol-neutral core types of agent-hooks-ctk, shared by the runner
//! (`ctk`) and by every suite (`ctk-agent-hooks-suite`, `ctk-ahp-suite`):
//!
//! * [`suite`]: the protocols and lines the kit certifies;
//! * [`set`]: the embedded vector files of every suite and the core's view
//!   of a vector ([`set::VectorMeta`]);
//! * [`catalog`]: clause catalogs (`spec/<line>/clauses.json`);
//! * [`outcome`] and [`event`]: what one vector's run came to, and what an
//!   engine reports while it runs;
//! * [`vector_loop`]: the one loop every suite's vectors run in (jobs,
//!   vectors that run alone, `--fail-fast`, Ctrl-C, panics);
//! * [`digest`] and [`diff`]: RFC 8785 digests and the expected-against-actual
//!   diff every report shows;
//! * [`errors`]: where an input problem sits;
//! * [`features`]: the adapter contracts' features, as data.
//!
//! Nothing here knows a protocol's messages: a suite turns its own vectors
//! and run records into these types, and the runner turns them into reports.

pub mod catalog;
pub mod diff;
pub mod digest;
pub mod errors;
pub mod event;
pub mod features;
pub mod number;
pub mod outcome;
pub mod set;
pub mod suite;
pub mod vector_loop;

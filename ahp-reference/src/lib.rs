//! The reference AHP 0.1 policy backend of agent-hooks-ctk.
//!
//! The kit bundles it so the backend-role suite runs out of the box and can
//! test itself: a configurable backend that answers `hooks/intercept`
//! with no effect or one `deny` according to a small rule set
//! ([`policy`]), and never answers `hooks/observe`. The decision core
//! ([`backend`]) is transport-free; [`stdio`] and [`http`] put it on the
//! two AHP 0.1 bindings, and the `ctk-ahp-backend` binary exposes both.

pub mod backend;
pub mod http;
pub mod log;
pub mod policy;
pub mod rpc;
pub mod stdio;

pub use backend::{respond, Backend, Disposition, Handled};
pub use policy::{Policy, PolicyError};

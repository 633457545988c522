//! The reference AHP 0.1 policy backend of agent-hooks-ctk.
//!
//! The kit bundles it so the backend-role suite runs out of the box and can
//! test itself: a configurable backend that answers `hooks/intercept`
//! with no effect or one `deny` according to a small rule set
//! ([`policy`]), and never answers `hooks/observe`. The decision core
//! ([`backend`]) is transport-free; [`stdio`] and [`http`] put it on the
//! two AHP 0.1 bindings, and the `ctk-ahp-backend` binary exposes both.
//!
//! The backend also has a **draft line** ([`draft`]): built with
//! [`Backend::with_line`]`(policy, AhpLine::Draft)`, or run as
//! `ctk-ahp-backend --spec draft stdio|http` (`ctk ahp-backend stdio --spec
//! draft` for the copy bundled in `ctk`), it speaks the upstream mutable
//! draft (wire `protocolVersion` `"draft"`, the draft `tool.before` shape)
//! instead of 0.1, so the kit's draft vectors (`vectors/ahp/draft/AHP-DB-*`)
//! run against it. One process serves one line; the default is 0.1.

pub mod backend;
pub mod draft;
pub mod freedoms;
pub mod http;
pub mod log;
pub mod policy;
pub mod rpc;
pub mod stdio;

pub use backend::{respond, Backend, Disposition, Handled};
pub use ctk_ahp_wire::version::AhpLine;
pub use policy::{Policy, PolicyError};

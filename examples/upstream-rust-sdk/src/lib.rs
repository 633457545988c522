//! An Agent Hooks host built on the published upstream Rust core,
//! crates.io `agent-hooks-sdk` 0.1.0-beta.3 (feature `ctk`), behind the
//! kit's [`HostAdapter`](ctk_agent_hooks_adapter::HostAdapter) trait.
//!
//! What is the crate's and what is ours:
//!
//! - the crate's: the §5 verdict gate (`InterceptorResponse::from_wire`),
//!   the context envelope (`AgentContextBuilder`), composition, identity,
//!   the approval seam, the records (`InterceptionEmitter`), the
//!   declaration loader (`HostDeclaration`, `HostRegistry`, `resolve`) and
//!   the code surface (`HostSurface`);
//! - ours: the agent loop that drives a kit scenario ([`agent_loop`]), and
//!   the plumbing ([`plumbing`], [`load`]) that turns the kit's setup and
//!   callbacks into the crate's interceptor, resolver, redactor and
//!   provider types and the crate's records into the kit's run record.
//!
//! Every emitter this host builds goes through the crate's declaration
//! loader, as the crate's own reference harness does: a field-configured
//! vector is written into a document ([`load::field_document`]), because the
//! crate's code-configured emitter has no setter for the approval resolver's
//! timeout.
//!
//! The host needs a multi-thread tokio runtime: the crate's approval redactor
//! is a synchronous function, and this host answers it by blocking on the
//! kit's asynchronous redactor callback (`tokio::task::block_in_place`).

#![warn(missing_docs)]

pub mod agent_loop;
pub mod errors;
pub mod host;
pub mod load;
pub mod plumbing;
pub mod scenario;

pub use errors::SetupError;
pub use host::{code_surface, UpstreamSdkHost, HOST_DECLARATION};

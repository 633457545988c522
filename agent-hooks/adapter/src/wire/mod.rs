//! The stdio wire: JSON-RPC 2.0 envelopes, one message per line, the typed
//! params and results of each method, and the schemas both ends check every
//! received message against. `PROTOCOL.md` is the contract in prose.

pub mod codec;
pub use ctk_support::depth;
pub mod jsonrpc;
pub mod methods;
pub mod schema;

pub use codec::{CodecError, LineReader};
pub use jsonrpc::{ErrorObject, Id, Message, WireError};
pub use schema::Schemas;

/// The protocol version both ends speak, exchanged in `initialize`.
pub const PROTOCOL_VERSION: &str = "ctk-harness/1";

//! The runner's side of a running vector: scripted interceptors, the scripted
//! approval resolver and the redactor, behind [`Callbacks`](ctk_agent_hooks_adapter::Callbacks). No host embeds
//! this engine; linked or over stdio, every decision comes from here.

mod callbacks;
pub mod interceptor;
pub mod pad;
pub mod redactor;
pub mod resolver;

pub use callbacks::ScriptedCallbacks;

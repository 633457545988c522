//! A small real agent loop: scripted model, logged mock tools, multi-turn
//! sessions and parallel tool calls, run through the emitter.

pub mod run;
pub mod scenario;
pub mod tools;

//! Reports: the model, building it from outcomes, pure renderers, and the
//! `verify` and `claim` rules that read a report back.

pub mod badge;
pub mod baseline;
pub mod build;
pub mod claim;
pub mod events;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod matrix;
pub mod merge;
pub mod model;
pub mod mutation;
pub mod rules;
pub mod verify;

//! Vectors: the parsed model, the loader and the embedded project set.

pub mod embedded;
pub mod generate;
pub mod load;
pub mod model;
pub mod plan;
pub mod rules;

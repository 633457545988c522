//! Composition (§7) and enforcement mode (§8): dispatch, the four profiles
//! and their knobs, folds, unions.

pub mod dispatch;
pub mod fold;
pub mod parallel;
pub mod profile;
pub mod sequential;

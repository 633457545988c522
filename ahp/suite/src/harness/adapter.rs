//! The adapter contract `ctk-ahp-adapter/1` as the harness-role suite uses
//! it: the kit's end and the messages live in `ctk-ahp-adapter`, shared with
//! the harnesses that serve it.

pub use ctk_ahp_adapter::client::{AdapterClient, AdapterCommand, AdapterError, AdapterLine};
pub use ctk_ahp_adapter::messages::{
    AdapterInfo, LoadResult, Refusal, ToolCallResult, ToolOutcome, ADAPTER_CONTRACT,
    FEATURE_PARALLEL_TOOL_CALLS,
};

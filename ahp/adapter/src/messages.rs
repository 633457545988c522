//! The messages of `ctk-ahp-adapter/1` that both ends read or write
//! (`ADAPTER.md`; their schemas are `schemas/ahp/adapter/*.json`).

use ctk_ahp_wire::wire::ToolKind;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

/// The contract id the kit speaks and every adapter must answer with.
pub const ADAPTER_CONTRACT: &str = "ctk-ahp-adapter/1";

/// `initialize` result: what the harness supports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterInfo {
    /// Always [`ADAPTER_CONTRACT`].
    pub adapter: String,
    /// The harness's name.
    pub name: String,
    /// The harness's version.
    pub version: String,
    /// Wire versions supported (`"0.1"`).
    pub protocol_versions: Vec<String>,
    /// `stdio`, `http`.
    pub bindings: Vec<String>,
    /// `persistent`, `per_event`.
    pub lifecycles: Vec<String>,
    /// Conformance profiles claimed.
    pub profiles: Vec<String>,
    /// The adapter features ([`crate::features`]) the adapter implements,
    /// added to `ctk-ahp-adapter/1` after its base without a new contract
    /// id: an adapter that omits it is a base adapter, and each vector
    /// listing a feature it lacks is skipped, naming it. Known:
    /// [`FEATURE_PARALLEL_TOOL_CALLS`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
}

/// The adapter feature that offers `harness/tool_calls`: several tool calls
/// performed as the parallel calls of one model turn.
pub const FEATURE_PARALLEL_TOOL_CALLS: &str = "parallel-tool-calls";

/// One refused member of a registration (`harness/load`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    /// JSON pointer into the registration.
    pub pointer: String,
    /// Why.
    pub reason: String,
}

/// `harness/load` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadResult {
    /// Whether the harness took the registration.
    pub loaded: bool,
    /// Why not (with `loaded: false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<Vec<Refusal>>,
}

/// What the harness did with one tool call (`harness/tool_call`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    /// The tool ran.
    Executed,
    /// The tool did not run: a deny or a fail-closed failure.
    Denied,
    /// The host asked the user (no deny, host permission `prompt`).
    Prompted,
}

/// `harness/tool_call` result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallResult {
    /// The outcome.
    pub outcome: ToolOutcome,
    /// `denied` only: a fail-closed failure (true) or a backend deny (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synthetic: Option<bool>,
    /// `denied` only: the reason the harness shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// `denied` only: the deny's `code`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl ToolCallResult {
    /// Check the members the outcome requires (the schema's rules).
    pub fn validate(&self) -> Result<(), String> {
        match self.outcome {
            ToolOutcome::Denied if self.synthetic.is_none() => {
                Err("a denied outcome needs `synthetic` (true or false)".into())
            }
            ToolOutcome::Executed | ToolOutcome::Prompted
                if self.synthetic.is_some() || self.reason.is_some() || self.code.is_some() =>
            {
                Err("only a denied outcome carries synthetic, reason or code".into())
            }
            _ => Ok(()),
        }
    }
}

/// What the host's permission system would do with a call AHP did not
/// deny (`harness/tool_call` `hostPermission`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostPermission {
    /// Run it (`"allow"`, the default).
    Allow,
    /// Ask the user first (`"prompt"`).
    Prompt,
}

/// One tool call as the agent loop would make it (`harness/tool_call`
/// params, read by [`crate::server`]).
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The harness's tool name.
    pub name: String,
    /// The tool kind (a 0.1 kind on the 0.1 line; any non-empty string on
    /// the draft).
    pub kind: ToolKind,
    /// The parsed input object.
    pub input: Map<String, Value>,
    /// The call id, or `None` to have the harness make one.
    pub call_id: Option<String>,
    /// What the host would do without AHP's objection.
    pub host_permission: HostPermission,
}

/// What became of a tool call, as a harness answers it (`harness/tool_call`
/// result). The kit reads the answer as a [`ToolCallResult`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The tool ran.
    Executed,
    /// The tool did not run.
    Denied {
        /// A fail-closed failure, not a backend's deny (spec 14.3).
        synthetic: bool,
        /// The backend's reason, or the harness's generic local one.
        reason: String,
        /// The backend's code (never for a synthetic denial).
        code: Option<String>,
    },
    /// No interceptor denied, and the host asked the user (empty effects
    /// grant nothing, spec 12.3).
    Prompted,
}

impl Outcome {
    /// The result member of the answer (a denial always states its `code`,
    /// `null` when there is none).
    pub fn to_value(&self) -> Value {
        match self {
            Outcome::Executed => json!({"outcome": "executed"}),
            Outcome::Prompted => json!({"outcome": "prompted"}),
            Outcome::Denied {
                synthetic,
                reason,
                code,
            } => {
                json!({"outcome": "denied", "synthetic": synthetic, "reason": reason, "code": code})
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one end writes, the other reads as valid.
    #[test]
    fn every_outcome_a_harness_writes_the_kit_reads() {
        let outcomes = [
            Outcome::Executed,
            Outcome::Prompted,
            Outcome::Denied {
                synthetic: true,
                reason: "r".into(),
                code: None,
            },
            Outcome::Denied {
                synthetic: false,
                reason: "r".into(),
                code: Some("com.example.x".into()),
            },
        ];
        for o in outcomes {
            let read: ToolCallResult = serde_json::from_value(o.to_value()).expect("readable");
            read.validate().expect("valid");
            let kind = match o {
                Outcome::Executed => ToolOutcome::Executed,
                Outcome::Prompted => ToolOutcome::Prompted,
                Outcome::Denied { .. } => ToolOutcome::Denied,
            };
            assert_eq!(read.outcome, kind);
        }
    }
}

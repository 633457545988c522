//! The backend's decision rules: an ordered list of deny rules, read from a
//! JSON file or taken from the built-in default.
//!
//! The format is documented in `ahp/reference-backend/README.md`. A rule denies a
//! `tool.before` event when every condition it sets holds; the first
//! matching rule wins; no matching rule means no effect (`effects: []`).
//! A rule only ever produces a `deny`, the one effect AHP 0.1 defines
//! (spec 12.1), so the backend can never return an unadvertised effect.

use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use serde_json::{Map, Value};

/// The reverse-DNS test AHP uses for effect codes and extension keys: the
/// wire crate's one copy, which a test holds to the schemas' pattern.
use ctk_ahp_wire::wire::is_reverse_dns;

/// Why a policy document cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    /// The policy file could not be read.
    #[error("cannot read policy file {path}: {source}")]
    Read {
        /// The path given with `--policy`.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The text is not a policy document (bad JSON, an unknown member, a
    /// member of the wrong type).
    #[error("policy is not valid: {0} (see ahp/reference-backend/README.md for the format)")]
    Format(#[from] serde_json::Error),
    /// A rule sets no condition, so it would deny every call.
    #[error("policy rule {index} sets no condition; give at least one of toolName, toolNameMatches, toolKind, inputContains (a rule that denies everything is almost always a mistake)")]
    NoCondition {
        /// The rule's position in `rules`, from 0.
        index: usize,
    },
    /// A rule's `reason` is empty or only whitespace; AHP requires a
    /// non-empty human-readable reason on every deny (spec 12.2).
    #[error("policy rule {index} has an empty reason; a deny must explain itself to the user")]
    EmptyReason {
        /// The rule's position in `rules`, from 0.
        index: usize,
    },
    /// A rule's `code` or an `extensions` key is not a reverse-DNS name
    /// (spec 12.2 and 9.5).
    #[error("policy rule {index}: {what} {value:?} is not a reverse-DNS name such as com.example.policy.force_push")]
    NotReverseDns {
        /// The rule's position in `rules`, from 0.
        index: usize,
        /// `code` or `extensions key`.
        what: &'static str,
        /// The offending text.
        value: String,
    },
    /// A `toolNameMatches` pattern does not compile.
    #[error("policy rule {index}: toolNameMatches is not a valid regular expression: {source}")]
    Pattern {
        /// The rule's position in `rules`, from 0.
        index: usize,
        /// The regex error.
        source: regex::Error,
    },
}

/// One rule as written in the policy document.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RuleDoc {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    tool_name: Option<String>,
    #[serde(default)]
    tool_name_matches: Option<String>,
    #[serde(default)]
    tool_kind: Option<String>,
    #[serde(default)]
    input_contains: Option<String>,
    reason: String,
    #[serde(default)]
    code: Option<String>,
    #[serde(default)]
    extensions: Option<Map<String, Value>>,
}

/// The policy document as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PolicyDoc {
    rules: Vec<RuleDoc>,
}

/// One checked deny rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// A label for logs (stderr); never sent on the wire.
    pub id: Option<String>,
    /// Deny when `tool.name` equals this exactly.
    pub tool_name: Option<String>,
    /// Deny when `tool.name` matches this whole-name regular expression.
    pub tool_name_matches: Option<Regex>,
    /// Deny when `tool.kind` equals this exactly.
    pub tool_kind: Option<String>,
    /// Deny when some string value inside `tool.input` contains this text.
    pub input_contains: Option<String>,
    /// The deny effect's `reason` (non-empty, checked at load).
    pub reason: String,
    /// The deny effect's optional reverse-DNS `code`.
    pub code: Option<String>,
    /// The deny effect's optional `extensions` (reverse-DNS keys).
    pub extensions: Option<Map<String, Value>>,
}

/// The facts of a `tool.before` event a rule can look at.
#[derive(Debug, Clone, Copy)]
pub struct ToolCall<'a> {
    /// `tool.name`.
    pub name: &'a str,
    /// `tool.kind`.
    pub kind: &'a str,
    /// `tool.input` (an object).
    pub input: &'a Value,
}

impl Rule {
    /// Whether every condition this rule sets holds for `call`.
    pub fn matches(&self, call: &ToolCall<'_>) -> bool {
        self.tool_name.as_deref().is_none_or(|n| n == call.name)
            && self
                .tool_name_matches
                .as_ref()
                .is_none_or(|re| re.is_match(call.name))
            && self.tool_kind.as_deref().is_none_or(|k| k == call.kind)
            && self
                .input_contains
                .as_deref()
                .is_none_or(|needle| any_string_contains(call.input, needle))
    }

    /// The deny effect this rule produces, as AHP 0.1 spells it
    /// (`type`, `reason`, then `code` and `extensions` when set).
    pub fn deny_effect(&self) -> Value {
        let mut effect = Map::new();
        effect.insert("type".into(), Value::from("deny"));
        effect.insert("reason".into(), Value::from(self.reason.clone()));
        if let Some(code) = &self.code {
            effect.insert("code".into(), Value::from(code.clone()));
        }
        if let Some(ext) = &self.extensions {
            effect.insert("extensions".into(), Value::Object(ext.clone()));
        }
        Value::Object(effect)
    }
}

/// Whether any string value nested anywhere in `value` contains `needle`
/// (object keys are not searched: they name fields, they are not input).
fn any_string_contains(value: &Value, needle: &str) -> bool {
    match value {
        Value::String(s) => s.contains(needle),
        Value::Array(items) => items.iter().any(|v| any_string_contains(v, needle)),
        Value::Object(map) => map.values().any(|v| any_string_contains(v, needle)),
        _ => false,
    }
}

/// An ordered, checked rule set.
#[derive(Debug, Clone)]
pub struct Policy {
    rules: Vec<Rule>,
}

/// The built-in default policy, in the documented file format.
pub const DEFAULT_POLICY_JSON: &str = r#"{
  "rules": [
    {
      "id": "force-push",
      "toolKind": "shell",
      "inputContains": "git push --force",
      "reason": "Force pushes are not allowed by the reference policy.",
      "code": "dev.agent-hooks-ctk.reference.force_push"
    },
    {
      "id": "deny-probe",
      "toolName": "ctk_deny",
      "reason": "The reference policy denies the ctk_deny probe tool.",
      "code": "dev.agent-hooks-ctk.reference.deny_probe"
    }
  ]
}
"#;

impl Policy {
    /// The built-in default ([`DEFAULT_POLICY_JSON`]): deny a `shell` call
    /// whose input contains `git push --force`, and deny the `ctk_deny`
    /// probe tool; everything else gets no effect.
    pub fn builtin() -> Policy {
        Policy::from_json(DEFAULT_POLICY_JSON).expect("the built-in policy is valid")
    }

    /// A policy with no rules: every valid request gets `effects: []`.
    pub fn empty() -> Policy {
        Policy { rules: Vec::new() }
    }

    /// Parse and check a policy document.
    pub fn from_json(text: &str) -> Result<Policy, PolicyError> {
        let doc: PolicyDoc = serde_json::from_str(text)?;
        let mut rules = Vec::with_capacity(doc.rules.len());
        for (index, r) in doc.rules.into_iter().enumerate() {
            if r.tool_name.is_none()
                && r.tool_name_matches.is_none()
                && r.tool_kind.is_none()
                && r.input_contains.is_none()
            {
                return Err(PolicyError::NoCondition { index });
            }
            if r.reason.trim().is_empty() {
                return Err(PolicyError::EmptyReason { index });
            }
            if let Some(code) = &r.code {
                if !is_reverse_dns(code) {
                    return Err(PolicyError::NotReverseDns {
                        index,
                        what: "code",
                        value: code.clone(),
                    });
                }
            }
            if let Some(ext) = &r.extensions {
                if let Some(key) = ext.keys().find(|k| !is_reverse_dns(k)) {
                    return Err(PolicyError::NotReverseDns {
                        index,
                        what: "extensions key",
                        value: key.clone(),
                    });
                }
            }
            let tool_name_matches = match &r.tool_name_matches {
                // Anchored so "Bash" does not also match "NotBash".
                Some(p) => Some(
                    Regex::new(&format!("^(?:{p})$"))
                        .map_err(|source| PolicyError::Pattern { index, source })?,
                ),
                None => None,
            };
            rules.push(Rule {
                id: r.id,
                tool_name: r.tool_name,
                tool_name_matches,
                tool_kind: r.tool_kind,
                input_contains: r.input_contains,
                reason: r.reason,
                code: r.code,
                extensions: r.extensions,
            });
        }
        Ok(Policy { rules })
    }

    /// Read and check a policy file.
    pub fn from_file(path: &Path) -> Result<Policy, PolicyError> {
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Policy::from_json(&text)
    }

    /// The rules, in evaluation order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// The first rule that matches `call`, if any.
    pub fn evaluate(&self, call: &ToolCall<'_>) -> Option<&Rule> {
        self.rules.iter().find(|r| r.matches(call))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn call<'a>(name: &'a str, kind: &'a str, input: &'a Value) -> ToolCall<'a> {
        ToolCall { name, kind, input }
    }

    #[test]
    fn builtin_denies_force_push_only_for_shell_and_the_probe_tool() {
        let p = Policy::builtin();
        let push = json!({"command": "git push --force origin main"});
        let r = p.evaluate(&call("Bash", "shell", &push)).expect("denied");
        assert_eq!(
            r.code.as_deref(),
            Some("dev.agent-hooks-ctk.reference.force_push")
        );
        assert!(p.evaluate(&call("Write", "file_write", &push)).is_none());
        let plain = json!({"command": "git status"});
        assert!(p.evaluate(&call("Bash", "shell", &plain)).is_none());
        let empty = json!({});
        assert!(p.evaluate(&call("ctk_deny", "other", &empty)).is_some());
    }

    #[test]
    fn input_search_reaches_nested_strings_but_not_keys() {
        let p = Policy::from_json(r#"{"rules":[{"inputContains":"secret.txt","reason":"no"}]}"#)
            .unwrap();
        let nested = json!({"args": [{"path": "/tmp/secret.txt"}]});
        assert!(p.evaluate(&call("t", "other", &nested)).is_some());
        let key_only = json!({"secret.txt": 1});
        assert!(p.evaluate(&call("t", "other", &key_only)).is_none());
    }

    #[test]
    fn conditions_are_anded_and_patterns_anchored() {
        let p = Policy::from_json(
            r#"{"rules":[{"toolNameMatches":"mcp__.*","toolKind":"mcp","reason":"no MCP"}]}"#,
        )
        .unwrap();
        let i = json!({});
        assert!(p.evaluate(&call("mcp__fs__read", "mcp", &i)).is_some());
        assert!(p.evaluate(&call("mcp__fs__read", "other", &i)).is_none());
        assert!(p.evaluate(&call("x_mcp__a", "mcp", &i)).is_none());
    }

    #[test]
    fn bad_rules_are_refused_with_the_rule_index() {
        let cases = [
            (r#"{"rules":[{"reason":"x"}]}"#, "sets no condition"),
            (
                r#"{"rules":[{"toolName":"a","reason":"  "}]}"#,
                "empty reason",
            ),
            (
                r#"{"rules":[{"toolName":"a","reason":"x","code":"nodots"}]}"#,
                "reverse-DNS",
            ),
            (
                r#"{"rules":[{"toolName":"a","reason":"x","extensions":{"bare":1}}]}"#,
                "reverse-DNS",
            ),
            (
                r#"{"rules":[{"toolName":"a","reason":"x","colour":1}]}"#,
                "unknown field",
            ),
            (
                r#"{"rules":[{"toolNameMatches":"(","reason":"x"}]}"#,
                "regular expression",
            ),
        ];
        for (text, want) in cases {
            let e = Policy::from_json(text).unwrap_err().to_string();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}

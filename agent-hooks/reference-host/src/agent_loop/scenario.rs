//! The scenario grammar the loop runs (facts B2), parsed from raw JSON text
//! with each scripted value's raw text scanned for integer literals beyond
//! 2^53-1 before serde_json coerces them.
//!
//! Project extensions: `respond.parallel`, `respond.error` and `scenario.turns`. Unknown
//! members are ignored: the runner validates vectors, the loop only runs them.

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use ctk_agent_hooks_adapter::wire::depth;

use crate::context::domain::raw_text_has_unsafe_integer;
pub use crate::errors::ScenarioError;

/// A scripted value plus whether its raw text held an unsafe integer.
#[derive(Debug, Clone, PartialEq)]
pub struct Scripted {
    /// The parsed value (serde_json default float parsing, see golden G-15).
    pub value: Value,
    /// Whether the raw text held an integer literal beyond 2^53-1.
    pub raw_unsafe: bool,
}

impl Scripted {
    fn from_raw(raw: &RawValue) -> Result<Scripted, ScenarioError> {
        Ok(Scripted {
            value: depth::parse_checked(raw.get())?,
            raw_unsafe: raw_text_has_unsafe_integer(raw.get()),
        })
    }
}

/// One clause of a mock tool's behaviour.
#[derive(Debug, Clone, PartialEq)]
pub struct Behavior {
    /// Matches when the invocation's args deep-equal this; `None` matches all.
    pub when_args: Option<Value>,
    /// What the tool returns.
    pub returns: Scripted,
    /// Whether the result is an error.
    pub is_error: bool,
}

/// A mock tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Tool name.
    pub name: String,
    /// Clauses, tried top-down.
    pub behavior: Vec<Behavior>,
}

/// One scripted model response.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelStep {
    /// `content` (any JSON, may be null).
    pub content: Value,
    /// `tool_calls` as written.
    pub tool_calls: Value,
    /// `finish_reason` as written.
    pub finish_reason: Value,
    /// Stream chunks, if the response streams.
    pub stream: Option<Vec<String>>,
    /// The stream dies after the listed chunks; the last is unevaluated residue.
    pub stream_truncated: bool,
    /// Project extension: dispatch this response's tool calls concurrently.
    pub parallel: bool,
    /// Project extension: the model call itself fails (no response).
    pub fails: bool,
    /// Whether the response's raw text held an unsafe integer.
    pub raw_unsafe: bool,
}

/// A whole scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The first turn's input.
    pub input: Scripted,
    /// Mock tools.
    pub tools: Vec<ToolSpec>,
    /// Scripted model responses, consumed in order across turns.
    pub model_script: Vec<ModelStep>,
    /// Project extension: inputs of further turns in the same session.
    pub turns: Vec<Scripted>,
}

#[derive(Deserialize)]
struct RawScenario {
    input: Box<RawValue>,
    #[serde(default)]
    tools: Vec<RawTool>,
    #[serde(default)]
    model_script: Vec<RawStep>,
    #[serde(default)]
    turns: Vec<RawTurn>,
}

#[derive(Deserialize)]
struct RawTool {
    name: String,
    #[serde(default)]
    behavior: Vec<RawBehavior>,
}

#[derive(Deserialize)]
struct RawBehavior {
    #[serde(default)]
    when_args: Option<Value>,
    #[serde(rename = "return")]
    returns: Option<Box<RawValue>>,
    #[serde(default)]
    is_error: bool,
}

#[derive(Deserialize)]
struct RawStep {
    respond: Box<RawValue>,
}

#[derive(Deserialize)]
struct RawRespond {
    #[serde(default)]
    content: Value,
    #[serde(default)]
    tool_calls: Option<Value>,
    #[serde(default)]
    finish_reason: Option<Value>,
    #[serde(default)]
    stream: Option<Vec<String>>,
    #[serde(default)]
    stream_truncated: bool,
    #[serde(default)]
    parallel: bool,
    #[serde(default)]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct RawTurn {
    input: Box<RawValue>,
}

impl Scenario {
    /// Parse a scenario from its raw JSON text, nested up to the kit's
    /// bound (`ctk-harness/1` lines nest up to it, past serde_json's own
    /// limit).
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        depth::check(text)?;
        let raw: RawScenario = depth::parse_checked(text)?;
        let tools = raw
            .tools
            .into_iter()
            .map(|t| {
                let behavior = t
                    .behavior
                    .into_iter()
                    .map(|b| {
                        let returns = match &b.returns {
                            Some(r) => Scripted::from_raw(r)?,
                            None => Scripted {
                                value: Value::Null,
                                raw_unsafe: false,
                            },
                        };
                        Ok(Behavior {
                            when_args: b.when_args,
                            returns,
                            is_error: b.is_error,
                        })
                    })
                    .collect::<Result<_, ScenarioError>>()?;
                Ok(ToolSpec {
                    name: t.name,
                    behavior,
                })
            })
            .collect::<Result<_, ScenarioError>>()?;
        let model_script = raw
            .model_script
            .into_iter()
            .map(|s| {
                let text = s.respond.get();
                let r: RawRespond = depth::parse_checked(text)?;
                Ok(ModelStep {
                    content: r.content,
                    tool_calls: r.tool_calls.unwrap_or_else(|| Value::Array(Vec::new())),
                    finish_reason: r
                        .finish_reason
                        .unwrap_or_else(|| Value::String("stop".into())),
                    stream: r.stream,
                    stream_truncated: r.stream_truncated,
                    parallel: r.parallel,
                    fails: r.error.is_some_and(|e| !e.is_null()),
                    raw_unsafe: raw_text_has_unsafe_integer(text),
                })
            })
            .collect::<Result<_, ScenarioError>>()?;
        let turns = raw
            .turns
            .iter()
            .map(|t| Scripted::from_raw(&t.input))
            .collect::<Result<_, _>>()?;
        Ok(Scenario {
            input: Scripted::from_raw(&raw.input)?,
            tools,
            model_script,
            turns,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_the_vector_grammar_and_ignores_unknown_members() {
        let s = Scenario::parse(r#"{"input": {"content": "hi", "role": "user"}, "mystery": 1,
            "tools": [{"name": "t", "schema": {}, "behavior": [{"when_args": {"a": 1}, "return": "x", "is_error": true}]}],
            "model_script": [{"respond": {"content": null, "tool_calls": [], "finish_reason": "stop", "stream": ["a"]}}]}"#)
            .expect("parses");
        assert_eq!(s.input.value, json!({"content": "hi", "role": "user"}));
        assert_eq!(s.tools[0].behavior[0].when_args, Some(json!({"a": 1})));
        assert!(s.tools[0].behavior[0].is_error);
        assert_eq!(
            s.model_script[0].stream.as_deref(),
            Some(&["a".to_owned()][..])
        );
        assert!(s.turns.is_empty());
    }

    #[test]
    fn integers_beyond_u64_are_flagged_from_the_raw_text() {
        let s = Scenario::parse(r#"{"input": {"content": "hi", "role": "user"},
            "model_script": [{"respond": {"content": null, "tool_calls": [{"id": "1", "name": "t", "args": {"id": 18446744073709551616}}], "finish_reason": "tool_calls"}},
                             {"respond": {"content": "ok", "tool_calls": [], "finish_reason": "stop"}}]}"#)
            .expect("parses");
        assert!(s.model_script[0].raw_unsafe);
        assert!(!s.model_script[1].raw_unsafe);
        // serde_json coerced the literal into a double.
        assert!(s.model_script[0].tool_calls[0]["args"]["id"].is_f64());
    }

    #[test]
    fn extensions_parse() {
        let s = Scenario::parse(r#"{"input": {"content": "a", "role": "user"}, "turns": [{"input": {"content": "b", "role": "user"}}],
            "model_script": [{"respond": {"content": "x", "tool_calls": [], "finish_reason": "stop", "parallel": true}}]}"#)
            .expect("parses");
        assert_eq!(s.turns.len(), 1);
        assert!(s.model_script[0].parallel);
    }

    #[test]
    fn malformed_text_is_an_error_not_a_panic() {
        assert!(Scenario::parse("{").is_err());
        assert!(Scenario::parse(r#"{"tools": []}"#).is_err());
    }

    /// Scenario data nests up to the kit's bound, past serde_json's own
    /// limit of 127; a deeper scenario is an error naming the bound, a
    /// 100,000-level one too, never a stack overflow.
    #[test]
    fn scenarios_nest_up_to_the_kits_bound() {
        let scenario = |levels: usize| {
            format!(
                r#"{{"input": {{"content": {}0{}, "role": "user"}}}}"#,
                "[".repeat(levels),
                "]".repeat(levels)
            )
        };
        let s = Scenario::parse(&scenario(depth::MAX_NESTING - 2)).expect("at the bound");
        assert!(s.input.value["content"].is_array());
        for levels in [depth::MAX_NESTING - 1, 100_000] {
            let e = Scenario::parse(&scenario(levels)).expect_err("too deep");
            assert!(matches!(e, ScenarioError::TooDeep(_)), "{e}");
        }
    }
}

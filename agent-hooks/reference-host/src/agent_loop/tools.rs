//! Mock tools: scripted behaviour, and a log of every invocation with the
//! arguments actually passed.

use std::sync::Mutex;

use ctk_core::number::json_eq;
use serde_json::Value;

use crate::agent_loop::scenario::{Scripted, ToolSpec};
pub use crate::errors::ToolError;

/// A tool's result.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The value returned.
    pub value: Scripted,
    /// Whether it is an error result.
    pub is_error: bool,
}

/// The registered mock tools and their invocation log.
#[derive(Debug, Default)]
pub struct ToolBox {
    tools: Vec<ToolSpec>,
    log: Mutex<Vec<(String, Value)>>,
}

impl ToolBox {
    /// Register `tools`.
    pub fn new(tools: Vec<ToolSpec>) -> Self {
        ToolBox {
            tools,
            log: Mutex::new(Vec::new()),
        }
    }

    /// Registered tool names, sorted (`agent_init.tools_registered`).
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.iter().map(|t| t.name.clone()).collect();
        names.sort();
        names
    }

    /// Invoke `name` with `args`; `Ok(None)` when no such tool is registered
    /// (the model asked for a tool that does not exist; nothing is invoked).
    pub fn invoke(&self, name: &str, args: &Value) -> Result<Option<ToolResult>, ToolError> {
        let Some(tool) = self.tools.iter().find(|t| t.name == name) else {
            return Ok(None);
        };
        if let Ok(mut log) = self.log.lock() {
            log.push((name.to_owned(), args.clone()));
        }
        // HOSTS.md §4.3: "JSON equality, numbers by value" (`1` matches
        // `1.0`); serde_json's own `==` compares a number's spelling.
        let clause = tool
            .behavior
            .iter()
            .find(|b| b.when_args.as_ref().is_none_or(|w| json_eq(w, args)))
            .ok_or_else(|| ToolError::NoMatch(name.to_owned()))?;
        Ok(Some(ToolResult {
            value: clause.returns.clone(),
            is_error: clause.is_error,
        }))
    }

    /// Every invocation so far, in order.
    pub fn invocations(&self) -> Vec<(String, Value)> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_loop::scenario::Behavior;
    use serde_json::json;

    fn scripted(v: Value) -> Scripted {
        Scripted {
            value: v,
            raw_unsafe: false,
        }
    }

    #[test]
    fn first_matching_clause_wins_and_every_call_is_logged() {
        let tb = ToolBox::new(vec![ToolSpec {
            name: "http_get".into(),
            behavior: vec![
                Behavior {
                    when_args: Some(json!({"url": "a"})),
                    returns: scripted(json!("A")),
                    is_error: false,
                },
                Behavior {
                    when_args: None,
                    returns: scripted(json!("other")),
                    is_error: true,
                },
            ],
        }]);
        assert_eq!(
            tb.invoke("http_get", &json!({"url": "a"}))
                .expect("ok")
                .expect("tool")
                .value
                .value,
            json!("A")
        );
        let r = tb
            .invoke("http_get", &json!({"url": "b"}))
            .expect("ok")
            .expect("tool");
        assert!(r.is_error);
        assert_eq!(
            tb.invocations(),
            vec![
                ("http_get".into(), json!({"url": "a"})),
                ("http_get".into(), json!({"url": "b"}))
            ]
        );
    }

    #[test]
    fn when_args_compares_numbers_by_value_and_never_a_bool_with_a_number() {
        let tb = ToolBox::new(vec![ToolSpec {
            name: "t".into(),
            behavior: vec![
                Behavior {
                    when_args: Some(json!({"n": 1, "b": true})),
                    returns: scripted(json!("matched")),
                    is_error: false,
                },
                Behavior {
                    when_args: None,
                    returns: scripted(json!("fallback")),
                    is_error: false,
                },
            ],
        }]);
        let answer = |args: Value| {
            tb.invoke("t", &args)
                .expect("ok")
                .expect("tool")
                .value
                .value
        };
        assert_eq!(answer(json!({"n": 1.0, "b": true})), json!("matched"));
        assert_eq!(answer(json!({"n": 1, "b": 1})), json!("fallback"));
    }

    #[test]
    fn unmatched_arguments_are_an_error_and_unknown_tools_are_none() {
        let tb = ToolBox::new(vec![ToolSpec {
            name: "t".into(),
            behavior: vec![Behavior {
                when_args: Some(json!({})),
                returns: scripted(json!(1)),
                is_error: false,
            }],
        }]);
        assert_eq!(
            tb.invoke("t", &json!({"x": 1})),
            Err(ToolError::NoMatch("t".into()))
        );
        assert_eq!(tb.invoke("nope", &json!({})), Ok(None));
        assert_eq!(tb.names(), vec!["t".to_owned()]);
    }
}

//! The kit's scenario (`schemas/harness-protocol/scenario.json`): input,
//! turns, mock tools and the scripted model. Ours, not the crate's: the
//! crate has no agent loop of its own to feed.

use serde_json::Value;

use crate::errors::SetupError;

/// One mock tool: its name and its behaviour clauses, tried top-down.
#[derive(Debug, Clone, PartialEq)]
pub struct Tool {
    /// The name a tool call must carry to reach it.
    pub name: String,
    /// `{when_args?, return, is_error?}` clauses.
    pub behavior: Vec<Value>,
}

impl Tool {
    /// The answer of the first clause whose `when_args` equals `args`
    /// (numbers by value) or that has none: `(value, is_error)`.
    pub fn answer(&self, args: &Value) -> Option<(Value, bool)> {
        self.behavior.iter().find_map(|clause| {
            let applies = clause.get("when_args").is_none_or(|w| json_eq(w, args));
            applies.then(|| {
                (
                    clause.get("return").cloned().unwrap_or(Value::Null),
                    clause
                        .get("is_error")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                )
            })
        })
    }
}

/// A parsed scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Scenario {
    /// The input of every turn, the first one first: `{content, role}`.
    pub inputs: Vec<Value>,
    /// The mock tools.
    pub tools: Vec<Tool>,
    /// The scripted model's entries, shared by every turn, in order.
    pub model_script: Vec<Value>,
}

impl Scenario {
    /// Parse the scenario text exactly as the kit sent it, refusing integer
    /// literals this host cannot hold (beyond 64 bits).
    pub fn parse(text: &str) -> Result<Scenario, SetupError> {
        if let Some(literal) = integer_beyond_64_bits(text) {
            return Err(SetupError::IntegerBeyond64Bits(literal));
        }
        // ctk-harness/1 lines, and so scenarios, nest up to the kit's
        // bound, past serde_json's default limit (PROTOCOL.md §1).
        let value: Value = ctk_agent_hooks_adapter::wire::depth::from_str(text)
            .map_err(|e| SetupError::Scenario(e.to_string()))?;
        let object = value
            .as_object()
            .ok_or_else(|| SetupError::Scenario("the scenario is not a JSON object".into()))?;
        let mut inputs = vec![object.get("input").cloned().unwrap_or(Value::Null)];
        for turn in object
            .get("turns")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            inputs.push(turn.get("input").cloned().unwrap_or(Value::Null));
        }
        let tools = object
            .get("tools")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|t| Tool {
                name: t
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                behavior: t
                    .get("behavior")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default(),
            })
            .collect();
        let model_script = object
            .get("model_script")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        Ok(Scenario {
            inputs,
            tools,
            model_script,
        })
    }

    /// The tool called `name`, if the scenario registers one.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    /// The registered tool names, sorted by code point (`agent_init`).
    pub fn tool_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.tools.iter().map(|t| t.name.clone()).collect();
        names.sort();
        names
    }
}

/// JSON equality with numbers compared by value (`1 == 1.0`).
pub fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            match (x.as_i64(), y.as_i64(), x.as_u64(), y.as_u64()) {
                (Some(p), Some(q), _, _) => p == q,
                (_, _, Some(p), Some(q)) => p == q,
                _ => x.as_f64() == y.as_f64(),
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

/// The first integer literal of `text` (outside strings) that neither `i64`
/// nor `u64` holds, which `serde_json` would turn into a rounded `f64`.
pub fn integer_beyond_64_bits(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                let mut integer = true;
                while i < bytes.len()
                    && matches!(bytes[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    integer &= !matches!(bytes[i], b'.' | b'e' | b'E');
                    i += 1;
                }
                let token = &text[start..i];
                if integer && token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
                    return Some(token.to_owned());
                }
            }
            _ => i += 1,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn literals_beyond_64_bits_are_found_outside_strings_only() {
        assert_eq!(
            integer_beyond_64_bits(r#"{"a":"18446744073709551616","b":18446744073709551615}"#),
            None
        );
        assert_eq!(
            integer_beyond_64_bits(r#"{"a":[1.5e400,-9223372036854775809]}"#).as_deref(),
            Some("-9223372036854775809")
        );
        assert!(matches!(
            Scenario::parse(r#"{"input":{"content":18446744073709551616,"role":"user"}}"#),
            Err(SetupError::IntegerBeyond64Bits(_))
        ));
    }

    #[test]
    fn tools_answer_by_value_equality_top_down() {
        let s = Scenario::parse(
            r#"{"input":{"content":"x","role":"user"},"turns":[{"input":{"content":"y","role":"user"}}],
                "tools":[{"name":"t","behavior":[{"when_args":{"n":1.0},"return":"one"},{"return":"other","is_error":true}]}]}"#,
        )
        .expect("parses");
        assert_eq!(s.inputs.len(), 2);
        let t = s.tool("t").expect("registered");
        assert_eq!(t.answer(&json!({"n": 1})), Some((json!("one"), false)));
        assert_eq!(t.answer(&json!({"n": 2})), Some((json!("other"), true)));
        assert!(s.tool("u").is_none());
    }
}

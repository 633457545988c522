//! The script of one scripted backend: how it answers the n-th
//! `hooks/intercept` request and the n-th `hooks/observe` notification it
//! receives. The same script drives a stdio backend (a process started by
//! the harness under test) and an HTTP backend (a path of the kit's
//! loopback server). The file format is `schemas/ahp/adapter/script.schema.json`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// What a scripted backend does.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Script {
    /// The plan for the n-th intercept request is `intercept[n]`, the last
    /// one repeating; none: reply no effect at once. Counted per process
    /// on stdio (a per_event process always runs `intercept[0]`), per path
    /// on HTTP.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub intercept: Vec<Plan>,
    /// The plan for the n-th notification, the last one repeating; none:
    /// do nothing (HTTP: 202, empty body).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub observe: Vec<Plan>,
    /// Plans chosen by the request's tool name (`params.event.tool.name`)
    /// instead of its position: the requests of parallel tool calls may
    /// reach a backend in either order, and the vector must know which
    /// call got which answer. A request matched here does not count
    /// towards the positions of `intercept`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_tool: BTreeMap<String, Plan>,
    /// HTTP: the bearer token every request must carry
    /// (`Authorization: Bearer <token>`); a request without it gets 401
    /// and its plan is not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer: Option<String>,
    /// stdio: the process exits after this long whatever happens (default
    /// 120 s), so a harness that never closes stdin leaves nothing behind.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_life_ms: Option<u64>,
}

/// The actions for one message, in order.
pub type Plan = Vec<Action>;

/// One scripted action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Write a JSON-RPC success response: `result` (default
    /// `{"protocolVersion": "0.1", "effects": []}`), the request's id unless
    /// `id` or `null_id` says otherwise, and `extra` members merged into
    /// the response object (unknown fields, or an `error` next to `result`).
    Reply {
        /// The result object.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// Another id than the request's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
        /// Answer with `"id": null`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        null_id: bool,
        /// Members added to the response object.
        #[serde(default, skip_serializing_if = "Map::is_empty")]
        extra: Map<String, Value>,
    },
    /// Write a JSON-RPC error response with the request's id.
    Error {
        /// `error.code`.
        code: i64,
        /// `error.message`.
        #[serde(default = "default_message")]
        message: String,
        /// `error.data`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// Write bytes as they are: `text` (`{{id}}` becomes the request id as
    /// JSON, `{{prev_id}}` the previous request's) or `hex`; stdio adds a
    /// newline unless `newline` is false.
    Raw {
        /// UTF-8 text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Bytes in hex (for bytes that are not UTF-8).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        hex: Option<String>,
        /// stdio: end with a newline (default true).
        #[serde(default = "yes")]
        newline: bool,
        /// The bytes written that many times over, as one line (default
        /// once): a vector file of a few bytes can then send a line of
        /// several MiB, past any bound a harness keeps on a line.
        #[serde(default = "once", skip_serializing_if = "is_once")]
        repeat: usize,
    },
    /// Wait before the next action.
    Sleep {
        /// How long.
        ms: u64,
    },
    /// stdio: close stdout (the harness sees end of file) and keep reading
    /// stdin; HTTP: drop the connection without a response.
    Close,
    /// stdio: exit with this status now (HTTP: like `close`).
    Exit {
        /// The exit status.
        code: i32,
    },
    /// HTTP: the response status (default 200 for intercept, 202 for
    /// observe).
    Status {
        /// The status code.
        code: u16,
    },
    /// HTTP: the response `Content-Type` (default `application/json`).
    ContentType {
        /// The header value.
        value: String,
    },
    /// HTTP: answer with a redirect to another path of the kit's server
    /// (`Location: http://127.0.0.1:<port>/<to>`), which must never be
    /// followed.
    Redirect {
        /// The target backend name (its path).
        to: String,
        /// The status (default 302).
        #[serde(default = "found")]
        code: u16,
    },
}

fn default_message() -> String {
    "scripted error".to_owned()
}

fn yes() -> bool {
    true
}

fn found() -> u16 {
    302
}

fn once() -> usize {
    1
}

fn is_once(n: &usize) -> bool {
    *n == 1
}

/// The most bytes one `raw` action may write (its text times `repeat`):
/// more than any line bound the kit asks about, and little enough that a
/// wrong vector cannot exhaust the kit's memory.
pub const MAX_RAW_BYTES: usize = 16 << 20;

impl Script {
    /// The plan for the `n`-th (0-based) intercept request.
    pub fn intercept_plan(&self, n: usize) -> Plan {
        pick(&self.intercept, n).unwrap_or_else(|| vec![Action::no_effect()])
    }

    /// The plan `by_tool` names for `request`'s tool, if any.
    pub fn tool_plan(&self, request: Option<&Value>) -> Option<Plan> {
        let name = request?
            .pointer("/params/event/tool/name")
            .and_then(Value::as_str)?;
        self.by_tool.get(name).cloned()
    }

    /// The plan for the `n`-th (0-based) notification.
    pub fn observe_plan(&self, n: usize) -> Plan {
        pick(&self.observe, n).unwrap_or_default()
    }

    /// Read a script file (strict JSON).
    pub fn load(path: &Path) -> Result<Script, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("cannot read script {}: {e}", path.display()))?;
        let value = ctk_ahp_wire::json::parse_bytes(&bytes)
            .map_err(|e| format!("script {} is not strict JSON: {e}", path.display()))?;
        serde_json::from_value(value)
            .map_err(|e| format!("script {} has not the script shape: {e}", path.display()))
    }
}

fn pick(plans: &[Plan], n: usize) -> Option<Plan> {
    plans.get(n).or_else(|| plans.last()).cloned()
}

impl Action {
    /// Reply with no effect.
    pub fn no_effect() -> Action {
        Action::Reply {
            result: None,
            id: None,
            null_id: false,
            extra: Map::new(),
        }
    }

    /// The bytes this action writes for a request with `id` (previous
    /// request id `prev`), without any newline; `None` for actions that
    /// write nothing.
    pub fn body(&self, id: &Value, prev: &Value) -> Option<Vec<u8>> {
        match self {
            Action::Reply {
                result,
                id: other,
                null_id,
                extra,
            } => {
                let mut m = Map::new();
                m.insert("jsonrpc".into(), "2.0".into());
                let rid = if *null_id {
                    Value::Null
                } else {
                    other.clone().unwrap_or_else(|| id.clone())
                };
                m.insert("id".into(), rid);
                m.insert(
                    "result".into(),
                    result.clone().unwrap_or_else(
                        || serde_json::json!({"protocolVersion": "0.1", "effects": []}),
                    ),
                );
                for (k, v) in extra {
                    m.insert(k.clone(), v.clone());
                }
                Some(Value::Object(m).to_string().into_bytes())
            }
            Action::Error {
                code,
                message,
                data,
            } => {
                let mut e = Map::new();
                e.insert("code".into(), (*code).into());
                e.insert("message".into(), message.clone().into());
                if let Some(d) = data {
                    e.insert("data".into(), d.clone());
                }
                Some(
                    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": e})
                        .to_string()
                        .into_bytes(),
                )
            }
            Action::Raw {
                text, hex, repeat, ..
            } => {
                let one = if let Some(t) = text {
                    t.replace("{{id}}", &id.to_string())
                        .replace("{{prev_id}}", &prev.to_string())
                        .into_bytes()
                } else {
                    decode_hex(hex.as_deref()?)
                };
                // Bounded here too, for a script no lint has seen.
                let times = (*repeat).min(MAX_RAW_BYTES / one.len().max(1));
                Some(one.repeat(times))
            }
            _ => None,
        }
    }

    /// The total scripted sleep of a plan, in ms.
    pub fn plan_sleep_ms(plan: &[Action]) -> u64 {
        plan.iter()
            .map(|a| match a {
                Action::Sleep { ms } => *ms,
                _ => 0,
            })
            .sum()
    }
}

fn decode_hex(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex
        .bytes()
        .filter_map(|b| (b as char).to_digit(16).and_then(|d| u8::try_from(d).ok()))
        .collect();
    digits
        .chunks(2)
        .map(|p| p[0] * 16 + p.get(1).copied().unwrap_or(0))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_repeat_their_last_entry_and_default_to_no_effect() {
        let s: Script = serde_json::from_value(serde_json::json!({
            "intercept": [[{"do": "error", "code": -32003}], [{"do": "reply", "null_id": true}]]
        }))
        .unwrap();
        assert!(matches!(
            s.intercept_plan(0)[0],
            Action::Error { code: -32003, .. }
        ));
        let id = Value::from("e1");
        for n in [1, 5] {
            let body = s.intercept_plan(n)[0].body(&id, &Value::Null).unwrap();
            let v: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(v["id"], Value::Null);
        }
        let empty = Script::default();
        let body = empty.intercept_plan(3)[0].body(&id, &Value::Null).unwrap();
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"jsonrpc":"2.0","id":"e1","result":{"protocolVersion":"0.1","effects":[]}})
        );
        assert!(empty.observe_plan(0).is_empty());
    }

    #[test]
    fn raw_text_expands_ids_and_hex_gives_any_bytes() {
        let a = Action::Raw {
            text: Some("x {{id}} {{prev_id}}".into()),
            hex: None,
            newline: true,
            repeat: 1,
        };
        assert_eq!(
            a.body(&"a\"b".into(), &Value::Null).unwrap(),
            br#"x "a\"b" null"#.to_vec()
        );
        let h = Action::Raw {
            text: None,
            hex: Some("ff fe 7b".into()),
            newline: true,
            repeat: 1,
        };
        assert_eq!(
            h.body(&Value::Null, &Value::Null).unwrap(),
            vec![0xff, 0xfe, 0x7b]
        );
    }

    #[test]
    fn raw_repeat_writes_the_bytes_that_many_times_within_the_bound() {
        let plan: Script = serde_json::from_value(serde_json::json!(
            {"intercept": [[{"do": "raw", "text": "ab", "repeat": 3}]]}
        ))
        .unwrap();
        let a = &plan.intercept_plan(0)[0];
        assert_eq!(a.body(&Value::Null, &Value::Null).unwrap(), b"ababab");
        // Absent means once, and once is not written back.
        let once: Action =
            serde_json::from_value(serde_json::json!({"do": "raw", "text": "x"})).unwrap();
        assert_eq!(
            serde_json::to_value(&once).unwrap(),
            serde_json::json!({"do": "raw", "text": "x", "newline": true})
        );
        let huge = Action::Raw {
            text: Some("0123456789".into()),
            hex: None,
            newline: true,
            repeat: usize::MAX,
        };
        let body = huge.body(&Value::Null, &Value::Null).unwrap();
        assert!(body.len() <= MAX_RAW_BYTES && body.len() > MAX_RAW_BYTES - 10);
    }

    #[test]
    fn unknown_actions_are_refused() {
        let r: Result<Script, _> =
            serde_json::from_value(serde_json::json!({"intercept": [[{"do": "dance"}]]}));
        assert!(r.is_err());
    }
}

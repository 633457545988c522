//! The typed verdict (§5) a gate-passed interceptor answer becomes, plus the
//! host-synthesized denies of §6.3 and §11.

use serde_json::{Map, Value};

use crate::reason::ReservedReason;
use crate::verdict::path::TransformPath;

/// `allow`, `deny` or `transform`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Decision {
    /// Proceed unchanged.
    Allow,
    /// Do not proceed.
    Deny,
    /// Proceed with the rewritten target.
    Transform,
}

impl Decision {
    /// The wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Decision::Allow => "allow",
            Decision::Deny => "deny",
            Decision::Transform => "transform",
        }
    }
}

/// One warning: never affects control flow, always recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Machine reason.
    pub reason: Option<String>,
    /// Human text.
    pub message: Option<String>,
}

/// The body of a transform verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct Transform {
    /// The path as written (kept for the record).
    pub raw_path: String,
    /// The parsed path.
    pub path: TransformPath,
    /// The replacement; an absent value means `null`.
    pub value: Value,
}

/// A verdict that passed the §5 gate, or one the host synthesized.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// The decision.
    pub decision: Decision,
    /// Machine reason.
    pub reason: Option<String>,
    /// Human text.
    pub message: Option<String>,
    /// Warnings, in order.
    pub warnings: Vec<Warning>,
    /// The approval block: present only on a liftable deny.
    pub approval: Option<Map<String, Value>>,
    /// The transform body, iff the decision is `transform`.
    pub transform: Option<Transform>,
    /// Opaque evidence, passed to audit unchanged and never dereferenced.
    pub evidence: Option<Value>,
    /// Labels to persist with what the point produced.
    pub result_labels: Vec<String>,
}

impl Verdict {
    /// A plain allow.
    pub fn allow() -> Verdict {
        Verdict {
            decision: Decision::Allow,
            reason: None,
            message: None,
            warnings: Vec::new(),
            approval: None,
            transform: None,
            evidence: None,
            result_labels: Vec::new(),
        }
    }

    /// A host-synthesized plain deny with a reserved reason. Its message is
    /// value-free by construction (§6.3, §14).
    pub fn host_deny(reason: ReservedReason) -> Verdict {
        Verdict {
            decision: Decision::Deny,
            reason: Some(reason.as_str().into()),
            ..Verdict::allow()
        }
    }

    /// A host-synthesized plain deny with a value-free message.
    pub fn host_deny_with(reason: ReservedReason, message: impl Into<String>) -> Verdict {
        Verdict {
            message: Some(message.into()),
            ..Verdict::host_deny(reason)
        }
    }

    /// The allow a best-effort binding's failure becomes under the draft
    /// (§6.3.1): it carries the warning `host_warning:control_failed` and
    /// nothing else.
    pub fn control_failed() -> Verdict {
        Verdict {
            warnings: vec![Warning {
                reason: Some(crate::reason::CONTROL_FAILED.into()),
                message: None,
            }],
            ..Verdict::allow()
        }
    }

    /// A host-synthesized liftable deny (§7.5 knob `approval`).
    pub fn host_liftable(reason: ReservedReason) -> Verdict {
        Verdict {
            approval: Some(Map::new()),
            ..Verdict::host_deny(reason)
        }
    }

    /// Whether the verdict lets the action proceed.
    pub fn is_permit(&self) -> bool {
        self.decision != Decision::Deny
    }

    /// Whether this is a deny the approval seam may lift.
    pub fn is_liftable(&self) -> bool {
        self.decision == Decision::Deny && self.approval.is_some()
    }

    /// Fixed severity (§5.1): deny > liftable deny > transform > allow.
    pub fn severity(&self) -> u8 {
        match self.decision {
            Decision::Deny if self.approval.is_some() => 2,
            Decision::Deny => 3,
            Decision::Transform => 1,
            Decision::Allow => 0,
        }
    }

    /// The full verdict as JSON (what an approval request carries).
    pub fn to_json(&self) -> Value {
        self.render(false)
    }

    /// The payload-free projection a record carries (§10.3): messages
    /// truncated to 256 bytes, approval members stripped, transform value dropped.
    pub fn projection(&self) -> Value {
        self.render(true)
    }

    fn render(&self, project: bool) -> Value {
        let text = |s: &String| {
            Value::String(if project {
                truncate_message(s)
            } else {
                s.clone()
            })
        };
        let mut m = Map::new();
        m.insert(
            "decision".into(),
            Value::String(self.decision.as_str().into()),
        );
        if let Some(r) = &self.reason {
            m.insert("reason".into(), Value::String(r.clone()));
        }
        if let Some(msg) = &self.message {
            m.insert("message".into(), text(msg));
        }
        if !self.warnings.is_empty() {
            let ws = self
                .warnings
                .iter()
                .map(|w| {
                    let mut o = Map::new();
                    if let Some(r) = &w.reason {
                        o.insert("reason".into(), Value::String(r.clone()));
                    }
                    if let Some(msg) = &w.message {
                        o.insert("message".into(), text(msg));
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("warnings".into(), Value::Array(ws));
        }
        if let Some(a) = &self.approval {
            m.insert(
                "approval".into(),
                Value::Object(if project { Map::new() } else { a.clone() }),
            );
        }
        if let Some(t) = &self.transform {
            let mut o = Map::new();
            o.insert("path".into(), Value::String(t.raw_path.clone()));
            if !project {
                o.insert("value".into(), t.value.clone());
            }
            m.insert("transform".into(), Value::Object(o));
        }
        if let Some(e) = &self.evidence {
            m.insert("evidence".into(), e.clone());
        }
        if !self.result_labels.is_empty() {
            m.insert(
                "result_labels".into(),
                Value::Array(
                    self.result_labels
                        .iter()
                        .cloned()
                        .map(Value::String)
                        .collect(),
                ),
            );
        }
        Value::Object(m)
    }
}

/// Maximum bytes a projected message keeps (§10.3).
pub const MESSAGE_MAX_BYTES: usize = 256;

/// Cut `s` to at most 256 UTF-8 bytes on a char boundary, ending in `…`
/// when cut (the ellipsis counts toward the 256).
pub fn truncate_message(s: &str) -> String {
    if s.len() <= MESSAGE_MAX_BYTES {
        return s.to_owned();
    }
    let budget = MESSAGE_MAX_BYTES - '…'.len_utf8();
    let mut end = budget;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn severity_orders_plain_deny_first() {
        let liftable = Verdict::host_liftable(ReservedReason::TransformConflict);
        let plain = Verdict::host_deny(ReservedReason::NoInterceptor);
        let transform = Verdict {
            decision: Decision::Transform,
            ..Verdict::allow()
        };
        assert!(plain.severity() > liftable.severity());
        assert!(liftable.severity() > transform.severity());
        assert!(transform.severity() > Verdict::allow().severity());
    }

    #[test]
    fn projection_drops_transform_value_and_approval_members() {
        let v = Verdict {
            decision: Decision::Transform,
            transform: Some(Transform {
                raw_path: "$target.url".into(),
                path: TransformPath::parse("$target.url").expect("p"),
                value: json!("secret"),
            }),
            ..Verdict::allow()
        };
        assert_eq!(
            v.projection(),
            json!({"decision": "transform", "transform": {"path": "$target.url"}})
        );
        let d = Verdict {
            approval: Some(json!({"ticket": 1}).as_object().cloned().expect("o")),
            ..Verdict::host_deny(ReservedReason::NoInterceptor)
        };
        assert_eq!(d.projection()["approval"], json!({}));
        assert_eq!(d.to_json()["approval"], json!({"ticket": 1}));
    }

    #[test]
    fn long_messages_are_cut_on_a_char_boundary() {
        let s = "é".repeat(300);
        let cut = truncate_message(&s);
        assert!(cut.len() <= MESSAGE_MAX_BYTES);
        assert!(cut.ends_with('…'));
        assert_eq!(truncate_message("short"), "short");
    }
}

//! The interception record (§10.3): one per emission, payload-free, stamped
//! with profile and mode.

use serde_json::{Map, Value};

use crate::compose::fold::{ResolvedBy, Summary};
use crate::compose::profile::{Composition, Mode};
use crate::verdict::model::Verdict;

/// Everything one record states.
#[derive(Debug, Clone)]
pub struct InterceptionRecord {
    /// The emitted point's wire name (best effort for an invalid context).
    pub interception_point: String,
    /// Enforcement mode.
    pub mode: Mode,
    /// The combined verdict; projected when written.
    pub verdict: Verdict,
    /// Identity before dispatch.
    pub input_identity: Option<String>,
    /// Identity after composition.
    pub enforced_identity: Option<String>,
    /// Provider name; `None` for the null provider.
    pub identity_provider: Option<String>,
    /// `session.id`, `""` when unknown.
    pub session_id: String,
    /// `sequence`, `-1` when unknown.
    pub sequence: i64,
    /// The context's timestamp, verbatim.
    pub timestamp: Option<String>,
    /// The context's trace identifiers, if any.
    pub trace: Option<Value>,
    /// Winning or consulted index.
    pub decided_by: Option<usize>,
    /// Profile and resolved knob.
    pub composition: Composition,
    /// Per-interceptor summaries; `None` when nothing was dispatched.
    pub verdicts: Option<Vec<Summary>>,
    /// Sequential profiles: whether a bound interceptor was skipped.
    pub fold_truncated: Option<bool>,
    /// Seam outcome, if consulted.
    pub resolved_by: Option<ResolvedBy>,
    /// Interceptors bound at the point.
    pub interceptors_registered: usize,
    /// Declaration contract version, only when a declaration built the emitter.
    pub declaration: Option<String>,
}

fn opt_string(v: &Option<String>) -> Value {
    v.clone().map_or(Value::Null, Value::String)
}

/// The members [`InterceptionRecord::to_value`] may write.
const RECORD_MEMBERS: usize = 17;

impl InterceptionRecord {
    /// The wire form (interception-record.schema.json).
    pub fn to_value(&self) -> Value {
        // Sized for every member at once: growing the map as members arrive
        // rebuilt it three times per record (issue 30).
        let mut m = Map::with_capacity(RECORD_MEMBERS);
        m.insert(
            "interception_point".into(),
            Value::String(self.interception_point.clone()),
        );
        m.insert("mode".into(), Value::String(self.mode.as_str().into()));
        m.insert("verdict".into(), self.verdict.projection());
        m.insert("input_identity".into(), opt_string(&self.input_identity));
        m.insert(
            "enforced_identity".into(),
            opt_string(&self.enforced_identity),
        );
        m.insert(
            "identity_provider".into(),
            opt_string(&self.identity_provider),
        );
        m.insert("session_id".into(), Value::String(self.session_id.clone()));
        m.insert("sequence".into(), Value::from(self.sequence));
        if let Some(t) = &self.timestamp {
            m.insert("timestamp".into(), Value::String(t.clone()));
        }
        if let Some(t) = &self.trace {
            m.insert("trace".into(), t.clone());
        }
        m.insert(
            "decided_by".into(),
            self.decided_by.map_or(Value::Null, Value::from),
        );
        m.insert("composition".into(), self.composition.stamp());
        if let Some(d) = &self.declaration {
            m.insert("declaration".into(), Value::String(d.clone()));
        }
        // Multi-verdict profiles always carry the list (the schema requires it);
        // first_deny carries it whenever something was dispatched.
        let verdicts = match (&self.verdicts, self.composition.requires_verdicts()) {
            (Some(v), _) => Some(v.as_slice()),
            (None, true) => Some(&[][..]),
            (None, false) => None,
        };
        if let Some(list) = verdicts {
            let items = list
                .iter()
                .map(|s| {
                    let mut o = Map::with_capacity(5);
                    o.insert("index".into(), Value::from(s.index));
                    o.insert("decision".into(), Value::String(s.decision.as_str().into()));
                    if let Some(r) = &s.reason {
                        o.insert("reason".into(), Value::String(r.clone()));
                    }
                    if let Some(n) = &s.name {
                        o.insert("name".into(), Value::String(n.clone()));
                    }
                    if let Some(r) = s.substituted_for {
                        o.insert("substituted_for".into(), Value::String(r.as_str().into()));
                    }
                    Value::Object(o)
                })
                .collect();
            m.insert("verdicts".into(), Value::Array(items));
        }
        if let Some(f) = self.fold_truncated {
            m.insert("fold_truncated".into(), Value::Bool(f));
        }
        if let Some(r) = self.resolved_by {
            m.insert("resolved_by".into(), Value::String(r.as_str().into()));
        }
        m.insert(
            "interceptors_registered".into(),
            Value::from(self.interceptors_registered),
        );
        Value::Object(m)
    }
}

/// The `trace` member of a record: the context's `trace_id`/`span_id`
/// strings, or `None` when it carried neither.
pub fn trace_of(context: &Value) -> Option<Value> {
    let t = context.get("trace")?.as_object()?;
    let mut out = Map::new();
    for key in ["trace_id", "span_id"] {
        if let Some(Value::String(s)) = t.get(key) {
            out.insert(key.into(), Value::String(s.clone()));
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::ReservedReason;
    use serde_json::json;

    fn base() -> InterceptionRecord {
        InterceptionRecord {
            interception_point: "output".into(),
            mode: Mode::Enforce,
            verdict: Verdict::host_deny(ReservedReason::NoInterceptor),
            input_identity: None,
            enforced_identity: None,
            identity_provider: None,
            session_id: "s".into(),
            sequence: 3,
            timestamp: None,
            trace: None,
            decided_by: None,
            composition: Composition::default(),
            verdicts: None,
            fold_truncated: None,
            resolved_by: None,
            interceptors_registered: 0,
            declaration: None,
        }
    }

    #[test]
    fn required_members_are_always_present_and_nullable_ones_null() {
        let v = base().to_value();
        for key in [
            "interception_point",
            "mode",
            "verdict",
            "input_identity",
            "enforced_identity",
            "identity_provider",
            "session_id",
            "sequence",
            "composition",
            "interceptors_registered",
            "decided_by",
        ] {
            assert!(v.get(key).is_some(), "{key}");
        }
        assert_eq!(v["decided_by"], Value::Null);
        for absent in [
            "timestamp",
            "trace",
            "verdicts",
            "fold_truncated",
            "resolved_by",
            "declaration",
        ] {
            assert!(v.get(absent).is_none(), "{absent}");
        }
    }

    #[test]
    fn multi_verdict_profiles_always_list_verdicts() {
        let mut r = base();
        r.composition = Composition::RunAll;
        assert_eq!(r.to_value()["verdicts"], json!([]));
    }

    #[test]
    fn trace_keeps_only_its_identifiers() {
        assert_eq!(
            trace_of(&json!({"trace": {"trace_id": "t", "other": 1}})),
            Some(json!({"trace_id": "t"}))
        );
        assert_eq!(trace_of(&json!({"trace": {}})), None);
        assert_eq!(trace_of(&json!({})), None);
    }
}

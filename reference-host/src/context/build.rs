//! Building contexts (§4.1-§4.3): the required core around a point's
//! conditional members, with `target` aliasing the point's rewritable field.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Map, Value};

use crate::point::Point;
use crate::spec_version::SpecVersion;

/// Who emits: the agent and session every context of an emitter carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentIdentity {
    /// `agent.id`: stable per agent definition.
    pub agent_id: String,
    /// `agent.framework`: `^[a-z0-9_-]+$`.
    pub framework: String,
    /// `session.id`: stable across the session.
    pub session_id: String,
}

/// Assemble a context. `fields` holds the point's conditional members (and
/// any optional ones); `target` is copied from the member the point aliases.
pub fn build_context(
    version: SpecVersion,
    who: &AgentIdentity,
    point: Point,
    sequence: u64,
    timestamp: String,
    fields: Map<String, Value>,
) -> Value {
    let target = lookup(&fields, point.target_path())
        .cloned()
        .unwrap_or(Value::Null);
    let mut ctx = Map::new();
    ctx.insert("spec".into(), Value::String(version.wire().into()));
    ctx.insert(
        "interception_point".into(),
        Value::String(point.as_str().into()),
    );
    ctx.insert("timestamp".into(), Value::String(timestamp));
    ctx.insert("sequence".into(), Value::from(sequence));
    let mut agent = Map::new();
    agent.insert("id".into(), Value::String(who.agent_id.clone()));
    agent.insert("framework".into(), Value::String(who.framework.clone()));
    ctx.insert("agent".into(), Value::Object(agent));
    let mut session = Map::new();
    session.insert("id".into(), Value::String(who.session_id.clone()));
    ctx.insert("session".into(), Value::Object(session));
    ctx.insert("target".into(), target);
    for (k, v) in fields {
        ctx.entry(k).or_insert(v);
    }
    Value::Object(ctx)
}

fn lookup<'a>(fields: &'a Map<String, Value>, path: &[&str]) -> Option<&'a Value> {
    let (first, rest) = path.split_first()?;
    rest.iter().try_fold(fields.get(*first)?, |v, k| v.get(*k))
}

/// Copy the context's `target` back into the member it aliases, so the
/// next step of the loop uses what a transform produced (§4.3).
pub fn write_back(context: &mut Value, point: Point) {
    let Some(target) = context.get("target").cloned() else {
        return;
    };
    let path = point.target_path();
    let mut slot = &mut *context;
    for key in path {
        let Some(obj) = slot.as_object_mut() else {
            return;
        };
        slot = obj.entry((*key).to_owned()).or_insert(Value::Null);
    }
    *slot = target;
}

/// The current instant as RFC 3339 UTC with milliseconds,
/// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub fn now_rfc3339() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    format_rfc3339(since.as_secs(), since.subsec_millis())
}

/// Format seconds since the Unix epoch plus milliseconds as RFC 3339 UTC.
pub fn format_rfc3339(secs: u64, millis: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm), proleptic Gregorian.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn who() -> AgentIdentity {
        AgentIdentity {
            agent_id: "a".into(),
            framework: "f".into(),
            session_id: "s".into(),
        }
    }

    #[test]
    fn target_aliases_the_points_field() {
        let mut fields = Map::new();
        fields.insert(
            "tool_call".into(),
            json!({"id": "1", "name": "n", "args": {"x": 1}}),
        );
        let ctx = build_context(
            SpecVersion::V0_1,
            &who(),
            Point::PreToolCall,
            4,
            "t".into(),
            fields,
        );
        assert_eq!(ctx["target"], json!({"x": 1}));
        assert_eq!(ctx["sequence"], json!(4));
        assert_eq!(ctx["spec"], json!("agent-hooks/0.1"));
    }

    #[test]
    fn write_back_updates_the_aliased_member() {
        let mut fields = Map::new();
        fields.insert(
            "tool_call".into(),
            json!({"id": "1", "name": "n", "args": {"x": 1}}),
        );
        let mut ctx = build_context(
            SpecVersion::V0_1,
            &who(),
            Point::PreToolCall,
            4,
            "t".into(),
            fields,
        );
        ctx["target"] = json!({"x": 2});
        write_back(&mut ctx, Point::PreToolCall);
        assert_eq!(ctx["tool_call"]["args"], json!({"x": 2}));
    }

    #[test]
    fn timestamps_are_rfc3339_utc_millis() {
        assert_eq!(format_rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_rfc3339(1_767_225_600, 7), "2026-01-01T00:00:00.007Z");
        assert_eq!(
            format_rfc3339(951_782_400 + 86_399, 999),
            "2000-02-29T23:59:59.999Z"
        );
    }
}

//! Building contexts (§4.1-§4.3): the required core around a point's
//! conditional members, with `target` aliasing the point's rewritable field.

use std::num::NonZeroU8;

use serde_json::{Map, Value};
use time::format_description::well_known::iso8601::{Config, EncodedConfig, TimePrecision};
use time::format_description::well_known::Iso8601;
use time::{OffsetDateTime, UtcOffset};

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

/// The RFC 3339 profile of ISO 8601 the reference host writes: calendar
/// date, time to the second with three decimal digits, `Z` for UTC.
const RFC3339_MILLIS: EncodedConfig = Config::DEFAULT
    .set_time_precision(TimePrecision::Second {
        decimal_digits: NonZeroU8::new(3),
    })
    .encode();

/// The current instant as RFC 3339 UTC with milliseconds,
/// `YYYY-MM-DDTHH:MM:SS.mmmZ` (§4.1).
pub fn now_rfc3339() -> String {
    rfc3339_millis(OffsetDateTime::now_utc())
}

/// An instant as RFC 3339 UTC with milliseconds (truncated, never rounded
/// up), `YYYY-MM-DDTHH:MM:SS.mmmZ`.
fn rfc3339_millis(at: OffsetDateTime) -> String {
    at.to_offset(UtcOffset::UTC)
        .format(&Iso8601::<RFC3339_MILLIS>)
        .expect("an instant of years 0000-9999 formats as RFC 3339")
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
        let at = |secs: i64, nanos: i64| {
            OffsetDateTime::from_unix_timestamp_nanos(
                i128::from(secs) * 1_000_000_000 + i128::from(nanos),
            )
            .expect("in range")
        };
        assert_eq!(rfc3339_millis(at(0, 0)), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            rfc3339_millis(at(1_767_225_600, 7_000_000)),
            "2026-01-01T00:00:00.007Z"
        );
        // Leap day, last millisecond, sub-millisecond digits truncated.
        assert_eq!(
            rfc3339_millis(at(951_782_400 + 86_399, 999_999_999)),
            "2000-02-29T23:59:59.999Z"
        );
        // Another offset is written as the same instant in UTC.
        let east = at(1_767_225_600, 0).to_offset(UtcOffset::from_hms(5, 30, 0).expect("offset"));
        assert_eq!(rfc3339_millis(east), "2026-01-01T00:00:00.000Z");
    }

    #[test]
    fn now_is_an_rfc3339_utc_instant_near_the_clock() {
        use time::format_description::well_known::Rfc3339;
        let before = OffsetDateTime::now_utc();
        let text = now_rfc3339();
        let after = OffsetDateTime::now_utc();
        assert_eq!(text.len(), "YYYY-MM-DDTHH:MM:SS.mmmZ".len(), "{text}");
        assert!(text.ends_with('Z'), "{text}");
        let parsed = OffsetDateTime::parse(&text, &Rfc3339).expect("RFC 3339");
        assert_eq!(parsed.offset(), UtcOffset::UTC);
        // Truncated to the millisecond: not after `after`, within 1 ms of `before`.
        assert!(parsed <= after, "{text}");
        assert!(parsed > before - time::Duration::milliseconds(1), "{text}");
    }
}

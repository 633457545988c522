//! `events.jsonl`: one JSON line per engine event, written while the run
//! goes, so a run killed by SIGKILL or by the out-of-memory killer still
//! leaves every finished result on disk. The lines are pure renderings of
//! [`Event`]s; `cli::run` appends and flushes them.
//!
//! Format `ctk-events/1`: the first line is `run_started`, then one
//! `vector_started` / `vector_finished` per vector in completion order,
//! and `run_finished` last (absent when the run was killed).

use serde_json::{json, Value};

use ctk_core::event::Event;
use ctk_core::set::VectorMeta;

/// The `format` member of every `run_started` line.
pub const EVENTS_FORMAT: &str = "ctk-events/1";

/// Facts of the run that only the first line carries.
#[derive(Debug, Clone)]
pub struct RunHeader<'a> {
    /// Wire spec version.
    pub spec: &'a str,
    /// The vector source.
    pub vector_source: &'a str,
}

/// The JSON line for `event`; `meta` is that of the vector the event is
/// about ([`Event::index`]), when the run has it. Ends without a newline.
pub fn line(event: &Event, meta: Option<&VectorMeta>, header: &RunHeader<'_>) -> String {
    let value: Value = match event {
        Event::RunStarted { total } => json!({
            "event": "run_started",
            "format": EVENTS_FORMAT,
            "spec": header.spec,
            "vector_source": header.vector_source,
            "total": total,
        }),
        Event::VectorStarted { index } => json!({
            "event": "vector_started",
            "index": index,
            "id": meta.map(|v| v.id.as_str()),
        }),
        Event::VectorFinished { index, outcome } => {
            let loaded = meta;
            let mut v = json!({
                "event": "vector_finished",
                "index": index,
                "id": outcome.id,
                "title": loaded.map(|v| v.title.as_str()),
                "part": loaded.map(|v| v.part.as_str()),
                "sha256": loaded.map(|v| v.sha256.as_str()),
                "status": outcome.status,
                "reason": outcome.reason,
                "duration_ms": u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
                "failures": outcome.failures,
            });
            if let (Some(obj), Some(advisory)) = (
                v.as_object_mut(),
                loaded.and_then(|l| l.advisory.as_deref()),
            ) {
                obj.insert("advisory".into(), Value::String(advisory.to_owned()));
            }
            v
        }
        Event::RunFinished => json!({"event": "run_finished"}),
    };
    value.to_string()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use ctk_core::outcome::VectorOutcome;

    #[test]
    fn a_finished_vector_is_one_self_describing_line() {
        let text = r#"{"id":"AH-CTK-900","title":"deny at input","spec_clause":"1","part":"verdict/deny","scenario":{"input":{"content":"x","role":"user"}},"interceptor_script":[],"expect":{"interceptions":[],"run_outcome":"completed"}}"#;
        let loaded = ctk_core::set::meta_of_json("v.json", text).expect("vector");
        let header = RunHeader {
            spec: "agent-hooks/0.1",
            vector_source: "tests",
        };
        let outcome = VectorOutcome::error("AH-CTK-900", "boom".into(), Duration::from_millis(7));
        let text = line(
            &Event::VectorFinished { index: 0, outcome },
            Some(&loaded),
            &header,
        );
        assert!(!text.contains('\n'), "{text}");
        let v: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(v["event"], "vector_finished");
        assert_eq!(v["id"], "AH-CTK-900");
        assert_eq!(v["title"], "deny at input");
        assert_eq!(v["part"], "verdict/deny");
        assert_eq!(v["status"], "error");
        assert_eq!(v["reason"], "boom");
        assert_eq!(v["duration_ms"], 7);
        assert_eq!(v["sha256"], loaded.sha256.as_str());
        let first: Value =
            serde_json::from_str(&line(&Event::RunStarted { total: 1 }, None, &header))
                .expect("json");
        assert_eq!(first["format"], EVENTS_FORMAT);
        assert_eq!(first["total"], 1);
    }
}

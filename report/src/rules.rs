//! Failures grouped by the rule they break: the same assertion (its key with
//! array indexes left out, and its message) failing in several gating
//! vectors is one finding, shown once with the clauses every one of those
//! vectors cites ("33 vectors: `records[].absent."resolved_by"` ..."), each
//! vector still listed. A vendor disputing a reading disputes it once.

use crate::model::{ClauseQuote, Report, VectorEntry};
use ctk_core::outcome::Status;

/// One assertion failing in one or more gating vectors.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleGroup<'a> {
    /// The assertion key with array indexes left out, e.g.
    /// `records[].absent."resolved_by"`.
    pub key: String,
    /// What the assertion says went wrong.
    pub message: String,
    /// The clauses every vector of the group cites, in the first one's order.
    pub clauses: Vec<ClauseQuote>,
    /// The vectors, in report order (read back from a spooled run's file,
    /// so only the failed ones are ever held at once).
    pub vectors: Vec<std::borrow::Cow<'a, VectorEntry>>,
}

/// `key` without the digits of its array indexes: `records[12].x` is
/// `records[].x`.
fn rule_key(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut in_index = false;
    for c in key.chars() {
        match c {
            '[' => in_index = true,
            ']' => in_index = false,
            c if in_index && c.is_ascii_digit() => continue,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The gating failures of `report` (failed or expected to fail), grouped by
/// rule, the most widespread first.
pub fn gating_groups(report: &Report) -> Vec<RuleGroup<'_>> {
    let mut groups: Vec<RuleGroup<'_>> = Vec::new();
    for v in report
        .vectors
        .iter()
        .filter(|v| v.advisory.is_none() && matches!(v.status, Status::Fail | Status::ExpectedFail))
    {
        let mut seen: Vec<(String, &str)> = Vec::new();
        let mut joins = Vec::new();
        for f in &v.failures {
            let key = rule_key(&f.key);
            if seen.contains(&(key.clone(), f.message.as_str())) {
                continue;
            }
            seen.push((key.clone(), f.message.as_str()));
            match groups
                .iter()
                .position(|g| g.key == key && g.message == f.message)
            {
                Some(g) => joins.push(g),
                None => {
                    joins.push(groups.len());
                    groups.push(RuleGroup {
                        key,
                        message: f.message.clone(),
                        clauses: v.clauses.clone(),
                        vectors: Vec::new(),
                    });
                }
            }
        }
        // The vector joins its groups once its failures are read, since
        // it moves into the last of them.
        let last = joins.len();
        for (n, g) in joins.into_iter().enumerate() {
            let group = &mut groups[g];
            group
                .clauses
                .retain(|c| v.clauses.iter().any(|d| d.id == c.id));
            if n + 1 == last {
                group.vectors.push(v);
                break;
            }
            group.vectors.push(v.clone());
        }
    }
    groups.sort_by(|a, b| {
        b.vectors
            .len()
            .cmp(&a.vectors.len())
            .then(a.key.cmp(&b.key))
    });
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use ctk_core::outcome::AssertionFailure;

    fn entry(id: &str, status: Status, keys: &[&str], clauses: &[&str]) -> VectorEntry {
        VectorEntry {
            id: id.into(),
            title: "t".into(),
            part: "p".into(),
            advisory: None,
            file: format!("{id}.json"),
            sha256: "sha256:00".into(),
            status,
            reason: String::new(),
            failures: keys
                .iter()
                .map(|k| AssertionFailure::message(*k, "path must not resolve, but does"))
                .collect(),
            baseline: None,
            clauses: clauses
                .iter()
                .map(|c| ClauseQuote {
                    id: (*c).into(),
                    text: "paraphrase".into(),
                    source: Some("agent-hooks/spec/AGENT-HOOKS-0.1.md".into()),
                    quote: Some("a sentence".into()),
                })
                .collect(),
            adapter_feature: None,
        }
    }

    #[test]
    fn indexes_are_left_out_of_the_rule() {
        assert_eq!(
            rule_key("records[12].absent.\"a[3]\""),
            "records[].absent.\"a[]\""
        );
        assert_eq!(rule_key("final_output"), "final_output");
    }

    #[test]
    fn one_rule_in_several_vectors_is_one_group_with_their_common_clauses() {
        let mut report: Report = serde_json::from_value(serde_json::json!({
            "format": "ctk-report/1", "runner": {"name": "ctk", "version": "0"}, "protocol": "agent-hooks",
            "spec": "agent-hooks/0.1", "host": {"name": "h", "version": "1", "spec_versions": []},
            "declaration": {"source": "s", "sha256": "sha256:00", "document": {}, "surface": {}},
            "vector_set": {"source": "s", "count": 0, "sha256": "sha256:00", "filtered": false},
            "vectors": [], "parts": [], "totals": {"pass": 0, "fail": 0, "skip": 0, "error": 0},
            "advisory_totals": {"pass": 0, "fail": 0, "skip": 0, "error": 0}, "complete": true,
            "timing": {"started_at": "x", "total_ms": 0, "vectors_ms": {}}, "results_digest": "d", "digest": "d"
        }))
        .expect("a report");
        let mut advisory = entry(
            "CTK-0003",
            Status::Fail,
            &["records[0].absent.\"resolved_by\""],
            &["10.3-j"],
        );
        advisory.advisory = Some("D-15".into());
        report.vectors = vec![
            entry(
                "CTK-0001",
                Status::Fail,
                &["records[0].absent.\"resolved_by\"", "final_output"],
                &["10.3-j", "6.1-a"],
            ),
            entry(
                "CTK-0002",
                Status::ExpectedFail,
                &["records[2].absent.\"resolved_by\""],
                &["10.3-j"],
            ),
            advisory,
            entry("CTK-0004", Status::Pass, &[], &[]),
        ]
        .into();
        let groups = gating_groups(&report);
        assert_eq!(groups.len(), 2);
        assert_eq!(groups[0].key, "records[].absent.\"resolved_by\"");
        let ids: Vec<&str> = groups[0].vectors.iter().map(|v| v.id.as_str()).collect();
        assert_eq!(ids, ["CTK-0001", "CTK-0002"]);
        let clauses: Vec<&str> = groups[0].clauses.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(clauses, ["10.3-j"]);
        assert_eq!(groups[1].key, "final_output");
        assert_eq!(groups[1].vectors.len(), 1);
    }
}

//! Loading a registration under the other readings of the load rules
//! ([`crate::readings`]): where the text lets a harness refuse less
//! (overlapping observe subscriptions, plain http to a remote host, only
//! the faulty entry) or more (a `timeoutMs` outside a range, an unset
//! `tokenEnv`) than the reference harness does. The reference load
//! (`registration::parse`, whole-document refusal) stays in `harness.rs`;
//! this path is taken only when one of these readings is. Every load,
//! either path, refuses with [`Refusal`]s.

use std::collections::{BTreeMap, BTreeSet};

use ctk_ahp_wire::json;
use ctk_ahp_wire::registration::{LoadOptions, Registration};
use ctk_ahp_wire::validate::{self, Finding, Rule};
use serde_json::Value;

use crate::readings::{Readings, TIMEOUT_RANGE};

/// One problem that made the harness refuse a registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// JSON pointer into the document (`""` for the whole document).
    pub pointer: String,
    /// What is wrong, and the rule it breaks.
    pub reason: String,
}

/// Validate `document` as the readings `r` ask and build it, or say why
/// it is refused. `env` holds the variables the kit passed at load.
pub(crate) fn load(
    document: &[u8],
    env: &BTreeMap<String, String>,
    r: Readings,
) -> Result<Registration, Vec<Refusal>> {
    let mut value =
        json::parse_bytes(document).map_err(|e| vec![refusal(&validate::json_finding(&e))])?;
    loop {
        let found = findings(&value, env, r);
        if found.is_empty() {
            return serde_json::from_value(value).map_err(|e| {
                vec![Refusal {
                    pointer: String::new(),
                    reason: format!("valid document the typed model cannot hold: {e}"),
                }]
            });
        }
        let whole = || found.iter().map(refusal).collect::<Vec<_>>();
        if !r.refuse_entries_only {
            return Err(whole());
        }
        // Only the faulty entries are refused, when every finding lies
        // inside one and some entry is left (spec 6.1 does not say how
        // much of a document an invalid entry takes with it, D-21).
        let Some(faulty) = found
            .iter()
            .map(|f| entries_of(&value, f))
            .collect::<Option<Vec<Vec<usize>>>>()
            .map(|e| e.into_iter().flatten().collect::<BTreeSet<usize>>())
        else {
            return Err(whole());
        };
        let Some(Value::Array(hooks)) = value.get_mut("hooks") else {
            return Err(whole());
        };
        if faulty.len() >= hooks.len() {
            return Err(whole());
        }
        for f in &found {
            eprintln!(
                "ctk-ahp-harness: registration entry refused, the others load: {} ({}, {})",
                f.pointer,
                f.message,
                f.rule.id()
            );
        }
        for i in faulty.into_iter().rev() {
            hooks.remove(i);
        }
    }
}

/// The backend entries a finding makes faulty: the one its pointer lies
/// in (`/hooks/<i>/...`), and for a repeated id every entry carrying that
/// id (the conflict is theirs together, not the later one's alone).
/// `None` when the finding is about the document, not an entry.
fn entries_of(value: &Value, f: &Finding) -> Option<Vec<usize>> {
    let rest = f.pointer.strip_prefix("/hooks/")?;
    let i: usize = rest.split('/').next()?.parse().ok()?;
    if f.rule != Rule::UniqueBackendId {
        return Some(vec![i]);
    }
    let hooks = value.get("hooks").and_then(Value::as_array)?;
    let id = hooks.get(i)?.get("id");
    Some(
        hooks
            .iter()
            .enumerate()
            .filter(|(_, h)| h.get("id") == id)
            .map(|(j, _)| j)
            .collect(),
    )
}

/// Under the registration-refusal-scope reading, take out of the draft
/// document `doc` the entries the draft-only `problems` lie in, when every
/// one lies in an entry and some entry is left; then the rules both lines
/// share judge the rest. Returns whether it did (otherwise the whole
/// document is refused, as by default).
pub(crate) fn drop_faulty_draft_entries(doc: &mut Value, problems: &[Refusal]) -> bool {
    let Some(faulty) = problems
        .iter()
        .map(|p| {
            p.pointer
                .strip_prefix("/hooks/")?
                .split('/')
                .next()?
                .parse::<usize>()
                .ok()
        })
        .collect::<Option<BTreeSet<usize>>>()
    else {
        return false;
    };
    let Some(Value::Array(hooks)) = doc.get_mut("hooks") else {
        return false;
    };
    if faulty.len() >= hooks.len() {
        return false;
    }
    for p in problems {
        eprintln!(
            "ctk-ahp-harness: registration entry refused, the others load: {} ({})",
            p.pointer, p.reason
        );
    }
    for i in faulty.into_iter().rev() {
        hooks.remove(i);
    }
    true
}

fn refusal(f: &Finding) -> Refusal {
    Refusal {
        pointer: f.pointer.clone(),
        reason: format!("{} ({})", f.message, f.rule.id()),
    }
}

/// Every finding of the kit's loader the readings keep, and the ones they
/// add.
fn findings(value: &Value, env: &BTreeMap<String, String>, r: Readings) -> Vec<Finding> {
    let mut out: Vec<Finding> =
        validate::check_registration(value, &LoadOptions::default().local_http_hosts)
            .into_iter()
            .filter(|f| !(r.plain_http_remote && f.rule == Rule::HttpsForRemote))
            .filter(|f| !(r.overlapping_observers_load && merely_overlapping(value, f)))
            .collect();
    if r.overlapping_observers_load {
        out.extend(identical_observers(value));
    }
    let hooks = value
        .get("hooks")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    for (i, backend) in hooks.iter().enumerate() {
        if r.timeout_range {
            let subs = backend
                .get("subscriptions")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            for (j, sub) in subs.iter().enumerate() {
                let Some(t) = sub.get("timeoutMs").filter(|t| t.is_number()) else {
                    continue;
                };
                if !t.as_u64().is_some_and(|t| TIMEOUT_RANGE.contains(&t)) {
                    out.push(Finding::new(
                        Rule::Schema,
                        format!("/hooks/{i}/subscriptions/{j}/timeoutMs"),
                        format!(
                            "this harness accepts deadlines of {} to {} ms only",
                            TIMEOUT_RANGE.start(),
                            TIMEOUT_RANGE.end()
                        ),
                    ));
                }
            }
        }
        if r.token_env_at_load {
            if let Some(name) = backend
                .pointer("/authentication/tokenEnv")
                .and_then(Value::as_str)
            {
                if !env.contains_key(name) && std::env::var_os(name).is_none() {
                    out.push(Finding::new(
                        Rule::BearerTokenEnv,
                        format!("/hooks/{i}/authentication/tokenEnv"),
                        format!("the bearer token variable {name} is not set"),
                    ));
                }
            }
        }
    }
    out
}

/// The observe-mode event list of subscription `j` of backend `i`, as a
/// set.
fn observe_events(value: &Value, i: usize, j: usize) -> Option<BTreeSet<String>> {
    let sub = value.pointer(&format!("/hooks/{i}/subscriptions/{j}"))?;
    if sub.get("mode").and_then(Value::as_str) != Some("observe") {
        return None;
    }
    Some(
        sub.get("events")?
            .as_array()?
            .iter()
            .filter_map(|e| e.as_str().map(str::to_owned))
            .collect(),
    )
}

/// Whether `f` is a duplicate-subscription finding between two observe
/// subscriptions whose event lists differ (they only share some events).
fn merely_overlapping(value: &Value, f: &Finding) -> bool {
    if f.rule != Rule::DuplicateSubscription {
        return false;
    }
    let parts: Vec<&str> = f.pointer.split('/').collect();
    let (Some(i), Some(j)) = (
        parts.get(2).and_then(|p| p.parse::<usize>().ok()),
        parts.get(4).and_then(|p| p.parse::<usize>().ok()),
    ) else {
        return false;
    };
    observe_events(value, i, j).is_some()
}

/// Observe subscriptions of one backend with identical event lists: still
/// duplicates under the overlapping reading.
fn identical_observers(value: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let hooks = value
        .get("hooks")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    for i in 0..hooks {
        let n = value
            .pointer(&format!("/hooks/{i}/subscriptions"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        let mut seen: Vec<(usize, BTreeSet<String>)> = Vec::new();
        for j in 0..n {
            let Some(events) = observe_events(value, i, j) else {
                continue;
            };
            if let Some((first, _)) = seen.iter().find(|(_, e)| *e == events) {
                out.push(Finding::new(
                    Rule::DuplicateSubscription,
                    format!("/hooks/{i}/subscriptions/{j}/events"),
                    format!("the same events as /hooks/{i}/subscriptions/{first}"),
                ));
            } else {
                seen.push((j, events));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn reading() -> Readings {
        Readings {
            refuse_entries_only: true,
            overlapping_observers_load: true,
            plain_http_remote: true,
            timeout_range: true,
            token_env_at_load: true,
            ..Readings::default()
        }
    }

    fn stdio(id: &str, subs: Value) -> Value {
        json!({"id": id, "transport": {"type": "stdio", "command": "x", "lifecycle": "persistent"},
               "subscriptions": subs})
    }

    fn doc(hooks: Value) -> Vec<u8> {
        serde_json::to_vec(&json!({"protocolVersion": "0.1", "hooks": hooks})).unwrap()
    }

    fn intercept(timeout: u64) -> Value {
        json!({"events": ["tool.before"], "mode": "intercept", "timeoutMs": timeout, "failurePolicy": "fail-open"})
    }

    #[test]
    fn only_the_faulty_entry_is_refused() {
        let d = doc(json!([
            stdio("com.example.good", json!([intercept(1000)])),
            stdio("com.example.slow", json!([intercept(60_000)])),
        ]));
        let reg = load(&d, &BTreeMap::new(), reading()).unwrap();
        assert_eq!(reg.hooks.len(), 1);
        assert_eq!(reg.hooks[0].id, "com.example.good");
        let strict = Readings {
            refuse_entries_only: false,
            ..reading()
        };
        let refused = load(&d, &BTreeMap::new(), strict).unwrap_err();
        assert_eq!(refused[0].pointer, "/hooks/1/subscriptions/0/timeoutMs");
        // Two entries sharing an id are both faulty; a third loads.
        let shared = doc(json!([
            stdio("com.example.same", json!([intercept(1000)])),
            stdio("com.example.same", json!([intercept(1000)])),
            stdio("com.example.other", json!([intercept(1000)])),
        ]));
        let reg = load(&shared, &BTreeMap::new(), reading()).unwrap();
        assert_eq!(reg.hooks.len(), 1);
        assert_eq!(reg.hooks[0].id, "com.example.other");
        // Every entry faulty: the whole document is refused.
        let all_bad = doc(json!([stdio("com.example.slow", json!([intercept(50)]))]));
        assert!(load(&all_bad, &BTreeMap::new(), reading()).is_err());
    }

    #[test]
    fn overlapping_observers_load_and_identical_ones_do_not() {
        let observe = |events: Value| json!({"events": events, "mode": "observe"});
        let overlapping = doc(json!([stdio(
            "com.example.o",
            json!([
                observe(json!(["tool.after", "session.start"])),
                observe(json!(["tool.after"]))
            ])
        )]));
        let only = Readings {
            overlapping_observers_load: true,
            ..Readings::default()
        };
        assert!(load(&overlapping, &BTreeMap::new(), only).is_ok());
        assert!(load(&overlapping, &BTreeMap::new(), Readings::default()).is_err());
        let identical = doc(json!([stdio(
            "com.example.o",
            json!([
                observe(json!(["tool.after", "session.start"])),
                observe(json!(["session.start", "tool.after"]))
            ])
        )]));
        assert!(load(&identical, &BTreeMap::new(), only).is_err());
    }

    #[test]
    fn plain_remote_http_and_unset_tokens() {
        let http = |url: &str| {
            json!({"id": "com.example.h", "transport": {"type": "http", "url": url},
                   "authentication": {"type": "bearer", "tokenEnv": "CTK_TEST_TOKEN_SURELY_UNSET"},
                   "subscriptions": [intercept(1000)]})
        };
        let d = doc(json!([http("http://example.com/hook")]));
        let plain = Readings {
            plain_http_remote: true,
            ..Readings::default()
        };
        assert!(load(&d, &BTreeMap::new(), plain).is_ok());
        assert!(load(&d, &BTreeMap::new(), Readings::default()).is_err());
        let at_load = Readings {
            plain_http_remote: true,
            token_env_at_load: true,
            ..Readings::default()
        };
        let refused = load(&d, &BTreeMap::new(), at_load).unwrap_err();
        assert_eq!(refused[0].pointer, "/hooks/0/authentication/tokenEnv");
        let env = BTreeMap::from([("CTK_TEST_TOKEN_SURELY_UNSET".into(), "t".into())]);
        assert!(load(&d, &env, at_load).is_ok());
    }
}

//! The message rules beyond the schemas: the intercept id is the event id,
//! and a reply echoes its request's id and returns only advertised effects.

use serde_json::Value;

use super::schema::short;
use super::{Finding, Rule};

/// Spec 8.1: "The JSON-RPC request `id` MUST equal `params.event.id`."
/// Equal means the same JSON value: an integer id never equals the string
/// event id.
pub(super) fn intercept_id_rule(value: &Value) -> Option<Finding> {
    let id = value.get("id")?;
    let event_id = value.pointer("/params/event/id")?;
    (id != event_id).then(|| {
        Finding::new(
            Rule::InterceptIdIsEventId,
            "/id",
            format!(
                "the request id {} differs from params.event.id {}",
                short(id),
                short(event_id)
            ),
        )
    })
}

/// Check `reply` as the answer to `request` (both already parsed): the id
/// is echoed exactly (spec 14.1 "mismatched JSON-RPC request and response
/// IDs" is a failure; a `null` id matches nothing), and a success returns
/// only effects the request advertised (spec 11). The reply's own shape is
/// [`super::check_message`]'s business.
pub fn check_reply(request: &Value, reply: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    let request_id = request.get("id");
    let reply_id = reply.get("id");
    if request_id.is_none() {
        findings.push(Finding::new(
            Rule::NoReplyToNotification,
            "",
            "a notification (no id) must not receive any response",
        ));
        return findings;
    }
    if reply_id != request_id {
        findings.push(Finding::new(
            Rule::ReplyIdEcho,
            "/id",
            format!(
                "the reply id {} does not echo the request id {}",
                reply_id.map_or_else(|| "(absent)".to_owned(), short),
                request_id.map_or_else(String::new, short)
            ),
        ));
    }
    let advertised: Vec<&str> = request
        .pointer("/params/capabilities/effects")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(effects) = reply.pointer("/result/effects").and_then(Value::as_array) {
        for (i, effect) in effects.iter().enumerate() {
            if let Some(t) = effect.get("type").and_then(Value::as_str) {
                if !advertised.contains(&t) {
                    findings.push(Finding::new(
                        Rule::AdvertisedEffects,
                        format!("/result/effects/{i}/type"),
                        format!(
                            "effect {t:?} was not advertised by the request (advertised: {advertised:?})"
                        ),
                    ));
                }
            }
        }
    }
    findings
}

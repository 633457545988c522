//! Schema errors, each reported under the rule its schema location stands
//! for.

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use super::{Finding, Rule};
use crate::schema::{keyword_location, SchemaKind, ID_BASE};

/// (schema location, rule): a schema error whose keyword location is this
/// location or below it is reported under the rule. More specific
/// locations come first.
const SCHEMA_RULES: &[(&str, Rule)] = &[
    ("definitions#/$defs/wireVersion", Rule::WireVersion),
    ("definitions#/$defs/extensions", Rule::ExtensionKeys),
    (
        "definitions#/$defs/notification/properties/id",
        Rule::NotificationHasNoId,
    ),
    (
        "definitions#/$defs/denyEffect/properties/type",
        Rule::DenyOnly,
    ),
    (
        "intercept-request#/$defs/advertisesDeny",
        Rule::DenyAdvertised,
    ),
    ("tool-before#/properties/type", Rule::InterceptToolBefore),
    (
        "intercept-response#/$defs/effects/maxItems",
        Rule::OneEffect,
    ),
    ("registration#/required", Rule::RegistrationRoot),
    ("registration#/type", Rule::RegistrationRoot),
    ("registration#/properties/hooks", Rule::RegistrationRoot),
    ("registration#/$defs/backendId", Rule::BackendId),
    (
        "registration#/$defs/interceptEvents",
        Rule::InterceptToolBeforeOnly,
    ),
    (
        "registration#/$defs/interceptSubscription",
        Rule::InterceptDeadlineAndPolicy,
    ),
    (
        "registration#/$defs/observeSubscription/properties/timeoutMs",
        Rule::ObserveNoDeadlineOrPolicy,
    ),
    (
        "registration#/$defs/observeSubscription/properties/failurePolicy",
        Rule::ObserveNoDeadlineOrPolicy,
    ),
    ("registration#/$defs/endpointUrl", Rule::AbsoluteUrl),
    (
        "registration#/$defs/bearerAuthentication/properties/token",
        Rule::NoLiteralCredential,
    ),
    (
        "registration#/$defs/bearerAuthentication/properties/bearerToken",
        Rule::NoLiteralCredential,
    ),
    (
        "registration#/$defs/bearerAuthentication/properties/value",
        Rule::NoLiteralCredential,
    ),
    (
        "registration#/$defs/bearerAuthentication",
        Rule::BearerTokenEnv,
    ),
    (
        "registration#/$defs/backend/else",
        Rule::AuthenticationHttpOnly,
    ),
];

/// Longest message text kept from a schema error; values can be large.
const MAX_DETAIL: usize = 240;

/// The schema layer alone: `value` checked against `kind`'s project
/// schema, each error under its rule ([`super::check_as`] adds the code rules).
pub fn check_schema(kind: SchemaKind, value: &Value) -> Vec<Finding> {
    kind.validator()
        .iter_errors(value)
        .map(|e| {
            let location = keyword_location(&e, ID_BASE)
                .unwrap_or_else(|| format!("{}#{}", kind.schema_ref(), e.schema_path().as_str()));
            let rule = SCHEMA_RULES
                .iter()
                .find(|(at, _)| {
                    location == *at
                        || location
                            .strip_prefix(at)
                            .is_some_and(|rest| rest.starts_with('/'))
                })
                .map_or(Rule::Schema, |(_, r)| *r);
            let pointer = e.instance_path().as_str().to_owned();
            let member = pointer.rsplit('/').next().unwrap_or("").to_owned();
            // Values under `authentication` (and a refused literal-token
            // member anywhere) may be secrets: never echo them.
            let secret = rule == Rule::NoLiteralCredential
                || pointer.split('/').any(|t| t == "authentication");
            let what = if matches!(e.kind(), ValidationErrorKind::FalseSchema) {
                format!("member {member:?} is not allowed here")
            } else if secret {
                format!("fails the {:?} constraint", e.kind().keyword())
            } else {
                clip(&e.to_string())
            };
            let message = match rule {
                Rule::NoLiteralCredential => format!(
                    "a literal credential under {member:?}: remove it and name the environment \
                     variable that holds the token in \"tokenEnv\""
                ),
                Rule::AuthenticationHttpOnly => {
                    "authentication is only defined for an http transport".to_owned()
                }
                _ => format!("{what} (schema {location})"),
            };
            Finding::new(rule, pointer, message)
        })
        .collect()
}

/// `text` cut to [`MAX_DETAIL`] bytes (at a character boundary).
pub(crate) fn clip(text: &str) -> String {
    if text.len() <= MAX_DETAIL {
        return text.to_owned();
    }
    let mut cut = MAX_DETAIL;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &text[..cut])
}

/// A short rendering of a value for a message.
pub(super) fn short(value: &Value) -> String {
    clip(&value.to_string())
}

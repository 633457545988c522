//! Static validation of AHP 0.1 messages and registration documents.
//!
//! Two layers, reported the same way. The project's schemas
//! (`schemas/ahp/0.1/`, see [`crate::schema`]) say what each document looks
//! like; a schema error is reported under the rule its schema location
//! stands for (a wrong `protocolVersion` is [`Rule::WireVersion`], not just
//! "schema"). Then code checks what JSON Schema cannot say: the intercept
//! id equals the event id, unique backend ids, one subscription per
//! backend, event and mode, https for remote endpoints, stdio framing, and
//! the id echo between a request and its reply. Every problem is a
//! [`Finding`]: the rule, the JSON pointer, and what is wrong.

use std::collections::HashMap;
use std::fmt;
use std::net::{Ipv4Addr, Ipv6Addr};

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::json::{self, JsonError};
use crate::schema::{SchemaKind, ID_BASE};
pub use crate::wire::{classify, MessageKind};
use crate::wire::{METHOD_INTERCEPT, METHOD_OBSERVE};

/// One rule the validator enforces. Each has a stable id (printed in
/// findings), the clause of the AHP 0.1 text it comes from, and the
/// requirement id when the text gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// Messages are UTF-8.
    Utf8,
    /// A document is one JSON value.
    JsonSyntax,
    /// No object repeats a member name (the upstream checker's rule; the
    /// text only says messages are JSON, and a repeated name is ambiguous).
    UniqueMembers,
    /// A schema constraint with no more specific rule; the message names
    /// the schema location.
    Schema,
    /// No JSON-RPC batches.
    NoBatch,
    /// Only `hooks/intercept` and `hooks/observe` exist in 0.1.
    KnownMethod,
    /// `protocolVersion` is exactly `"0.1"`.
    WireVersion,
    /// The `hooks/intercept` request id equals `params.event.id`.
    InterceptIdIsEventId,
    /// A notification carries no `id`.
    NotificationHasNoId,
    /// `hooks/intercept` carries only `tool.before`.
    InterceptToolBefore,
    /// An intercept request advertises `deny`.
    DenyAdvertised,
    /// Extension keys are reverse-DNS names.
    ExtensionKeys,
    /// A result holds at most one effect.
    OneEffect,
    /// The only 0.1 effect is `deny`.
    DenyOnly,
    /// A reply echoes its request's id.
    ReplyIdEcho,
    /// A reply returns only effects its request advertised.
    AdvertisedEffects,
    /// Nothing answers a notification.
    NoReplyToNotification,
    /// At most one intercept is outstanding on one stdio link.
    OneOutstandingIntercept,
    /// A stdio frame is one physical line.
    StdioOneLine,
    /// A stdio frame ends in exactly one LF.
    StdioTerminator,
    /// No carriage return in a stdio frame.
    StdioNoCarriageReturn,
    /// Every stdout line is a protocol message (no banners, logs, blanks).
    StdioProtocolOnly,
    /// The registration declares `"0.1"` and a non-empty ordered `hooks`.
    RegistrationRoot,
    /// A backend id is a reverse-DNS name.
    BackendId,
    /// Backend ids are unique within the document.
    UniqueBackendId,
    /// One subscription per backend, event and mode.
    DuplicateSubscription,
    /// An intercept subscription names only `tool.before`.
    InterceptToolBeforeOnly,
    /// An intercept subscription sets `timeoutMs` and `failurePolicy`.
    InterceptDeadlineAndPolicy,
    /// An observe subscription sets neither `timeoutMs` nor `failurePolicy`.
    ObserveNoDeadlineOrPolicy,
    /// An HTTP transport `url` is an absolute http(s) URL with a host.
    AbsoluteUrl,
    /// Remote endpoints use https; plain http only on loopback.
    HttpsForRemote,
    /// `authentication` only on an http transport.
    AuthenticationHttpOnly,
    /// Bearer authentication names its token by `tokenEnv`.
    BearerTokenEnv,
    /// No literal credential in the document.
    NoLiteralCredential,
}

impl Rule {
    /// The rule's stable id, printed in every finding.
    pub fn id(self) -> &'static str {
        match self {
            Rule::Utf8 => "ahp.json.utf8",
            Rule::JsonSyntax => "ahp.json.syntax",
            Rule::UniqueMembers => "ahp.json.unique-members",
            Rule::Schema => "ahp.schema",
            Rule::NoBatch => "ahp.rpc.no-batch",
            Rule::KnownMethod => "ahp.rpc.known-method",
            Rule::WireVersion => "ahp.version.exact",
            Rule::InterceptIdIsEventId => "ahp.intercept.id-is-event-id",
            Rule::NotificationHasNoId => "ahp.observe.no-id",
            Rule::InterceptToolBefore => "ahp.intercept.tool-before-only",
            Rule::DenyAdvertised => "ahp.capabilities.deny-advertised",
            Rule::ExtensionKeys => "ahp.extensions.reverse-dns",
            Rule::OneEffect => "ahp.result.at-most-one-effect",
            Rule::DenyOnly => "ahp.result.deny-only",
            Rule::ReplyIdEcho => "ahp.reply.id-echo",
            Rule::AdvertisedEffects => "ahp.reply.advertised-effects",
            Rule::NoReplyToNotification => "ahp.reply.none-to-notification",
            Rule::OneOutstandingIntercept => "ahp.stdio.one-outstanding-intercept",
            Rule::StdioOneLine => "ahp.stdio.one-line",
            Rule::StdioTerminator => "ahp.stdio.lf-terminator",
            Rule::StdioNoCarriageReturn => "ahp.stdio.no-cr",
            Rule::StdioProtocolOnly => "ahp.stdio.protocol-only",
            Rule::RegistrationRoot => "ahp.registration.root",
            Rule::BackendId => "ahp.registration.backend-id",
            Rule::UniqueBackendId => "ahp.registration.unique-backend-id",
            Rule::DuplicateSubscription => "ahp.registration.duplicate-subscription",
            Rule::InterceptToolBeforeOnly => "ahp.registration.intercept-tool-before-only",
            Rule::InterceptDeadlineAndPolicy => "ahp.registration.intercept-deadline-and-policy",
            Rule::ObserveNoDeadlineOrPolicy => "ahp.registration.observe-no-deadline-or-policy",
            Rule::AbsoluteUrl => "ahp.registration.absolute-url",
            Rule::HttpsForRemote => "ahp.registration.https-for-remote",
            Rule::AuthenticationHttpOnly => "ahp.registration.authentication-http-only",
            Rule::BearerTokenEnv => "ahp.registration.bearer-token-env",
            Rule::NoLiteralCredential => "ahp.registration.no-literal-credential",
        }
    }

    /// The section of the AHP 0.1 Working Draft the rule comes from.
    pub fn clause(self) -> &'static str {
        match self {
            Rule::Utf8 | Rule::JsonSyntax | Rule::UniqueMembers | Rule::NoBatch => "7.1",
            Rule::KnownMethod => "7.1",
            Rule::Schema => "8-19 (the schema location is in the message)",
            Rule::WireVersion => "7.2",
            Rule::InterceptIdIsEventId => "8.1",
            Rule::InterceptToolBefore => "10.1",
            Rule::NotificationHasNoId | Rule::NoReplyToNotification => "8.4",
            Rule::DenyAdvertised | Rule::AdvertisedEffects => "11",
            Rule::ExtensionKeys => "9.5",
            Rule::OneEffect | Rule::DenyOnly => "12.1",
            Rule::ReplyIdEcho => "14.1",
            Rule::OneOutstandingIntercept => "17.2",
            Rule::StdioOneLine
            | Rule::StdioTerminator
            | Rule::StdioNoCarriageReturn
            | Rule::StdioProtocolOnly => "17.1",
            Rule::RegistrationRoot => "19.1",
            Rule::BackendId | Rule::UniqueBackendId | Rule::AuthenticationHttpOnly => "19.2",
            Rule::DuplicateSubscription => "13.3",
            Rule::InterceptToolBeforeOnly => "19.3",
            Rule::InterceptDeadlineAndPolicy => "14.2, 14.4",
            Rule::ObserveNoDeadlineOrPolicy => "14.2, 19.3",
            Rule::AbsoluteUrl => "19.5",
            Rule::HttpsForRemote => "18.2",
            Rule::BearerTokenEnv | Rule::NoLiteralCredential => "18.3",
        }
    }

    /// The requirement id (`spec/requirements.json`) the rule enforces, if
    /// the text attaches one to the clause.
    pub fn requirement(self) -> Option<&'static str> {
        match self {
            Rule::Utf8 | Rule::JsonSyntax | Rule::NoBatch | Rule::UniqueMembers => {
                Some("AHP-RPC-001")
            }
            Rule::KnownMethod | Rule::NotificationHasNoId | Rule::NoReplyToNotification => {
                Some("AHP-RPC-002")
            }
            Rule::WireVersion => Some("AHP-VER-001"),
            // The upstream fixture for this rule cites AHP-CORE-004 (ids
            // survive retries); the rule itself is the 8.1 sentence.
            Rule::InterceptIdIsEventId => Some("AHP-CORE-004"),
            Rule::InterceptToolBefore => Some("AHP-TB-001"),
            Rule::DenyAdvertised | Rule::AdvertisedEffects => Some("AHP-CAP-001"),
            Rule::ExtensionKeys => Some("AHP-EXT-001"),
            Rule::OneEffect | Rule::DenyOnly => Some("AHP-DEC-001"),
            Rule::StdioOneLine
            | Rule::StdioTerminator
            | Rule::StdioNoCarriageReturn
            | Rule::StdioProtocolOnly => Some("AHP-STDIO-001"),
            Rule::RegistrationRoot => Some("AHP-REG-001"),
            Rule::InterceptDeadlineAndPolicy | Rule::ObserveNoDeadlineOrPolicy => {
                Some("AHP-FAIL-001")
            }
            Rule::NoLiteralCredential => Some("AHP-SEC-001"),
            Rule::Schema
            | Rule::ReplyIdEcho
            | Rule::OneOutstandingIntercept
            | Rule::BackendId
            | Rule::UniqueBackendId
            | Rule::DuplicateSubscription
            | Rule::InterceptToolBeforeOnly
            | Rule::AbsoluteUrl
            | Rule::HttpsForRemote
            | Rule::AuthenticationHttpOnly
            | Rule::BearerTokenEnv => None,
        }
    }
}

impl fmt::Display for Rule {
    /// `<id>, <requirement>, §<clause>` (the requirement only when there is
    /// one), e.g. `ahp.version.exact, AHP-VER-001, §7.2`; a plain schema
    /// finding is just `ahp.schema` (its message names the schema location).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if *self == Rule::Schema {
            return f.write_str(self.id());
        }
        match self.requirement() {
            Some(req) => write!(f, "{}, {req}, §{}", self.id(), self.clause()),
            None => write!(f, "{}, §{}", self.id(), self.clause()),
        }
    }
}

/// One problem in one document: which rule, where (a JSON pointer into the
/// document, `""` for the whole document), and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// The rule the document breaks.
    pub rule: Rule,
    /// JSON pointer (RFC 6901) of the offending value.
    pub pointer: String,
    /// What is wrong, for a user to act on. Never echoes a credential.
    pub message: String,
}

impl Finding {
    /// A finding of `rule` at `pointer`.
    pub fn new(rule: Rule, pointer: impl Into<String>, message: impl Into<String>) -> Finding {
        Finding {
            rule,
            pointer: pointer.into(),
            message: message.into(),
        }
    }

    /// The finding as one line naming `file`:
    /// `<file> at <pointer>: <what> (<rule>)`.
    pub fn render(&self, file: &str) -> String {
        format!("{file} at {self}")
    }
}

impl fmt::Display for Finding {
    /// `<pointer>: <what> (<rule>)`; the whole document's pointer `""` is
    /// shown as `(root)`, which cannot be misread as the key `""` (`/`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {} ({})", self.message, self.rule)
    }
}

/// A finding on one line of a stdio transcript (lines count from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineFinding {
    /// The 1-based physical line.
    pub line: usize,
    /// The problem on that line.
    pub finding: Finding,
}

/// The schema a message of `kind` is checked against.
fn schema_of(kind: MessageKind) -> SchemaKind {
    match kind {
        MessageKind::InterceptRequest => SchemaKind::InterceptRequest,
        MessageKind::ObserveNotification => SchemaKind::ObserveNotification,
        MessageKind::InterceptResponse => SchemaKind::InterceptResponse,
        MessageKind::ErrorResponse => SchemaKind::ErrorResponse,
        MessageKind::Unknown => SchemaKind::Message,
    }
}

/// The finding for a text that is not strict JSON.
pub fn json_finding(error: &JsonError) -> Finding {
    let rule = match error {
        JsonError::NotUtf8 { .. } => Rule::Utf8,
        JsonError::Syntax { .. } => Rule::JsonSyntax,
        JsonError::DuplicateKey { .. } => Rule::UniqueMembers,
    };
    Finding::new(rule, error.pointer(), error.to_string())
}

/// Check one message of whatever kind it is ([`classify`]): its schema,
/// then the rules beyond it.
pub fn check_message(value: &Value) -> Vec<Finding> {
    let kind = classify(value);
    let mut findings = Vec::new();
    if kind == MessageKind::Unknown {
        if let Some(method) = value.get("method") {
            findings.push(Finding::new(
                Rule::KnownMethod,
                "/method",
                format!(
                    "method {} is not an AHP 0.1 method (only {METHOD_INTERCEPT:?} and \
                     {METHOD_OBSERVE:?} exist)",
                    short(method)
                ),
            ));
        }
    }
    findings.extend(check_as(schema_of(kind), value));
    findings
}

/// Parse `bytes` strictly and check the message ([`check_message`]).
pub fn check_message_bytes(bytes: &[u8]) -> Vec<Finding> {
    match json::parse_bytes(bytes) {
        Ok(v) => check_message(&v),
        Err(e) => vec![json_finding(&e)],
    }
}

/// Check `value` as a document of `kind`: its schema, then the rules of
/// that kind that no schema can state.
pub fn check_as(kind: SchemaKind, value: &Value) -> Vec<Finding> {
    if value.is_array() && kind != SchemaKind::Registration {
        return vec![Finding::new(
            Rule::NoBatch,
            "",
            "a JSON array (a batch) is not an AHP message; AHP 0.1 forbids batches",
        )];
    }
    if !value.is_object() {
        // Every AHP document is one object; the schemas' answer for a bare
        // string or number (no oneOf branch matched) would say less.
        return vec![Finding::new(
            Rule::Schema,
            "",
            format!(
                "{} is not a JSON object; every AHP document is one object",
                short(value)
            ),
        )];
    }
    let mut findings = check_schema(kind, value);
    match kind {
        SchemaKind::InterceptRequest => findings.extend(intercept_id_rule(value)),
        SchemaKind::Registration => findings.extend(registration_rules(value, &[])),
        _ => {}
    }
    findings
}

/// Check a registration document with explicitly allowed plain-http hosts
/// (spec 18.2: plain http outside loopback only in "explicitly controlled
/// local development environments"; the caller names those hosts).
pub fn check_registration(value: &Value, local_http_hosts: &[String]) -> Vec<Finding> {
    let mut findings = check_schema(SchemaKind::Registration, value);
    findings.extend(registration_rules(value, local_http_hosts));
    findings
}

// ---------------------------------------------------------------------
// Schema errors, each under its rule.

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
/// schema, each error under its rule ([`check_as`] adds the code rules).
pub fn check_schema(kind: SchemaKind, value: &Value) -> Vec<Finding> {
    kind.validator()
        .iter_errors(value)
        .map(|e| {
            let location = e
                .absolute_keyword_location()
                .map(|u| {
                    u.as_str()
                        .strip_prefix(ID_BASE)
                        .unwrap_or(u.as_str())
                        .to_owned()
                })
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
fn short(value: &Value) -> String {
    clip(&value.to_string())
}

// ---------------------------------------------------------------------
// Message rules beyond the schemas.

/// Spec 8.1: "The JSON-RPC request `id` MUST equal `params.event.id`."
/// Equal means the same JSON value: an integer id never equals the string
/// event id.
fn intercept_id_rule(value: &Value) -> Option<Finding> {
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
/// [`check_message`]'s business.
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

// ---------------------------------------------------------------------
// stdio framing.

/// One physical line of a stdio stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    /// The 1-based line number.
    pub line: usize,
    /// The line's bytes without its LF.
    pub bytes: &'a [u8],
    /// Whether an LF ended the line (only the last line can lack one).
    pub terminated: bool,
}

/// Split a stdio stream into lines at LF (spec 17.1: each message is one
/// line ended by a single newline). A final line without LF is returned
/// with `terminated: false`; an empty stream has no lines.
pub fn split_lines(bytes: &[u8]) -> Vec<Frame<'_>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    let mut line = 1;
    while !rest.is_empty() {
        match rest.iter().position(|b| *b == b'\n') {
            Some(i) => {
                out.push(Frame {
                    line,
                    bytes: &rest[..i],
                    terminated: true,
                });
                rest = &rest[i + 1..];
            }
            None => {
                out.push(Frame {
                    line,
                    bytes: rest,
                    terminated: false,
                });
                rest = &[];
            }
        }
        line += 1;
    }
    out
}

/// Check `bytes` as exactly one stdio frame (a fixture or one captured
/// write): one physical line, ended by exactly one LF, no CR anywhere
/// (spec 17.1; the upstream checker's reading). Returns the findings and,
/// when the text is strict JSON, the parsed message (still returned for a
/// multi-line frame, so its content can be checked too).
pub fn check_stdio_frame(bytes: &[u8]) -> (Option<Value>, Vec<Finding>) {
    let mut findings = Vec::new();
    if bytes.contains(&b'\r') {
        findings.push(Finding::new(
            Rule::StdioNoCarriageReturn,
            "",
            "the frame contains a carriage return; a frame ends in a single LF and has no CR",
        ));
    }
    let body = match bytes.strip_suffix(b"\n") {
        Some(body) => body,
        None => {
            findings.push(Finding::new(
                Rule::StdioTerminator,
                "",
                "the frame does not end in a newline (LF)",
            ));
            bytes
        }
    };
    let lines = body.iter().filter(|b| **b == b'\n').count() + 1;
    if lines > 1 {
        findings.push(Finding::new(
            Rule::StdioOneLine,
            "",
            format!(
                "the frame spans {lines} physical lines; a message must not contain a literal \
                 newline (no pretty-printing, no blank line after it)"
            ),
        ));
    }
    match json::parse_bytes(body) {
        Ok(v) => (Some(v), findings),
        Err(e) => {
            findings.push(json_finding(&e));
            (None, findings)
        }
    }
}

/// Check a stdio transcript (`.jsonl`: one stream, either direction or
/// both interleaved) line by line: each line one complete JSON-RPC
/// message ([`check_message`]); the last line LF-terminated; no CR; no
/// blank or non-JSON lines (spec 17.1). When the transcript holds requests,
/// replies are paired with them by id: a reply must answer an outstanding
/// request ([`check_reply`]), never a notification, and a second intercept
/// is not sent while one is outstanding (spec 17.2).
pub fn check_transcript(bytes: &[u8]) -> Vec<LineFinding> {
    let mut out = Vec::new();
    let mut messages: Vec<(usize, Value)> = Vec::new();
    for frame in split_lines(bytes) {
        let at = |finding| LineFinding {
            line: frame.line,
            finding,
        };
        if frame.bytes.contains(&b'\r') {
            out.push(at(Finding::new(
                Rule::StdioNoCarriageReturn,
                "",
                "the line contains a carriage return; frames end in a single LF",
            )));
        }
        if !frame.terminated {
            out.push(at(Finding::new(
                Rule::StdioTerminator,
                "",
                "the last line does not end in a newline (LF)",
            )));
        }
        if frame.bytes.iter().all(u8::is_ascii_whitespace) {
            out.push(at(Finding::new(
                Rule::StdioProtocolOnly,
                "",
                "a blank line is not a protocol message",
            )));
            continue;
        }
        match json::parse_bytes(frame.bytes) {
            Ok(v) => {
                out.extend(check_message(&v).into_iter().map(at));
                messages.push((frame.line, v));
            }
            Err(JsonError::Syntax { detail }) => out.push(at(Finding::new(
                Rule::StdioProtocolOnly,
                "",
                format!(
                    "the line is not one complete JSON message (a message must fit on one line, \
                     and nothing but messages may appear): {detail}"
                ),
            ))),
            Err(e) => out.push(at(json_finding(&e))),
        }
    }
    out.extend(pair_replies(&messages));
    out.sort_by_key(|f| f.line);
    out
}

/// Pair replies with requests in transcript order (see
/// [`check_transcript`]).
fn pair_replies(messages: &[(usize, Value)]) -> Vec<LineFinding> {
    let mut out = Vec::new();
    // Only a transcript that shows the harness side can pair replies; a
    // capture of a backend's stdout alone holds replies only.
    let has_requests = messages.iter().any(|(_, m)| m.get("method").is_some());
    if !has_requests {
        return out;
    }
    // Outstanding requests by id (the id's JSON text, so 1 and "1" differ).
    let mut outstanding: HashMap<String, (usize, &Value)> = HashMap::new();
    let mut last_was_notification = false;
    for (line, message) in messages {
        let at = |finding| LineFinding {
            line: *line,
            finding,
        };
        let is_call = message.get("method").is_some();
        match (is_call, message.get("id")) {
            (true, Some(id)) => {
                if classify(message) == MessageKind::InterceptRequest
                    && outstanding
                        .values()
                        .any(|(_, r)| classify(r) == MessageKind::InterceptRequest)
                {
                    out.push(at(Finding::new(
                        Rule::OneOutstandingIntercept,
                        "/id",
                        "an intercept request is sent while another is still outstanding on \
                         this stdio link",
                    )));
                }
                outstanding.insert(id.to_string(), (*line, message));
                last_was_notification = false;
            }
            (true, None) => last_was_notification = true,
            (false, id) => {
                let key = id.map(Value::to_string);
                match key.as_ref().and_then(|k| outstanding.remove(k)) {
                    Some((_, request)) => {
                        out.extend(check_reply(request, message).into_iter().map(at));
                    }
                    None if last_was_notification && outstanding.is_empty() => {
                        out.push(at(Finding::new(
                            Rule::NoReplyToNotification,
                            "",
                            "a response follows a notification with no request outstanding; \
                             notifications never get a response",
                        )));
                    }
                    None => out.push(at(Finding::new(
                        Rule::ReplyIdEcho,
                        "/id",
                        format!(
                            "the reply id {} matches no outstanding request",
                            id.map_or_else(|| "(absent)".to_owned(), short)
                        ),
                    ))),
                }
                last_was_notification = false;
            }
        }
    }
    out
}

// ---------------------------------------------------------------------
// Registration rules beyond the schema.

fn registration_rules(value: &Value, local_http_hosts: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(hooks) = value.get("hooks").and_then(Value::as_array) else {
        return out;
    };
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for (i, backend) in hooks.iter().enumerate() {
        // Spec 19.2: "Unique reverse-DNS backend identifier within the
        // document" (also the upstream checker's rule).
        if let Some(id) = backend.get("id").and_then(Value::as_str) {
            if let Some(first) = ids.get(id) {
                out.push(Finding::new(
                    Rule::UniqueBackendId,
                    format!("/hooks/{i}/id"),
                    format!("backend id {id:?} is already used by /hooks/{first}"),
                ));
            } else {
                ids.insert(id, i);
            }
        }
        out.extend(duplicate_subscriptions(i, backend));
        if let Some(url) = backend.pointer("/transport/url").and_then(Value::as_str) {
            if backend.pointer("/transport/type").and_then(Value::as_str) == Some("http") {
                out.extend(url_rules(
                    &format!("/hooks/{i}/transport/url"),
                    url,
                    local_http_hosts,
                ));
            }
        }
    }
    out
}

/// Spec 13.3: "A registration document MUST NOT configure the same backend
/// more than once for the same event and mode." The same event under the
/// other mode is a different subscription; a repeat inside one `events`
/// array is the schema's `uniqueItems`.
fn duplicate_subscriptions(i: usize, backend: &Value) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(subs) = backend.get("subscriptions").and_then(Value::as_array) else {
        return out;
    };
    let mut seen: HashMap<(&str, &str), usize> = HashMap::new();
    for (j, sub) in subs.iter().enumerate() {
        let Some(mode) = sub.get("mode").and_then(Value::as_str) else {
            continue;
        };
        let Some(events) = sub.get("events").and_then(Value::as_array) else {
            continue;
        };
        for (k, event) in events.iter().enumerate() {
            let Some(event) = event.as_str() else {
                continue;
            };
            match seen.get(&(event, mode)) {
                Some(first) if *first != j => out.push(Finding::new(
                    Rule::DuplicateSubscription,
                    format!("/hooks/{i}/subscriptions/{j}/events/{k}"),
                    format!(
                        "this backend already subscribes to {event:?} in mode {mode:?} at \
                         /hooks/{i}/subscriptions/{first}"
                    ),
                )),
                Some(_) => {}
                None => {
                    seen.insert((event, mode), j);
                }
            }
        }
    }
    out
}

/// The parts of an http(s) URL the rules need.
struct UrlParts<'a> {
    scheme: &'a str,
    userinfo: Option<&'a str>,
    host: &'a str,
}

/// Split `scheme://[userinfo@]host[:port][/...]` (RFC 3986 authority).
/// `None` when the text has no `://`.
fn url_parts(url: &str) -> Option<UrlParts<'_>> {
    let (scheme, rest) = url.split_once("://")?;
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let (userinfo, hostport) = match authority.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, authority),
    };
    let host = if let Some(v6) = hostport.strip_prefix('[') {
        v6.split_once(']').map_or(v6, |(h, _)| h)
    } else {
        hostport.split_once(':').map_or(hostport, |(h, _)| h)
    };
    Some(UrlParts {
        scheme,
        userinfo,
        host,
    })
}

/// Whether `host` is a loopback name or address: `localhost` and its
/// subdomains (RFC 6761), 127.0.0.0/8, ::1 (and ::ffff:127.x).
fn is_loopback(host: &str) -> bool {
    let lower = host.to_ascii_lowercase();
    let lower = lower.trim_end_matches('.');
    if lower == "localhost" || lower.ends_with(".localhost") {
        return true;
    }
    if let Ok(v4) = lower.parse::<Ipv4Addr>() {
        return v4.is_loopback();
    }
    if let Ok(v6) = lower.parse::<Ipv6Addr>() {
        return v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback());
    }
    false
}

fn url_rules(pointer: &str, url: &str, local_http_hosts: &[String]) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(parts) = url_parts(url) else {
        // Not `scheme://...`: the schema's pattern already reports it.
        return out;
    };
    if parts.host.is_empty() {
        out.push(Finding::new(
            Rule::AbsoluteUrl,
            pointer,
            "the endpoint URL has no host",
        ));
    }
    // Spec 18.3: the literal token must not appear in the document; a
    // password in the URL's userinfo is one.
    if parts.userinfo.is_some_and(|u| u.contains(':')) {
        out.push(Finding::new(
            Rule::NoLiteralCredential,
            pointer,
            "the endpoint URL carries a password in its userinfo; use bearer authentication \
             with \"tokenEnv\" instead",
        ));
    }
    let local = local_http_hosts
        .iter()
        .any(|h| h.eq_ignore_ascii_case(parts.host));
    if parts.scheme.eq_ignore_ascii_case("http")
        && !parts.host.is_empty()
        && !is_loopback(parts.host)
        && !local
    {
        out.push(Finding::new(
            Rule::HttpsForRemote,
            pointer,
            format!(
                "plain http to the non-loopback host {:?}: remote endpoints must use https \
                 (plain http only for loopback or an explicitly controlled local development \
                 host)",
                parts.host
            ),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn loopback_hosts() {
        for h in [
            "localhost",
            "LOCALHOST",
            "a.localhost",
            "127.0.0.1",
            "127.9.9.9",
            "::1",
            "::ffff:127.0.0.1",
        ] {
            assert!(is_loopback(h), "{h}");
        }
        for h in [
            "example.com",
            "10.0.0.1",
            "::2",
            "localhost.example.com",
            "128.0.0.1",
        ] {
            assert!(!is_loopback(h), "{h}");
        }
    }

    #[test]
    fn url_parts_find_the_host_behind_userinfo_and_port() {
        let p = url_parts("http://u:p@[::1]:8080/x").unwrap();
        assert_eq!((p.scheme, p.userinfo, p.host), ("http", Some("u:p"), "::1"));
        let p = url_parts("https://h.example:1/a@b").unwrap();
        assert_eq!((p.userinfo, p.host), (None, "h.example"));
    }

    #[test]
    fn classify_by_members() {
        assert_eq!(
            classify(&json!({"method": "hooks/intercept"})),
            MessageKind::InterceptRequest
        );
        assert_eq!(
            classify(&json!({"method": "hooks/observe"})),
            MessageKind::ObserveNotification
        );
        assert_eq!(
            classify(&json!({"result": {}})),
            MessageKind::InterceptResponse
        );
        assert_eq!(
            classify(&json!({"result": {}, "error": {}})),
            MessageKind::ErrorResponse
        );
        assert_eq!(classify(&json!({"method": "x"})), MessageKind::Unknown);
        assert_eq!(classify(&json!([])), MessageKind::Unknown);
    }

    #[test]
    fn a_finding_renders_file_pointer_message_and_rule() {
        let f = Finding::new(
            Rule::WireVersion,
            "/params/protocolVersion",
            "\"0.1\" was expected",
        );
        assert_eq!(
            f.render("a.json"),
            "a.json at /params/protocolVersion: \"0.1\" was expected (ahp.version.exact, AHP-VER-001, §7.2)"
        );
        let root = Finding::new(Rule::StdioTerminator, "", "x");
        assert_eq!(
            root.to_string(),
            "(root): x (ahp.stdio.lf-terminator, AHP-STDIO-001, §17.1)"
        );
    }
}

//! Other readings of the reference harness (issue 26): `ctk-ahp-harness
//! --freedoms all|none|ID,...` takes, at the places the AHP text leaves open
//! (`spec/ahp/0.1/freedoms.json`, role `harness`; on the draft line also
//! `spec/ahp/draft/freedoms.json`, less the 0.1 entries it supersedes), the
//! choice it does not take by default, so that the suite can show that a
//! harness taking it still passes every gating vector.
//!
//! Two kinds of choice live here. What the harness *writes* is rewritten at
//! the edge: [`Freedoms::dress`] adds or leaves out optional members of each
//! request and notification, [`Freedoms::stdio_frame`] and
//! [`Freedoms::http_body`] respell the bytes, and the HTTP and stdio links
//! ask [`edge`] how to frame them. What the harness *does* is a behavioural
//! reading ([`crate::readings`]), set once by [`install`] and asked by the
//! normative code through small calls. A catalog id this harness does not
//! take is refused by name, never ignored.

use std::collections::BTreeSet;
use std::io::{self, Write};
use std::sync::OnceLock;
use std::time::Duration;

use ctk_ahp_wire::version::{AhpLine, DRAFT_WIRE_VERSION};
use serde_json::ser::{Formatter, PrettyFormatter};
use serde_json::{json, Map, Number, Value};

use crate::readings::Readings;

/// The catalog the ids come from, compiled in so that an id it does not
/// know is refused with the list it does.
const CATALOG: &str = include_str!("../../../spec/ahp/0.1/freedoms.json");
/// The draft line's own catalog (its entries add to or replace 0.1's).
const DRAFT_CATALOG: &str = include_str!("../../../spec/ahp/draft/freedoms.json");

/// The extension effect advertised under
/// [`Freedom::CapabilitiesExtensionEffects`]; the harness enforces it as a
/// no-op.
pub const NOOP_EFFECT: &str = "dev.agent-hooks-ctk.freedom.noop";

/// The member [`Freedom::RequestUnknownMembers`] adds.
pub const UNKNOWN_MEMBER: &str = "x-ctk-freedom";

/// A harness freedom of the catalog the reference harness can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Freedom {
    /// Every object's members in reverse order.
    JsonMemberOrder,
    /// A space after every `:` and `,` and inside brackets.
    JsonInsignificantWhitespace,
    /// HTTP bodies pretty-printed, two-space indent, final newline.
    HttpBodyLayout,
    /// Every stdio frame ended by CR LF.
    StdioCarriageReturn,
    /// An empty line after every stdio frame.
    StdioBlankLines,
    /// Integral numbers written with a fraction (`3.0`).
    JsonNumberSpelling,
    /// Every non-ASCII character and `/` written as an escape.
    JsonStringEscapes,
    /// `application/json; charset=utf-8` on every request.
    HttpContentTypeParameters,
    /// Chunked bodies, `Connection: close`, cased header names, an extra
    /// header.
    HttpMessageFraming,
    /// `bearer <token>`.
    BearerSchemeCase,
    /// Every stdio frame written in three pieces a few milliseconds apart.
    StdioWriteChunking,
    /// An extra `x-ctk-freedom` member in every object AHP defines.
    RequestUnknownMembers,
    /// `session` with `cwd`, `workspaceRoots`, `model` and `agent`.
    SessionOptionalMembers,
    /// `params.extensions` and a trace-context `event.extensions`.
    EventExtensions,
    /// `tool.mcp` on every tool event of kind `mcp`.
    ToolMcp,
    /// `native` left out even when a subscription enables it.
    NativeWhenEnabled,
    /// No `output` on `tool.after`.
    ToolAfterOutput,
    /// No `input` on `tool.after` and `tool.error`.
    ObservationInput,
    /// `error.code` and `error.category` on `tool.error`.
    ToolErrorMembers,
    /// `outcome: "completed"` on `session.end`.
    SessionEndOutcome,
    /// An extension effect advertised besides `deny`, enforced as a no-op.
    CapabilitiesExtensionEffects,
    /// Other reasons for a denial reported to the agent.
    HarnessReasonWording,
    /// A UUIDv4 per event.
    EventIdFormat,
    /// UUIDv4 session and call ids.
    SessionAndCallIdFormat,
    /// `source` `urn:uuid:<fixed per installation>`.
    SourceUri,
    /// `time` with `+00:00` and whole seconds.
    EventTimeSpelling,
    /// `other` for every tool kind.
    ToolKindClassification,
    /// `tool.before` observers notified after the chain settles.
    ObserverDispatchOrder,
    /// The host's prompt (answered yes) before interception.
    PromptBeforeInterception,
    /// Expiry acted on up to `timeoutMs` late.
    DeadlineEnforcementTiming,
    /// One immediate retry after a non-deadline failure.
    RetryWithinDeadline,
    /// One retry of a failed notification.
    NotificationRetry,
    /// Persistent backends started at load.
    PersistentBackendLaunch,
    /// The intercepts of parallel tool calls written to one persistent
    /// backend without waiting for each other's replies; replies matched by
    /// id.
    PersistentOutstandingLimit,
    /// Only `tool.before` observations emitted.
    LifecycleEventsEmitted,
    /// Every reply line of another id skipped until the deadline.
    UnmatchedReplyLine,
    /// Lines that are not JSON-RPC skipped until the deadline.
    BannerLineHandling,
    /// A per-event deny followed by a nonzero exit is a failure too (the
    /// literal reading of 17.3).
    PerEventExitAfterReply,
    /// A whitespace-only deny reason is a malformed effect.
    WhitespaceOnlyReason,
    /// Observe subscriptions sharing some events load.
    OverlappingObserveSubscriptions,
    /// Plain http to a remote host accepted.
    PlainHttpRemote,
    /// `timeoutMs` outside 100 to 30,000 refused at load.
    TimeoutRange,
    /// A reply of another media type parsed anyway.
    ContentTypeStrictness,
    /// Only faulty backend entries refused.
    RegistrationRefusalScope,
    /// An unset `tokenEnv` refuses the document at load.
    UnsetTokenEnv,
    /// A backend never ended for malformed output.
    MalformedOutputTermination,
    /// A relative command resolved against the backend's directory.
    CommandLookup,
    /// Backends inherit the harness's whole environment.
    BackendEnvironment,
    /// Draft: an extra `x-ctk-freedom` member inside the closed `tool`.
    ClosedObjectMembers,
    /// Draft: `tool.kind` left out.
    ToolKindOptional,
    /// Draft: no `session` on tool events.
    SessionEventSpecific,
    /// Draft: no `hooks/observe` to the interceptors a short-circuit left
    /// uncalled.
    UncalledInterceptorObservation,
    /// Draft: observers notified after the chain settles, in reverse
    /// registration order.
    ObservationOrder,
    /// Draft: the HTTP client built on first use, inside the first call's
    /// deadline.
    DeadlineScope,
    /// Draft: an extension effect advertised besides `deny` on
    /// `tool.before`, enforced as a no-op.
    ExtensionEffectsToolBefore,
}

impl Freedom {
    /// Every freedom the reference harness takes on the 0.1 line, in
    /// catalog order.
    pub const ALL: [Freedom; 48] = [
        Freedom::JsonMemberOrder,
        Freedom::JsonInsignificantWhitespace,
        Freedom::HttpBodyLayout,
        Freedom::StdioCarriageReturn,
        Freedom::StdioBlankLines,
        Freedom::JsonNumberSpelling,
        Freedom::JsonStringEscapes,
        Freedom::HttpContentTypeParameters,
        Freedom::HttpMessageFraming,
        Freedom::BearerSchemeCase,
        Freedom::StdioWriteChunking,
        Freedom::RequestUnknownMembers,
        Freedom::SessionOptionalMembers,
        Freedom::EventExtensions,
        Freedom::ToolMcp,
        Freedom::NativeWhenEnabled,
        Freedom::ToolAfterOutput,
        Freedom::ObservationInput,
        Freedom::ToolErrorMembers,
        Freedom::SessionEndOutcome,
        Freedom::CapabilitiesExtensionEffects,
        Freedom::HarnessReasonWording,
        Freedom::EventIdFormat,
        Freedom::SessionAndCallIdFormat,
        Freedom::SourceUri,
        Freedom::EventTimeSpelling,
        Freedom::ToolKindClassification,
        Freedom::ObserverDispatchOrder,
        Freedom::PromptBeforeInterception,
        Freedom::DeadlineEnforcementTiming,
        Freedom::RetryWithinDeadline,
        Freedom::NotificationRetry,
        Freedom::PersistentBackendLaunch,
        Freedom::PersistentOutstandingLimit,
        Freedom::LifecycleEventsEmitted,
        Freedom::UnmatchedReplyLine,
        Freedom::BannerLineHandling,
        Freedom::PerEventExitAfterReply,
        Freedom::WhitespaceOnlyReason,
        Freedom::OverlappingObserveSubscriptions,
        Freedom::PlainHttpRemote,
        Freedom::TimeoutRange,
        Freedom::ContentTypeStrictness,
        Freedom::RegistrationRefusalScope,
        Freedom::UnsetTokenEnv,
        Freedom::MalformedOutputTermination,
        Freedom::CommandLookup,
        Freedom::BackendEnvironment,
    ];

    /// The draft line's own harness freedoms, in catalog order.
    pub const DRAFT_ONLY: [Freedom; 7] = [
        Freedom::ClosedObjectMembers,
        Freedom::ToolKindOptional,
        Freedom::SessionEventSpecific,
        Freedom::UncalledInterceptorObservation,
        Freedom::ObservationOrder,
        Freedom::DeadlineScope,
        Freedom::ExtensionEffectsToolBefore,
    ];

    /// The 0.1 harness freedoms the draft catalog supersedes, or whose
    /// other choice the draft no longer allows (its `description`):
    /// refused on the draft line. `request-unknown-members` stays: the
    /// draft closes only `harness`, `call` and `tool`, where
    /// [`Freedoms::dress`] then adds nothing.
    pub const SUPERSEDED_BY_DRAFT: [Freedom; 7] = [
        Freedom::ToolKindClassification,
        Freedom::ObserverDispatchOrder,
        Freedom::CapabilitiesExtensionEffects,
        Freedom::ToolMcp,
        Freedom::ObservationInput,
        Freedom::ToolAfterOutput,
        Freedom::ToolErrorMembers,
    ];

    /// The freedoms a harness of `line` takes under `all`.
    pub fn of_line(line: AhpLine) -> Vec<Freedom> {
        match line {
            AhpLine::V0_1 => Freedom::ALL.to_vec(),
            AhpLine::Draft => Freedom::ALL
                .into_iter()
                .filter(|f| !Freedom::SUPERSEDED_BY_DRAFT.contains(f))
                .chain(Freedom::DRAFT_ONLY)
                .collect(),
        }
    }

    /// The catalog id.
    pub fn id(self) -> &'static str {
        match self {
            Freedom::JsonMemberOrder => "json-member-order",
            Freedom::JsonInsignificantWhitespace => "json-insignificant-whitespace",
            Freedom::HttpBodyLayout => "http-body-layout",
            Freedom::StdioCarriageReturn => "stdio-carriage-return",
            Freedom::StdioBlankLines => "stdio-blank-lines",
            Freedom::JsonNumberSpelling => "json-number-spelling",
            Freedom::JsonStringEscapes => "json-string-escapes",
            Freedom::HttpContentTypeParameters => "http-content-type-parameters",
            Freedom::HttpMessageFraming => "http-message-framing",
            Freedom::BearerSchemeCase => "bearer-scheme-case",
            Freedom::StdioWriteChunking => "stdio-write-chunking",
            Freedom::RequestUnknownMembers => "request-unknown-members",
            Freedom::SessionOptionalMembers => "session-optional-members",
            Freedom::EventExtensions => "event-extensions",
            Freedom::ToolMcp => "tool-mcp",
            Freedom::NativeWhenEnabled => "native-when-enabled",
            Freedom::ToolAfterOutput => "tool-after-output",
            Freedom::ObservationInput => "observation-input",
            Freedom::ToolErrorMembers => "tool-error-members",
            Freedom::SessionEndOutcome => "session-end-outcome",
            Freedom::CapabilitiesExtensionEffects => "capabilities-extension-effects",
            Freedom::HarnessReasonWording => "harness-reason-wording",
            Freedom::EventIdFormat => "event-id-format",
            Freedom::SessionAndCallIdFormat => "session-and-call-id-format",
            Freedom::SourceUri => "source-uri",
            Freedom::EventTimeSpelling => "event-time-spelling",
            Freedom::ToolKindClassification => "tool-kind-classification",
            Freedom::ObserverDispatchOrder => "observer-dispatch-order",
            Freedom::PromptBeforeInterception => "prompt-before-interception",
            Freedom::DeadlineEnforcementTiming => "deadline-enforcement-timing",
            Freedom::RetryWithinDeadline => "retry-within-deadline",
            Freedom::NotificationRetry => "notification-retry",
            Freedom::PersistentBackendLaunch => "persistent-backend-launch",
            Freedom::PersistentOutstandingLimit => "persistent-outstanding-limit",
            Freedom::LifecycleEventsEmitted => "lifecycle-events-emitted",
            Freedom::UnmatchedReplyLine => "unmatched-reply-line",
            Freedom::BannerLineHandling => "banner-line-handling",
            Freedom::PerEventExitAfterReply => "per-event-exit-after-reply",
            Freedom::WhitespaceOnlyReason => "whitespace-only-reason",
            Freedom::OverlappingObserveSubscriptions => "overlapping-observe-subscriptions",
            Freedom::PlainHttpRemote => "plain-http-remote",
            Freedom::TimeoutRange => "timeout-range",
            Freedom::ContentTypeStrictness => "content-type-strictness",
            Freedom::RegistrationRefusalScope => "registration-refusal-scope",
            Freedom::UnsetTokenEnv => "unset-token-env",
            Freedom::MalformedOutputTermination => "malformed-output-termination",
            Freedom::CommandLookup => "command-lookup",
            Freedom::BackendEnvironment => "backend-environment",
            Freedom::ClosedObjectMembers => "closed-object-members",
            Freedom::ToolKindOptional => "tool-kind-optional",
            Freedom::SessionEventSpecific => "session-event-specific",
            Freedom::UncalledInterceptorObservation => "uncalled-interceptor-observation",
            Freedom::ObservationOrder => "observation-order",
            Freedom::DeadlineScope => "deadline-scope",
            Freedom::ExtensionEffectsToolBefore => "extension-effects-tool-before",
        }
    }
}

/// The harness-role ids of the catalogs of `line`: 0.1's, and on the draft
/// line the draft's own as well (a superseded 0.1 id is still known, so
/// that it is refused by name rather than as unknown).
pub fn catalog_ids(line: AhpLine) -> Vec<String> {
    let mut ids = harness_ids(CATALOG);
    if line == AhpLine::Draft {
        ids.extend(harness_ids(DRAFT_CATALOG));
    }
    ids
}

/// The catalog files of `line`, for messages.
fn catalogs(line: AhpLine) -> &'static str {
    match line {
        AhpLine::V0_1 => "spec/ahp/0.1/freedoms.json",
        AhpLine::Draft => "spec/ahp/0.1/freedoms.json and spec/ahp/draft/freedoms.json",
    }
}

/// The harness-role ids of one catalog's text.
fn harness_ids(catalog: &str) -> Vec<String> {
    let doc: Value = serde_json::from_str(catalog).unwrap_or(Value::Null);
    doc["freedoms"]
        .as_array()
        .map(|fs| {
            fs.iter()
                .filter(|f| {
                    f["roles"]
                        .as_array()
                        .is_some_and(|r| r.iter().any(|x| x == "harness"))
                })
                .filter_map(|f| f["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The freedoms a harness process takes, and the line it serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Freedoms {
    taken: BTreeSet<Freedom>,
    line: AhpLine,
}

impl Default for Freedoms {
    /// None, on the released line.
    fn default() -> Self {
        Freedoms {
            taken: BTreeSet::new(),
            line: AhpLine::V0_1,
        }
    }
}

impl Freedoms {
    /// `all` (every freedom the reference harness takes on `line`),
    /// `none`, or ids separated by commas. An id the catalogs of `line` do
    /// not know (a draft id on 0.1 included), or know but the reference
    /// harness of `line` does not take (not yet, or superseded by the
    /// draft), is an error naming it.
    pub fn parse(text: &str, line: AhpLine) -> Result<Self, String> {
        let takes = Freedom::of_line(line);
        let taken = match text.trim() {
            "all" => takes.iter().copied().collect(),
            "none" | "" => BTreeSet::new(),
            _ => {
                let known = catalog_ids(line);
                let mut set = BTreeSet::new();
                for id in text.split(',').map(str::trim) {
                    match takes.iter().find(|f| f.id() == id) {
                        Some(f) => {
                            set.insert(*f);
                        }
                        None if known.iter().any(|k| k == id) => {
                            let why = if Freedom::SUPERSEDED_BY_DRAFT.iter().any(|f| f.id() == id) {
                                "the draft supersedes it or no longer allows its other choice (spec/ahp/draft/freedoms.json)"
                            } else {
                                "the reference harness does not take it yet"
                            };
                            return Err(format!(
                                "freedom {id:?} is in {} but on the {} line {why}; it takes: {}",
                                catalogs(line),
                                line.wire_version(),
                                takes.iter().map(|f| f.id()).collect::<Vec<_>>().join(", ")
                            ));
                        }
                        None => {
                            let other = match line {
                                AhpLine::V0_1 => harness_ids(DRAFT_CATALOG)
                                    .iter()
                                    .any(|k| k == id)
                                    .then_some(" (a draft freedom: --spec draft takes it)"),
                                AhpLine::Draft => None,
                            };
                            return Err(format!(
                                "unknown freedom {id:?}{}: {} know, for the harness role: {}",
                                other.unwrap_or(""),
                                catalogs(line),
                                known.join(", ")
                            ));
                        }
                    }
                }
                set
            }
        };
        Ok(Self { taken, line })
    }

    /// The line these freedoms were parsed for.
    pub fn line(&self) -> AhpLine {
        self.line
    }

    /// Whether `freedom` is taken.
    pub fn has(&self, freedom: Freedom) -> bool {
        self.taken.contains(&freedom)
    }

    /// Whether none is taken.
    pub fn is_empty(&self) -> bool {
        self.taken.is_empty()
    }

    /// The behavioural readings these freedoms take inside the harness.
    pub fn readings(&self) -> Readings {
        use Freedom as F;
        Readings {
            other_reason_wording: self.has(F::HarnessReasonWording),
            uuid_event_ids: self.has(F::EventIdFormat),
            uuid_session_and_call_ids: self.has(F::SessionAndCallIdFormat),
            installation_source: self.has(F::SourceUri),
            offset_time: self.has(F::EventTimeSpelling),
            kind_other: self.has(F::ToolKindClassification),
            observers_after_chain: self.has(F::ObserverDispatchOrder)
                || self.has(F::ObservationOrder),
            observers_reversed: self.has(F::ObservationOrder),
            no_uncalled_observation: self.has(F::UncalledInterceptorObservation),
            http_client_on_first_use: self.has(F::DeadlineScope),
            prompt_first: self.has(F::PromptBeforeInterception),
            late_expiry: self.has(F::DeadlineEnforcementTiming),
            retry_once: self.has(F::RetryWithinDeadline),
            retry_notifications: self.has(F::NotificationRetry),
            launch_at_load: self.has(F::PersistentBackendLaunch),
            several_outstanding: self.has(F::PersistentOutstandingLimit),
            tool_before_only: self.has(F::LifecycleEventsEmitted),
            skip_unmatched_ids: self.has(F::UnmatchedReplyLine),
            skip_non_protocol_lines: self.has(F::BannerLineHandling),
            exit_fails_deny: self.has(F::PerEventExitAfterReply),
            blank_reason_malformed: self.has(F::WhitespaceOnlyReason),
            overlapping_observers_load: self.has(F::OverlappingObserveSubscriptions),
            plain_http_remote: self.has(F::PlainHttpRemote),
            timeout_range: self.has(F::TimeoutRange),
            any_media_type: self.has(F::ContentTypeStrictness),
            refuse_entries_only: self.has(F::RegistrationRefusalScope),
            token_env_at_load: self.has(F::UnsetTokenEnv),
            never_end_malformed: self.has(F::MalformedOutputTermination),
            command_in_backend_cwd: self.has(F::CommandLookup),
            inherit_environment: self.has(F::BackendEnvironment),
            noop_extension_effect: self.has(F::CapabilitiesExtensionEffects)
                || self.has(F::ExtensionEffectsToolBefore),
        }
    }

    /// Add or leave out the optional members these freedoms ask of `msg`,
    /// a `hooks/intercept` request or `hooks/observe` notification the
    /// harness is about to send. `cwd` is the harness's working directory
    /// (for `session.cwd`).
    pub fn dress(&self, msg: &mut Value, cwd: &str) {
        use Freedom as F;
        let unknown = self.has(F::RequestUnknownMembers);
        let mark = |obj: &mut Map<String, Value>| {
            if unknown {
                obj.insert(UNKNOWN_MEMBER.into(), Value::Bool(true));
            }
        };
        let Some(top) = msg.as_object_mut() else {
            return;
        };
        mark(top);
        let Some(Value::Object(params)) = top.get_mut("params") else {
            return;
        };
        // The draft closes `harness`, `call` and `tool` (its freedoms
        // catalog): request-unknown-members adds nothing there.
        let draft =
            params.get("protocolVersion").and_then(Value::as_str) == Some(DRAFT_WIRE_VERSION);
        mark(params);
        if self.has(F::EventExtensions) {
            params
                .entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()));
        }
        if let Some(Value::Object(caps)) = params.get_mut("capabilities") {
            if self.has(F::CapabilitiesExtensionEffects) || self.has(F::ExtensionEffectsToolBefore)
            {
                if let Some(Value::Array(effects)) = caps.get_mut("effects") {
                    if !effects.iter().any(|e| e == NOOP_EFFECT) {
                        effects.insert(0, Value::String(NOOP_EFFECT.into()));
                    }
                }
            }
            mark(caps);
        }
        if let Some(Value::Object(state)) = params.get_mut("state") {
            mark(state);
        }
        let Some(Value::Object(event)) = params.get_mut("event") else {
            return;
        };
        mark(event);
        let event_type = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        if self.has(F::EventExtensions) {
            let parent = traceparent(event.get("id").and_then(Value::as_str).unwrap_or(""));
            if let Value::Object(ext) = event
                .entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()))
            {
                ext.insert(
                    "org.w3c.trace_context".into(),
                    json!({ "traceparent": parent }),
                );
            }
        }
        if self.has(F::NativeWhenEnabled) {
            event.remove("native");
        }
        if self.has(F::SessionEndOutcome) && event_type == "session.end" {
            event.insert("outcome".into(), Value::String("completed".into()));
        }
        if self.has(F::SessionEventSpecific) && event_type.starts_with("tool.") {
            event.remove("session");
        }
        if let Some(Value::Object(session)) = event.get_mut("session") {
            if self.has(F::SessionOptionalMembers) {
                session.insert("cwd".into(), Value::String(cwd.into()));
                session.insert("workspaceRoots".into(), json!([cwd]));
                session.insert("model".into(), Value::String("ctk-freedom-model".into()));
                session.insert("agent".into(), json!({"id": "main"}));
            }
            mark(session);
        }
        if let Some(Value::Object(outcome)) = event.get_mut("outcome") {
            mark(outcome);
        }
        if let Some(Value::Object(tool)) = event.get_mut("tool") {
            if self.has(F::ToolMcp) && tool.get("kind").and_then(Value::as_str) == Some("mcp") {
                let name = tool.get("name").cloned().unwrap_or(Value::Null);
                tool.insert("mcp".into(), json!({"server": "ctk", "tool": name}));
            }
            if self.has(F::ToolKindOptional) {
                tool.remove("kind");
            }
            if self.has(F::ToolAfterOutput) && event_type == "tool.after" {
                tool.remove("output");
            }
            if self.has(F::ObservationInput)
                && (event_type == "tool.after" || event_type == "tool.error")
            {
                tool.remove("input");
            }
            if let Some(Value::Object(error)) = tool.get_mut("error") {
                if self.has(F::ToolErrorMembers) {
                    error.insert(
                        "code".into(),
                        Value::String("dev.agent-hooks-ctk.tool-failed".into()),
                    );
                    error.insert("category".into(), Value::String("tool".into()));
                }
                mark(error);
            }
            if let Some(Value::Object(mcp)) = tool.get_mut("mcp") {
                mark(mcp);
            }
            if draft {
                if self.has(F::ClosedObjectMembers) {
                    tool.insert(UNKNOWN_MEMBER.into(), Value::Bool(true));
                }
            } else {
                mark(tool);
            }
        }
    }

    /// `msg` as one stdio frame: respelled as these freedoms ask, then the
    /// line end (LF or CR LF) and, when asked, a blank line.
    pub fn stdio_frame(&self, msg: &Value) -> Vec<u8> {
        let mut out = self.spell(msg, false);
        out.extend_from_slice(if self.has(Freedom::StdioCarriageReturn) {
            b"\r\n"
        } else {
            b"\n"
        });
        if self.has(Freedom::StdioBlankLines) {
            out.push(b'\n');
        }
        out
    }

    /// `msg` as an HTTP request body: respelled, and pretty-printed with a
    /// final newline under [`Freedom::HttpBodyLayout`].
    pub fn http_body(&self, msg: &Value) -> Vec<u8> {
        let pretty = self.has(Freedom::HttpBodyLayout);
        let mut out = self.spell(msg, pretty);
        if pretty {
            out.push(b'\n');
        }
        out
    }

    /// The bytes of `msg` with the member order, number spelling, spacing
    /// and escapes these freedoms ask (`pretty`: two-space indentation).
    fn spell(&self, msg: &Value, pretty: bool) -> Vec<u8> {
        let mut value = msg.clone();
        respell(
            &mut value,
            self.has(Freedom::JsonNumberSpelling),
            self.has(Freedom::JsonMemberOrder),
        );
        let mut out = Vec::new();
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            Spelled {
                spaced: self.has(Freedom::JsonInsignificantWhitespace) && !pretty,
                escaped: self.has(Freedom::JsonStringEscapes),
                pretty: pretty.then(PrettyFormatter::new),
                filled: Vec::new(),
            },
        );
        match serde::Serialize::serialize(&value, &mut ser) {
            Ok(()) => out,
            // A Value always serializes; fall back to the plain form anyway.
            Err(_) => serde_json::to_vec(msg).unwrap_or_default(),
        }
    }

    /// The pieces one stdio frame is written in: three under
    /// [`Freedom::StdioWriteChunking`], else one.
    pub fn pieces(&self, frame: Vec<u8>) -> Vec<Vec<u8>> {
        if !self.has(Freedom::StdioWriteChunking) || frame.len() < 3 {
            return vec![frame];
        }
        let third = frame.len() / 3;
        vec![
            frame[..third].to_vec(),
            frame[third..2 * third].to_vec(),
            frame[2 * third..].to_vec(),
        ]
    }

    /// The pause between two pieces of a chunked frame.
    pub fn piece_gap(&self) -> Duration {
        Duration::from_millis(3)
    }

    /// The `Content-Type` of every request body.
    pub fn content_type(&self) -> &'static str {
        if self.has(Freedom::HttpContentTypeParameters) {
            "application/json; charset=utf-8"
        } else {
            "application/json"
        }
    }

    /// The `Authorization` value for `token`.
    pub fn authorization(&self, token: &str) -> String {
        if self.has(Freedom::BearerSchemeCase) {
            format!("bearer {token}")
        } else {
            format!("Bearer {token}")
        }
    }

    /// Whether HTTP requests are framed the other way (chunked body,
    /// `Connection: close`, Title-Case header names, an extra header).
    pub fn other_http_framing(&self) -> bool {
        self.has(Freedom::HttpMessageFraming)
    }
}

/// A W3C `traceparent` derived from an event id (correlation only; the
/// value is opaque to AHP, spec 9.5).
fn traceparent(event_id: &str) -> String {
    let a = crate::readings::hash64(&(event_id, 1u8));
    let b = crate::readings::hash64(&(event_id, 2u8));
    let c = crate::readings::hash64(&(event_id, 3u8));
    format!("00-{a:016x}{b:016x}-{:016x}-01", c | 1)
}

/// The largest integer a double holds exactly.
const EXACT: u64 = (1 << 53) - 1;

fn respell(value: &mut Value, numbers: bool, order: bool) {
    match value {
        Value::Number(n) if numbers => {
            let exact = n
                .as_u64()
                .filter(|u| *u <= EXACT)
                .map(|u| u as f64)
                .or_else(|| {
                    n.as_i64()
                        .filter(|i| i.unsigned_abs() <= EXACT)
                        .map(|i| i as f64)
                });
            if let Some(f) = exact.and_then(Number::from_f64) {
                *n = f;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| respell(v, numbers, order)),
        Value::Object(map) => {
            map.values_mut().for_each(|v| respell(v, numbers, order));
            if order {
                let members = std::mem::take(map);
                *map = members.into_iter().rev().collect();
            }
        }
        _ => {}
    }
}

/// serde_json's compact form with the spacing, escaping and layout the
/// freedoms ask.
struct Spelled {
    spaced: bool,
    escaped: bool,
    pretty: Option<PrettyFormatter<'static>>,
    /// For each open array or object: whether it has a member yet, so an
    /// empty one stays `[]` / `{}` under the spaced form.
    filled: Vec<bool>,
}

impl Spelled {
    fn separator<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if let Some(top) = self.filled.last_mut() {
            *top = true;
        }
        match (first, self.spaced) {
            (true, true) => w.write_all(b" "),
            (true, false) => Ok(()),
            (false, true) => w.write_all(b", "),
            (false, false) => w.write_all(b","),
        }
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> io::Result<()> {
        if self.filled.pop().unwrap_or(false) && self.spaced {
            w.write_all(b" ")?;
        }
        w.write_all(bracket)
    }
}

impl Formatter for Spelled {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.begin_array(w),
            None => {
                self.filled.push(false);
                w.write_all(b"[")
            }
        }
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.end_array(w),
            None => self.close(w, b"]"),
        }
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.begin_array_value(w, first),
            None => self.separator(w, first),
        }
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.end_array_value(w),
            None => Ok(()),
        }
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.begin_object(w),
            None => {
                self.filled.push(false);
                w.write_all(b"{")
            }
        }
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.end_object(w),
            None => self.close(w, b"}"),
        }
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.begin_object_key(w, first),
            None => self.separator(w, first),
        }
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.begin_object_value(w),
            None => w.write_all(if self.spaced { b": " } else { b":" }),
        }
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        match &mut self.pretty {
            Some(p) => p.end_object_value(w),
            None => Ok(()),
        }
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        if !self.escaped {
            return w.write_all(fragment.as_bytes());
        }
        for c in fragment.chars() {
            if c == '/' {
                w.write_all(b"\\/")?;
            } else if c.is_ascii() {
                w.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(w, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
}

static EDGE: OnceLock<Freedoms> = OnceLock::new();

/// Take `freedoms` for the rest of the process: the edge rewrites and the
/// behavioural readings ([`crate::readings::set`]). Only the first call
/// counts (a process serves one set); the binary makes it before it
/// serves, so every other use of the crate keeps the reference choices.
/// Returns whether this call set them.
pub fn install(freedoms: Freedoms) -> bool {
    let readings = freedoms.readings();
    EDGE.set(freedoms).is_ok() && crate::readings::set(readings)
}

/// The freedoms in force at the edge (none unless [`install`]ed).
pub fn edge() -> &'static Freedoms {
    static NONE: OnceLock<Freedoms> = OnceLock::new();
    EDGE.get()
        .unwrap_or_else(|| NONE.get_or_init(Freedoms::default))
}

#[cfg(test)]
mod tests {
    use super::*;

    const V01: AhpLine = AhpLine::V0_1;

    fn all() -> Freedoms {
        Freedoms::parse("all", V01).expect("all")
    }

    fn request() -> Value {
        json!({"jsonrpc": "2.0", "id": "e1", "method": "hooks/intercept", "params": {
            "protocolVersion": "0.1",
            "event": {"id": "e1", "source": "urn:x", "type": "tool.before", "time": "t",
                      "session": {"id": "s"},
                      "tool": {"callId": "c", "name": "n/é", "kind": "mcp", "input": {"n": 3}},
                      "native": {"provider": "p"}},
            "capabilities": {"effects": ["deny"]}}})
    }

    #[test]
    fn ids_are_the_catalogs_and_unknown_ones_are_named() {
        let known = catalog_ids(V01);
        for f in Freedom::ALL {
            assert!(known.iter().any(|k| k == f.id()), "{}", f.id());
        }
        let e = Freedoms::parse("json-member-order,nope", V01).unwrap_err();
        assert!(
            e.contains("unknown freedom \"nope\"") && e.contains("backend-environment"),
            "{e}"
        );
        // Taken alone, and by `all`, as a behavioural reading.
        let limit = Freedoms::parse("persistent-outstanding-limit", V01).unwrap();
        assert!(limit.has(Freedom::PersistentOutstandingLimit));
        assert!(limit.readings().several_outstanding);
        assert!(all().readings().several_outstanding);
        // A backend-only id is not a harness freedom.
        assert!(Freedoms::parse("decision-policy", V01)
            .unwrap_err()
            .contains("unknown freedom"));
        assert!(Freedoms::parse("none", V01).unwrap().is_empty());
        assert!(Freedoms::parse("tool-mcp, timeout-range", V01)
            .unwrap()
            .has(Freedom::TimeoutRange));
        assert!(all().readings().retry_once);
        assert_eq!(Freedoms::default().readings(), Readings::default());
    }

    #[test]
    fn each_line_takes_its_own_ids() {
        let draft = AhpLine::Draft;
        let known = catalog_ids(draft);
        for f in Freedom::of_line(draft) {
            assert!(known.iter().any(|k| k == f.id()), "{}", f.id());
        }
        let all = Freedoms::parse("all", draft).unwrap();
        assert_eq!(all.line(), draft);
        for f in Freedom::DRAFT_ONLY {
            assert!(all.has(f), "{}", f.id());
            // A draft id on 0.1 is unknown there, and says where it lives.
            let e = Freedoms::parse(f.id(), V01).unwrap_err();
            assert!(
                e.contains("unknown freedom") && e.contains("--spec draft takes it"),
                "{e}"
            );
        }
        for f in Freedom::SUPERSEDED_BY_DRAFT {
            assert!(!all.has(f), "{}", f.id());
            let e = Freedoms::parse(f.id(), draft).unwrap_err();
            assert!(e.contains(f.id()) && e.contains("supersedes"), "{e}");
        }
        assert!(all.has(Freedom::RequestUnknownMembers) && all.has(Freedom::RetryWithinDeadline));
        assert_eq!(Freedom::of_line(draft).len(), 48);
        assert!(all.has(Freedom::PersistentOutstandingLimit));
        assert!(
            Freedoms::parse("persistent-outstanding-limit", draft)
                .unwrap()
                .readings()
                .several_outstanding
        );
        let r = all.readings();
        assert!(r.observers_after_chain && r.observers_reversed);
        assert!(r.no_uncalled_observation && r.http_client_on_first_use);
        assert!(r.noop_extension_effect && !r.kind_other);
    }

    #[test]
    fn dress_of_a_draft_request() {
        let input = Map::new();
        let request = || {
            crate::draft::intercept_request(crate::draft::event(&crate::draft::EventParts {
                id: "e1",
                source: "urn:x",
                event_type: "tool.before",
                time: "t",
                session_id: "s",
                tool: Some(("c", "Bash", "shell", &input)),
            }))
        };
        let mut r = request();
        Freedoms::parse("all", AhpLine::Draft)
            .unwrap()
            .dress(&mut r, "/w");
        let e = &r["params"]["event"];
        // Closed objects: request-unknown-members adds nothing inside
        // harness and call, and only closed-object-members inside tool.
        assert!(e["harness"].get(UNKNOWN_MEMBER).is_none(), "{r}");
        assert!(e["call"].get(UNKNOWN_MEMBER).is_none(), "{r}");
        assert_eq!(e["tool"][UNKNOWN_MEMBER], true, "{r}");
        assert_eq!(e[UNKNOWN_MEMBER], true, "{r}");
        assert_eq!(r["params"]["state"][UNKNOWN_MEMBER], true, "{r}");
        assert!(e["tool"].get("kind").is_none(), "{r}");
        assert!(e["tool"].get("mcp").is_none(), "{r}");
        assert!(e.get("session").is_none(), "{r}");
        assert_eq!(
            r["params"]["capabilities"]["effects"],
            json!([NOOP_EFFECT, "deny"])
        );
        // One at a time.
        let mut only = request();
        Freedoms::parse("closed-object-members", AhpLine::Draft)
            .unwrap()
            .dress(&mut only, "/w");
        let mut want = request();
        want["params"]["event"]["tool"][UNKNOWN_MEMBER] = Value::Bool(true);
        assert_eq!(only, want);
        let mut untouched = request();
        Freedoms::parse("none", AhpLine::Draft)
            .unwrap()
            .dress(&mut untouched, "/w");
        assert_eq!(untouched, request());
    }

    #[test]
    fn dress_adds_and_leaves_out_the_optional_members() {
        let mut r = request();
        all().dress(&mut r, "/w");
        let e = &r["params"]["event"];
        assert_eq!(r[UNKNOWN_MEMBER], true);
        assert_eq!(r["params"][UNKNOWN_MEMBER], true);
        assert_eq!(
            r["params"]["capabilities"]["effects"],
            json!([NOOP_EFFECT, "deny"])
        );
        assert_eq!(r["params"]["extensions"], json!({}));
        assert!(e["extensions"]["org.w3c.trace_context"]["traceparent"]
            .as_str()
            .is_some_and(|t| t.len() == 55 && t.starts_with("00-")));
        assert_eq!(e["session"]["workspaceRoots"], json!(["/w"]));
        assert_eq!(e["session"]["agent"], json!({"id": "main"}));
        assert_eq!(e["tool"]["mcp"]["tool"], "n/é");
        assert_eq!(e["tool"][UNKNOWN_MEMBER], true);
        // The tool's own data is not an AHP object: never touched.
        assert_eq!(e["tool"]["input"], json!({"n": 3}));
        assert!(e.get("native").is_none());
        let mut untouched = request();
        Freedoms::default().dress(&mut untouched, "/w");
        assert_eq!(untouched, request());
    }

    #[test]
    fn dress_of_observations() {
        let mut after = json!({"jsonrpc": "2.0", "method": "hooks/observe", "params": {
            "protocolVersion": "0.1", "event": {"id": "e2", "type": "tool.after",
            "tool": {"callId": "c", "name": "n", "kind": "shell", "input": {}, "output": {"status": "ok"}}}}});
        let f = Freedoms::parse("tool-after-output,observation-input", V01).unwrap();
        f.dress(&mut after, "/");
        assert_eq!(
            after["params"]["event"]["tool"],
            json!({"callId": "c", "name": "n", "kind": "shell"})
        );
        let mut end = json!({"jsonrpc": "2.0", "method": "hooks/observe", "params": {
            "protocolVersion": "0.1", "event": {"id": "e3", "type": "session.end"}}});
        Freedoms::parse("session-end-outcome", V01)
            .unwrap()
            .dress(&mut end, "/");
        assert_eq!(end["params"]["event"]["outcome"], "completed");
        let mut error = json!({"params": {"event": {"type": "tool.error",
            "tool": {"input": {}, "error": {"message": "m"}}}}});
        Freedoms::parse("tool-error-members", V01)
            .unwrap()
            .dress(&mut error, "/");
        assert_eq!(
            error["params"]["event"]["tool"]["error"]["category"],
            "tool"
        );
    }

    #[test]
    fn frames_are_respelled_and_keep_their_value() {
        let r = request();
        let f = Freedoms::parse(
            "json-member-order,json-insignificant-whitespace,json-number-spelling,json-string-escapes,stdio-carriage-return,stdio-blank-lines", V01)
        .unwrap();
        let frame = String::from_utf8(f.stdio_frame(&r)).unwrap();
        assert!(frame.ends_with(" }\r\n\n"), "{frame:?}");
        assert!(
            frame.starts_with("{ \"params\": { \"capabilities\": { \"effects\": [ \"deny\" ] }"),
            "{frame}"
        );
        assert!(
            frame.contains("\"n\": 3.0") && frame.contains("n\\/\\u00e9"),
            "{frame}"
        );
        let back: Value = serde_json::from_str(frame.trim_end()).unwrap();
        assert_eq!(back["params"]["event"]["tool"]["name"], "n/é");
        assert_eq!(back["params"]["event"]["tool"]["input"]["n"], 3.0);
        assert_eq!(Freedoms::default().stdio_frame(&r), {
            let mut v = serde_json::to_vec(&r).unwrap();
            v.push(b'\n');
            v
        });
        let empty = f.stdio_frame(&json!({"a": {}, "b": []}));
        assert_eq!(empty, b"{ \"b\": [], \"a\": {} }\r\n\n");
    }

    #[test]
    fn http_bodies_and_headers() {
        let f = Freedoms::parse(
            "http-body-layout,json-string-escapes,http-content-type-parameters,bearer-scheme-case",
            V01,
        )
        .unwrap();
        let body = String::from_utf8(f.http_body(&json!({"a": "é", "b": [1]}))).unwrap();
        assert_eq!(
            body,
            "{\n  \"a\": \"\\u00e9\",\n  \"b\": [\n    1\n  ]\n}\n"
        );
        assert_eq!(f.content_type(), "application/json; charset=utf-8");
        assert_eq!(f.authorization("t"), "bearer t");
        let plain = Freedoms::default();
        assert_eq!(plain.http_body(&json!({"a": 1})), b"{\"a\":1}");
        assert_eq!(plain.authorization("t"), "Bearer t");
        assert_eq!(plain.content_type(), "application/json");
    }

    #[test]
    fn chunked_frames_are_three_pieces_that_join_to_the_frame() {
        let f = Freedoms::parse("stdio-write-chunking", V01).unwrap();
        let pieces = f.pieces(b"{\"a\":1}\n".to_vec());
        assert_eq!(pieces.len(), 3);
        assert_eq!(pieces.concat(), b"{\"a\":1}\n");
        assert_eq!(Freedoms::default().pieces(b"x\n".to_vec()).len(), 1);
    }
}

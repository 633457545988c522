//! The harness itself: a loaded registration, the interceptor chain run for
//! each tool call, and observer delivery.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use ctk_ahp_wire::registration::{
    self, Backend, FailurePolicy, Lifecycle, LoadOptions, Registration, Subscription, Transport,
};
use ctk_ahp_wire::version::AhpLine;
use ctk_ahp_wire::wire::{
    Capabilities, Event, EventType, InterceptRequest, ObserveNotification, Session, Tool, ToolKind,
};
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use crate::classify::{Decision, Failure, Sent};
use crate::draft::{self, EventParts};
use crate::freedoms::edge;
use crate::process::Launch;
use crate::readings;
use crate::stdio::{self, Persistent};
use crate::{http, SYNTHETIC_REASON};

/// The stable, non-secret URI naming this harness (spec 9.1 `source`).
pub const SOURCE: &str = "urn:dev.agent-hooks-ctk:ahp-harness";
/// The provider name used in `native` when a subscription asks for it.
pub const NATIVE_PROVIDER: &str = "ctk-ahp-harness";

pub use crate::loading::Refusal;

pub use ctk_ahp_adapter::messages::{HostPermission, Outcome, ToolCall};

/// How the harness reaches one backend.
#[derive(Debug)]
enum Link {
    Persistent(Arc<Persistent>),
    PerEvent(Launch),
    Http {
        url: String,
        token_env: Option<String>,
    },
}

/// A loaded registration and the live state of its backends.
#[derive(Debug)]
struct Loaded {
    registration: Registration,
    links: Vec<Arc<Link>>,
    env: BTreeMap<String, String>,
    session_id: String,
    /// The harness's working directory (the load `cwd`, else its own), for
    /// `session.cwd` when that optional member is sent.
    cwd: String,
}

/// The reference AHP harness.
#[derive(Debug)]
pub struct Harness {
    line: AhpLine,
    loaded: Option<Loaded>,
    client: OnceLock<reqwest::Client>,
    seq: AtomicU64,
    instance: String,
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

impl Harness {
    /// A harness of the released line (wire `"0.1"`) with no registration
    /// loaded.
    pub fn new() -> Harness {
        Harness::with_line(AhpLine::V0_1)
    }

    /// A harness of `line` with no registration loaded:
    /// [`AhpLine::V0_1`] (what [`Harness::new`] builds) or
    /// [`AhpLine::Draft`], the upstream mutable draft
    /// ([`crate::draft`]). It loads only registrations of its own line.
    pub fn with_line(line: AhpLine) -> Harness {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Harness {
            line,
            loaded: None,
            client: OnceLock::new(),
            seq: AtomicU64::new(1),
            instance: format!("{:x}-{:x}", std::process::id(), nanos),
        }
    }

    /// The protocol line this harness speaks.
    pub fn line(&self) -> AhpLine {
        self.line
    }

    /// A fresh id, unique across every event this harness produces (spec
    /// 9.1; decision D-15).
    fn fresh(&self, prefix: &str) -> String {
        readings::fresh_id(prefix, || {
            let n = self.seq.fetch_add(1, Ordering::Relaxed);
            format!("{prefix}-{}-{n}", self.instance)
        })
    }

    /// Validate `document` with the kit's loader (every 0.1 rule, plain
    /// http only on loopback) and make it the harness's configuration. The
    /// whole document is refused on any finding (decision D-21). `env`
    /// holds the `tokenEnv` variables (also given to stdio backends), `cwd`
    /// the harness's working directory (the default for backends and the
    /// base of a relative backend `cwd`).
    pub async fn load(
        &mut self,
        document: &[u8],
        env: BTreeMap<String, String>,
        cwd: Option<PathBuf>,
    ) -> Result<(), Vec<Refusal>> {
        self.shutdown().await;
        let released;
        let document = match self.line {
            AhpLine::V0_1 => document,
            AhpLine::Draft => {
                released = draft_document(document)?;
                released.as_slice()
            }
        };
        let registration = match readings::get() {
            r if r.refuse_entries_only
                || r.overlapping_observers_load
                || r.plain_http_remote
                || r.timeout_range
                || r.token_env_at_load =>
            {
                crate::loading::load(document, &env, r)?
            }
            _ => registration::parse(
                document,
                Path::new("harness/load registration"),
                &LoadOptions::default(),
            )
            .map_err(|e| refusals(&e))?,
        };
        // Under the deadline-scope reading the client is built on first
        // use instead, inside that call's deadline.
        if registration
            .hooks
            .iter()
            .any(|b| matches!(b.transport, Transport::Http { .. }))
            && !readings::get().http_client_on_first_use
        {
            self.http_client().map_err(|e| {
                vec![Refusal {
                    pointer: String::new(),
                    reason: format!("cannot build the HTTP client: {e}"),
                }]
            })?;
        }
        let links: Vec<Arc<Link>> = registration
            .hooks
            .iter()
            .map(|b| Arc::new(link(b, &env, cwd.as_deref())))
            .collect();
        if readings::get().launch_at_load {
            for l in &links {
                if let Link::Persistent(p) = &**l {
                    // One that cannot start fails each of its exchanges,
                    // as it would when started at first use.
                    p.start();
                }
            }
        }
        let own_cwd = cwd
            .clone()
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_default();
        self.loaded = Some(Loaded {
            registration,
            links,
            env,
            session_id: self.fresh("session"),
            cwd: own_cwd.to_string_lossy().into_owned(),
        });
        Ok(())
    }

    /// The HTTP client every backend shares, built the first time it is
    /// asked for.
    fn http_client(&self) -> Result<reqwest::Client, reqwest::Error> {
        if let Some(c) = self.client.get() {
            return Ok(c.clone());
        }
        let built = http::client()?;
        Ok(self.client.get_or_init(|| built).clone())
    }

    /// Whether a registration is loaded.
    pub fn is_loaded(&self) -> bool {
        self.loaded.is_some()
    }

    /// Perform one tool call: `tool.before` through every intercept
    /// subscription in registration order (serially, spec 13.1), observers
    /// notified without waiting, then the outcome.
    pub async fn tool_call(&self, call: ToolCall) -> Option<Outcome> {
        let loaded = self.loaded.as_ref()?;
        if self.line == AhpLine::Draft {
            return Some(self.tool_call_draft(loaded, call).await);
        }
        let call_id = call.call_id.clone().unwrap_or_else(|| self.fresh("call"));
        let reading = readings::get();
        let kind = if reading.kind_other {
            ToolKind::Other
        } else {
            call.kind.clone()
        };
        let native_payload = json!({
            "name": call.name, "kind": kind.as_str(), "input": call.input, "callId": call_id,
        });
        let before = self.event(
            loaded,
            EventType::ToolBefore,
            Some(Tool {
                call_id: call_id.clone(),
                name: call.name.clone(),
                kind: kind.clone(),
                input: Some(call.input.clone()),
                output: None,
                error: None,
                mcp: None,
                unknown: Map::new(),
            }),
        );
        if !reading.observers_after_chain {
            self.observe(loaded, &before, &native_payload);
        }
        prompt_first(&call);
        let mut outcome = None;
        for link in chain(&loaded.registration) {
            let mut request = serde_json::to_value(InterceptRequest::new(
                before.clone(),
                Capabilities::deny_only(),
            ))
            .expect("a request serializes");
            if link.include_native {
                request["params"]["event"]["native"] = native(&native_payload, "tool.before");
            }
            let result = self
                .intercept_within(loaded, &loaded.links[link.index], request, link.timeout_ms)
                .await;
            outcome = settle(&link.backend.id, result, link.failure_policy);
            if outcome.is_some() {
                break;
            }
        }
        if reading.observers_after_chain {
            self.observe(loaded, &before, &native_payload);
        }
        if let Some(denied) = outcome {
            // No tool.error: nothing was attempted (spec 10.3, D-30).
            return Some(denied);
        }
        if call.host_permission == HostPermission::Prompt {
            return Some(Outcome::Prompted);
        }
        // The probe tool "runs" here: it has no side effect of its own.
        let after = self.event(
            loaded,
            EventType::ToolAfter,
            Some(Tool {
                call_id,
                name: call.name,
                kind,
                input: Some(call.input),
                output: Some(json!({"status": "ok"})),
                error: None,
                mcp: None,
                unknown: Map::new(),
            }),
        );
        self.observe(loaded, &after, &native_payload);
        Some(Outcome::Executed)
    }

    /// [`Harness::tool_call`] on the draft line: the draft event and
    /// request shapes, the draft's reply rules (in `classify`), and after a
    /// short-circuit a `hooks/observe` of the event to every intercept
    /// subscription that was not called (DD-04 reading (a)).
    async fn tool_call_draft(&self, loaded: &Loaded, call: ToolCall) -> Outcome {
        let call_id = call.call_id.clone().unwrap_or_else(|| self.fresh("call"));
        let native_payload = json!({
            "name": call.name, "kind": call.kind.as_str(), "input": call.input, "callId": call_id,
        });
        let event = |event_type: &str| {
            draft::event(&EventParts {
                id: &self.fresh("evt"),
                source: &readings::source(SOURCE),
                event_type,
                time: &now_rfc3339(),
                session_id: &loaded.session_id,
                tool: Some((&call_id, &call.name, call.kind.as_str(), &call.input)),
            })
        };
        let before = event("tool.before");
        let reading = readings::get();
        if !reading.observers_after_chain {
            self.observe_draft(loaded, &before, &native_payload);
        }
        prompt_first(&call);
        let mut outcome = None;
        let mut uncalled: Vec<usize> = Vec::new();
        for link in chain(&loaded.registration) {
            if outcome.is_some() {
                if !uncalled.contains(&link.index) {
                    uncalled.push(link.index);
                }
                continue;
            }
            let mut request = draft::intercept_request(before.clone());
            if link.include_native {
                request["params"]["event"]["native"] = native(&native_payload, "tool.before");
            }
            let result = self
                .intercept_within(loaded, &loaded.links[link.index], request, link.timeout_ms)
                .await;
            outcome = settle(&link.backend.id, result, link.failure_policy);
        }
        if reading.observers_after_chain {
            self.observe_draft(loaded, &before, &native_payload);
        }
        if let Some(denied) = outcome {
            // The uncalled interceptors are told how the call settled
            // (observation-disposition.md), unless the best-effort reading
            // drops it.
            if !reading.no_uncalled_observation {
                let mut note = draft::observe_notification(before);
                edge().dress(&mut note, &loaded.cwd);
                for index in uncalled {
                    self.send_note(loaded, index, &note);
                }
            }
            return denied;
        }
        if call.host_permission == HostPermission::Prompt {
            return Outcome::Prompted;
        }
        let after = event("tool.after");
        self.observe_draft(loaded, &after, &native_payload);
        Outcome::Executed
    }

    /// Emit `session.start` or `session.end` to the observers naming it.
    /// Returns false when nothing is loaded.
    pub fn session_event(&self, event_type: EventType) -> bool {
        let Some(loaded) = self.loaded.as_ref() else {
            return false;
        };
        if self.line == AhpLine::Draft {
            let event = draft::event(&EventParts {
                id: &self.fresh("evt"),
                source: &readings::source(SOURCE),
                event_type: event_type.as_str(),
                time: &now_rfc3339(),
                session_id: &loaded.session_id,
                tool: None,
            });
            self.observe_draft(loaded, &event, &json!({}));
            return true;
        }
        let event = self.event(loaded, event_type, None);
        self.observe(loaded, &event, &json!({}));
        true
    }

    /// A new event of `event_type` in the loaded session.
    fn event(&self, loaded: &Loaded, event_type: EventType, tool: Option<Tool>) -> Event {
        Event {
            id: self.fresh("evt"),
            source: readings::source(SOURCE),
            event_type,
            time: now_rfc3339(),
            session: Session {
                id: loaded.session_id.clone(),
                cwd: None,
                workspace_roots: None,
                model: None,
                agent: None,
                unknown: Map::new(),
            },
            tool,
            outcome: None,
            native: None,
            extensions: None,
            unknown: Map::new(),
        }
    }

    /// One interceptor exchange within `timeout_ms`: `request` dressed as
    /// the edge's freedoms ask, sent, and judged; under the retry reading
    /// sent once more, at once, after a failure other than the deadline
    /// while the deadline still runs (spec 15).
    async fn intercept_within(
        &self,
        loaded: &Loaded,
        link: &Link,
        mut request: Value,
        timeout_ms: u64,
    ) -> Result<Decision, Failure> {
        let deadline = deadline(timeout_ms);
        edge().dress(&mut request, &loaded.cwd);
        let first = self
            .intercept(loaded, link, &request, deadline, timeout_ms)
            .await;
        match first {
            Err(ref f)
                if readings::get().retry_once
                    && !matches!(f, Failure::Timeout(_))
                    && Instant::now() < deadline =>
            {
                eprintln!(
                    "ctk-ahp-harness: interceptor failed ({f}); retrying once within the deadline"
                );
                self.intercept(loaded, link, &request, deadline, timeout_ms)
                    .await
            }
            other => other,
        }
    }

    /// One interceptor exchange over its binding, until `deadline`.
    async fn intercept(
        &self,
        loaded: &Loaded,
        link: &Link,
        request: &Value,
        deadline: Instant,
        timeout_ms: u64,
    ) -> Result<Decision, Failure> {
        // The reply is judged by this harness's own line, never by what
        // the message says.
        let sent = Sent {
            line: self.line,
            request,
        };
        match link {
            Link::Http { url, token_env } => {
                let token = match token_env {
                    Some(name) => Some(
                        resolve(&loaded.env, name)
                            .ok_or_else(|| Failure::TokenUnset(name.clone()))?,
                    ),
                    None => None,
                };
                let client = self.http_client().map_err(|e| {
                    Failure::Transport(format!("cannot build the HTTP client: {e}"))
                })?;
                let body = edge().http_body(request);
                http::intercept(
                    &client,
                    url,
                    token.as_deref(),
                    sent,
                    body,
                    deadline,
                    timeout_ms,
                )
                .await
            }
            Link::Persistent(p) => {
                let frame = edge().stdio_frame(request);
                p.intercept(sent, frame, deadline, timeout_ms).await
            }
            Link::PerEvent(launch) => {
                let frame = edge().stdio_frame(request);
                stdio::per_event_intercept(launch, sent, frame, deadline, timeout_ms).await
            }
        }
    }

    /// Notify every observer subscribed to `event`'s type. Never waits:
    /// persistent backends get the frame queued, the others a task of
    /// their own (spec 13.2).
    fn observe(&self, loaded: &Loaded, event: &Event, native_payload: &Value) {
        let note = serde_json::to_value(ObserveNotification::new(event.clone()))
            .expect("a notification serializes");
        self.observe_note(loaded, event.event_type.as_str(), &note, native_payload);
    }

    /// [`Harness::observe`] for a draft event (a JSON object).
    fn observe_draft(&self, loaded: &Loaded, event: &Value, native_payload: &Value) {
        let name = event.get("type").and_then(Value::as_str).unwrap_or("");
        let note = draft::observe_notification(event.clone());
        self.observe_note(loaded, name, &note, native_payload);
    }

    /// Send `note` (a notification of an `name` event) to every observe
    /// subscription naming `name`, with `native` where one asks for it.
    fn observe_note(&self, loaded: &Loaded, name: &str, note: &Value, native_payload: &Value) {
        let reading = readings::get();
        if reading.tool_before_only && name != "tool.before" {
            return;
        }
        let mut backends: Vec<(usize, &Backend)> =
            loaded.registration.hooks.iter().enumerate().collect();
        if reading.observers_reversed {
            backends.reverse();
        }
        for (index, backend) in backends {
            // One notification per backend and event, even where two of
            // its observe subscriptions overlap (loaded only under the
            // `overlapping-observe-subscriptions` reading).
            let Some(Subscription::Observe { include_native, .. }) = backend
                .subscriptions
                .iter()
                .find(|s| matches!(s, Subscription::Observe { .. }) && s.covers(name))
            else {
                continue;
            };
            let mut note = note.clone();
            if *include_native {
                note["params"]["event"]["native"] = native(native_payload, name);
            }
            edge().dress(&mut note, &loaded.cwd);
            self.send_note(loaded, index, &note);
        }
    }

    /// Deliver one notification to backend `index` without waiting for
    /// it.
    fn send_note(&self, loaded: &Loaded, index: usize, note: &Value) {
        let backend = &loaded.registration.hooks[index];
        match &*loaded.links[index] {
            Link::Persistent(p) => {
                p.notify(edge().stdio_frame(note));
            }
            Link::PerEvent(launch) => {
                tokio::spawn(stdio::per_event_notify(
                    launch.clone(),
                    edge().stdio_frame(note),
                ));
            }
            Link::Http { url, token_env } => {
                let token = match token_env {
                    Some(n) => match resolve(&loaded.env, n) {
                        Some(t) => Some(t),
                        None => {
                            eprintln!(
                                "ctk-ahp-harness: observer {}: bearer token variable {n} is not set; not sent",
                                backend.id
                            );
                            return;
                        }
                    },
                    None => None,
                };
                let client = match self.http_client() {
                    Ok(c) => c,
                    Err(e) => {
                        eprintln!(
                            "ctk-ahp-harness: observer {}: cannot build the HTTP client: {e}; not sent",
                            backend.id
                        );
                        return;
                    }
                };
                tokio::spawn(http::notify(
                    client,
                    backend.id.clone(),
                    url.clone(),
                    token,
                    edge().http_body(note),
                ));
            }
        }
    }

    /// End every backend process: persistent ones get their queued
    /// frames and EOF first, then everything is killed.
    pub async fn shutdown(&mut self) {
        if let Some(loaded) = self.loaded.take() {
            // All at once, so the whole shutdown takes one backend's grace
            // period, not the sum of them.
            let mut ending = tokio::task::JoinSet::new();
            for l in &loaded.links {
                if let Link::Persistent(p) = &**l {
                    let p = p.clone();
                    ending.spawn(async move { p.shutdown().await });
                }
            }
            while ending.join_next().await.is_some() {}
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(loaded) = self.loaded.take() {
            for l in &loaded.links {
                if let Link::Persistent(p) = &**l {
                    p.kill();
                }
            }
        }
    }
}

/// One step of the interceptor chain (spec 13.1): an intercept subscription
/// covering `tool.before`, with its backend and the backend's position
/// (the index of its link).
struct ChainLink<'a> {
    index: usize,
    backend: &'a Backend,
    timeout_ms: u64,
    failure_policy: FailurePolicy,
    include_native: bool,
}

/// The interceptor chain of a registration, in evaluation order: both lines
/// walk it the same way and differ only in what they send and what a deny
/// leaves behind.
fn chain(registration: &Registration) -> impl Iterator<Item = ChainLink<'_>> {
    registration
        .hooks
        .iter()
        .enumerate()
        .flat_map(|(index, backend)| {
            backend
                .subscriptions
                .iter()
                .filter_map(move |sub| match sub {
                    Subscription::Intercept {
                        timeout_ms,
                        failure_policy,
                        include_native,
                        ..
                    } if sub.covers("tool.before") => Some(ChainLink {
                        index,
                        backend,
                        timeout_ms: *timeout_ms,
                        failure_policy: *failure_policy,
                        include_native: *include_native,
                    }),
                    _ => None,
                })
        })
}

/// What one interceptor's answer makes of the call: `None` to go on, or
/// the denial (explicit, or synthetic under fail-closed). A failure is
/// logged as the local audit record (spec 13.1 step 4, 14.3).
fn settle(
    backend_id: &str,
    result: Result<Decision, Failure>,
    failure_policy: FailurePolicy,
) -> Option<Outcome> {
    match result {
        Ok(Decision::NoEffect) => None,
        Ok(Decision::Deny { reason, code }) => Some(Outcome::Denied {
            synthetic: false,
            reason: readings::reported_reason(false, reason),
            code,
        }),
        Err(f) => {
            let policy = match failure_policy {
                FailurePolicy::FailOpen => "fail-open: continuing",
                FailurePolicy::FailClosed => "fail-closed: denying",
            };
            eprintln!("ctk-ahp-harness: interceptor {backend_id} failed: {f} ({policy})");
            (failure_policy == FailurePolicy::FailClosed).then(|| Outcome::Denied {
                synthetic: true,
                reason: readings::reported_reason(true, SYNTHETIC_REASON.to_owned()),
                code: None,
            })
        }
    }
}

/// A draft registration as the bytes the kit's 0.1 loader checks
/// ([`draft::as_released`]), or why it is refused: not strict JSON, not a
/// `"draft"` document, or a draft-only rule broken
/// ([`draft::registration_problems`]).
fn draft_document(document: &[u8]) -> Result<Vec<u8>, Vec<Refusal>> {
    let whole = |reason: String| {
        vec![Refusal {
            pointer: String::new(),
            reason,
        }]
    };
    let mut doc = ctk_ahp_wire::json::parse_bytes(document)
        .map_err(|e| whole(format!("the registration is not strict JSON: {e}")))?;
    if doc.get("protocolVersion").and_then(Value::as_str) != Some(draft::DRAFT_WIRE_VERSION) {
        return Err(vec![Refusal {
            pointer: "/protocolVersion".into(),
            reason: "this harness serves the draft line: protocolVersion must be \"draft\"".into(),
        }]);
    }
    let problems = draft::registration_problems(&doc);
    // Under the registration-refusal-scope reading only the faulty entries
    // go, when some entry is left.
    if !problems.is_empty() {
        let dropped = readings::get().refuse_entries_only
            && crate::loading::drop_faulty_draft_entries(&mut doc, &problems);
        if !dropped {
            return Err(problems);
        }
    }
    Ok(serde_json::to_vec(&draft::as_released(doc)).expect("a JSON value serializes"))
}

/// Under the prompt-before-interception reading, the host's own prompt
/// comes first; the adapter stands for a user who answers yes, so
/// interception still decides.
fn prompt_first(call: &ToolCall) {
    if readings::get().prompt_first && call.host_permission == HostPermission::Prompt {
        eprintln!("ctk-ahp-harness: host permission prompt before interception: answered yes");
    }
}

/// `native` for this harness: the tool call as the agent loop saw it.
fn native(payload: &Value, event_name: &str) -> Value {
    json!({"provider": NATIVE_PROVIDER, "eventName": event_name, "payload": payload})
}

/// The deadline `timeout_ms` from now; a value too large for the clock is
/// enforced as "far away", never wrapped to a short one (decision D-10).
fn deadline(timeout_ms: u64) -> Instant {
    let now = Instant::now();
    // Under the late-expiry reading, a reply may still be taken up to
    // `timeoutMs` after the deadline (spec 14.4 bounds the wait, not how
    // promptly expiry is acted on).
    let wait = if readings::get().late_expiry {
        timeout_ms.saturating_mul(2)
    } else {
        timeout_ms
    };
    now.checked_add(Duration::from_millis(wait))
        .unwrap_or_else(|| now + Duration::from_secs(100 * 365 * 24 * 3600))
}

/// A token variable's value: the environment the kit passed at load, then
/// the harness's own.
fn resolve(env: &BTreeMap<String, String>, name: &str) -> Option<String> {
    env.get(name).cloned().or_else(|| std::env::var(name).ok())
}

/// The live link for one backend entry.
fn link(backend: &Backend, env: &BTreeMap<String, String>, base: Option<&Path>) -> Link {
    match &backend.transport {
        Transport::Http { url } => Link::Http {
            url: url.clone(),
            token_env: backend.authentication.as_ref().map(|a| match a {
                registration::Authentication::Bearer { token_env } => token_env.clone(),
            }),
        },
        Transport::Stdio {
            command,
            args,
            lifecycle,
            cwd,
        } => {
            let cwd = match (cwd, base) {
                (Some(c), Some(b)) => Some(b.join(c)),
                (Some(c), None) => Some(PathBuf::from(c)),
                (None, b) => b.map(Path::to_path_buf),
            };
            // Under the command-lookup reading a relative command is a path
            // from the backend's working directory (the harness's own when
            // none is set), never a PATH lookup.
            let command =
                if readings::get().command_in_backend_cwd && Path::new(command).is_relative() {
                    let dir = cwd
                        .clone()
                        .or_else(|| std::env::current_dir().ok())
                        .unwrap_or_default();
                    dir.join(command).to_string_lossy().into_owned()
                } else {
                    command.clone()
                };
            let launch = Launch {
                backend: backend.id.clone(),
                command,
                args: args.clone(),
                cwd,
                env: backend_env(env),
            };
            match lifecycle {
                Lifecycle::Persistent => Link::Persistent(Arc::new(Persistent::new(launch))),
                Lifecycle::PerEvent => Link::PerEvent(launch),
            }
        }
    }
}

/// The environment of a stdio backend (spec 17.4: the smallest practical
/// one): `PATH` (so a bare command name and `#!/usr/bin/env` scripts
/// work), the variables the kit passed at load (the adapter contract makes
/// them visible to stdio backends), and the kit's process-tree tag
/// `CTK_HOST_INSTANCE` when set, so the kit can find a leftover process.
fn backend_env(env: &BTreeMap<String, String>) -> Vec<(String, String)> {
    if readings::get().inherit_environment {
        let mut all: BTreeMap<String, String> = std::env::vars().collect();
        all.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        return all.into_iter().collect();
    }
    let mut out = Vec::new();
    for name in ["PATH", "CTK_HOST_INSTANCE"] {
        if let Ok(v) = std::env::var(name) {
            out.push((name.to_owned(), v));
        }
    }
    out.extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
    out
}

/// The current time as RFC 3339 UTC.
fn now_rfc3339() -> String {
    readings::event_time(time::OffsetDateTime::now_utc())
}

/// The refusals of a registration the kit's loader did not accept.
pub(crate) fn refusals(e: &registration::RegistrationError) -> Vec<Refusal> {
    let mut out: Vec<Refusal> = e
        .findings()
        .iter()
        .map(|f| Refusal {
            pointer: f.pointer.clone(),
            reason: format!("{} ({})", f.message, f.rule.id()),
        })
        .collect();
    if out.is_empty() {
        out.push(Refusal {
            pointer: String::new(),
            reason: e.to_string(),
        });
    }
    out
}

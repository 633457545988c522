//! The harness itself: a loaded registration, the interceptor chain run for
//! each tool call, and observer delivery.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ctk_ahp_protocol::registration::{
    self, Backend, FailurePolicy, Lifecycle, LoadOptions, Registration, Subscription, Transport,
};
use ctk_ahp_protocol::wire::{
    Capabilities, Event, EventType, InterceptRequest, ObserveNotification, Session, Tool, ToolKind,
};
use serde_json::{json, Map, Value};
use tokio::time::Instant;

use crate::classify::{Decision, Failure};
use crate::process::Launch;
use crate::stdio::{self, Persistent};
use crate::{http, SYNTHETIC_REASON};

/// The stable, non-secret URI naming this harness (spec 9.1 `source`).
pub const SOURCE: &str = "urn:dev.agent-hooks-ctk:ahp-harness";
/// The provider name used in `native` when a subscription asks for it.
pub const NATIVE_PROVIDER: &str = "ctk-ahp-harness";

/// One problem that made the harness refuse a registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// JSON pointer into the document (`""` for the whole document).
    pub pointer: String,
    /// What is wrong, and the rule it breaks.
    pub reason: String,
}

/// What the host's permission system would do with a call AHP did not
/// deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostPermission {
    /// Run it.
    Allow,
    /// Ask the user first.
    Prompt,
}

/// One tool call as the agent loop would make it.
#[derive(Debug, Clone)]
pub struct ToolCall {
    /// The harness's tool name.
    pub name: String,
    /// The 0.1 tool kind.
    pub kind: ToolKind,
    /// The parsed input object.
    pub input: Map<String, Value>,
    /// The call id, or `None` to have the harness make one.
    pub call_id: Option<String>,
    /// What the host would do without AHP's objection.
    pub host_permission: HostPermission,
}

/// What became of a tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The tool ran.
    Executed,
    /// The tool did not run.
    Denied {
        /// A fail-closed failure, not a backend's deny (spec 14.3).
        synthetic: bool,
        /// The backend's reason, or the generic local one.
        reason: String,
        /// The backend's code (never for a synthetic denial).
        code: Option<String>,
    },
    /// No interceptor denied, and the host asked the user (empty effects
    /// grant nothing, spec 12.3).
    Prompted,
}

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
}

/// The reference AHP harness.
#[derive(Debug)]
pub struct Harness {
    loaded: Option<Loaded>,
    client: Option<reqwest::Client>,
    seq: AtomicU64,
    instance: String,
}

impl Default for Harness {
    fn default() -> Self {
        Harness::new()
    }
}

impl Harness {
    /// A harness with no registration loaded.
    pub fn new() -> Harness {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        Harness {
            loaded: None,
            client: None,
            seq: AtomicU64::new(1),
            instance: format!("{:x}-{:x}", std::process::id(), nanos),
        }
    }

    /// A fresh id, unique across every event this harness produces (spec
    /// 9.1; decision D-15).
    fn fresh(&self, prefix: &str) -> String {
        let n = self.seq.fetch_add(1, Ordering::Relaxed);
        format!("{prefix}-{}-{n}", self.instance)
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
        let registration = registration::parse(
            document,
            Path::new("harness/load registration"),
            &LoadOptions::default(),
        )
        .map_err(|e| {
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
        })?;
        if registration
            .hooks
            .iter()
            .any(|b| matches!(b.transport, Transport::Http { .. }))
            && self.client.is_none()
        {
            self.client = Some(http::client().map_err(|e| {
                vec![Refusal {
                    pointer: String::new(),
                    reason: format!("cannot build the HTTP client: {e}"),
                }]
            })?);
        }
        let links = registration
            .hooks
            .iter()
            .map(|b| Arc::new(link(b, &env, cwd.as_deref())))
            .collect();
        self.loaded = Some(Loaded {
            registration,
            links,
            env,
            session_id: self.fresh("session"),
        });
        Ok(())
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
        let call_id = call.call_id.clone().unwrap_or_else(|| self.fresh("call"));
        let native_payload = json!({
            "name": call.name, "kind": call.kind.as_str(), "input": call.input, "callId": call_id,
        });
        let before = self.event(
            loaded,
            EventType::ToolBefore,
            Some(Tool {
                call_id: call_id.clone(),
                name: call.name.clone(),
                kind: call.kind.clone(),
                input: Some(call.input.clone()),
                output: None,
                error: None,
                mcp: None,
                unknown: Map::new(),
            }),
        );
        self.observe(loaded, &before, &native_payload);
        let mut outcome = None;
        for (index, backend) in loaded.registration.hooks.iter().enumerate() {
            for sub in &backend.subscriptions {
                let Subscription::Intercept {
                    timeout_ms,
                    failure_policy,
                    include_native,
                    ..
                } = sub
                else {
                    continue;
                };
                if !sub.covers("tool.before") {
                    continue;
                }
                let mut request = serde_json::to_value(InterceptRequest::new(
                    before.clone(),
                    Capabilities::deny_only(),
                ))
                .expect("a request serializes");
                if *include_native {
                    request["params"]["event"]["native"] = native(&native_payload, "tool.before");
                }
                let result = self
                    .intercept(loaded, &loaded.links[index], &request, *timeout_ms)
                    .await;
                match result {
                    Ok(Decision::NoEffect) => {}
                    Ok(Decision::Deny { reason, code }) => {
                        outcome = Some(Outcome::Denied {
                            synthetic: false,
                            reason,
                            code,
                        });
                    }
                    Err(f) => {
                        let policy = match failure_policy {
                            FailurePolicy::FailOpen => "fail-open: continuing",
                            FailurePolicy::FailClosed => "fail-closed: denying",
                        };
                        // The local audit record of the failure (spec 13.1
                        // step 4, 14.3).
                        eprintln!(
                            "ctk-ahp-harness: interceptor {} failed: {f} ({policy})",
                            backend.id
                        );
                        if *failure_policy == FailurePolicy::FailClosed {
                            outcome = Some(Outcome::Denied {
                                synthetic: true,
                                reason: SYNTHETIC_REASON.to_owned(),
                                code: None,
                            });
                        }
                    }
                }
                if outcome.is_some() {
                    break;
                }
            }
            if outcome.is_some() {
                break;
            }
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
                kind: call.kind,
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

    /// Emit `session.start` or `session.end` to the observers naming it.
    /// Returns false when nothing is loaded.
    pub fn session_event(&self, event_type: EventType) -> bool {
        let Some(loaded) = self.loaded.as_ref() else {
            return false;
        };
        let event = self.event(loaded, event_type, None);
        self.observe(loaded, &event, &json!({}));
        true
    }

    /// A new event of `event_type` in the loaded session.
    fn event(&self, loaded: &Loaded, event_type: EventType, tool: Option<Tool>) -> Event {
        Event {
            id: self.fresh("evt"),
            source: SOURCE.to_owned(),
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

    /// One interceptor exchange over its binding, within `timeout_ms`.
    async fn intercept(
        &self,
        loaded: &Loaded,
        link: &Link,
        request: &Value,
        timeout_ms: u64,
    ) -> Result<Decision, Failure> {
        let deadline = deadline(timeout_ms);
        let mut frame = serde_json::to_vec(request).expect("a request serializes");
        match link {
            Link::Http { url, token_env } => {
                let token = match token_env {
                    Some(name) => Some(
                        resolve(&loaded.env, name)
                            .ok_or_else(|| Failure::TokenUnset(name.clone()))?,
                    ),
                    None => None,
                };
                let client = self
                    .client
                    .as_ref()
                    .expect("built at load for http backends");
                http::intercept(
                    client,
                    url,
                    token.as_deref(),
                    request,
                    frame,
                    deadline,
                    timeout_ms,
                )
                .await
            }
            Link::Persistent(p) => {
                frame.push(b'\n');
                p.intercept(request, frame, deadline, timeout_ms).await
            }
            Link::PerEvent(launch) => {
                frame.push(b'\n');
                stdio::per_event_intercept(launch, request, frame, deadline, timeout_ms).await
            }
        }
    }

    /// Notify every observer subscribed to `event`'s type. Never waits:
    /// persistent backends get the frame queued, the others a task of
    /// their own (spec 13.2).
    fn observe(&self, loaded: &Loaded, event: &Event, native_payload: &Value) {
        let name = event.event_type.as_str();
        for (index, backend) in loaded.registration.hooks.iter().enumerate() {
            for sub in &backend.subscriptions {
                let Subscription::Observe { include_native, .. } = sub else {
                    continue;
                };
                if !sub.covers(name) {
                    continue;
                }
                let mut note = serde_json::to_value(ObserveNotification::new(event.clone()))
                    .expect("a notification serializes");
                if *include_native {
                    note["params"]["event"]["native"] = native(native_payload, name);
                }
                let mut frame = serde_json::to_vec(&note).expect("a notification serializes");
                match &*loaded.links[index] {
                    Link::Persistent(p) => {
                        frame.push(b'\n');
                        p.notify(frame);
                    }
                    Link::PerEvent(launch) => {
                        frame.push(b'\n');
                        tokio::spawn(stdio::per_event_notify(launch.clone(), frame));
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
                                    continue;
                                }
                            },
                            None => None,
                        };
                        let client = self
                            .client
                            .clone()
                            .expect("built at load for http backends");
                        tokio::spawn(http::notify(
                            client,
                            backend.id.clone(),
                            url.clone(),
                            token,
                            frame,
                        ));
                    }
                }
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

/// `native` for this harness: the tool call as the agent loop saw it.
fn native(payload: &Value, event_name: &str) -> Value {
    json!({"provider": NATIVE_PROVIDER, "eventName": event_name, "payload": payload})
}

/// The deadline `timeout_ms` from now; a value too large for the clock is
/// enforced as "far away", never wrapped to a short one (decision D-10).
fn deadline(timeout_ms: u64) -> Instant {
    let now = Instant::now();
    now.checked_add(Duration::from_millis(timeout_ms))
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
            let launch = Launch {
                backend: backend.id.clone(),
                command: command.clone(),
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
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .expect("UTC time formats as RFC 3339")
}

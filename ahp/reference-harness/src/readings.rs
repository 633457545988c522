//! The reference harness's behavioural readings: where the text allows
//! several behaviours and a choice cannot be made by rewriting what
//! crosses the link, the normative code asks here which one to take. The
//! default is the reference harness's own reading (`README.md`,
//! `spec/ahp/0.1/DECISIONS.md`); only the binary's `--freedoms`
//! ([`crate::freedoms::install`]) sets another, once, before it serves, so
//! every in-process use (the tests, `ctk ahp-harness`) keeps the default.

use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The behavioural choices the text leaves open (each named after the
/// catalog freedom that takes it; `false` is the reference choice).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "one independent switch per catalog freedom"
)]
pub struct Readings {
    /// `harness-reason-wording`: other denial reasons to the agent.
    pub other_reason_wording: bool,
    /// `event-id-format`: a UUIDv4 per event.
    pub uuid_event_ids: bool,
    /// `session-and-call-id-format`: UUIDv4 session and call ids.
    pub uuid_session_and_call_ids: bool,
    /// `source-uri`: `urn:uuid:` fixed per installation.
    pub installation_source: bool,
    /// `event-time-spelling`: `+00:00` and whole seconds.
    pub offset_time: bool,
    /// `tool-kind-classification`: `other` for every tool.
    pub kind_other: bool,
    /// `observer-dispatch-order` (0.1), `observation-order` (draft):
    /// `tool.before` observers after the chain.
    pub observers_after_chain: bool,
    /// `observation-order` (draft): observers notified in reverse
    /// registration order.
    pub observers_reversed: bool,
    /// `uncalled-interceptor-observation` (draft): the interceptors a
    /// short-circuit left uncalled are not notified.
    pub no_uncalled_observation: bool,
    /// `deadline-scope` (draft): the HTTP client is built on first use,
    /// inside the first call's deadline, not at load.
    pub http_client_on_first_use: bool,
    /// `prompt-before-interception`: the host's prompt first.
    pub prompt_first: bool,
    /// `deadline-enforcement-timing`: expiry acted on up to `timeoutMs`
    /// late.
    pub late_expiry: bool,
    /// `retry-within-deadline`: one retry after a non-deadline failure.
    pub retry_once: bool,
    /// `notification-retry`: one retry of a failed notification.
    pub retry_notifications: bool,
    /// `persistent-backend-launch`: persistent backends started at load.
    pub launch_at_load: bool,
    /// `persistent-outstanding-limit`: the intercepts of concurrent events
    /// written to one persistent backend without waiting for each other's
    /// replies, which are then matched to their requests by id.
    pub several_outstanding: bool,
    /// `lifecycle-events-emitted`: only `tool.before` observations.
    pub tool_before_only: bool,
    /// `unmatched-reply-line`: lines of another id skipped.
    pub skip_unmatched_ids: bool,
    /// `banner-line-handling`: non-JSON-RPC lines skipped.
    pub skip_non_protocol_lines: bool,
    /// `per-event-exit-after-reply`: reading (b) of D-02 (a valid deny
    /// followed by a nonzero exit is a failure too).
    pub exit_fails_deny: bool,
    /// `whitespace-only-reason`: a malformed effect.
    pub blank_reason_malformed: bool,
    /// `overlapping-observe-subscriptions`: only identical lists refused.
    pub overlapping_observers_load: bool,
    /// `plain-http-remote`: accepted.
    pub plain_http_remote: bool,
    /// `timeout-range`: values outside 100..=30000 refused at load.
    pub timeout_range: bool,
    /// `content-type-strictness`: any media type parsed.
    pub any_media_type: bool,
    /// `registration-refusal-scope`: only faulty entries refused.
    pub refuse_entries_only: bool,
    /// `unset-token-env`: refused at load.
    pub token_env_at_load: bool,
    /// `malformed-output-termination`: never ends a backend for it.
    pub never_end_malformed: bool,
    /// `command-lookup`: a relative command resolved in the backend's
    /// working directory.
    pub command_in_backend_cwd: bool,
    /// `backend-environment`: the whole environment inherited.
    pub inherit_environment: bool,
    /// `capabilities-extension-effects` (0.1),
    /// `extension-effects-tool-before` (draft): the advertised no-op extension
    /// effect is accepted (and enforced as nothing) in a reply.
    pub noop_extension_effect: bool,
}

static READINGS: OnceLock<Readings> = OnceLock::new();

/// Take `readings` for the rest of the process. Only the first call counts:
/// a process serves one set of readings. Returns whether this call set them.
pub fn set(readings: Readings) -> bool {
    READINGS.set(readings).is_ok()
}

/// The readings in force.
pub fn get() -> Readings {
    READINGS.get().copied().unwrap_or_default()
}

/// The reason reported for a synthetic denial under
/// [`Readings::other_reason_wording`].
pub const OTHER_SYNTHETIC_REASON: &str = "Policy check failed";
/// The reason reported for a backend's deny under
/// [`Readings::other_reason_wording`] (the backend's reason treated as
/// sensitive, spec 10.1).
pub const OTHER_EXPLICIT_REASON: &str = "Denied by policy";

/// The lowest and highest `timeoutMs` loaded under
/// [`Readings::timeout_range`].
pub const TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 100..=30_000;

/// A 64-bit hash of `value`, the same for the life of the process and
/// across processes of one build.
pub fn hash64(value: &impl Hash) -> u64 {
    #[expect(
        deprecated,
        reason = "a fixed-key SipHash: stable across processes of one build, unlike RandomState"
    )]
    let mut h = std::hash::SipHasher::new();
    value.hash(&mut h);
    h.finish()
}

/// 64 unpredictable bits: std's randomly keyed hasher over a counter.
fn random64() -> u64 {
    static STATE: OnceLock<std::collections::hash_map::RandomState> = OnceLock::new();
    static N: AtomicU64 = AtomicU64::new(0);
    let mut h = STATE
        .get_or_init(std::collections::hash_map::RandomState::new)
        .build_hasher();
    N.fetch_add(1, Ordering::Relaxed).hash(&mut h);
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
        .hash(&mut h);
    h.finish()
}

/// `bytes` as a UUID of version 4 (variant 1) in its hyphenated spelling.
fn uuid_v4_of(mut bytes: [u8; 16]) -> String {
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..]
    )
}

/// A fresh random UUIDv4.
pub fn uuid_v4() -> String {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&random64().to_be_bytes());
    bytes[8..].copy_from_slice(&random64().to_be_bytes());
    uuid_v4_of(bytes)
}

/// The fresh id of an event (`kind` "evt") or of a session or call:
/// `reference` (the default spelling, D-15) unless the readings ask for a
/// UUIDv4.
pub fn fresh_id(kind: &str, reference: impl FnOnce() -> String) -> String {
    let r = get();
    let uuid = if kind == "evt" {
        r.uuid_event_ids
    } else {
        r.uuid_session_and_call_ids
    };
    if uuid {
        uuid_v4()
    } else {
        reference()
    }
}

/// The event `source`: `reference` unless the readings ask for a
/// `urn:uuid:` fixed per installation (derived from where the binary
/// lives, so it is stable across runs, spec 9.1).
pub fn source(reference: &str) -> String {
    if !get().installation_source {
        return reference.to_owned();
    }
    let exe = std::env::current_exe().unwrap_or_default();
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&hash64(&(&exe, "ctk-ahp-harness", 1u8)).to_be_bytes());
    bytes[8..].copy_from_slice(&hash64(&(&exe, "ctk-ahp-harness", 2u8)).to_be_bytes());
    format!("urn:uuid:{}", uuid_v4_of(bytes))
}

/// The event `time` for `now`: RFC 3339 UTC with `Z` and nanoseconds, or
/// under [`Readings::offset_time`] `+00:00` and whole seconds.
pub fn event_time(now: time::OffsetDateTime) -> String {
    if get().offset_time {
        let d = now.date();
        let t = now.time();
        return format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}+00:00",
            d.year(),
            u8::from(d.month()),
            d.day(),
            t.hour(),
            t.minute(),
            t.second()
        );
    }
    now.format(&time::format_description::well_known::Rfc3339)
        .expect("UTC time formats as RFC 3339")
}

/// The reason the agent is told for a denial: the backend's (`explicit`)
/// or the generic synthetic one, unless the readings word it otherwise.
pub fn reported_reason(synthetic: bool, reason: String) -> String {
    match (get().other_reason_wording, synthetic) {
        (false, _) => reason,
        (true, true) => OTHER_SYNTHETIC_REASON.to_owned(),
        (true, false) => OTHER_EXPLICIT_REASON.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_readings_change_nothing() {
        // Tests never set the readings: the process keeps the default.
        assert_eq!(get(), Readings::default());
        assert_eq!(fresh_id("evt", || "evt-1".into()), "evt-1");
        assert_eq!(source("urn:x"), "urn:x");
        assert_eq!(reported_reason(false, "r".into()), "r");
        let t = event_time(time::OffsetDateTime::UNIX_EPOCH);
        assert_eq!(t, "1970-01-01T00:00:00Z");
    }

    #[test]
    fn uuids_are_version_4_and_distinct() {
        let a = uuid_v4();
        let b = uuid_v4();
        assert_ne!(a, b);
        for u in [&a, &b] {
            assert_eq!(u.len(), 36, "{u}");
            assert_eq!(&u[14..15], "4", "{u}");
            assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"), "{u}");
        }
        assert_eq!(hash64(&"x"), hash64(&"x"));
    }
}

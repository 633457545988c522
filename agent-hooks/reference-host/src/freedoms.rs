//! Other readings: the reference host taking, at each place the text leaves
//! open, the choice it does not take by default (`ctk-reference-host
//! --freedoms all|none|ID,...`, issue 26).
//!
//! The catalog of those places is `spec/0.1/freedoms.json`; every id there is
//! a [`Freedom`] here. Each choice lives at the edge, around an unchanged
//! emitter: [`FreedomHost`] wraps any [`HostAdapter`] and rewrites what crosses
//! the link (the run record, the contexts handed to the kit's interceptors
//! and resolver, the declaration it is asked to load), and [`Spacing`]
//! rewrites the text of every line the stdio host writes. A gating vector
//! must pass under every combination; an advisory vector that pins the
//! reference host's own choice may fail, which is what advisory means.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ctk_agent_hooks_adapter::{
    AdapterError, BoxFuture, Callbacks, HostAdapter, HostInfo, InterceptorReply, RedactorReply,
    ResolverReply, RunRecord, VectorSetup,
};
use serde_json::{Map, Number, Value};

/// One place where the text lets a host behave in more than one observable
/// way, named by its id in `spec/0.1/freedoms.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Freedom {
    /// `resolved_by: null` instead of leaving the member out (§10.3).
    ResolvedByNull,
    /// `verdicts: []` instead of leaving the member out when nothing was
    /// dispatched (§10.3).
    VerdictsEmpty,
    /// Every object's members in reverse order.
    MemberOrder,
    /// Insignificant whitespace after every `:` and `,`.
    Whitespace,
    /// Integral numbers of a context or record written as `3.0`.
    NumberSpelling,
    /// A namespace of the host's own under each context's `extensions`
    /// (§4.6), outside the identity projection.
    ExtensionsForeign,
    /// Model-call contexts without `request_id` (a SHOULD for concurrent
    /// calls only, §3.1).
    RequestIdAbsent,
    /// Other wording for the `message` of a host-synthesised deny.
    HostMessageWording,
    /// The run record comes later, within every stated bound.
    LateRecord,
    /// A declaration without `spec` loads with the loader's version
    /// (§7.7.3: `spec` is not required).
    DeclarationSpecDefault,
    /// `decided_by` is the answering interceptor's index after a transform
    /// at a point that forbids transforms (§4.3, §10.3).
    DecidedByForbiddenTransform,
    /// A verdict whose only breach is one the verdict schema names and §5's
    /// list does not (a warning's `message` or `reason`) is accepted.
    VerdictSchemaOnlyAccepted,
    /// `jcs-sha256` refuses a float of integral value beyond ±(2^53 − 1)
    /// (§10.2 by the letter).
    IntegralFloatRefused,
    /// `fold_truncated: false` on parallel-profile records.
    FoldTruncatedParallel,
    /// No `verdicts` in `sequential/first_deny` records (OPTIONAL there).
    VerdictsOmittedFirstDeny,
    /// `warnings: []` and, on a permit, `result_labels: []` instead of
    /// leaving an empty union out.
    CombinedEmptyLists,
    /// The tool calls of one response handled last to first (§12.2).
    ToolCallOrder,
    /// §4.5 optional members populated: `agent.version`, `session.turn`,
    /// `tool_result.duration_ms`.
    OptionalContextMembers,
    /// The §12.3 bounds at other values (4 MiB of the host's own
    /// serialisation, 64 levels).
    ContextBounds,
    /// Declaration refusal details worded otherwise, pointers and accepted
    /// versions kept.
    RefusalDetailWording,
    /// Result labels resurfaced as `extensions.<namespace>.source_labels` on
    /// later hooks (§5.4's SHOULD).
    LabelsResurfaced,
}

impl Freedom {
    /// Every freedom, in catalog order.
    pub const ALL: [Freedom; 21] = [
        Freedom::ResolvedByNull,
        Freedom::VerdictsEmpty,
        Freedom::MemberOrder,
        Freedom::Whitespace,
        Freedom::NumberSpelling,
        Freedom::ExtensionsForeign,
        Freedom::RequestIdAbsent,
        Freedom::HostMessageWording,
        Freedom::LateRecord,
        Freedom::DeclarationSpecDefault,
        Freedom::DecidedByForbiddenTransform,
        Freedom::VerdictSchemaOnlyAccepted,
        Freedom::IntegralFloatRefused,
        Freedom::FoldTruncatedParallel,
        Freedom::VerdictsOmittedFirstDeny,
        Freedom::CombinedEmptyLists,
        Freedom::ToolCallOrder,
        Freedom::OptionalContextMembers,
        Freedom::ContextBounds,
        Freedom::RefusalDetailWording,
        Freedom::LabelsResurfaced,
    ];

    /// The catalog id.
    pub fn id(self) -> &'static str {
        match self {
            Freedom::ResolvedByNull => "resolved-by-null",
            Freedom::VerdictsEmpty => "verdicts-empty",
            Freedom::MemberOrder => "member-order",
            Freedom::Whitespace => "whitespace",
            Freedom::NumberSpelling => "number-spelling",
            Freedom::ExtensionsForeign => "extensions-foreign",
            Freedom::RequestIdAbsent => "request-id-absent",
            Freedom::HostMessageWording => "host-message-wording",
            Freedom::LateRecord => "late-record",
            Freedom::DeclarationSpecDefault => "declaration-spec-default",
            Freedom::DecidedByForbiddenTransform => "decided-by-forbidden-transform",
            Freedom::VerdictSchemaOnlyAccepted => "verdict-schema-only-accepted",
            Freedom::IntegralFloatRefused => "integral-float-refused",
            Freedom::FoldTruncatedParallel => "fold-truncated-parallel",
            Freedom::VerdictsOmittedFirstDeny => "verdicts-omitted-first-deny",
            Freedom::CombinedEmptyLists => "combined-empty-lists",
            Freedom::ToolCallOrder => "tool-call-order",
            Freedom::OptionalContextMembers => "optional-context-members",
            Freedom::ContextBounds => "context-bounds",
            Freedom::RefusalDetailWording => "refusal-detail-wording",
            Freedom::LabelsResurfaced => "labels-resurfaced",
        }
    }
}

impl fmt::Display for Freedom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

/// A `--freedoms` value the catalog does not know.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown freedom {0:?}: the catalog (spec/0.1/freedoms.json) knows {known}", known = Freedom::ALL.map(Freedom::id).join(", "))]
pub struct UnknownFreedom(pub String);

/// The freedoms a run takes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Freedoms(BTreeSet<Freedom>);

impl Freedoms {
    /// `all`, `none`, or ids separated by commas.
    pub fn parse(text: &str) -> Result<Self, UnknownFreedom> {
        match text.trim() {
            "all" => Ok(Self(Freedom::ALL.into_iter().collect())),
            "none" | "" => Ok(Self::default()),
            list => list
                .split(',')
                .map(str::trim)
                .map(|id| {
                    Freedom::ALL
                        .into_iter()
                        .find(|f| f.id() == id)
                        .ok_or_else(|| UnknownFreedom(id.to_owned()))
                })
                .collect::<Result<_, _>>()
                .map(Self),
        }
    }

    /// Whether `freedom` is taken.
    pub fn has(&self, freedom: Freedom) -> bool {
        self.0.contains(&freedom)
    }

    /// Whether none is taken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The behavioural readings these freedoms take inside the emitter
    /// (`crate::readings`); the stdio binary sets them before it serves.
    pub fn readings(&self) -> crate::readings::Readings {
        crate::readings::Readings {
            integral_floats_refused: self.has(Freedom::IntegralFloatRefused),
            tool_calls_reversed: self.has(Freedom::ToolCallOrder),
            tighter_bounds: self.has(Freedom::ContextBounds),
        }
    }
}

/// What [`FreedomHost`] appends to the host's name, so that a report of
/// the other readings names them (`ctk-reference-host-other-readings`).
pub const OTHER_READINGS_SUFFIX: &str = "-other-readings";

/// How long [`Freedom::LateRecord`] holds the run record back: far inside
/// every bound the kit states (its vector timeout is seconds), far above a
/// scheduler's noise.
const LATE_RECORD: Duration = Duration::from_millis(25);

/// The namespace [`Freedom::ExtensionsForeign`] adds: the host's own, so §4.6
/// lets it put anything there.
const FOREIGN_NAMESPACE: &str = "refhost_freedom";

/// The wording [`Freedom::HostMessageWording`] gives a host-synthesised deny.
const OTHER_WORDING: &str = "Refused by the host (wording chosen by the host).";

/// A [`HostAdapter`] taking `freedoms` around `inner`.
#[derive(Debug)]
pub struct FreedomHost<H> {
    inner: H,
    freedoms: Arc<Freedoms>,
}

impl<H: HostAdapter> FreedomHost<H> {
    /// Wrap `inner`.
    pub fn new(inner: H, freedoms: Freedoms) -> Self {
        Self {
            inner,
            freedoms: Arc::new(freedoms),
        }
    }
}

impl<H: HostAdapter> HostAdapter for FreedomHost<H> {
    async fn info(&mut self) -> Result<HostInfo, AdapterError> {
        // A report of the other readings must not pass for the reference
        // host's own: the name says which host it is.
        let mut info = self.inner.info().await?;
        info.name.push_str(OTHER_READINGS_SUFFIX);
        Ok(info)
    }

    async fn setup(&mut self, mut setup: VectorSetup) -> Result<(), AdapterError> {
        if self.freedoms.has(Freedom::DeclarationSpecDefault) {
            default_spec(&mut setup);
        }
        self.inner.setup(setup).await
    }

    async fn run(&mut self, callbacks: Arc<dyn Callbacks>) -> Result<RunRecord, AdapterError> {
        let wrapped = Arc::new(FreedomCallbacks {
            inner: callbacks,
            freedoms: Arc::clone(&self.freedoms),
            accepted: Mutex::new(Vec::new()),
            labels: Mutex::new(Vec::new()),
        });
        let shared: Arc<dyn Callbacks> = wrapped.clone();
        let mut record = self.inner.run(shared).await?;
        let accepted =
            std::mem::take(&mut *wrapped.accepted.lock().unwrap_or_else(|p| p.into_inner()));
        for r in &mut record.records {
            rewrite_record(r, &self.freedoms, &accepted);
        }
        if self.freedoms.has(Freedom::RefusalDetailWording) {
            if let Some(detail) = record.load.as_mut().and_then(|l| l.detail.as_mut()) {
                *detail = reworded(detail);
            }
        }
        if self.freedoms.has(Freedom::LateRecord) {
            tokio::time::sleep(LATE_RECORD).await;
        }
        Ok(record)
    }

    async fn teardown(&mut self) -> Result<(), AdapterError> {
        self.inner.teardown().await
    }
}

/// A warning list as the emitter was shown it, and as the interceptor wrote it.
type Accepted = (Value, Value);

/// The kit's callbacks, seen through the freedoms: contexts are rewritten on
/// their way out, and verdicts with a schema-only breach are accepted.
struct FreedomCallbacks {
    inner: Arc<dyn Callbacks>,
    freedoms: Arc<Freedoms>,
    /// Warnings accepted under [`Freedom::VerdictSchemaOnlyAccepted`]: the
    /// record shows them as the interceptor wrote them.
    accepted: Mutex<Vec<Accepted>>,
    /// Under [`Freedom::LabelsResurfaced`], the labels permits carried so
    /// far (first seen first), resurfaced on every later hook: each later
    /// target derives from the session's history, which holds the data.
    labels: Mutex<Vec<Value>>,
}

/// The namespace labels resurface under: the kit's interceptors are
/// anonymous, so the host names them.
const LABELS_NAMESPACE: &str = "ctk_interceptor";

impl FreedomCallbacks {
    fn resurface(&self, context: &mut Value) {
        let labels = self
            .labels
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        if labels.is_empty() {
            return;
        }
        if let Some(Value::Object(ext)) = context.as_object_mut().map(|o| {
            o.entry("extensions")
                .or_insert_with(|| Value::Object(Map::new()))
        }) {
            ext.insert(
                LABELS_NAMESPACE.into(),
                serde_json::json!({"source_labels": labels}),
            );
        }
    }

    fn remember_labels(&self, verdict: &Value) {
        let verdict = match verdict.get("verdict") {
            Some(inner) if verdict.get("decision").is_none() => inner,
            _ => verdict,
        };
        let permit = matches!(
            verdict.get("decision").and_then(Value::as_str),
            Some("allow" | "transform")
        );
        if let (true, Some(Value::Array(new))) = (permit, verdict.get("result_labels")) {
            let mut labels = self.labels.lock().unwrap_or_else(|p| p.into_inner());
            for l in new.iter().filter(|l| l.is_string()) {
                if !labels.contains(l) {
                    labels.push(l.clone());
                }
            }
        }
    }
}

impl Callbacks for FreedomCallbacks {
    fn intercept<'a>(
        &'a self,
        index: usize,
        context: &'a mut Value,
    ) -> BoxFuture<'a, InterceptorReply> {
        Box::pin(async move {
            let mut shown = context.clone();
            rewrite_context(&mut shown, &self.freedoms);
            if self.freedoms.has(Freedom::LabelsResurfaced) {
                self.resurface(&mut shown);
            }
            let reply = self.inner.intercept(index, &mut shown).await;
            if self.freedoms.has(Freedom::LabelsResurfaced) {
                if let InterceptorReply::Response(v) = &reply {
                    self.remember_labels(v);
                }
            }
            match reply {
                InterceptorReply::Response(mut verdict)
                    if self.freedoms.has(Freedom::VerdictSchemaOnlyAccepted) =>
                {
                    if let Some(pair) = accept_schema_only(&mut verdict) {
                        self.accepted
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .push(pair);
                    }
                    InterceptorReply::Response(verdict)
                }
                other => other,
            }
        })
    }

    fn resolve_approval<'a>(&'a self, request: &'a Value) -> BoxFuture<'a, ResolverReply> {
        Box::pin(async move {
            let mut shown = request.clone();
            if let Some(context) = shown.get_mut("context") {
                rewrite_context(context, &self.freedoms);
                if self.freedoms.has(Freedom::LabelsResurfaced) {
                    self.resurface(context);
                }
            }
            self.inner.resolve_approval(&shown).await
        })
    }

    fn redact<'a>(&'a self, context: &'a Value) -> BoxFuture<'a, RedactorReply> {
        // The redactor's answer is what the host presents: rewriting its
        // input would rewrite the presented context too.
        self.inner.redact(context)
    }
}

/// A context as the freedoms hand it to the kit.
fn rewrite_context(context: &mut Value, freedoms: &Freedoms) {
    let Some(obj) = context.as_object_mut() else {
        return;
    };
    if freedoms.has(Freedom::RequestIdAbsent) {
        obj.remove("request_id");
    }
    if freedoms.has(Freedom::OptionalContextMembers) {
        if let Some(Value::Object(agent)) = obj.get_mut("agent") {
            agent
                .entry("version")
                .or_insert_with(|| Value::String("1.0.0".into()));
        }
        if let Some(Value::Object(session)) = obj.get_mut("session") {
            session.entry("turn").or_insert_with(|| Value::from(1));
        }
        if let Some(Value::Object(result)) = obj.get_mut("tool_result") {
            result
                .entry("duration_ms")
                .or_insert_with(|| Value::from(3));
        }
    }
    if freedoms.has(Freedom::ExtensionsForeign) {
        // A namespace of that name already there is the host's own: kept.
        if let Value::Object(ext) = obj
            .entry("extensions")
            .or_insert_with(|| Value::Object(Map::new()))
        {
            ext.entry(FOREIGN_NAMESPACE)
                .or_insert_with(|| serde_json::json!({"build": "other-readings"}));
        }
    }
    spell(context, freedoms);
}

/// A record as the freedoms write it.
fn rewrite_record(record: &mut Value, freedoms: &Freedoms, accepted: &[Accepted]) {
    let Some(obj) = record.as_object_mut() else {
        return;
    };
    if freedoms.has(Freedom::ResolvedByNull) && !obj.contains_key("resolved_by") {
        obj.insert("resolved_by".into(), Value::Null);
    }
    let profile = obj
        .get("composition")
        .and_then(|c| c.get("profile"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let had_verdicts = obj.contains_key("verdicts");
    if freedoms.has(Freedom::VerdictsOmittedFirstDeny) && profile == "sequential/first_deny" {
        obj.remove("verdicts");
    }
    if freedoms.has(Freedom::VerdictsEmpty) && !had_verdicts {
        obj.insert("verdicts".into(), Value::Array(Vec::new()));
    }
    let dispatched = obj
        .get("verdicts")
        .and_then(Value::as_array)
        .is_some_and(|v| !v.is_empty());
    if freedoms.has(Freedom::FoldTruncatedParallel)
        && profile.starts_with("parallel/")
        && dispatched
        && !obj.contains_key("fold_truncated")
    {
        obj.insert("fold_truncated".into(), Value::Bool(false));
    }
    if freedoms.has(Freedom::CombinedEmptyLists) {
        if let Some(Value::Object(verdict)) = obj.get_mut("verdict") {
            let permit = matches!(
                verdict.get("decision").and_then(Value::as_str),
                Some("allow" | "transform")
            );
            verdict
                .entry("warnings")
                .or_insert_with(|| Value::Array(Vec::new()));
            if permit {
                verdict
                    .entry("result_labels")
                    .or_insert_with(|| Value::Array(Vec::new()));
            }
        }
    }
    let reason = obj
        .get("verdict")
        .and_then(|v| v.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if freedoms.has(Freedom::HostMessageWording) && reason.starts_with("host_error:") {
        if let Some(Value::Object(verdict)) = obj.get_mut("verdict") {
            if verdict.contains_key("message") {
                verdict.insert("message".into(), Value::String(OTHER_WORDING.into()));
            }
        }
    }
    if freedoms.has(Freedom::DecidedByForbiddenTransform)
        && reason == "host_error:transform_target_forbidden"
        && obj.get("decided_by") == Some(&Value::Null)
    {
        if let Some(index) = answering_index(obj) {
            obj.insert("decided_by".into(), Value::from(index));
        }
    }
    if let Some(Value::Object(verdict)) = obj.get_mut("verdict") {
        if let Some(warnings) = verdict.get_mut("warnings") {
            if let Some((_, original)) = accepted.iter().find(|(shown, _)| shown == warnings) {
                *warnings = original.clone();
            }
        }
    }
    spell(record, freedoms);
}

/// The index of the interceptor whose verdict a forbidden transform was:
/// the slot the record's `verdicts` give the substituted deny, or the only
/// interceptor registered.
fn answering_index(record: &Map<String, Value>) -> Option<u64> {
    let from_verdicts = record
        .get("verdicts")
        .and_then(Value::as_array)
        .and_then(|vs| {
            vs.iter().find(|v| {
                v.get("reason").and_then(Value::as_str)
                    == Some("host_error:transform_target_forbidden")
            })
        })
        .and_then(|v| v.get("index"))
        .and_then(Value::as_u64);
    from_verdicts.or_else(|| {
        (record
            .get("interceptors_registered")
            .and_then(Value::as_u64)
            == Some(1))
        .then_some(0)
    })
}

/// A refusal detail in other words: every JSON pointer it names (a token
/// starting `/`), every declaration version (`agent-hooks-declaration/…`)
/// and, where it said so, that the document does not state a member (§7.7.4
/// requires that much), kept; the rest is the host's wording.
fn reworded(detail: &str) -> String {
    let tokens: Vec<&str> = detail
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | '(' | ')' | '"' | '[' | ']'))
        .map(|t| t.trim_end_matches([':', '.']))
        .collect();
    let mut pointers: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|t| t.starts_with('/') && t.len() > 1)
        .collect();
    pointers.dedup();
    let mut versions: Vec<&str> = tokens
        .iter()
        .copied()
        .filter(|t| t.starts_with("agent-hooks-declaration/"))
        .collect();
    versions.dedup();
    let mut out = String::from("The loader would not take this document (other wording).");
    if !pointers.is_empty() {
        out.push_str(&format!(" Where: {}.", pointers.join(" ")));
    }
    if !versions.is_empty() {
        out.push_str(&format!(" Accepted: {}.", versions.join(" ")));
    }
    if detail.contains("not state") {
        out.push_str(" The document does not state a member a finding is about.");
    }
    out
}

/// Accept a verdict whose warnings break only what the verdict schema names
/// (a `message` or `reason` that is not a string, a `reason` claiming
/// `host_error:`): the emitter is shown the warnings without those members,
/// and the record gets them back as written. `None` when nothing was taken.
fn accept_schema_only(verdict: &mut Value) -> Option<Accepted> {
    let target = match verdict.get("verdict") {
        Some(Value::Object(_)) if verdict.get("decision").is_none() => {
            verdict.get_mut("verdict")?
        }
        _ => verdict,
    };
    let warnings = target.get_mut("warnings")?.as_array_mut()?;
    let original = Value::Array(warnings.clone());
    let mut changed = false;
    for w in warnings.iter_mut().filter_map(Value::as_object_mut) {
        for member in ["message", "reason"] {
            let breach = match w.get(member) {
                Some(Value::String(s)) => member == "reason" && s.starts_with("host_error:"),
                Some(_) => true,
                None => false,
            };
            if breach {
                w.remove(member);
                changed = true;
            }
        }
    }
    changed.then(|| (Value::Array(warnings.clone()), original))
}

/// The value-level spellings: integral numbers as `N.0`, members reversed.
fn spell(value: &mut Value, freedoms: &Freedoms) {
    let numbers = freedoms.has(Freedom::NumberSpelling);
    let order = freedoms.has(Freedom::MemberOrder);
    if numbers || order {
        respell(value, numbers, order);
    }
}

/// The largest integer a double holds exactly, so `N.0` means `N`.
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

/// Give a declaration without `spec` the loader's version, as a loader that
/// defaults the member would (§7.7.3), on every path the setup loads it by.
fn default_spec(setup: &mut VectorSetup) {
    let version = Value::String(setup.spec.clone());
    if let Some(Value::Object(doc)) = &mut setup.declaration {
        if !doc.contains_key("spec") {
            let rest = std::mem::take(doc);
            doc.insert("spec".into(), version.clone());
            doc.extend(rest);
        }
    }
    if let Some(text) = &mut setup.declaration_text {
        let lacks_spec = matches!(
            serde_json::from_str::<Value>(text),
            Ok(Value::Object(doc)) if !doc.contains_key("spec")
        );
        if lacks_spec {
            if let Some(brace) = text.find('{') {
                let empty = text[brace + 1..].trim_start().starts_with('}');
                let member = format!("\"spec\":{version}{}", if empty { "" } else { "," });
                text.insert_str(brace + 1, &member);
            }
        }
    }
}

/// The text of each line the stdio host writes, re-spelled with the
/// whitespace [`Freedom::Whitespace`] adds. Lines that do not parse are
/// passed on unchanged.
#[derive(Debug, Clone, Copy)]
pub struct Spacing;

impl Spacing {
    /// `line` (no newline) with a space after every `:` and `,` between
    /// tokens.
    pub fn respace(line: &str) -> String {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            return line.to_owned();
        };
        let mut out = Vec::with_capacity(line.len() + line.len() / 8);
        let mut ser = serde_json::Serializer::with_formatter(&mut out, Spaced);
        match serde::Serialize::serialize(&value, &mut ser) {
            Ok(()) => String::from_utf8(out).unwrap_or_else(|_| line.to_owned()),
            Err(_) => line.to_owned(),
        }
    }
}

/// A compact formatter with one space after each `:` and `,`.
struct Spaced;

/// The separator [`Spaced`] writes before every member or element but the first.
fn separator<W: ?Sized + std::io::Write>(w: &mut W, first: bool) -> std::io::Result<()> {
    if first {
        Ok(())
    } else {
        w.write_all(b", ")
    }
}

impl serde_json::ser::Formatter for Spaced {
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        separator(w, first)
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        separator(w, first)
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_takes_all_none_and_lists_and_names_an_unknown_id() {
        assert!(Freedoms::parse("none").unwrap().is_empty());
        let all = Freedoms::parse("all").unwrap();
        assert!(Freedom::ALL.iter().all(|f| all.has(*f)));
        let two = Freedoms::parse("member-order, resolved-by-null").unwrap();
        assert!(two.has(Freedom::MemberOrder) && two.has(Freedom::ResolvedByNull));
        assert!(!two.has(Freedom::Whitespace));
        let err = Freedoms::parse("member-order,no-such-thing").unwrap_err();
        assert_eq!(err.0, "no-such-thing");
        assert!(err.to_string().contains("resolved-by-null"), "{err}");
    }

    #[test]
    fn ids_are_unique_and_kebab_case() {
        let ids: BTreeSet<&str> = Freedom::ALL.iter().map(|f| f.id()).collect();
        assert_eq!(ids.len(), Freedom::ALL.len());
        for id in ids {
            assert!(
                id.split('-').all(|w| !w.is_empty()
                    && w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
                "{id}"
            );
        }
    }

    /// Every catalog entry is a freedom the reference host can take, and
    /// every freedom it takes is catalogued.
    #[test]
    fn the_catalog_and_the_host_name_the_same_freedoms() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../spec/0.1/freedoms.json");
        let text =
            std::fs::read_to_string(path).expect("spec/0.1/freedoms.json is part of the project");
        let catalog: Value = serde_json::from_str(&text).expect("the catalog is JSON");
        let listed: BTreeSet<&str> = catalog["freedoms"]
            .as_array()
            .expect("freedoms is an array")
            .iter()
            .map(|f| f["id"].as_str().expect("an id"))
            .collect();
        let taken: BTreeSet<&str> = Freedom::ALL.iter().map(|f| f.id()).collect();
        assert_eq!(listed, taken);
    }

    #[test]
    fn records_take_the_other_spellings() {
        let all = Freedoms::parse("resolved-by-null,verdicts-empty,host-message-wording").unwrap();
        let mut r = json!({"interception_point": "input", "verdict": {"decision": "deny", "reason": "host_error:context_invalid", "message": "depth"}});
        rewrite_record(&mut r, &all, &[]);
        assert_eq!(r["resolved_by"], Value::Null);
        assert_eq!(r["verdicts"], json!([]));
        assert_eq!(r["verdict"]["message"], OTHER_WORDING);
        let mut kept = json!({"resolved_by": "approval", "verdicts": [{"index": 0}], "verdict": {"reason": "ctk:x", "message": "m"}});
        rewrite_record(&mut kept, &all, &[]);
        assert_eq!(
            kept,
            json!({"resolved_by": "approval", "verdicts": [{"index": 0}], "verdict": {"reason": "ctk:x", "message": "m"}})
        );
    }

    #[test]
    fn a_forbidden_transform_takes_the_answering_index() {
        let f = Freedoms::parse("decided-by-forbidden-transform").unwrap();
        let mut r = json!({"verdict": {"reason": "host_error:transform_target_forbidden"}, "decided_by": null,
                           "verdicts": [{"index": 0, "decision": "allow"}, {"index": 1, "reason": "host_error:transform_target_forbidden"}]});
        rewrite_record(&mut r, &f, &[]);
        assert_eq!(r["decided_by"], json!(1));
        let mut alone = json!({"verdict": {"reason": "host_error:transform_target_forbidden"}, "decided_by": null, "interceptors_registered": 1});
        rewrite_record(&mut alone, &f, &[]);
        assert_eq!(alone["decided_by"], json!(0));
    }

    #[test]
    fn contexts_lose_request_id_and_gain_a_namespace_and_respell() {
        let f =
            Freedoms::parse("request-id-absent,extensions-foreign,number-spelling,member-order")
                .unwrap();
        let mut c = json!({"a": 1, "request_id": "req-1", "big": 9_007_199_254_740_993_u64, "n": -3, "x": 2.5});
        rewrite_context(&mut c, &f);
        assert!(c.get("request_id").is_none());
        assert_eq!(
            c["extensions"][FOREIGN_NAMESPACE]["build"],
            "other-readings"
        );
        let text = serde_json::to_string(&c).unwrap();
        assert!(text.starts_with("{\"extensions\""), "{text}");
        assert!(
            text.contains("\"a\":1.0") && text.contains("\"n\":-3.0"),
            "{text}"
        );
        assert!(
            text.contains("9007199254740993"),
            "beyond 2^53 a double is not exact: {text}"
        );
        let mut own = json!({"extensions": {FOREIGN_NAMESPACE: {"mine": true}}});
        rewrite_context(&mut own, &Freedoms::parse("extensions-foreign").unwrap());
        assert_eq!(own["extensions"][FOREIGN_NAMESPACE], json!({"mine": true}));
    }

    #[test]
    fn schema_only_breaches_are_accepted_and_restored_in_the_record() {
        let mut v = json!({"decision": "allow", "warnings": [{"reason": "host_error:x", "message": 5}, {"reason": "ctk:w"}]});
        let pair = accept_schema_only(&mut v).expect("a breach was taken");
        assert_eq!(v["warnings"], json!([{}, {"reason": "ctk:w"}]));
        let mut r =
            json!({"verdict": {"decision": "allow", "warnings": [{}, {"reason": "ctk:w"}]}});
        rewrite_record(&mut r, &Freedoms::default(), &[pair]);
        assert_eq!(
            r["verdict"]["warnings"],
            json!([{"reason": "host_error:x", "message": 5}, {"reason": "ctk:w"}])
        );
        let mut clean =
            json!({"decision": "allow", "warnings": [{"reason": "ctk:w", "message": "m"}]});
        assert_eq!(accept_schema_only(&mut clean), None);
        let mut env = json!({"verdict": {"decision": "allow", "warnings": [{"message": 1}]}});
        assert!(accept_schema_only(&mut env).is_some());
        assert_eq!(env["verdict"]["warnings"], json!([{}]));
    }

    #[test]
    fn a_declaration_without_spec_gets_the_loaders_version_on_every_path() {
        let mut setup: VectorSetup = serde_json::from_value(json!({
            "vector_id": "CTK-1156", "spec": "agent-hooks/0.1", "scenario": {"input": {"content": "x", "role": "user"}},
            "interceptors": [], "approval_resolver": false, "redactor": false, "mode": "enforce",
            "composition": {"profile": "sequential/first_deny", "on_approval": "stop"},
            "declaration": {"declaration": "agent-hooks-declaration/1.0"}
        })).expect("a setup");
        default_spec(&mut setup);
        let doc = setup.declaration.as_ref().unwrap();
        assert_eq!(
            doc.as_object().unwrap().keys().next().map(String::as_str),
            Some("spec")
        );
        assert_eq!(doc["spec"], "agent-hooks/0.1");
        for (text, want) in [
            (
                r#" {"declaration": "x"}"#,
                r#" {"spec":"agent-hooks/0.1","declaration": "x"}"#,
            ),
            ("{}", r#"{"spec":"agent-hooks/0.1"}"#),
            (
                r#"{"spec": "agent-hooks/9.9"}"#,
                r#"{"spec": "agent-hooks/9.9"}"#,
            ),
            ("not json {", "not json {"),
        ] {
            setup.declaration = None;
            setup.declaration_text = Some(text.into());
            default_spec(&mut setup);
            assert_eq!(setup.declaration_text.as_deref(), Some(want));
        }
    }

    #[test]
    fn spacing_adds_whitespace_and_keeps_the_value() {
        let line = r#"{"a":[1,2.5,{"b":null}],"c":"x,y: z"}"#;
        let spaced = Spacing::respace(line);
        assert_eq!(spaced, r#"{"a": [1, 2.5, {"b": null}], "c": "x,y: z"}"#);
        assert_eq!(
            serde_json::from_str::<Value>(&spaced).unwrap(),
            serde_json::from_str::<Value>(line).unwrap()
        );
        assert_eq!(Spacing::respace("not json"), "not json");
    }
}

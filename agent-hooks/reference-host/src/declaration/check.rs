//! Steps 3 to 8 of the pipeline over a parsed document: version, spec,
//! unknown members, member values, consistency, and the host code surface.
//! Each step collects every finding it has; the first step with a finding
//! refuses the document with its class, and later steps never run.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::compose::profile::{Composition, Knob, Mode, OnApproval};
use crate::declaration::error::{DeclarationError, Finding, RefusalClass};
use crate::declaration::registry::{
    profile_knob, valid_kind, valid_name, HostSurface, CAPABILITIES,
};
use crate::declaration::resolved::{OnError, Resolved, ResolvedBinding, ResolvedSurface};
use crate::declaration::DeclarationVersion;
use crate::identity::provider::JCS_SHA256;
use crate::point::Point;
use crate::propagate::ToolSeamPosture;
use crate::spec_version::SpecVersion;

/// The RECOMMENDED interceptor timeout, the declaration default (§7).
pub const DEFAULT_TIMEOUT_MS: u64 = 5000;
/// Largest timeout a document may state (one hour).
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;
/// Most bindings a document may hold.
pub const MAX_BINDINGS: usize = 256;
/// The four points every surface keeps (§3.2).
pub const FLOOR: [Point; 4] = [
    Point::AgentStartup,
    Point::Input,
    Point::Output,
    Point::AgentShutdown,
];

/// Escape one RFC 6901 reference token.
pub fn token(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn at(base: &str, key: &str) -> String {
    format!("{base}/{}", token(key))
}

fn refuse(class: RefusalClass, findings: Vec<Finding>) -> Result<(), DeclarationError> {
    if findings.is_empty() {
        Ok(())
    } else {
        Err(DeclarationError::new(class, findings))
    }
}

/// Step 3: the contract version, against the versions `specs` accept.
pub fn version(
    doc: &Map<String, Value>,
    specs: &[SpecVersion],
) -> Result<DeclarationVersion, DeclarationError> {
    let accepted = DeclarationVersion::accepted_under(specs);
    let names: Vec<String> = accepted.iter().map(|v| v.as_str().to_owned()).collect();
    let refused = |detail: String| DeclarationError {
        accepted: Some(names.clone()),
        ..DeclarationError::one(RefusalClass::VersionUnsupported, "/declaration", detail)
    };
    match doc.get("declaration") {
        None => Err(refused("the declaration member is required".into())),
        Some(Value::String(s)) => accepted
            .iter()
            .find(|v| v.as_str() == s)
            .copied()
            .ok_or_else(|| refused("this declaration version is not accepted".into())),
        Some(_) => Err(refused("the declaration member is not a string".into())),
    }
}

/// A `<major>.<minor>` pair of decimal digit strings, compared as numbers
/// of any size (leading zeros do not count), so that no digit string can
/// overflow into a smaller version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Numeric<'a> {
    major: &'a str,
    minor: &'a str,
}

impl<'a> Numeric<'a> {
    /// `agent-hooks/<major>.<minor>` with each part one or more ASCII digits.
    fn parse(wire: &'a str) -> Option<Numeric<'a>> {
        let (major, minor) = wire.strip_prefix("agent-hooks/")?.split_once('.')?;
        let digits = |p: &str| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit());
        (digits(major) && digits(minor)).then_some(Numeric { major, minor })
    }
}

/// Compare two decimal digit strings by the numbers they write.
fn cmp_digits(a: &str, b: &str) -> std::cmp::Ordering {
    let a = a.trim_start_matches('0');
    let b = b.trim_start_matches('0');
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

/// Step 4: the spec version the document is written for. Required (seed
/// 000). §7.7.6 step 4 as written: a numeric `agent-hooks/<major>.<minor>`
/// passes when it has the loader's major and a minor no greater than the
/// loader's, and then selects that released version (so `agent-hooks/0.0`
/// loads on a 0.1 loader and emits 0.1). `agent-hooks/draft` passes only on
/// a loader that implements the draft. The document's contract version must
/// also be defined under the version selected.
pub fn spec(
    doc: &Map<String, Value>,
    version: DeclarationVersion,
    specs: &[SpecVersion],
) -> Result<SpecVersion, DeclarationError> {
    let refuse =
        |detail: String| DeclarationError::one(RefusalClass::SpecUnsupported, "/spec", detail);
    let wire = match doc.get("spec") {
        None => {
            return Err(refuse(
                "the spec member is required; name the version the document is written for".into(),
            ))
        }
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(refuse("the spec member is not a string".into())),
    };
    let implemented: Vec<&str> = specs.iter().map(|s| s.wire()).collect();
    let implements = || format!("this loader implements {}", implemented.join(", "));
    let selected = if wire == crate::spec_version::SPEC_VERSION_DRAFT {
        specs
            .iter()
            .copied()
            .find(|s| *s == SpecVersion::Draft)
            .ok_or_else(|| refuse(implements()))?
    } else {
        let Some(doc_version) = Numeric::parse(wire) else {
            return Err(refuse(
                "the spec member is not of the form agent-hooks/<major>.<minor>".into(),
            ));
        };
        // The released versions this loader implements, as numbers.
        let released: Vec<(SpecVersion, Numeric<'static>)> = specs
            .iter()
            .filter_map(|s| Numeric::parse(s.wire()).map(|n| (*s, n)))
            .collect();
        let same_major: Vec<&(SpecVersion, Numeric<'static>)> = released
            .iter()
            .filter(|(_, n)| cmp_digits(n.major, doc_version.major).is_eq())
            .collect();
        if same_major.is_empty() {
            return Err(refuse(format!(
                "another major than the loader's: {}",
                implements()
            )));
        }
        same_major
            .iter()
            .filter(|(_, n)| cmp_digits(doc_version.minor, n.minor).is_le())
            .min_by(|(_, a), (_, b)| cmp_digits(a.minor, b.minor))
            .map(|(s, _)| *s)
            .ok_or_else(|| refuse(format!("a newer minor than the loader's: {}", implements())))?
    };
    if !version.defined_under(selected) {
        return Err(refuse(format!(
            "{} is defined under {} only",
            version.as_str(),
            version
                .specs()
                .iter()
                .map(|s| s.wire())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(selected)
}

const ROOT: [&str; 9] = [
    "$schema",
    "declaration",
    "spec",
    "id",
    "host",
    "configuration",
    "surface",
    "bindings",
    "extensions",
];
const HOST: [&str; 2] = ["name", "version"];
const CONFIGURATION: [&str; 7] = [
    "mode",
    "composition",
    "identity_provider",
    "approval",
    "posture",
    "timeouts",
    "records",
];
const COMPOSITION: [&str; 4] = [
    "profile",
    "on_approval",
    "on_disagreement",
    "on_transform_conflict",
];
const SURFACE: [&str; 6] = [
    "interception_points",
    "capabilities",
    "profiles",
    "buffered_output",
    "exposure_bound",
    "declaration_versions",
];
const BINDING_1_0: [&str; 5] = ["id", "kind", "config", "at", "timeout_ms"];
const BINDING_1_1: [&str; 6] = ["id", "kind", "config", "at", "timeout_ms", "on_error"];

fn closed(obj: &Map<String, Value>, allowed: &[&str], base: &str, out: &mut Vec<Finding>) {
    for k in obj.keys() {
        if !allowed.contains(&k.as_str()) {
            out.push(Finding::new(
                at(base, k),
                "a member this contract version does not define",
            ));
        }
    }
}

fn sub<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a Map<String, Value>> {
    obj.get(key).and_then(Value::as_object)
}

/// Step 5: every closed level holds only the members its version defines.
pub fn unknown_fields(
    doc: &Map<String, Value>,
    version: DeclarationVersion,
) -> Result<(), DeclarationError> {
    let mut out = Vec::new();
    closed(doc, &ROOT, "", &mut out);
    if let Some(h) = sub(doc, "host") {
        closed(h, &HOST, "/host", &mut out);
    }
    if let Some(c) = sub(doc, "configuration") {
        closed(c, &CONFIGURATION, "/configuration", &mut out);
        for (key, allowed) in [
            ("composition", &COMPOSITION[..]),
            ("approval", &["resolver", "redactor"][..]),
            ("posture", &["tool_seam_host_error"][..]),
            ("timeouts", &["interceptor_ms", "approval_resolver_ms"][..]),
            ("records", &["max_buffered"][..]),
        ] {
            if let Some(o) = sub(c, key) {
                closed(o, allowed, &at("/configuration", key), &mut out);
            }
        }
    }
    if let Some(s) = sub(doc, "surface") {
        closed(s, &SURFACE, "/surface", &mut out);
        if let Some(p) = sub(s, "profiles") {
            for (name, knobs) in p {
                let base = at("/surface/profiles", name);
                match profile_knob(name) {
                    None => out.push(Finding::new(base, "not a composition profile")),
                    Some((knob, ..)) => {
                        if let Some(k) = knobs.as_object() {
                            let allowed: Vec<&str> = knob.into_iter().collect();
                            closed(k, &allowed, &base, &mut out);
                        }
                    }
                }
            }
        }
    }
    if let Some(Value::Array(bindings)) = doc.get("bindings") {
        let allowed: &[&str] = match version {
            DeclarationVersion::V1_0 => &BINDING_1_0,
            DeclarationVersion::V1_1 => &BINDING_1_1,
        };
        for (i, b) in bindings.iter().enumerate() {
            if let Some(o) = b.as_object() {
                closed(o, allowed, &format!("/bindings/{i}"), &mut out);
            }
        }
    }
    refuse(RefusalClass::UnknownField, out)
}

/// Findings collector of step 6.
struct Fields {
    out: Vec<Finding>,
}

impl Fields {
    fn bad(&mut self, pointer: impl Into<String>, detail: impl Into<String>) {
        self.out.push(Finding::new(pointer, detail));
    }

    fn object<'a>(&mut self, v: &'a Value, pointer: &str) -> Option<&'a Map<String, Value>> {
        let o = v.as_object();
        if o.is_none() {
            self.bad(pointer, "must be an object");
        }
        o
    }

    fn string<'a>(&mut self, v: &'a Value, pointer: &str) -> Option<&'a str> {
        let s = v.as_str();
        if s.is_none() {
            self.bad(pointer, "must be a string");
        }
        s
    }

    fn choice<T: Copy>(&mut self, v: &Value, pointer: &str, options: &[(&str, T)]) -> Option<T> {
        let found = v
            .as_str()
            .and_then(|s| options.iter().find(|(name, _)| *name == s))
            .map(|(_, t)| *t);
        if found.is_none() {
            let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
            self.bad(pointer, format!("must be one of {}", names.join(", ")));
        }
        found
    }

    /// `null`, or a JSON integer in `lo..=hi` (never a float such as 5000.0).
    fn opt_int(&mut self, v: &Value, pointer: &str, lo: u64, hi: u64) -> Option<Option<u64>> {
        if v.is_null() {
            return Some(None);
        }
        match v.as_u64() {
            Some(n) if v.is_u64() && (lo..=hi).contains(&n) => Some(Some(n)),
            _ => {
                self.bad(
                    pointer,
                    format!("must be null or a JSON integer, {lo} to {hi}"),
                );
                None
            }
        }
    }

    /// A set of strings: an array without repeats, each accepted by `ok`.
    fn set(
        &mut self,
        v: &Value,
        pointer: &str,
        min: usize,
        max: usize,
        ok: impl Fn(&str) -> bool,
        what: &str,
    ) -> Option<Vec<String>> {
        let Some(items) = v.as_array() else {
            self.bad(pointer, "must be an array");
            return None;
        };
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        let mut good = true;
        for (i, item) in items.iter().enumerate() {
            match item.as_str() {
                Some(s) if ok(s) => {
                    if !seen.insert(s.to_owned()) {
                        self.bad(format!("{pointer}/{i}"), "repeats an earlier item");
                        good = false;
                    }
                    out.push(s.to_owned());
                }
                _ => {
                    self.bad(format!("{pointer}/{i}"), format!("must be {what}"));
                    good = false;
                }
            }
        }
        if items.len() < min || items.len() > max {
            let bound = if max == usize::MAX {
                format!("at least {min} items")
            } else {
                format!("{min} to {max} items")
            };
            self.bad(pointer, format!("must hold {bound}"));
            good = false;
        }
        good.then_some(out)
    }
}

fn pattern_id(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && (b[0].is_ascii_lowercase() || b[0].is_ascii_digit())
        && b[1..].iter().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'.' | b'_' | b'-')
        })
}

fn pattern_host_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
}

fn pattern_namespace(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_lowercase())
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_')
}

fn pattern_declaration_version(s: &str) -> bool {
    s.strip_prefix("agent-hooks-declaration/").is_some_and(|v| {
        let mut parts = v.split('.');
        let ok = |p: Option<&str>| {
            p.is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        };
        ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
    })
}

fn point_name(s: &str) -> bool {
    Point::parse(s).is_some()
}

/// What step 6 read out of the document: each member typed, unset members
/// `None` (defaults are applied at step 7).
#[derive(Debug, Default)]
pub struct Typed {
    id: Option<String>,
    host: Option<Value>,
    mode: Option<Mode>,
    profile: Option<&'static str>,
    knobs: BTreeMap<&'static str, String>,
    identity_provider: Option<Option<String>>,
    resolver: Option<Option<String>>,
    redactor: Option<Option<String>>,
    posture: Option<ToolSeamPosture>,
    interceptor_ms: Option<Option<u64>>,
    approval_resolver_ms: Option<Option<u64>>,
    max_buffered: Option<Option<u64>>,
    surface_stated: bool,
    points: Option<Vec<String>>,
    capabilities: Option<Vec<String>>,
    profiles: Option<BTreeMap<String, Option<Vec<String>>>>,
    buffered_output: Option<bool>,
    exposure_bound: Option<String>,
    declaration_versions: Option<Vec<String>>,
    bindings: Vec<TypedBinding>,
    extensions: Option<Value>,
}

#[derive(Debug)]
struct TypedBinding {
    id: String,
    kind: String,
    config: Value,
    at: Option<Vec<String>>,
    timeout_ms: Option<Option<u64>>,
    on_error: Option<OnError>,
}

/// Largest integer magnitude a document may hold anywhere: 2^53 − 1, the
/// bound of the I-JSON domain (§4.4, §10.2).
pub const MAX_SAFE_INTEGER: u64 = crate::context::domain::MAX_SAFE_INTEGER;

/// Pointers of the JSON integers in `value` whose magnitude passes
/// [`MAX_SAFE_INTEGER`], in document order (floats are never judged as
/// integers).
fn unsafe_integers(value: &Value, pointer: &mut String, out: &mut Vec<String>) {
    match value {
        Value::Number(n) => {
            let beyond = match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => u > MAX_SAFE_INTEGER,
                (None, Some(i)) => i.unsigned_abs() > MAX_SAFE_INTEGER,
                (None, None) => false,
            };
            if beyond {
                out.push(pointer.clone());
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push_str(&format!("/{i}"));
                unsafe_integers(item, pointer, out);
                pointer.truncate(len);
            }
        }
        Value::Object(members) => {
            for (key, item) in members {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&token(key));
                unsafe_integers(item, pointer, out);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// Step 6: types, enums, patterns, ranges and required-iff rules. The
/// integer range holds document-wide: an integer beyond ±(2^53 − 1)
/// anywhere, `config` and `extensions` included, is a finding at its
/// pointer. `raw_unsafe` names the integer literals beyond that bound that
/// the text path saw before parsing (a literal beyond 64 bits reaches the
/// value as a float); the value path passes none.
pub fn fields(doc: &Map<String, Value>, raw_unsafe: &[String]) -> Result<Typed, DeclarationError> {
    let mut f = Fields { out: Vec::new() };
    let mut t = Typed::default();
    if let Some(v) = doc.get("$schema") {
        f.string(v, "/$schema");
    }
    if let Some(v) = doc.get("id") {
        match v.as_str() {
            Some(s) if pattern_id(s) => t.id = Some(s.to_owned()),
            _ => f.bad("/id", "must match ^[a-z0-9][a-z0-9._-]{0,63}$"),
        }
    }
    if let Some(v) = doc.get("host") {
        if let Some(h) = f.object(v, "/host") {
            match h.get("name") {
                None => f.bad("/host/name", "host.name is required when host is present"),
                Some(n) if n.as_str().is_some_and(pattern_host_name) => {}
                Some(_) => f.bad("/host/name", "must match ^[a-z0-9_-]{1,64}$"),
            }
            if let Some(ver) = h.get("version") {
                if !ver
                    .as_str()
                    .is_some_and(|s| !s.is_empty() && s.chars().count() <= 64)
                {
                    f.bad("/host/version", "must be a string of 1 to 64 characters");
                }
            }
            t.host = Some(v.clone());
        }
    }
    if let Some(v) = doc.get("configuration") {
        if let Some(c) = f.object(v, "/configuration") {
            configuration(c, &mut f, &mut t);
        }
    }
    if let Some(v) = doc.get("surface") {
        t.surface_stated = true;
        if let Some(s) = f.object(v, "/surface") {
            surface(s, &mut f, &mut t);
        }
    }
    match doc.get("bindings") {
        None => f.bad("/bindings", "the bindings member is required"),
        Some(Value::Array(items)) => {
            if items.len() > MAX_BINDINGS {
                f.bad(
                    "/bindings",
                    format!("must hold at most {MAX_BINDINGS} bindings"),
                );
            }
            for (i, b) in items.iter().enumerate() {
                if let Some(tb) = binding(b, &format!("/bindings/{i}"), &mut f) {
                    t.bindings.push(tb);
                }
            }
        }
        Some(_) => f.bad("/bindings", "must be an array"),
    }
    if let Some(v) = doc.get("extensions") {
        if let Some(e) = f.object(v, "/extensions") {
            for k in e.keys() {
                if !pattern_namespace(k) {
                    f.bad(
                        at("/extensions", k),
                        "namespace must match ^[a-z][a-z0-9_]*$",
                    );
                }
            }
            t.extensions = Some(v.clone());
        }
    }
    let mut beyond = Vec::new();
    for (key, v) in doc {
        let mut pointer = at("", key);
        unsafe_integers(v, &mut pointer, &mut beyond);
    }
    for p in raw_unsafe {
        if !beyond.contains(p) {
            beyond.push(p.clone());
        }
    }
    for p in beyond {
        // A member-specific finding (a range, a type) already names it.
        if !f.out.iter().any(|x| x.pointer == p) {
            f.bad(
                p,
                "an integer beyond ±(2^53 − 1) (9007199254740991), which no I-JSON reader holds exactly; write it as a decimal string",
            );
        }
    }
    refuse(RefusalClass::InvalidField, f.out)?;
    Ok(t)
}

fn optional_name(v: &Value, pointer: &str, f: &mut Fields) -> Option<Option<String>> {
    match v {
        Value::Null => Some(None),
        Value::String(s) if valid_name(s) => Some(Some(s.clone())),
        _ => {
            f.bad(pointer, "must be null or match ^[a-z][a-z0-9_-]{0,63}$");
            None
        }
    }
}

fn configuration(c: &Map<String, Value>, f: &mut Fields, t: &mut Typed) {
    if let Some(v) = c.get("mode") {
        t.mode = f.choice(
            v,
            "/configuration/mode",
            &[
                ("enforce", Mode::Enforce),
                ("evaluate_only", Mode::EvaluateOnly),
            ],
        );
    }
    if let Some(v) = c.get("composition") {
        if let Some(comp) = f.object(v, "/configuration/composition") {
            match comp.get("profile") {
                None => f.bad(
                    "/configuration/composition/profile",
                    "composition.profile is required when composition is present",
                ),
                Some(p) => {
                    let options: Vec<(&str, &'static str)> = crate::declaration::registry::PROFILES
                        .iter()
                        .map(|(n, ..)| (*n, *n))
                        .collect();
                    t.profile = f.choice(p, "/configuration/composition/profile", &options);
                }
            }
            for (knob, values) in [
                ("on_approval", &["stop", "resume"][..]),
                ("on_disagreement", &["deny", "approval"][..]),
                ("on_transform_conflict", &["deny", "approval"][..]),
            ] {
                if let Some(v) = comp.get(knob) {
                    let options: Vec<(&str, &str)> = values.iter().map(|s| (*s, *s)).collect();
                    if let Some(value) =
                        f.choice(v, &at("/configuration/composition", knob), &options)
                    {
                        t.knobs.insert(knob, value.to_owned());
                    }
                }
            }
        }
    }
    if let Some(v) = c.get("identity_provider") {
        t.identity_provider = match v {
            Value::Null => Some(None),
            Value::String(s) if s == JCS_SHA256 => Some(Some(s.clone())),
            Value::String(s) if valid_name(s) && !s.starts_with("jcs") => Some(Some(s.clone())),
            _ => {
                f.bad(
                    "/configuration/identity_provider",
                    "must be null, jcs-sha256, or a provider name matching ^[a-z][a-z0-9_-]{0,63}$ that does not start with jcs",
                );
                None
            }
        };
    }
    if let Some(v) = c.get("approval") {
        if let Some(a) = f.object(v, "/configuration/approval") {
            if let Some(r) = a.get("resolver") {
                t.resolver = optional_name(r, "/configuration/approval/resolver", f);
            }
            if let Some(r) = a.get("redactor") {
                t.redactor = optional_name(r, "/configuration/approval/redactor", f);
            }
        }
    }
    if let Some(v) = c.get("posture") {
        if let Some(p) = f.object(v, "/configuration/posture") {
            if let Some(v) = p.get("tool_seam_host_error") {
                t.posture = f.choice(
                    v,
                    "/configuration/posture/tool_seam_host_error",
                    &[
                        ("continue", ToolSeamPosture::Continue),
                        ("terminate", ToolSeamPosture::Terminate),
                    ],
                );
            }
        }
    }
    if let Some(v) = c.get("timeouts") {
        if let Some(tm) = f.object(v, "/configuration/timeouts") {
            if let Some(v) = tm.get("interceptor_ms") {
                t.interceptor_ms = f.opt_int(
                    v,
                    "/configuration/timeouts/interceptor_ms",
                    1,
                    MAX_TIMEOUT_MS,
                );
            }
            if let Some(v) = tm.get("approval_resolver_ms") {
                t.approval_resolver_ms = f.opt_int(
                    v,
                    "/configuration/timeouts/approval_resolver_ms",
                    1,
                    MAX_TIMEOUT_MS,
                );
            }
        }
    }
    if let Some(v) = c.get("records") {
        if let Some(r) = f.object(v, "/configuration/records") {
            if let Some(v) = r.get("max_buffered") {
                t.max_buffered = f.opt_int(
                    v,
                    "/configuration/records/max_buffered",
                    1,
                    MAX_SAFE_INTEGER,
                );
            }
        }
    }
}

fn surface(s: &Map<String, Value>, f: &mut Fields, t: &mut Typed) {
    if let Some(v) = s.get("interception_points") {
        t.points = f.set(
            v,
            "/surface/interception_points",
            4,
            8,
            point_name,
            "an interception point",
        );
    }
    if let Some(v) = s.get("capabilities") {
        t.capabilities = f.set(
            v,
            "/surface/capabilities",
            0,
            usize::MAX,
            |c| CAPABILITIES.contains(&c),
            "a declarable capability",
        );
    }
    if let Some(v) = s.get("profiles") {
        if let Some(p) = f.object(v, "/surface/profiles") {
            let mut out = BTreeMap::new();
            for (name, knobs) in p {
                let base = at("/surface/profiles", name);
                let Some((knob, values, _)) = profile_knob(name) else {
                    continue; // refused at step 5
                };
                let Some(k) = f.object(knobs, &base) else {
                    continue;
                };
                let stated = match (knob, knob.and_then(|n| k.get(n))) {
                    (Some(n), Some(list)) => f.set(
                        list,
                        &at(&base, n),
                        1,
                        usize::MAX,
                        |s| values.contains(&s),
                        "a value of this knob",
                    ),
                    _ => None,
                };
                out.insert(name.clone(), stated);
            }
            t.profiles = Some(out);
        }
    }
    if let Some(v) = s.get("buffered_output") {
        match v.as_bool() {
            Some(b) => t.buffered_output = Some(b),
            None => f.bad("/surface/buffered_output", "must be a boolean"),
        }
    }
    if let Some(v) = s.get("exposure_bound") {
        match v.as_str() {
            Some(b) if !b.is_empty() && b.chars().count() <= 512 => {
                t.exposure_bound = Some(b.to_owned())
            }
            _ => f.bad(
                "/surface/exposure_bound",
                "must be a string of 1 to 512 characters",
            ),
        }
    }
    if let Some(v) = s.get("declaration_versions") {
        t.declaration_versions = f.set(
            v,
            "/surface/declaration_versions",
            1,
            usize::MAX,
            pattern_declaration_version,
            "a declaration version id",
        );
    }
    // exposure_bound is present exactly when buffered_output is stated false.
    let bound = s.contains_key("exposure_bound");
    match t.buffered_output {
        Some(false) if !bound => f.bad(
            "/surface/exposure_bound",
            "required when buffered_output is false",
        ),
        Some(true) if bound => f.bad(
            "/surface/exposure_bound",
            "present only when buffered_output is false",
        ),
        None if bound => f.bad(
            "/surface/exposure_bound",
            "present only beside a stated buffered_output: false",
        ),
        _ => {}
    }
}

fn binding(b: &Value, base: &str, f: &mut Fields) -> Option<TypedBinding> {
    let o = f.object(b, base)?;
    let before = f.out.len();
    let id = match o.get("id") {
        None => {
            f.bad(format!("{base}/id"), "the binding id is required");
            None
        }
        Some(v) => match v.as_str() {
            Some(s) if valid_name(s) => Some(s.to_owned()),
            _ => {
                f.bad(format!("{base}/id"), "must match ^[a-z][a-z0-9_-]{0,63}$");
                None
            }
        },
    };
    let kind = match o.get("kind") {
        None => {
            f.bad(format!("{base}/kind"), "the binding kind is required");
            None
        }
        Some(v) => match v.as_str() {
            Some(s) if valid_kind(s) => Some(s.to_owned()),
            _ => {
                f.bad(
                    format!("{base}/kind"),
                    "must match ^[a-z][a-z0-9_-]*(\\.[a-z][a-z0-9_-]*)+$ within 128 characters",
                );
                None
            }
        },
    };
    let at_points = o.get("at").and_then(|v| {
        f.set(
            v,
            &format!("{base}/at"),
            1,
            8,
            point_name,
            "an interception point",
        )
    });
    let timeout_ms = o
        .get("timeout_ms")
        .and_then(|v| f.opt_int(v, &format!("{base}/timeout_ms"), 1, MAX_TIMEOUT_MS));
    let on_error = o.get("on_error").and_then(|v| {
        f.choice(
            v,
            &format!("{base}/on_error"),
            &[("deny", OnError::Deny), ("continue", OnError::Continue)],
        )
    });
    if f.out.len() != before {
        return None;
    }
    Some(TypedBinding {
        id: id?,
        kind: kind?,
        config: o
            .get("config")
            .cloned()
            .unwrap_or_else(|| Value::Object(Map::new())),
        at: at_points,
        timeout_ms,
        on_error,
    })
}

fn lifecycle(names: &[String]) -> Vec<Point> {
    let set: BTreeSet<Point> = names.iter().filter_map(|n| Point::parse(n)).collect();
    set.into_iter().collect()
}

/// The note a finding on a member adds when the document left that member
/// to the host code.
fn filled(stated: bool) -> &'static str {
    if stated {
        ""
    } else {
        " (the document does not state this member: it was taken from the host code surface)"
    }
}

/// The composition a document configures: its profile, the knob that
/// profile consults (and the value it takes), and a finding for each knob
/// the profile does not consult.
struct ChosenComposition {
    profile: &'static str,
    consulted: Option<&'static str>,
    knob_value: Option<String>,
    composition: Composition,
}

fn composition(t: &Typed, out: &mut Vec<Finding>) -> ChosenComposition {
    let profile = t.profile.unwrap_or("sequential/first_deny");
    let (consulted, _, default_knob) =
        profile_knob(profile).unwrap_or((Some("on_approval"), &[], "stop"));
    for knob in t.knobs.keys() {
        if Some(*knob) != consulted {
            out.push(Finding::new(
                at("/configuration/composition", knob),
                format!("{profile} does not consult {knob}; remove it (a knob is never silently cleared)"),
            ));
        }
    }
    let knob_value = consulted.map(|k| {
        t.knobs
            .get(k)
            .cloned()
            .unwrap_or_else(|| default_knob.to_owned())
    });
    let as_knob = |v: &Option<String>| match v.as_deref() {
        Some("approval") => Knob::Approval,
        _ => Knob::Deny,
    };
    let composition = match profile {
        "sequential/run_all" => Composition::RunAll,
        "parallel/strictest" => Composition::Strictest {
            on_transform_conflict: as_knob(&knob_value),
        },
        "parallel/unanimous" => Composition::Unanimous {
            on_disagreement: as_knob(&knob_value),
        },
        _ => Composition::FirstDeny {
            on_approval: if knob_value.as_deref() == Some("resume") {
                OnApproval::Resume
            } else {
                OnApproval::Stop
            },
        },
    };
    ChosenComposition {
        profile,
        consulted,
        knob_value,
        composition,
    }
}

/// The surface a document resolves to (its stated members, the rest from
/// the host code), and which members it stated, for the findings' notes.
struct FilledSurface {
    surface: ResolvedSurface,
    points_stated: bool,
    caps_stated: bool,
    profiles_stated: bool,
    buffered_stated: bool,
    versions_stated: bool,
}

fn fill_surface(t: &Typed, code: &HostSurface, accepted: &[DeclarationVersion]) -> FilledSurface {
    let interception_points: Vec<Point> = match &t.points {
        Some(p) => lifecycle(p),
        None => code.interception_points.iter().copied().collect(),
    };
    let capabilities: BTreeSet<String> = match &t.capabilities {
        Some(c) => c.iter().cloned().collect(),
        None => code.capabilities.clone(),
    };
    let profiles: BTreeMap<String, BTreeSet<String>> = match &t.profiles {
        Some(p) => p
            .iter()
            .map(|(name, values)| {
                let values = match values {
                    Some(v) => v.iter().cloned().collect(),
                    // An absent knob member supports the default value only.
                    None => profile_knob(name)
                        .filter(|(k, ..)| k.is_some())
                        .map(|(_, _, d)| BTreeSet::from([d.to_owned()]))
                        .unwrap_or_default(),
                };
                (name.clone(), values)
            })
            .collect(),
        None => code.profiles.clone(),
    };
    // §7.7.4: a stated surface that omits buffered_output takes the table
    // default `true` (and so no exposure bound), not the host's own output
    // mode; §13.1: `false` MUST be declared explicitly. Only an absent surface
    // carries the host's streaming posture verbatim.
    let (buffered_output, exposure_bound) = if t.surface_stated {
        match t.buffered_output {
            Some(b) => (b, t.exposure_bound.clone()),
            None => (true, None),
        }
    } else {
        (code.buffered_output, code.exposure_bound.clone())
    };
    let declaration_versions: BTreeSet<String> = match &t.declaration_versions {
        Some(v) => v.iter().cloned().collect(),
        None => accepted.iter().map(|v| v.as_str().to_owned()).collect(),
    };
    FilledSurface {
        surface: ResolvedSurface {
            interception_points,
            capabilities,
            profiles,
            buffered_output,
            exposure_bound,
            declaration_versions,
        },
        points_stated: t.points.is_some(),
        caps_stated: t.capabilities.is_some(),
        profiles_stated: t.profiles.is_some(),
        buffered_stated: !t.surface_stated || t.buffered_output.is_some(),
        versions_stated: t.declaration_versions.is_some(),
    }
}

/// Step 7: what makes a document contradict itself (the floor, the pairs,
/// the composition against the surface, the version, the bindings).
fn inconsistencies(
    t: &Typed,
    version: DeclarationVersion,
    chosen: &ChosenComposition,
    filled_surface: &FilledSurface,
    out: &mut Vec<Finding>,
) {
    let f = filled_surface;
    let s = &f.surface;
    let has = |p: Point| s.interception_points.contains(&p);
    for p in FLOOR {
        if !has(p) {
            out.push(Finding::new(
                "/surface/interception_points",
                format!("{} is part of the floor every surface keeps", p.as_str()),
            ));
        }
    }
    for (a, b, cap) in [
        (Point::PreModelCall, Point::PostModelCall, "model_calls"),
        (Point::PreToolCall, Point::PostToolCall, "tool_calls"),
    ] {
        if has(a) != has(b) {
            out.push(Finding::new(
                "/surface/interception_points",
                format!("{} and {} come as a pair", a.as_str(), b.as_str()),
            ));
        }
        if s.capabilities.contains(cap) != (has(a) && has(b)) {
            out.push(Finding::new(
                "/surface/capabilities",
                format!(
                    "{cap} is listed exactly when {} and {} are surface points{}",
                    a.as_str(),
                    b.as_str(),
                    filled(f.caps_stated && f.points_stated)
                ),
            ));
        }
    }
    if s.capabilities.contains("incremental_output") && s.buffered_output {
        out.push(Finding::new(
            "/surface/capabilities",
            format!(
                "incremental_output requires buffered_output false{}{}",
                filled(f.caps_stated),
                if f.buffered_stated {
                    ""
                } else {
                    " (the document does not state buffered_output: it takes its default true)"
                }
            ),
        ));
    }
    let profile = chosen.profile;
    match s.profiles.get(profile) {
        None => out.push(Finding::new(
            "/configuration/composition/profile",
            format!(
                "{profile} is not among surface.profiles{}",
                filled(f.profiles_stated)
            ),
        )),
        Some(values) => {
            if let (Some(knob), Some(value)) = (chosen.consulted, &chosen.knob_value) {
                if !values.contains(value) {
                    out.push(Finding::new(
                        at("/configuration/composition", knob),
                        format!(
                            "{knob}: {value} is not among the values surface.profiles lists for {profile}{}",
                            filled(f.profiles_stated)
                        ),
                    ));
                }
            }
        }
    }
    if !s.declaration_versions.contains(version.as_str()) {
        out.push(Finding::new(
            "/surface/declaration_versions",
            format!(
                "does not list the document's own version {}{}",
                version.as_str(),
                filled(f.versions_stated)
            ),
        ));
    }
    let mut ids = BTreeSet::new();
    for (i, b) in t.bindings.iter().enumerate() {
        if !ids.insert(b.id.as_str()) {
            out.push(Finding::new(
                format!("/bindings/{i}/id"),
                "repeats the id of an earlier binding",
            ));
        }
        if let Some(at_names) = &b.at {
            for (j, name) in at_names.iter().enumerate() {
                if Point::parse(name).is_some_and(|p| !has(p)) {
                    out.push(Finding::new(
                        format!("/bindings/{i}/at/{j}"),
                        format!("{name} is not a surface point{}", filled(f.points_stated)),
                    ));
                }
            }
        }
    }
}

/// Step 8: what the document asks beyond the host code (points,
/// capabilities, profiles and knob values, versions, output mode, posture).
fn beyond_the_code(
    s: &ResolvedSurface,
    posture: ToolSeamPosture,
    code: &HostSurface,
    accepted: &[DeclarationVersion],
) -> Vec<Finding> {
    let mut out: Vec<Finding> = Vec::new();
    for p in &s.interception_points {
        if !code.interception_points.contains(p) {
            out.push(Finding::new(
                "/surface/interception_points",
                format!("the host code cannot emit {}", p.as_str()),
            ));
        }
    }
    for c in &s.capabilities {
        if !code.capabilities.contains(c) {
            out.push(Finding::new(
                "/surface/capabilities",
                format!("the host code lacks the capability {c}"),
            ));
        }
    }
    for (name, values) in &s.profiles {
        match code.profiles.get(name) {
            None => out.push(Finding::new(
                at("/surface/profiles", name),
                "the host code lacks this profile",
            )),
            Some(code_values) => {
                for v in values.difference(code_values) {
                    out.push(Finding::new(
                        at("/surface/profiles", name),
                        format!("the host code does not support the knob value {v}"),
                    ));
                }
            }
        }
    }
    for v in &s.declaration_versions {
        if !accepted.iter().any(|a| a.as_str() == v) {
            out.push(Finding::new(
                "/surface/declaration_versions",
                format!("this loader does not accept {v}"),
            ));
        }
    }
    // §7.7.4: the own surface of "a host that mediates incrementally"
    // resolves to buffered_output false, so a code whose own surface buffers
    // (the reference host running as a buffered host) cannot release output
    // unbuffered.
    if !s.buffered_output && code.buffered_output {
        out.push(Finding::new(
            "/surface/buffered_output",
            "the host code only buffers output",
        ));
    }
    if posture != code.posture {
        out.push(Finding::new(
            "/configuration/posture/tool_seam_host_error",
            format!(
                "the host code implements the {} posture",
                code.posture.as_str()
            ),
        ));
    }
    out
}

/// Steps 7 and 8: consistency, then the host code surface. Defaults are
/// applied here; a finding on a member the document left to the host says so.
pub fn resolve(
    t: Typed,
    version: DeclarationVersion,
    spec: SpecVersion,
    code: &HostSurface,
    accepted: &[DeclarationVersion],
) -> Result<Resolved, DeclarationError> {
    let mut out: Vec<Finding> = Vec::new();
    let chosen = composition(&t, &mut out);
    let filled_surface = fill_surface(&t, code, accepted);
    inconsistencies(&t, version, &chosen, &filled_surface, &mut out);
    refuse(RefusalClass::Inconsistent, out)?;

    let surface = filled_surface.surface;
    let posture = t.posture.unwrap_or(ToolSeamPosture::Continue);
    refuse(
        RefusalClass::SurfaceUnsupported,
        beyond_the_code(&surface, posture, code, accepted),
    )?;

    let interceptor_ms = t.interceptor_ms.unwrap_or(Some(DEFAULT_TIMEOUT_MS));
    let approval_resolver_ms = t.approval_resolver_ms.unwrap_or(interceptor_ms);
    let bindings = t
        .bindings
        .into_iter()
        .map(|b| ResolvedBinding {
            at: match &b.at {
                Some(names) => lifecycle(names),
                None => surface.interception_points.clone(),
            },
            timeout_ms: b.timeout_ms.unwrap_or(interceptor_ms),
            on_error: match version {
                DeclarationVersion::V1_0 => None,
                DeclarationVersion::V1_1 => Some(b.on_error.unwrap_or_default()),
            },
            id: b.id,
            kind: b.kind,
            config: b.config,
        })
        .collect();
    Ok(Resolved {
        declaration: version,
        spec,
        id: t.id,
        host: t.host,
        mode: t.mode.unwrap_or_default(),
        composition: chosen.composition,
        identity_provider: t
            .identity_provider
            .unwrap_or_else(|| Some(JCS_SHA256.to_owned())),
        resolver: t.resolver.flatten(),
        redactor: t.redactor.flatten(),
        posture,
        interceptor_ms,
        approval_resolver_ms,
        max_buffered: t.max_buffered.flatten(),
        surface,
        bindings,
        extensions: t.extensions.unwrap_or_else(|| Value::Object(Map::new())),
    })
}

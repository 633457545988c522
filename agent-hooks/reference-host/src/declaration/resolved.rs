//! The resolved form of a declaration (§7.7.3, §7.7.6 step 12): every
//! default spelled out, knobs resolved like §7.2 (an unconsulted knob is
//! absent), the surface filled from the host code where the document is
//! silent, each binding's `at` and `timeout_ms` filled, `$schema` dropped,
//! sets sorted (points in lifecycle order, everything else lexically),
//! bindings in document order, `host`, `id` and `extensions` verbatim.
//! Its RFC 8785 canonical JSON is the equivalence oracle of the
//! construction paths.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Map, Value};

pub use crate::compose::dispatch::OnError;
use crate::compose::profile::{Composition, Mode};
use crate::declaration::DeclarationVersion;
use crate::identity::jcs::to_canonical_string;
use crate::point::Point;
use crate::propagate::ToolSeamPosture;
use crate::spec_version::SpecVersion;

/// The surface, resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedSurface {
    /// Points, in lifecycle order.
    pub interception_points: Vec<Point>,
    /// Capabilities.
    pub capabilities: BTreeSet<String>,
    /// Profile → supported values of its consulted knob.
    pub profiles: BTreeMap<String, BTreeSet<String>>,
    /// Whether caller output is buffered.
    pub buffered_output: bool,
    /// The exposure bound, iff output is unbuffered.
    pub exposure_bound: Option<String>,
    /// Accepted declaration versions.
    pub declaration_versions: BTreeSet<String>,
}

/// One binding, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedBinding {
    /// Binding id, reported as `verdicts[].name`.
    pub id: String,
    /// Kind.
    pub kind: String,
    /// Kind-specific configuration, verbatim (`{}` when absent).
    pub config: Value,
    /// Points, in lifecycle order.
    pub at: Vec<Point>,
    /// Timeout in milliseconds; `None` is unbounded.
    pub timeout_ms: Option<u64>,
    /// Failure posture; `None` for a 1.0 document, which has no such member.
    pub on_error: Option<OnError>,
}

/// A declaration document, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// The contract version the document names.
    pub declaration: DeclarationVersion,
    /// The spec version it is written for.
    pub spec: SpecVersion,
    /// Log label, verbatim.
    pub id: Option<String>,
    /// `host`, verbatim.
    pub host: Option<Value>,
    /// Enforcement mode.
    pub mode: Mode,
    /// Profile with its resolved knob.
    pub composition: Composition,
    /// `jcs-sha256`, a custom name, or `None` (identity-unbound).
    pub identity_provider: Option<String>,
    /// Approval resolver name.
    pub resolver: Option<String>,
    /// Redactor name.
    pub redactor: Option<String>,
    /// Tool-seam posture.
    pub posture: ToolSeamPosture,
    /// Interceptor timeout; `None` is unbounded.
    pub interceptor_ms: Option<u64>,
    /// Approval resolver timeout; `None` is unbounded.
    pub approval_resolver_ms: Option<u64>,
    /// Record buffer bound; `None` is unbounded.
    pub max_buffered: Option<u64>,
    /// The surface.
    pub surface: ResolvedSurface,
    /// Bindings, in document (dispatch) order.
    pub bindings: Vec<ResolvedBinding>,
    /// `extensions`, verbatim (`{}` when absent).
    pub extensions: Value,
}

fn points(ps: &[Point]) -> Value {
    Value::Array(
        ps.iter()
            .map(|p| Value::String(p.as_str().into()))
            .collect(),
    )
}

fn strings<'a>(items: impl IntoIterator<Item = &'a String>) -> Value {
    Value::Array(items.into_iter().cloned().map(Value::String).collect())
}

fn opt_u64(v: Option<u64>) -> Value {
    v.map_or(Value::Null, Value::from)
}

fn opt_str(v: &Option<String>) -> Value {
    v.clone().map_or(Value::Null, Value::String)
}

impl Resolved {
    /// The resolved form as JSON.
    pub fn to_value(&self) -> Value {
        // The resolved composition is what a record's `composition` member
        // stamps: the profile and the one knob it consults.
        let composition = self.composition.stamp();
        let configuration = json!({
            "mode": self.mode.as_str(),
            "composition": composition,
            "identity_provider": opt_str(&self.identity_provider),
            "approval": {"resolver": opt_str(&self.resolver), "redactor": opt_str(&self.redactor)},
            "posture": {"tool_seam_host_error": self.posture.as_str()},
            "timeouts": {
                "interceptor_ms": opt_u64(self.interceptor_ms),
                "approval_resolver_ms": opt_u64(self.approval_resolver_ms),
            },
            "records": {"max_buffered": opt_u64(self.max_buffered)},
        });
        let mut surface = Map::new();
        surface.insert(
            "interception_points".into(),
            points(&self.surface.interception_points),
        );
        surface.insert("capabilities".into(), strings(&self.surface.capabilities));
        surface.insert(
            "profiles".into(),
            Value::Object(
                self.surface
                    .profiles
                    .iter()
                    .map(|(profile, values)| {
                        let mut knobs = Map::new();
                        if let Some((Some(knob), ..)) =
                            crate::declaration::registry::profile_knob(profile)
                        {
                            knobs.insert(knob.into(), strings(values));
                        }
                        (profile.clone(), Value::Object(knobs))
                    })
                    .collect(),
            ),
        );
        surface.insert(
            "buffered_output".into(),
            Value::Bool(self.surface.buffered_output),
        );
        if let Some(bound) = &self.surface.exposure_bound {
            surface.insert("exposure_bound".into(), Value::String(bound.clone()));
        }
        surface.insert(
            "declaration_versions".into(),
            strings(&self.surface.declaration_versions),
        );
        let bindings = self
            .bindings
            .iter()
            .map(|b| {
                let mut o = Map::new();
                o.insert("id".into(), Value::String(b.id.clone()));
                o.insert("kind".into(), Value::String(b.kind.clone()));
                o.insert("config".into(), b.config.clone());
                o.insert("at".into(), points(&b.at));
                o.insert("timeout_ms".into(), opt_u64(b.timeout_ms));
                if let Some(e) = b.on_error {
                    o.insert("on_error".into(), Value::String(e.as_str().into()));
                }
                Value::Object(o)
            })
            .collect();
        let mut root = Map::new();
        root.insert(
            "declaration".into(),
            Value::String(self.declaration.as_str().into()),
        );
        root.insert("spec".into(), Value::String(self.spec.wire().into()));
        if let Some(id) = &self.id {
            root.insert("id".into(), Value::String(id.clone()));
        }
        if let Some(host) = &self.host {
            root.insert("host".into(), host.clone());
        }
        root.insert("configuration".into(), configuration);
        root.insert("surface".into(), Value::Object(surface));
        root.insert("bindings".into(), Value::Array(bindings));
        root.insert("extensions".into(), self.extensions.clone());
        Value::Object(root)
    }

    /// The RFC 8785 canonical JSON of [`Resolved::to_value`], through the
    /// crate's own canonicaliser.
    pub fn canonical_json(&self) -> String {
        to_canonical_string(&self.to_value())
    }
}

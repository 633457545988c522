//! What the host code supports and registers, in code: its surface, its
//! binding kinds, and the identity providers, approval resolvers and
//! redactors a document may name (§7.7.5). A document can only select from
//! this; it never adds to it.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::compose::dispatch::Interceptor;
use crate::declaration::error::HostRegistryError;
use crate::identity::provider::{CustomIdentityProvider, ProviderRegistry};
use crate::point::Point;
use crate::propagate::ToolSeamPosture;
use crate::seam::approval::ApprovalResolver;
use crate::seam::redaction::Redactor;
use crate::spec_version::SpecVersion;

/// The capabilities a declaration surface may list.
pub const CAPABILITIES: [&str; 9] = [
    "model_calls",
    "tool_calls",
    "parallel_tool_calls",
    "streaming",
    "multi_turn",
    "int64_json",
    "bigint_json",
    "incremental_output",
    "host_declaration",
];

/// The surface the host code supports: the most a document may state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostSurface {
    /// Points the adapter can emit.
    pub interception_points: BTreeSet<Point>,
    /// Capabilities the code has.
    pub capabilities: BTreeSet<String>,
    /// Profile wire name → every value of its consulted knob the code
    /// supports (empty for `sequential/run_all`).
    pub profiles: BTreeMap<String, BTreeSet<String>>,
    /// The output mode the host uses when a document has no `surface` (a
    /// stated surface that omits `buffered_output` takes `true`, §7.7.4).
    pub buffered_output: bool,
    /// The exposure bound the host states when it streams unbuffered.
    pub exposure_bound: Option<String>,
    /// The one tool-seam posture the code implements.
    pub posture: ToolSeamPosture,
}

/// The four profiles: wire name, the knob it consults, that knob's values
/// and its §7.2 default.
pub const PROFILES: [(&str, Option<&str>, &[&str], &str); 4] = [
    (
        "sequential/first_deny",
        Some("on_approval"),
        &["stop", "resume"],
        "stop",
    ),
    ("sequential/run_all", None, &[], ""),
    (
        "parallel/strictest",
        Some("on_transform_conflict"),
        &["deny", "approval"],
        "deny",
    ),
    (
        "parallel/unanimous",
        Some("on_disagreement"),
        &["deny", "approval"],
        "deny",
    ),
];

/// The knob `profile` consults, its values and default; `None` for an
/// unknown profile.
pub fn profile_knob(
    profile: &str,
) -> Option<(Option<&'static str>, &'static [&'static str], &'static str)> {
    PROFILES
        .iter()
        .find(|(name, ..)| *name == profile)
        .map(|(_, knob, values, default)| (*knob, *values, *default))
}

impl HostSurface {
    /// Every point, profile and knob value, buffered output, the continue
    /// posture, and the given capabilities. (Every build of this host can
    /// stream unbuffered and bound an interceptor's time, so the surface
    /// has no switch for either.)
    pub fn full(capabilities: &[&str]) -> HostSurface {
        HostSurface {
            interception_points: Point::ALL.into_iter().collect(),
            capabilities: capabilities.iter().map(|c| (*c).to_owned()).collect(),
            profiles: PROFILES
                .iter()
                .map(|(name, _, values, _)| {
                    (
                        (*name).to_owned(),
                        values.iter().map(|v| (*v).to_owned()).collect(),
                    )
                })
                .collect(),
            buffered_output: true,
            exposure_bound: None,
            posture: ToolSeamPosture::Continue,
        }
    }

    /// The reference host's own code surface, as `host.json` states it:
    /// every point, profile and knob, incremental output by default (with
    /// its exposure bound) and buffered output on request, the continue
    /// posture, and declarations.
    pub fn reference() -> HostSurface {
        HostSurface {
            buffered_output: false,
            exposure_bound: Some(REFERENCE_EXPOSURE_BOUND.to_owned()),
            ..HostSurface::full(&CAPABILITIES)
        }
    }
}

/// The exposure bound the reference host states (`host.json`).
pub const REFERENCE_EXPOSURE_BOUND: &str = "none: an incremental segment is released only after a verdict covering it permits; nothing is released ahead of a covering verdict";

/// What a kind resolver is told about the binding it builds (§7.7.5).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingContext {
    /// The binding id.
    pub id: String,
    /// The binding kind.
    pub kind: String,
    /// The points it is bound at, resolved.
    pub at: Vec<Point>,
    /// Its resolved timeout; `None` is unbounded.
    pub timeout: Option<Duration>,
    /// The document's `host.name`, if stated.
    pub host: Option<String>,
    /// The document's contract version.
    pub declaration: String,
    /// The spec version the emitter will emit.
    pub spec: SpecVersion,
}

/// Builds the interceptor of one binding from its `config`. It runs once
/// per binding, at load, and must validate `config` without executing any
/// of it; an error refuses the document with `binding_rejected`. An error
/// text must not echo `config`.
pub trait KindResolver: Send + Sync {
    /// Build the interceptor for `config`.
    fn resolve(
        &self,
        config: &Value,
        binding: &BindingContext,
    ) -> Result<Arc<dyn Interceptor>, String>;
}

impl<F> KindResolver for F
where
    F: Fn(&Value, &BindingContext) -> Result<Arc<dyn Interceptor>, String> + Send + Sync,
{
    fn resolve(
        &self,
        config: &Value,
        binding: &BindingContext,
    ) -> Result<Arc<dyn Interceptor>, String> {
        self(config, binding)
    }
}

/// The host's registry: surface, kinds, providers, resolvers, redactors.
#[derive(Clone)]
pub struct HostRegistry {
    surface: HostSurface,
    conformance: bool,
    kinds: BTreeMap<String, Arc<dyn KindResolver>>,
    providers: ProviderRegistry,
    resolvers: BTreeMap<String, Arc<dyn ApprovalResolver>>,
    redactors: BTreeMap<String, Arc<dyn Redactor>>,
}

impl fmt::Debug for HostRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HostRegistry")
            .field("surface", &self.surface)
            .field("conformance", &self.conformance)
            .field("kinds", &self.kinds.keys().collect::<Vec<_>>())
            .field("providers", &self.providers)
            .field("resolvers", &self.resolvers.keys().collect::<Vec<_>>())
            .field("redactors", &self.redactors.keys().collect::<Vec<_>>())
            .finish()
    }
}

/// Whether `kind` follows `^[a-z][a-z0-9_-]*(\.[a-z][a-z0-9_-]*)+$` within 128 characters.
pub fn valid_kind(kind: &str) -> bool {
    if kind.len() > 128 {
        return false;
    }
    let segments: Vec<&str> = kind.split('.').collect();
    segments.len() >= 2
        && segments.iter().all(|s| {
            let mut b = s.bytes();
            b.next().is_some_and(|c| c.is_ascii_lowercase())
                && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
        })
}

/// Whether `name` follows `^[a-z][a-z0-9_-]{0,63}$`.
pub fn valid_name(name: &str) -> bool {
    let mut b = name.bytes();
    name.len() <= 64
        && b.next().is_some_and(|c| c.is_ascii_lowercase())
        && b.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_' || c == b'-')
}

impl HostRegistry {
    /// An empty registry for a host whose code supports `surface`. Kinds
    /// under `ctk.` are refused: they belong to the conformance kit.
    pub fn new(surface: HostSurface) -> HostRegistry {
        HostRegistry {
            surface,
            conformance: false,
            kinds: BTreeMap::new(),
            providers: ProviderRegistry::new(),
            resolvers: BTreeMap::new(),
            redactors: BTreeMap::new(),
        }
    }

    /// A registry built for the conformance kit: `ctk.` kinds are allowed
    /// and the kit's fault identity provider `ctk-fault` is registered.
    pub fn for_conformance(surface: HostSurface) -> HostRegistry {
        HostRegistry {
            conformance: true,
            providers: ProviderRegistry::for_conformance(),
            ..HostRegistry::new(surface)
        }
    }

    /// The code surface.
    pub fn surface(&self) -> &HostSurface {
        &self.surface
    }

    /// Register a binding kind.
    pub fn kind(
        mut self,
        kind: &str,
        resolver: Arc<dyn KindResolver>,
    ) -> Result<HostRegistry, HostRegistryError> {
        if !valid_kind(kind) {
            return Err(HostRegistryError::BadKind(kind.into()));
        }
        // `agent_hooks.*` belongs to the contract; `ctk.*` to the kit, which
        // only a conformance registry may register.
        let first = kind.split('.').next().unwrap_or_default();
        if first == "agent_hooks" || (first == "ctk" && !self.conformance) {
            return Err(HostRegistryError::ReservedKind(kind.into()));
        }
        if self.kinds.contains_key(kind) {
            return Err(HostRegistryError::Duplicate(kind.into()));
        }
        self.kinds.insert(kind.into(), resolver);
        Ok(self)
    }

    /// Register a custom identity provider.
    pub fn identity_provider(
        mut self,
        name: &str,
        provider: Arc<dyn CustomIdentityProvider>,
    ) -> Result<HostRegistry, HostRegistryError> {
        self.providers.register(name, provider)?;
        Ok(self)
    }

    /// Register an approval resolver.
    pub fn approval_resolver(
        mut self,
        name: &str,
        resolver: Arc<dyn ApprovalResolver>,
    ) -> Result<HostRegistry, HostRegistryError> {
        if !valid_name(name) {
            return Err(HostRegistryError::BadName(name.into()));
        }
        if self.resolvers.contains_key(name) {
            return Err(HostRegistryError::Duplicate(name.into()));
        }
        self.resolvers.insert(name.into(), resolver);
        Ok(self)
    }

    /// Register a redactor.
    pub fn approval_redactor(
        mut self,
        name: &str,
        redactor: Arc<dyn Redactor>,
    ) -> Result<HostRegistry, HostRegistryError> {
        if !valid_name(name) {
            return Err(HostRegistryError::BadName(name.into()));
        }
        if self.redactors.contains_key(name) {
            return Err(HostRegistryError::Duplicate(name.into()));
        }
        self.redactors.insert(name.into(), redactor);
        Ok(self)
    }

    pub(crate) fn kind_resolver(&self, kind: &str) -> Option<&Arc<dyn KindResolver>> {
        self.kinds.get(kind)
    }

    pub(crate) fn providers(&self) -> &ProviderRegistry {
        &self.providers
    }

    pub(crate) fn resolver(&self, name: &str) -> Option<&Arc<dyn ApprovalResolver>> {
        self.resolvers.get(name)
    }

    pub(crate) fn redactor(&self, name: &str) -> Option<&Arc<dyn Redactor>> {
        self.redactors.get(name)
    }
}

//! Identity providers (§10.1): `jcs-sha256`, `null`, and host-registered
//! custom providers.

use std::collections::BTreeMap;
use std::fmt;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use serde_json::Value;

use crate::context::domain::{check_bounds, check_domain, MAX_CONTEXT_BYTES};
use crate::context::envelope::{validate_envelope, EnvelopeError};
use crate::errors::DomainError;
pub use crate::errors::{BoundedError, IdentityError, RegistryError};
use crate::identity::jcs::{hash_projection, projection_members, scan_context};
use crate::spec_version::SpecVersion;

/// Name of the default provider (§10.2).
pub const JCS_SHA256: &str = "jcs-sha256";
/// Name of the kit's fault provider, which fails every compute.
pub const CTK_FAULT_PROVIDER: &str = "ctk-fault";

/// A host-defined identity provider. It is trusted, in-process code; the
/// emitter still contains its failures (an error or a panic becomes
/// `host_error:context_invalid`).
pub trait CustomIdentityProvider: Send + Sync {
    /// Compute the identity of a validated context.
    fn compute(&self, context: &Value) -> Result<String, String>;
}

/// The provider an emitter is configured with.
#[derive(Clone)]
pub enum IdentityProvider {
    /// RFC 8785 + SHA-256 over the §10.2 projection.
    JcsSha256,
    /// Identity-unbound: records carry null identities.
    Null,
    /// A registered host-defined provider.
    Custom {
        /// Registration name.
        name: String,
        /// The provider.
        provider: Arc<dyn CustomIdentityProvider>,
    },
}

impl fmt::Debug for IdentityProvider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IdentityProvider({:?})", self.name())
    }
}

impl IdentityProvider {
    /// The name stamped on records; `None` for the null provider.
    pub fn name(&self) -> Option<&str> {
        match self {
            IdentityProvider::JcsSha256 => Some(JCS_SHA256),
            IdentityProvider::Null => None,
            IdentityProvider::Custom { name, .. } => Some(name),
        }
    }

    /// Compute the identity of `context`; `Ok(None)` for the null provider.
    /// `raw_unsafe` reports that raw text behind the context held an integer
    /// literal beyond 2^53-1 that parsing may have coerced.
    pub fn compute(
        &self,
        context: &Value,
        version: SpecVersion,
        raw_unsafe: bool,
    ) -> Result<Option<String>, IdentityError> {
        match self {
            IdentityProvider::Null => Ok(None),
            IdentityProvider::JcsSha256 => jcs_sha256(context, version, raw_unsafe).map(Some),
            IdentityProvider::Custom { provider, .. } => {
                validate_envelope(context, version)?;
                match catch_unwind(AssertUnwindSafe(|| provider.compute(context))) {
                    Ok(Ok(id)) => Ok(Some(id)),
                    _ => Err(IdentityError::ProviderFailed),
                }
            }
        }
    }
}

impl IdentityProvider {
    /// The §12.3 bounds of `context` ([`check_bounds`]), then its identity
    /// ([`IdentityProvider::compute`]), with exactly their errors in that
    /// order. For `jcs-sha256` the size, the depth bound and the identity
    /// come from one pass over the canonical form ([`scan_context`]), not
    /// one walk for the size and another for the hash.
    pub fn compute_bounded(
        &self,
        context: &Value,
        version: SpecVersion,
        raw_unsafe: bool,
    ) -> Result<Option<String>, BoundedError> {
        if let Some(breach) = crate::readings::tighter_breach(context) {
            return Err(BoundedError::Bounds(breach));
        }
        let obj = match (self, context.as_object()) {
            (IdentityProvider::JcsSha256, Some(obj)) => obj,
            _ => {
                check_bounds(context).map_err(BoundedError::Bounds)?;
                return self
                    .compute(context, version, raw_unsafe)
                    .map_err(BoundedError::Identity);
            }
        };
        let point = match validate_envelope(context, version) {
            Ok(point) => point,
            Err(e) => {
                check_bounds(context).map_err(BoundedError::Bounds)?;
                return Err(BoundedError::Identity(IdentityError::Envelope(e)));
            }
        };
        let scan = scan_context(obj, Some(point)).map_err(BoundedError::Bounds)?;
        if scan.bytes > MAX_CONTEXT_BYTES {
            return Err(BoundedError::Bounds(DomainError::TooLarge));
        }
        if scan.unsafe_integer || crate::readings::refuses_float_in(obj, point) {
            return Err(BoundedError::Identity(IdentityError::Domain(
                DomainError::UnsafeInteger,
            )));
        }
        if raw_unsafe {
            return Err(BoundedError::Identity(IdentityError::RawInteger));
        }
        Ok(scan.identity)
    }
}

/// The `jcs-sha256` identity (§10.2): envelope, projection, depth and
/// integer domain, canonical bytes streamed into SHA-256.
pub fn jcs_sha256(
    context: &Value,
    version: SpecVersion,
    raw_unsafe: bool,
) -> Result<String, IdentityError> {
    let point = validate_envelope(context, version)?;
    let obj = context
        .as_object()
        .ok_or(IdentityError::Envelope(EnvelopeError::NotObject))?;
    for (member, depth) in projection_members(obj, point) {
        check_domain(member, depth)?;
    }
    if crate::readings::refuses_float_in(obj, point) {
        return Err(IdentityError::Domain(DomainError::UnsafeInteger));
    }
    if raw_unsafe {
        return Err(IdentityError::RawInteger);
    }
    Ok(hash_projection(obj, point))
}

/// Host-registered custom providers, by name.
#[derive(Clone, Default)]
pub struct ProviderRegistry {
    providers: BTreeMap<String, Arc<dyn CustomIdentityProvider>>,
}

impl fmt::Debug for ProviderRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.providers.keys()).finish()
    }
}

fn valid_custom_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
        && !name.starts_with("jcs")
}

impl ProviderRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// The registry the conformance kit expects: `ctk-fault` registered.
    pub fn for_conformance() -> Self {
        let mut r = Self::new();
        // The name is a valid constant; registration cannot fail.
        let _ = r.register(CTK_FAULT_PROVIDER, Arc::new(FaultProvider));
        r
    }

    /// Register a custom provider under `name`.
    pub fn register(
        &mut self,
        name: &str,
        provider: Arc<dyn CustomIdentityProvider>,
    ) -> Result<(), RegistryError> {
        if !valid_custom_name(name) {
            return Err(RegistryError::BadName(name.into()));
        }
        if self.providers.contains_key(name) {
            return Err(RegistryError::Duplicate(name.into()));
        }
        self.providers.insert(name.into(), provider);
        Ok(())
    }

    /// Resolve a configured provider name: `None` is the null provider.
    pub fn resolve(&self, name: Option<&str>) -> Result<IdentityProvider, RegistryError> {
        match name {
            None => Ok(IdentityProvider::Null),
            Some(JCS_SHA256) => Ok(IdentityProvider::JcsSha256),
            Some(other) => self
                .providers
                .get(other)
                .map(|p| IdentityProvider::Custom {
                    name: other.into(),
                    provider: p.clone(),
                })
                .ok_or_else(|| RegistryError::Unknown(other.into())),
        }
    }
}

/// The kit's `ctk-fault` provider: every compute fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct FaultProvider;

impl CustomIdentityProvider for FaultProvider {
    fn compute(&self, _context: &Value) -> Result<String, String> {
        Err("ctk-fault fails every compute".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::errors::DomainError;
    use serde_json::json;

    struct Panics;
    impl CustomIdentityProvider for Panics {
        fn compute(&self, _context: &Value) -> Result<String, String> {
            panic!("provider bug")
        }
    }

    fn ctx() -> Value {
        json!({"spec": "agent-hooks/0.1", "interception_point": "output", "timestamp": "t", "sequence": 6,
            "agent": {"id": "a", "framework": "f"}, "session": {"id": "s"},
            "target": {"content": "x"}, "output": {"content": "x"}})
    }

    #[test]
    fn custom_names_follow_the_rules() {
        let mut r = ProviderRegistry::new();
        assert!(matches!(
            r.register("jcs-custom", Arc::new(FaultProvider)),
            Err(RegistryError::BadName(_))
        ));
        assert!(matches!(
            r.register("Upper", Arc::new(FaultProvider)),
            Err(RegistryError::BadName(_))
        ));
        assert!(r
            .register("hmac-sha256-k1", Arc::new(FaultProvider))
            .is_ok());
        assert!(matches!(
            r.register("hmac-sha256-k1", Arc::new(FaultProvider)),
            Err(RegistryError::Duplicate(_))
        ));
        assert!(matches!(
            r.resolve(Some("nope")),
            Err(RegistryError::Unknown(_))
        ));
    }

    #[test]
    fn failing_and_panicking_providers_are_contained() {
        let fault = ProviderRegistry::for_conformance()
            .resolve(Some(CTK_FAULT_PROVIDER))
            .expect("registered");
        assert_eq!(
            fault.compute(&ctx(), SpecVersion::V0_1, false),
            Err(IdentityError::ProviderFailed)
        );
        let panics = IdentityProvider::Custom {
            name: "p".into(),
            provider: Arc::new(Panics),
        };
        assert_eq!(
            panics.compute(&ctx(), SpecVersion::V0_1, false),
            Err(IdentityError::ProviderFailed)
        );
    }

    #[test]
    fn null_provider_computes_nothing() {
        assert_eq!(
            IdentityProvider::Null.compute(&ctx(), SpecVersion::V0_1, false),
            Ok(None)
        );
        assert_eq!(IdentityProvider::Null.name(), None);
    }

    #[test]
    fn unknown_or_absent_point_has_no_identity() {
        let mut c = ctx();
        c["interception_point"] = json!("pre_tool");
        assert!(jcs_sha256(&c, SpecVersion::V0_1, false).is_err());
        c.as_object_mut()
            .expect("object")
            .remove("interception_point");
        assert!(jcs_sha256(&c, SpecVersion::V0_1, false).is_err());
    }

    #[test]
    fn projection_deeper_than_128_is_refused() {
        let mut deep = json!("x");
        for _ in 0..130 {
            deep = json!([deep]);
        }
        let mut c = ctx();
        c["target"] = json!({"content": deep});
        assert!(matches!(
            jcs_sha256(&c, SpecVersion::V0_1, false),
            Err(IdentityError::Domain(DomainError::TooDeep))
        ));
    }

    #[test]
    fn whitelisted_subfields_count_their_own_level() {
        // projection (1) > output (2) > content (3) > 125 or 126 arrays > "x"
        let nested = |arrays: usize| {
            let mut deep = json!("x");
            for _ in 0..arrays {
                deep = json!([deep]);
            }
            let mut c = ctx();
            c["output"] = json!({"content": deep});
            c
        };
        assert!(jcs_sha256(&nested(125), SpecVersion::V0_1, false).is_ok());
        assert!(matches!(
            jcs_sha256(&nested(126), SpecVersion::V0_1, false),
            Err(IdentityError::Domain(DomainError::TooDeep))
        ));
    }

    #[test]
    fn jcs_refuses_unsafe_integers_in_the_projection_only() {
        let mut c = ctx();
        c["extensions"] = json!({"x": {"n": 9_007_199_254_740_993_u64}});
        assert!(jcs_sha256(&c, SpecVersion::V0_1, false).is_ok());
        c["target"] = json!({"content": 9_007_199_254_740_993_u64});
        assert!(matches!(
            jcs_sha256(&c, SpecVersion::V0_1, false),
            Err(IdentityError::Domain(_))
        ));
        assert_eq!(
            jcs_sha256(&ctx(), SpecVersion::V0_1, true),
            Err(IdentityError::RawInteger)
        );
    }
}

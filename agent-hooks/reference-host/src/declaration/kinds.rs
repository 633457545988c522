//! Binding kinds the reference host ships (§7.7.5: the spec defines none).
//!
//! | kind | config | interceptor |
//! | --- | --- | --- |
//! | `reference.allow-all` | `{}` (or absent) | allows every emission: the explicit passthrough §7 asks for |
//! | `reference.tool-deny-list` | `{"<tool name>": "<deny reason>", ...}` | at `pre_tool_call`, denies a call to a listed tool with its reason; allows everything else |
//!
//! The kit's own kind `ctk.scripted` (the `ctk` segment belongs to the
//! conformance kit, §7.7.5) is defined here too, so that a conformance
//! registry ([`ctk_scripted_kind`]) reads its config exactly as the kit
//! defines it: the member `script`, an unsigned integer naming one of the
//! vector's interceptor scripts; any other member is tolerated and ignored.
//!
//! Resolvers validate `config` at load and never echo it in an error.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Value};

use crate::compose::dispatch::{BoxFuture, Interceptor, InterceptorAnswer};
use crate::declaration::error::HostRegistryError;
use crate::declaration::registry::{BindingContext, HostRegistry, KindResolver};
use crate::reason::is_reserved_under;

/// Kind name of the allow-all interceptor.
pub const ALLOW_ALL: &str = "reference.allow-all";
/// Kind name of the tool deny-list interceptor.
pub const TOOL_DENY_LIST: &str = "reference.tool-deny-list";
/// Kind name of the kit's scripted bindings (registered only in a
/// conformance registry, [`HostRegistry::for_conformance`]).
pub const CTK_SCRIPTED: &str = "ctk.scripted";

/// Allows every emission.
#[derive(Debug, Clone, Copy, Default)]
pub struct AllowAll;

impl Interceptor for AllowAll {
    fn intercept(&self, _context: Value) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }

    // It never looks at the context: no copy.
    fn intercept_shared(&self, _context: Arc<Value>) -> BoxFuture<InterceptorAnswer> {
        Box::pin(async { InterceptorAnswer::Returned(json!({"decision": "allow"})) })
    }
}

/// Denies calls to listed tools at `pre_tool_call`, each with its reason.
#[derive(Debug, Clone, Default)]
pub struct ToolDenyList {
    deny: BTreeMap<String, String>,
}

impl ToolDenyList {
    /// A deny list: tool name → deny reason.
    pub fn new(deny: BTreeMap<String, String>) -> ToolDenyList {
        ToolDenyList { deny }
    }
}

impl Interceptor for ToolDenyList {
    fn intercept(&self, context: Value) -> BoxFuture<InterceptorAnswer> {
        self.judge(&context)
    }

    // It only reads the context: no copy.
    fn intercept_shared(&self, context: Arc<Value>) -> BoxFuture<InterceptorAnswer> {
        self.judge(&context)
    }
}

impl ToolDenyList {
    fn judge(&self, context: &Value) -> BoxFuture<InterceptorAnswer> {
        let reason = (context.get("interception_point").and_then(Value::as_str)
            == Some("pre_tool_call"))
        .then(|| {
            context
                .pointer("/tool_call/name")
                .and_then(Value::as_str)
                .and_then(|name| self.deny.get(name))
                .cloned()
        })
        .flatten();
        Box::pin(async move {
            InterceptorAnswer::Returned(match reason {
                Some(r) => json!({"decision": "deny", "reason": r}),
                None => json!({"decision": "allow"}),
            })
        })
    }
}

/// Resolve an `reference.allow-all` binding: `config` must be `{}`.
pub fn resolve_allow_all(
    config: &Value,
    _binding: &BindingContext,
) -> Result<Arc<dyn Interceptor>, String> {
    match config.as_object() {
        Some(m) if m.is_empty() => Ok(Arc::new(AllowAll)),
        _ => Err("config must be an empty object".into()),
    }
}

/// Resolve a `reference.tool-deny-list` binding: `config` maps tool names to
/// deny reasons (non-empty strings outside the reserved namespaces).
pub fn resolve_tool_deny_list(
    config: &Value,
    binding: &BindingContext,
) -> Result<Arc<dyn Interceptor>, String> {
    let map = config
        .as_object()
        .ok_or("config must be an object of tool name to deny reason")?;
    let mut deny = BTreeMap::new();
    for (tool, reason) in map {
        match reason.as_str() {
            Some(r) if !r.is_empty() && !is_reserved_under(r, binding.spec) => {
                deny.insert(tool.clone(), r.to_owned());
            }
            _ => {
                return Err(
                    "every deny reason must be a non-empty string outside the reserved namespaces"
                        .into(),
                )
            }
        }
    }
    Ok(Arc::new(ToolDenyList::new(deny)))
}

/// Read a `ctk.scripted` binding's `config`: an object whose member
/// `script` is an unsigned JSON integer below `scripts`, the number of
/// interceptor scripts the vector has. Other members are ignored, as the
/// kit defines the kind, so a document written for another kit's registry
/// loads here too; a missing, non-integer, negative or out-of-range
/// `script` refuses the binding (`binding_rejected`). The error never
/// echoes `config`.
pub fn ctk_script_index(config: &Value, scripts: usize) -> Result<usize, String> {
    let script = config
        .as_object()
        .ok_or("config must be an object with the member script")?
        .get("script")
        .ok_or("config.script is required: the index of one of the vector's interceptor scripts")?;
    let index = script
        .as_u64()
        .ok_or("config.script must be an unsigned JSON integer")?;
    usize::try_from(index)
        .ok()
        .filter(|i| *i < scripts)
        .ok_or_else(|| "config.script names no interceptor script of this vector".to_owned())
}

/// The `ctk.scripted` kind resolver over `scripts` interceptor scripts:
/// [`ctk_script_index`] reads the binding's config, and `build` makes the
/// interceptor that answers as script `i`.
pub fn ctk_scripted_kind<B>(scripts: usize, build: B) -> Arc<dyn KindResolver>
where
    B: Fn(usize) -> Arc<dyn Interceptor> + Send + Sync + 'static,
{
    Arc::new(
        move |config: &Value, _binding: &BindingContext| -> Result<Arc<dyn Interceptor>, String> {
            ctk_script_index(config, scripts).map(&build)
        },
    )
}

/// `registry` with the reference host's two kinds registered.
pub fn with_reference_kinds(registry: HostRegistry) -> Result<HostRegistry, HostRegistryError> {
    registry
        .kind(ALLOW_ALL, Arc::new(resolve_allow_all))?
        .kind(TOOL_DENY_LIST, Arc::new(resolve_tool_deny_list))
}

//! Host identity, as the handshake reports it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who a host is and what it says of itself.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct HostInfo {
    /// Product or framework name.
    pub name: String,
    /// Adapter version, as the host reports it.
    pub version: String,
    /// Wire strings of the spec versions the host can emit, for example
    /// `agent-hooks/0.1`.
    pub spec_versions: Vec<String>,
    /// The host's own declaration document, stating its surface; `None` when
    /// the host leaves the surface to `ctk run --declaration`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declaration: Option<Value>,
    /// The adapter features the host implements ([`crate::features`]), by
    /// name. Empty (or absent on the wire) is a base `ctk-harness/1`
    /// adapter: every vector needing a feature is skipped, naming it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub features: Vec<String>,
}

impl HostInfo {
    /// A host identity with no declaration of its own.
    pub fn new(
        name: impl Into<String>,
        version: impl Into<String>,
        spec_versions: Vec<String>,
    ) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            spec_versions,
            declaration: None,
            features: Vec::new(),
        }
    }

    /// The same identity, announcing `features`.
    #[must_use]
    pub fn with_features(mut self, features: Vec<String>) -> Self {
        self.features = features;
        self
    }

    /// The same identity, carrying the host's declaration document.
    #[must_use]
    pub fn with_declaration(mut self, declaration: Value) -> Self {
        self.declaration = Some(declaration);
        self
    }
}

//! The builder path (§7.7.7): a document written in code, one setter per
//! member and one call per binding. Its value goes through the same loader
//! as a file ([`crate::declaration::Loader::load_builder`]), so it can be
//! refused exactly like one.

use serde_json::{Map, Value};

/// One binding, as written in code.
#[derive(Debug, Clone, PartialEq)]
pub struct BindingBuilder {
    member: Map<String, Value>,
}

impl BindingBuilder {
    /// A binding `id` of `kind`.
    pub fn new(id: &str, kind: &str) -> BindingBuilder {
        let mut member = Map::new();
        member.insert("id".into(), Value::String(id.into()));
        member.insert("kind".into(), Value::String(kind.into()));
        BindingBuilder { member }
    }

    /// Its kind-specific configuration.
    #[must_use]
    pub fn config(mut self, config: Value) -> Self {
        self.member.insert("config".into(), config);
        self
    }

    /// The points it is bound at.
    #[must_use]
    pub fn at(mut self, points: &[&str]) -> Self {
        self.member.insert(
            "at".into(),
            Value::Array(points.iter().map(|p| Value::String((*p).into())).collect()),
        );
        self
    }

    /// Its timeout in milliseconds; `None` writes `null` (unbounded).
    #[must_use]
    pub fn timeout_ms(mut self, ms: Option<u64>) -> Self {
        self.member
            .insert("timeout_ms".into(), ms.map_or(Value::Null, Value::from));
        self
    }

    /// Its failure posture, `deny` or `continue` (declaration 1.1 only).
    #[must_use]
    pub fn on_error(mut self, posture: &str) -> Self {
        self.member
            .insert("on_error".into(), Value::String(posture.into()));
        self
    }
}

/// A declaration document written in code. Setters write members verbatim;
/// nothing is checked until the loader runs.
#[derive(Debug, Clone, PartialEq)]
pub struct DeclarationBuilder {
    root: Map<String, Value>,
    bindings: Option<Vec<Value>>,
}

impl DeclarationBuilder {
    /// A document of contract `version` written for `spec` (both required).
    pub fn new(version: &str, spec: &str) -> DeclarationBuilder {
        let mut root = Map::new();
        root.insert("declaration".into(), Value::String(version.into()));
        root.insert("spec".into(), Value::String(spec.into()));
        DeclarationBuilder {
            root,
            bindings: None,
        }
    }

    fn set(mut self, key: &str, value: Value) -> Self {
        self.root.insert(key.into(), value);
        self
    }

    fn config(mut self, key: &str, value: Value) -> Self {
        let c = self
            .root
            .entry("configuration")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = c {
            m.insert(key.into(), value);
        }
        self
    }

    /// `id`, the log label.
    #[must_use]
    pub fn id(self, id: &str) -> Self {
        self.set("id", Value::String(id.into()))
    }

    /// `host`.
    #[must_use]
    pub fn host(self, host: Value) -> Self {
        self.set("host", host)
    }

    /// `configuration.mode`.
    #[must_use]
    pub fn mode(self, mode: &str) -> Self {
        self.config("mode", Value::String(mode.into()))
    }

    /// `configuration.composition`.
    #[must_use]
    pub fn composition(self, composition: Value) -> Self {
        self.config("composition", composition)
    }

    /// `configuration.identity_provider`; `None` writes `null`.
    #[must_use]
    pub fn identity_provider(self, name: Option<&str>) -> Self {
        self.config(
            "identity_provider",
            name.map_or(Value::Null, |n| Value::String(n.into())),
        )
    }

    /// `configuration.approval`.
    #[must_use]
    pub fn approval(self, approval: Value) -> Self {
        self.config("approval", approval)
    }

    /// `configuration.posture`.
    #[must_use]
    pub fn posture(self, posture: Value) -> Self {
        self.config("posture", posture)
    }

    /// `configuration.timeouts`.
    #[must_use]
    pub fn timeouts(self, timeouts: Value) -> Self {
        self.config("timeouts", timeouts)
    }

    /// `configuration.records`.
    #[must_use]
    pub fn records(self, records: Value) -> Self {
        self.config("records", records)
    }

    /// `surface`.
    #[must_use]
    pub fn surface(self, surface: Value) -> Self {
        self.set("surface", surface)
    }

    /// `extensions`.
    #[must_use]
    pub fn extensions(self, extensions: Value) -> Self {
        self.set("extensions", extensions)
    }

    /// Append one binding (array order is dispatch order).
    #[must_use]
    pub fn binding(mut self, binding: BindingBuilder) -> Self {
        self.bindings
            .get_or_insert_with(Vec::new)
            .push(Value::Object(binding.member));
        self
    }

    /// Write `bindings: []`: a host that denies every emission.
    #[must_use]
    pub fn no_bindings(mut self) -> Self {
        self.bindings.get_or_insert_with(Vec::new);
        self
    }

    /// The document as a value; `bindings` is written once a binding was
    /// added or [`DeclarationBuilder::no_bindings`] was called.
    pub fn to_value(&self) -> Value {
        let mut root = self.root.clone();
        if let Some(bindings) = &self.bindings {
            root.insert("bindings".into(), Value::Array(bindings.clone()));
        }
        Value::Object(root)
    }

    /// A builder that reproduces `document` member by member, through the
    /// setters (used to prove the builder path against any document; a
    /// member the builder has no setter for is carried verbatim so that the
    /// loader can refuse it exactly as the other paths do).
    pub fn from_document(document: &Value) -> DeclarationBuilder {
        let mut b = DeclarationBuilder {
            root: Map::new(),
            bindings: None,
        };
        let Some(obj) = document.as_object() else {
            return b;
        };
        for (key, value) in obj {
            b = match key.as_str() {
                "bindings" => match value.as_array() {
                    Some(items) => {
                        b.bindings = Some(items.clone());
                        b
                    }
                    None => b.set(key, value.clone()),
                },
                _ => b.set(key, value.clone()),
            };
        }
        b
    }
}

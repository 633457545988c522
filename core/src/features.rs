//! Adapter features: what each adapter contract added after its base, as
//! data.
//!
//! An adapter contract (`ctk-harness/1`, `ctk-ahp-adapter/1`) grows only by
//! named features, the way test262 marks tests with the `features` they
//! need: every addition after the contract's first release (its *base*) is a
//! feature with the ctk version that added it. An adapter announces the
//! features it implements in its handshake, each vector lists the features
//! it needs, and a vector needing one the adapter lacks is skipped with a
//! reason naming the feature, never failed. Each contract keeps its catalog
//! beside its protocol document (`agent-hooks/adapter/features.json`,
//! `ahp/adapter/features.json`, schema `schemas/adapter-features.schema.json`);
//! this module reads one and answers the questions a run asks of it.

use std::collections::BTreeSet;

use serde::Deserialize;

/// One feature of an adapter contract.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Feature {
    /// The name adapters announce and vectors list (`persisted-state`).
    pub name: String,
    /// The ctk version that added it (`0.2.0`).
    pub added_in: String,
    /// What an adapter that implements it does, in one sentence.
    pub summary: String,
    /// Where the contract describes it (`PROTOCOL.md §2.2`).
    pub documented_in: String,
    /// A capability whose presence makes the feature unnecessary: the
    /// feature is needed only by an adapter whose declared surface lacks it
    /// (HOSTS.md §4.6's agent steps matter only to a host without
    /// `model_calls`). `None`: needed whatever the surface.
    #[serde(default)]
    pub only_without_capability: Option<String>,
    /// The feature only saves time (fewer round trips): no vector needs it,
    /// and an adapter without it is judged on every vector as one with it.
    #[serde(default)]
    pub efficiency_only: bool,
}

/// A contract's catalog of features.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureCatalog {
    /// The `$schema` reference, ignored.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// The contract the catalog belongs to (`ctk-harness/1`).
    pub contract: String,
    /// The release that is the contract's base, and what it was.
    pub base: String,
    /// Every feature added since the base, oldest first.
    pub features: Vec<Feature>,
}

impl FeatureCatalog {
    /// Parse a catalog, refusing a repeated or malformed feature name.
    pub fn parse(text: &str) -> Result<Self, String> {
        let catalog: FeatureCatalog =
            serde_json::from_str(text).map_err(|e| format!("feature catalog: {e}"))?;
        let mut seen = BTreeSet::new();
        for (i, f) in catalog.features.iter().enumerate() {
            if !is_feature_name(&f.name) {
                return Err(format!(
                    "feature catalog of {}: /features/{i}/name {:?} is not lower-case words joined by '-'",
                    catalog.contract, f.name
                ));
            }
            if !seen.insert(f.name.as_str()) {
                return Err(format!(
                    "feature catalog of {}: /features/{i}/name {:?} is listed twice",
                    catalog.contract, f.name
                ));
            }
        }
        Ok(catalog)
    }

    /// The feature named `name`.
    pub fn get(&self, name: &str) -> Option<&Feature> {
        self.features.iter().find(|f| f.name == name)
    }

    /// Every feature's name, oldest first: what a complete adapter announces.
    pub fn names(&self) -> Vec<String> {
        self.features.iter().map(|f| f.name.clone()).collect()
    }

    /// The names in `announced` this catalog does not know, in order: an
    /// adapter announcing one is warned, and the name is otherwise ignored.
    pub fn unknown<'a>(&self, announced: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
        announced
            .into_iter()
            .filter(|name| self.get(name).is_none())
            .collect()
    }

    /// The first feature in `needed` that an adapter announcing `announced`
    /// lacks, given the capabilities its surface declares (a feature with
    /// [`Feature::only_without_capability`] is not needed where that
    /// capability is declared). Names the catalog does not know are passed
    /// over: the vector lint refuses them before a run.
    pub fn first_missing<'c>(
        &'c self,
        needed: &[String],
        announced: &BTreeSet<String>,
        has_capability: impl Fn(&str) -> bool,
    ) -> Option<&'c Feature> {
        needed
            .iter()
            .filter_map(|name| self.get(name))
            .filter(|f| {
                f.only_without_capability
                    .as_deref()
                    .is_none_or(|c| !has_capability(c))
            })
            .find(|f| !announced.contains(&f.name))
    }
}

impl Feature {
    /// The reason a vector needing this feature is skipped.
    pub fn skip_reason(&self) -> String {
        format!(
            "adapter does not implement {} (added in ctk {})",
            self.name, self.added_in
        )
    }
}

/// Whether `name` has a feature name's form: lower-case ASCII words of
/// letters and digits joined by single hyphens.
pub fn is_feature_name(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = r#"{
        "contract": "ctk-test/1",
        "base": "ctk 0.1.0",
        "features": [
            {"name": "alpha", "added_in": "0.2.0", "summary": "a", "documented_in": "X §1"},
            {"name": "beta-two", "added_in": "0.3.0", "summary": "b", "documented_in": "X §2",
             "only_without_capability": "model_calls"}
        ]
    }"#;

    fn set(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|n| (*n).to_owned()).collect()
    }

    #[test]
    fn a_vector_needing_a_feature_the_adapter_lacks_names_it_and_its_version() {
        let c = FeatureCatalog::parse(CATALOG).unwrap();
        let needed = vec!["alpha".to_owned()];
        let missing = c.first_missing(&needed, &set(&[]), |_| false).unwrap();
        assert_eq!(
            missing.skip_reason(),
            "adapter does not implement alpha (added in ctk 0.2.0)"
        );
        assert!(c
            .first_missing(&needed, &set(&["alpha"]), |_| false)
            .is_none());
    }

    #[test]
    fn a_feature_only_without_a_capability_is_not_needed_where_it_is_declared() {
        let c = FeatureCatalog::parse(CATALOG).unwrap();
        let needed = vec!["beta-two".to_owned()];
        assert!(c
            .first_missing(&needed, &set(&[]), |cap| cap == "model_calls")
            .is_none());
        assert_eq!(
            c.first_missing(&needed, &set(&[]), |_| false)
                .map(|f| f.name.as_str()),
            Some("beta-two")
        );
    }

    #[test]
    fn unknown_announced_names_are_listed_in_order() {
        let c = FeatureCatalog::parse(CATALOG).unwrap();
        assert_eq!(c.unknown(["zeta", "alpha", "Alpha"]), vec!["zeta", "Alpha"]);
        assert_eq!(c.names(), vec!["alpha", "beta-two"]);
    }

    #[test]
    fn a_catalog_with_a_repeated_or_malformed_name_is_refused_naming_its_pointer() {
        let twice = CATALOG.replace("\"beta-two\"", "\"alpha\"");
        let e = FeatureCatalog::parse(&twice).unwrap_err();
        assert!(e.contains("/features/1/name") && e.contains("twice"), "{e}");
        let bad = CATALOG.replace("\"beta-two\"", "\"Beta_two\"");
        let e = FeatureCatalog::parse(&bad).unwrap_err();
        assert!(e.contains("/features/1/name"), "{e}");
        assert!(FeatureCatalog::parse("{}").is_err());
    }

    #[test]
    fn feature_names_are_hyphenated_lower_case_words() {
        for ok in ["a", "deep-lines", "v2-thing"] {
            assert!(is_feature_name(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a--b", "A", "a_b", "a b"] {
            assert!(!is_feature_name(bad), "{bad}");
        }
    }
}

//! Which vectors apply to a declared [`Surface`]; every skip names its reason.
//!
//! Rules, in order (the first that fails decides the reason):
//! 1. spec version: the vector's `spec_versions` holds the run's spec;
//! 2. capabilities: each needed capability is declared (`buffered_output`
//!    means the surface buffers; `host_declaration` is needed by every vector
//!    carrying `host_declaration`, `host_declaration_text` or
//!    `host_declaration_file`);
//! 3. buffered output: an `incremental_output` vector needs `buffered_output: false`;
//! 4. interception points: every point the vector's expectations name is emitted;
//! 5. profile and knob: the vector's profile is declared with its resolved
//!    knob value (an absent knob member supports the default value only);
//! 6. identity provider: a `jcs-sha256` vector needs the declared provider
//!    `jcs-sha256`; a `null` vector needs `jcs-sha256` or `null`; a `ctk-fault`
//!    vector needs a non-null provider;
//! 7. posture: a vector with `run_outcome_by_posture` must name an outcome for
//!    the declared posture;
//! 8. adapter features: the host's adapter announced every feature in the
//!    vector's `adapter_features` (a feature needed only without a capability
//!    is not needed where the surface declares it). Last, so that a vector the
//!    surface rules out anyway is skipped for that, and only a vector the
//!    host would otherwise run is a feature skip, which refuses a claim.

use std::collections::BTreeSet;

use ctk_agent_hooks_adapter::{Knob, OnApproval, Profile};

use crate::declaration::Surface;
use crate::vector::model::{SpecVersion, Vector};

/// Whether a vector runs, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Applicability {
    /// The vector runs.
    Applies,
    /// The vector is skipped for this reason.
    Skip(String),
    /// The vector would run, but the host's adapter lacks `feature`, which it
    /// needs; `reason` is the skip reason naming it and its version.
    LacksFeature {
        /// The missing feature's name.
        feature: String,
        /// `adapter does not implement FEATURE (added in ctk X)`.
        reason: String,
    },
}

fn knob_value(vector: &Vector) -> Option<(&'static str, &'static str)> {
    let c = vector.composition();
    let knob = |k: Option<Knob>| match k.unwrap_or_default() {
        Knob::Deny => "deny",
        Knob::Approval => "approval",
    };
    match c.profile {
        Profile::SequentialFirstDeny => Some((
            "on_approval",
            match c.on_approval.unwrap_or_default() {
                OnApproval::Stop => "stop",
                OnApproval::Resume => "resume",
            },
        )),
        Profile::SequentialRunAll => None,
        Profile::ParallelStrictest => {
            Some(("on_transform_conflict", knob(c.on_transform_conflict)))
        }
        Profile::ParallelUnanimous => Some(("on_disagreement", knob(c.on_disagreement))),
    }
}

/// Refusal classes a loader reports before it compares the document with
/// the host's code (§7.7.6 steps 1-7). A vector expecting one of them holds
/// whatever the document asks for; `surface_unsupported` itself (step 8)
/// holds too, because a host that lacks what the document asks must refuse
/// with exactly that class.
const REFUSED_BEFORE_STEP_9: [&str; 8] = [
    "declaration_error:unreadable",
    "declaration_error:malformed",
    "declaration_error:version_unsupported",
    "declaration_error:spec_unsupported",
    "declaration_error:unknown_field",
    "declaration_error:invalid_field",
    "declaration_error:inconsistent",
    "declaration_error:surface_unsupported",
];

/// Why a declaration vector cannot hold on this surface: its document asks
/// for a profile, knob value, point, capability or posture the host does
/// not declare (declaration versions depend on the run's line, which the
/// surface does not record, so they never skip a vector), so a conformant host must refuse it
/// as `surface_unsupported` (step 8), while the vector expects it to load or
/// to fail at a later step. `None`: the vector applies.
fn declaration_beyond_surface(vector: &Vector, surface: &Surface) -> Option<String> {
    let expected = vector.expect.load.as_ref();
    let refused_by_step_8 = expected
        .filter(|l| l.outcome == "refused")
        .and_then(|l| l.class.as_deref())
        .is_some_and(|class| REFUSED_BEFORE_STEP_9.contains(&class));
    if refused_by_step_8 {
        return None;
    }
    let parsed;
    let document = match (&vector.host_declaration, &vector.host_declaration_text) {
        (Some(doc), _) => doc,
        (None, Some(text)) => {
            parsed = serde_json::from_str::<serde_json::Value>(text).ok()?;
            &parsed
        }
        (None, None) => return None,
    };
    let (pointer, detail) = crate::declaration::beyond_the_code(document, surface)
        .into_iter()
        .next()?;
    Some(format!(
        "the vector's declaration asks for what the host does not declare: {detail} (at {pointer})"
    ))
}

/// Decide whether `vector` applies to `surface` in a run of `spec`.
pub fn applicability(vector: &Vector, surface: &Surface, spec: SpecVersion) -> Applicability {
    let versions = vector.spec_versions();
    if !versions.contains(&spec) {
        let names: Vec<_> = versions.iter().map(|v| v.as_str()).collect();
        return Applicability::Skip(format!(
            "vector is for spec {names:?}, the run targets {}",
            spec.as_str()
        ));
    }
    if let Some(posture) = vector.host_posture.as_deref() {
        if posture != surface.posture.as_str() {
            return Applicability::Skip(format!(
                "the vector is for hosts implementing posture {posture}; this one declares {}",
                surface.posture.as_str()
            ));
        }
    }
    if vector.host_buffers_only && surface.own_buffered_output != Some(true) {
        return Applicability::Skip(match surface.own_buffered_output {
            Some(_) => "the vector is for hosts whose code only buffers output; this host's own \
                        declaration states buffered_output: false"
                .into(),
            None => "the vector is for hosts whose code only buffers output, which only the \
                     host's own declaration (initialize) can say, and this host sends none"
                .into(),
        });
    }
    let mut needed: BTreeSet<&str> = vector.capabilities.iter().map(String::as_str).collect();
    if vector.is_declaration() {
        needed.insert("host_declaration");
    }
    let missing: Vec<&str> = needed
        .iter()
        .copied()
        .filter(|c| {
            if *c == "buffered_output" {
                !surface.buffered_output
            } else {
                !surface.capabilities.contains(*c)
            }
        })
        .collect();
    if !missing.is_empty() {
        return Applicability::Skip(format!("missing capabilities {missing:?}"));
    }
    if needed.contains("incremental_output") && surface.buffered_output {
        return Applicability::Skip("the host buffers output (buffered_output: true)".into());
    }
    let mut points: BTreeSet<&str> = BTreeSet::new();
    for i in vector.expect.interceptions.iter().flatten() {
        points.insert(&i.interception_point);
    }
    for r in vector.expect.records.iter().flatten() {
        points.insert(&r.interception_point);
    }
    let absent: Vec<&str> = points
        .into_iter()
        .filter(|p| !surface.interception_points.contains(*p))
        .collect();
    if !absent.is_empty() {
        return Applicability::Skip(format!("the surface omits interception points {absent:?}"));
    }
    if let Some(reason) = declaration_beyond_surface(vector, surface) {
        return Applicability::Skip(reason);
    }
    let profile = vector.composition().profile.as_str();
    if !surface.profiles.contains_key(profile) {
        return Applicability::Skip(format!("profile {profile} is not declared"));
    }
    if let Some((knob, value)) = knob_value(vector) {
        if !surface.supports_knob(profile, knob, value) {
            return Applicability::Skip(format!(
                "profile {profile} does not declare {knob}: {value}"
            ));
        }
    }
    let wanted = vector.identity_provider();
    let declared = surface.identity_provider.as_deref();
    let provider_ok = match wanted.as_deref() {
        Some("jcs-sha256") => declared == Some("jcs-sha256"),
        None => matches!(declared, None | Some("jcs-sha256")),
        Some(_) => declared.is_some(),
    };
    if !provider_ok {
        return Applicability::Skip(format!(
            "vector needs identity provider {}, the host declares {}",
            wanted.as_deref().unwrap_or("null"),
            declared.unwrap_or("null")
        ));
    }
    if let Some(by) = &vector.expect.run_outcome_by_posture {
        if !by.outcomes.contains_key(surface.posture.as_str()) {
            return Applicability::Skip(format!(
                "no expected outcome for posture {}",
                surface.posture.as_str()
            ));
        }
    }
    if let Some(announced) = &surface.adapter_features {
        let catalog = ctk_agent_hooks_adapter::features();
        if let Some(f) = catalog.first_missing(&vector.adapter_features, announced, |c| {
            surface.capabilities.contains(c)
        }) {
            return Applicability::LacksFeature {
                feature: f.name.clone(),
                reason: f.skip_reason(),
            };
        }
    }
    Applicability::Applies
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::declaration;
    use std::path::Path;

    fn vector(extra: &str) -> Vector {
        let text = format!(
            r#"{{"id":"AH-CTK-900","title":"t","spec_clause":"1","scenario":{{"input":{{"content":"x","role":"user"}}}},
            "interceptor_script":[],"expect":{{"interceptions":[{{"interception_point":"pre_tool_call"}}],"run_outcome":"completed"}}{extra}}}"#
        );
        crate::vector::load::parse_vector(Path::new("v.json"), &text)
            .expect("vector")
            .vector
    }

    fn reference() -> Surface {
        declaration::surface(
            &serde_json::from_str(ctk_agent_hooks_reference_host::HOST_DECLARATION).expect("json"),
        )
    }

    fn minimal() -> Surface {
        declaration::surface(
            &serde_json::json!({"declaration": "agent-hooks-declaration/1.0", "bindings": []}),
        )
    }

    fn skip(v: &Vector, s: &Surface) -> String {
        match applicability(v, s, SpecVersion::V0_1) {
            Applicability::Skip(reason) | Applicability::LacksFeature { reason, .. } => reason,
            Applicability::Applies => String::from("applies"),
        }
    }

    #[test]
    fn reference_surface_runs_everything() {
        assert_eq!(
            skip(
                &vector(r#","capabilities":["model_calls","incremental_output"]"#),
                &reference()
            ),
            "applies"
        );
        assert_eq!(
            skip(&vector(r#","identity_provider":null"#), &reference()),
            "applies"
        );
        assert_eq!(
            skip(&vector(r#","identity_provider":"ctk-fault""#), &reference()),
            "applies"
        );
    }

    #[test]
    fn every_skip_names_its_reason() {
        assert_eq!(
            skip(&vector(r#","spec_versions":["draft"]"#), &reference()),
            r#"vector is for spec ["draft"], the run targets 0.1"#
        );
        assert_eq!(
            skip(&vector(r#","capabilities":["bigint_json"]"#), &minimal()),
            r#"missing capabilities ["bigint_json"]"#
        );
        assert_eq!(
            skip(&vector(""), &minimal()),
            r#"the surface omits interception points ["pre_tool_call"]"#
        );
        let mut s = reference();
        s.profiles.remove("parallel/strictest");
        assert_eq!(
            skip(
                &vector(r#","composition":{"profile":"parallel/strictest"}"#),
                &s
            ),
            "profile parallel/strictest is not declared"
        );
        s.profiles
            .insert("sequential/first_deny".into(), Default::default());
        assert_eq!(
            skip(
                &vector(
                    r#","composition":{"profile":"sequential/first_deny","on_approval":"resume"}"#
                ),
                &s
            ),
            "profile sequential/first_deny does not declare on_approval: resume"
        );
        s.identity_provider = None;
        assert_eq!(
            skip(&vector(""), &s),
            "vector needs identity provider jcs-sha256, the host declares null"
        );
        assert_eq!(
            skip(&vector(r#","identity_provider":"ctk-fault""#), &s),
            "vector needs identity provider ctk-fault, the host declares null"
        );
        assert_eq!(
            skip(&vector(r#","host_posture":"terminate""#), &reference()),
            "the vector is for hosts implementing posture terminate; this one declares continue"
        );
        assert_eq!(
            skip(&vector(r#","host_posture":"continue""#), &reference()),
            "applies"
        );
        let buffers_only = vector(r#","host_buffers_only":true"#);
        assert!(skip(&buffers_only, &reference()).contains("this host sends none"));
        let mut own = reference();
        own.own_buffered_output = Some(false);
        assert!(skip(&buffers_only, &own).contains("states buffered_output: false"));
        own.own_buffered_output = Some(true);
        assert_eq!(skip(&buffers_only, &own), "applies");
        let mut b = reference();
        b.buffered_output = true;
        assert_eq!(
            skip(&vector(r#","capabilities":["incremental_output"]"#), &b),
            "the host buffers output (buffered_output: true)"
        );
        for member in [
            r#","host_declaration":{}"#,
            r#","host_declaration":[]"#,
            r#","host_declaration_text":"{} {}""#,
            r#","host_declaration_file":"missing""#,
        ] {
            assert_eq!(
                skip(&vector(member), &minimal()),
                r#"missing capabilities ["host_declaration"]"#,
                "{member}"
            );
        }
    }

    /// 3.2-c: a host that omits points declares the reduced surface; vectors
    /// at the omitted points are skipped with the reason, and they only run
    /// once the surface declares the points (with the capability that
    /// produces them).
    #[test]
    fn omitted_point_pair_requires_declared_capability() {
        let tool_vector = vector(r#","capabilities":["tool_calls"]"#);
        let mut s = minimal();
        assert_eq!(
            skip(&tool_vector, &s),
            r#"missing capabilities ["tool_calls"]"#
        );
        s.capabilities.insert("tool_calls".into());
        assert_eq!(
            skip(&tool_vector, &s),
            r#"the surface omits interception points ["pre_tool_call"]"#
        );
        s.interception_points.insert("pre_tool_call".into());
        s.interception_points.insert("post_tool_call".into());
        assert_eq!(skip(&tool_vector, &s), "applies");
    }

    /// 13-d: a vector needing a capability the host does not declare is
    /// skipped with the reason, never failed.
    #[test]
    fn missing_capability_skips_with_reason() {
        for capability in ["bigint_json", "parallel_tool_calls", "host_declaration"] {
            let v = vector(&format!(r#","capabilities":["{capability}"]"#));
            assert_eq!(
                applicability(&v, &minimal(), SpecVersion::V0_1),
                Applicability::Skip(format!("missing capabilities [\"{capability}\"]"))
            );
        }
    }

    fn declaration_vector(load: &str) -> Vector {
        let text = format!(
            r#"{{"id":"CTK-9900","title":"t","spec_clause":"7.7","part":"declaration/load","covers":["7.7.6-a"],
            "capabilities":["host_declaration"],"scenario":{{"input":{{"content":"x","role":"user"}}}},
            "interceptor_script":[],
            "host_declaration":{{"declaration":"agent-hooks-declaration/1.0","spec":"agent-hooks/0.1",
              "configuration":{{"composition":{{"profile":"sequential/run_all"}},"posture":{{"tool_seam_host_error":"continue"}}}},
              "bindings":[]}},
            "expect":{{"load":{load},"interceptions":[],"run_outcome":"completed"}}}}"#
        );
        crate::vector::load::parse_vector(Path::new("v.json"), &text)
            .expect("vector")
            .vector
    }

    #[test]
    fn a_declaration_vector_skips_when_its_document_asks_beyond_the_surface() {
        let mut lacking = reference();
        lacking.profiles.remove("sequential/run_all");
        let accepted = declaration_vector(r#"{"outcome":"accepted"}"#);
        assert_eq!(skip(&accepted, &reference()), "applies");
        // A conformant host lacking run_all must refuse this document as
        // surface_unsupported, so a vector expecting it to load cannot hold.
        assert_eq!(
            skip(&accepted, &lacking),
            "the vector's declaration asks for what the host does not declare: \
             the host lacks profile \"sequential/run_all\" (at /configuration/composition/profile)"
        );
        // A refusal the loader reaches before it compares with the code
        // holds whatever the document asks for.
        let early = declaration_vector(
            r#"{"outcome":"refused","class":"declaration_error:invalid_field"}"#,
        );
        assert_eq!(skip(&early, &lacking), "applies");
        // A later step is never reached on such a host.
        let late = declaration_vector(
            r#"{"outcome":"refused","class":"declaration_error:binding_rejected"}"#,
        );
        assert!(skip(&late, &lacking).contains("does not declare"));
        // A stated posture the host does not implement is beyond it too.
        let mut terminate = reference();
        terminate.posture = crate::declaration::Posture::Terminate;
        assert!(
            skip(&accepted, &terminate).contains("posture"),
            "{}",
            skip(&accepted, &terminate)
        );
    }
}

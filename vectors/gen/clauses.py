"""The agent-hooks/0.1 clause catalog, as data.

Each entry: (id, keyword, section, text[, not_vector_testable, unit_tests]). unit_tests go with
not_vector_testable; a clause that vectors came to cover keeps the unit tests that pinned it.
Ids are stable: `<section>-<letter>`. Never renumber; retire by marking, never reuse.

unit_tests name real tests as `<repo-relative file path>::<test fn name>`, e.g.
`reference-host/src/context/envelope.rs::conditional_members_must_keep_their_types`; check.py verifies that
each named file contains `fn <name>(`. An empty list means no test pins the clause yet (check.py lists them).
"""

C = []


def c(cid, kw, text, nvt=None, tests=None):
    section = cid.rsplit("-", 1)[0]
    entry = {"id": cid, "keyword": kw, "section": section, "text": text}
    if nvt:
        entry["not_vector_testable"] = nvt
        entry["unit_tests"] = tests or []
    elif tests:
        # a clause vectors now cover keeps the unit tests that pinned it
        entry["unit_tests"] = tests
    C.append(entry)


# §3 interception points
c("3-a", "MUST", "A host emits only the eight defined interception point values and no other value.")
c("3-b", "MUST", "The agent_startup point is emitted exactly once per session, before the session's first input.")
c("3-c", "MUST", "The input point is emitted for every external request that enters the session.")
c("3-d", "MUST", "The pre_model_call point is emitted immediately before every model request and post_model_call immediately after every model response.")
c("3-e", "MUST", "The pre_tool_call point is emitted before every tool invocation and post_tool_call after the invocation finishes, whether the tool succeeded or reported an error.")
c("3-f", "MUST", "The output point is emitted before the final response is handed to the caller.")
c("3-g", "MUST", "The agent_shutdown point is emitted exactly once when the session ends, including an end caused by a block or an error.")
c("3.1-a", "MUST", "agent_startup is the first emission of a session.")
c("3.1-b", "MUST", "agent_shutdown is the last emission of a session.")
c("3.1-c", "MUST", "Every input emission precedes the model, tool and output emissions it causes.")
c("3.1-d", "MUST", "Every pre_model_call is followed by exactly one post_model_call for that request unless the combined verdict blocked the call.")
c("3.1-e", "MUST", "Every pre_tool_call is followed by exactly one post_tool_call carrying the same tool_call.id unless the combined verdict blocked the call.")
c("3.1-f", "MUST", "The sequence value strictly increases across all emissions of one session.")
c("3.1-g", "SHOULD", "A host that issues concurrent model calls sets request_id so that each post_model_call can be paired with its pre_model_call.",
  "the CTK mock model answers one request at a time",
  ["reference-host/tests/integration/agent_loop.rs::model_calls_carry_a_pairing_request_id"])
c("3.1-h", "MAY", "A session may contain several input-to-output cycles between one agent_startup and one agent_shutdown.")
c("3.2-a", "MAY", "A host that makes no model calls may omit both model points.")
c("3.2-b", "MAY", "A host that calls no tools may omit both tool points.")
c("3.2-c", "MUST", "A host that omits points declares the reduced surface to the CTK.",
  "a statement of the declared surface, checked by the runner's surface filter rather than by a run",
  ["agent-hooks-suite/src/surface.rs::every_skip_names_its_reason",
   "agent-hooks-suite/src/declaration.rs::minimal_document_takes_conservative_defaults",
   "reference-host/tests/integration/harness.rs::info_names_both_versions_and_the_declaration"])
c("3.2-d", "MUST", "Whatever its capabilities, a host always emits agent_startup, input, output and agent_shutdown.")
c("3.2-e", "MUST", "Points are omitted only in pairs: both model points or both tool points.")

# §4 agent context
c("4.1-a", "MUST", "Every context carries spec, a string of the form agent-hooks/<major>.<minor>.")
c("4.1-b", "MUST", "Every context carries interception_point naming the point that emits it.")
c("4.1-c", "MUST", "Every context carries timestamp, the RFC 3339 UTC instant at which it was built.")
c("4.1-d", "MUST", "Every context carries an integer sequence that is 0 at agent_startup.")
c("4.1-e", "MUST", "Every context carries agent.id, stable for the agent definition, and agent.framework matching [a-z0-9_-]+.")
c("4.1-f", "MUST", "Every context carries session.id, unchanged for the whole session.")
c("4.1-g", "MUST", "Every context carries target, the point's transformable value.")
c("4.2-a", "MUST", "An agent_startup context carries agent_init.tools_registered, an array of tool names.")
c("4.2-b", "MUST", "An input context carries input.content and input.role, the role being user, system or external.")
c("4.2-c", "MUST", "A pre_model_call context carries model.id and messages.")
c("4.2-d", "MUST", "A post_model_call context carries model.id and response with content, tool_calls and finish_reason; tool_calls is present and empty when the model requested no tool.")
c("4.2-e", "MUST", "A pre_tool_call context carries tool_call with id, name and an object args.")
c("4.2-f", "MUST", "A post_tool_call context carries tool_call, whose args are the arguments actually sent, and tool_result with value and is_error.")
c("4.2-g", "MUST", "An output context carries output.content.")
c("4.2-h", "MUST", "An agent_shutdown context carries summary.reason, one of completed, error or cancelled.")
c("4.3-a", "MUST", "The target of each point is the value its table names: agent_init, input, messages, response, tool_call.args, tool_result.value, output, summary.")
c("4.3-b", "MUST", "A transform applied to target is the value the following action uses, and the aliased conditional field reflects it.")
c("4.3-c", "MUST", "A transform at agent_startup or agent_shutdown is refused with host_error:transform_target_forbidden.")
c("4.3-d", "MUST", "A transform whose path points inside target replaces that location only.")
c("4.3-e", "MUST", "What a transform leaves in target is what the following action uses, and every later emission built from it still goes through the section 4 envelope check (presence and JSON type) before dispatch: no interceptor receives a context that fails that check.")
c("4.4-a", "MUST", "NaN and the infinities never appear in a context; a host refuses them with host_error:context_invalid.",
  "JSON vector files cannot express non-finite numbers",
  ["reference-host/src/context/domain.rs::non_finite_numbers_cannot_reach_a_context"])
c("4.4-b", "MUST", "Strings containing lone surrogates never appear in a context; a host refuses them with host_error:context_invalid.",
  "a lone surrogate does not survive the vector file's JSON parser",
  ["reference-host/src/context/domain.rs::lone_surrogates_cannot_reach_a_context"])
c("4.4-c", "SHOULD", "Integers that can exceed 2^53-1 in magnitude are carried as decimal strings.")
c("4.4-d", "MUST", "Values are never normalized: each is used exactly as supplied or refused.")
c("4.5-a", "MAY", "A host may add the optional well-known fields; their absence is conformant and not gated.")
c("4.6-a", "MUST", "Extension data lives under extensions.<namespace> with a namespace matching ^[a-z][a-z0-9_]*$, and the namespaces acs, ctk and agent_hooks are reserved.",
  "the reference loop adds no extensions and a vector cannot inject one into a context",
  ["reference-host/src/context/envelope.rs::extension_namespaces_follow_the_grammar"])
c("4.6-b", "MUST", "A host passes extensions through verbatim and never interprets a namespace it does not own.",
  "no vector can place foreign extensions into a host-built context",
  ["reference-host/tests/integration/composition.rs::foreign_extensions_pass_verbatim_and_stay_out_of_records"])

# §5 verdict
c("5-a", "MUST", "An interceptor answers with a verdict object whose decision is allow, deny or transform.")
c("5-b", "MUST", "A returned value that is not a JSON object is refused with host_error:verdict_invalid.")
c("5-c", "MUST", "A verdict whose decision is missing or outside allow, deny and transform is refused with host_error:verdict_invalid.")
c("5-d", "MUST", "A verdict whose reason starts with host_error: is refused with host_error:verdict_invalid.")
c("5-e", "MUST", "A verdict carrying transform with a decision other than transform, or a transform decision without transform, is refused with host_error:verdict_invalid.")
c("5-f", "MUST", "A verdict carrying approval with an allow or transform decision is refused with host_error:verdict_invalid.")
c("5-g", "MUST", "A verdict whose warnings is not an array of objects is refused with host_error:verdict_invalid.")
c("5-h", "MUST", "A verdict whose evidence is not an object is refused with host_error:verdict_invalid.")
c("5-i", "MUST", "A verdict whose result_labels is not an array of strings is refused with host_error:verdict_invalid.")
c("5-j", "MUST", "A verdict whose evidence exceeds 10240 bytes of RFC 8785 canonical UTF-8 is refused with host_error:verdict_invalid; evidence within the cap is accepted.")
c("5-k", "MUST", "An interceptor returns a verdict that conforms to the verdict schema: an object closed at every level (nothing beyond the eight members section 5 lists and their own members), a string or null reason and message, no host_error: reason in its warnings either, an object approval and a string transform.path. What the host must refuse is the list in 5-b to 5-j.")
c("5-l", "MUST", "A response envelope {verdict, extensions} is accepted; only the nested verdict is validated and enforced.")
c("5.1-a", "MUST", "An allow lets the action proceed unchanged.")
c("5.1-b", "MUST", "A transform lets the action proceed with the rewritten target.")
c("5.1-c", "MUST", "A deny stops the action.")
c("5.1-d", "MUST", "A deny carrying approval blocks unless the approval seam, consulted as the profile directs, resolves it to a permit.")
c("5.1-e", "MUST", "When no resolver is registered a liftable deny stands as a plain deny, with its own reason.")
c("5.1-f", "MUST", "Warnings never change control flow.")
c("5.1-g", "MUST", "Warnings are recorded.")
c("5.1-h", "MUST", "Severity is fixed: deny, then liftable deny, then transform, then allow.")
c("5.2-a", "MUST", "A transform path follows the path grammar: a root, then .name, [index] or [\"name\"] segments, and nothing else.")
c("5.2-b", "MUST", "The deprecated root $policy_target is accepted and means $target.")
c("5.2-c", "MUST", "A transform path resolves against the context's target and the replacement changes nothing else.")
c("5.2-d", "MUST", "The bare path $target replaces the whole target.")
c("5.2-e", "MUST", "A path not rooted at $target is refused; the emission is denied.")
c("5.2-f", "MUST", "A path that does not resolve, or meets a value of the wrong type, is refused with host_error:transform_invalid.")
c("5.2-g", "MUST", "A transform with no value sets the addressed location to null.")
c("5.2-h", "MUST", "In evaluate_only a transform is checked exactly as in enforce but not applied.")
c("5.3-a", "MUST", "The host never dereferences evidence.verification_pointers.",
  "vectors cannot observe outbound network access",
  ["reference-host/tests/integration/composition.rs::evidence_pointers_are_never_dereferenced"])
c("5.3-b", "MUST", "Evidence passes to the record unchanged.")
c("5.4-a", "MUST", "Result labels of a permitted action are persisted with the data the point produced.")
c("5.4-b", "MUST", "Result labels are not persisted for an action that did not proceed.")
c("5.4-c", "SHOULD", "Persisted labels resurface later under extensions.<namespace>.source_labels.")

# §6 host obligations
c("6-a", "MUST", "In enforce mode the host acts on the combined verdict at every point as section 6 prescribes.")
c("6.1-a", "MUST", "After a blocked agent_startup no input, model, tool or output point follows, and agent_shutdown is still emitted with summary.reason error.")
c("6.1-b", "MUST", "After a blocked input the turn does not begin: no model, tool or output point follows it.")
c("6.1-c", "MUST", "A blocked pre_model_call sends nothing to the model and is not followed by a post_model_call.")
c("6.1-d", "MUST", "A blocked post_model_call discards the response: it is neither used nor re-requested, and the tools it asked for are not called.")
c("6.1-e", "MUST", "A blocked pre_tool_call does not invoke the tool and is not followed by a post_tool_call.")
c("6.1-f", "MUST", "A blocked post_tool_call discards the tool result: it never reaches later state and the tool is not invoked again.")
c("6.1-g", "MUST", "A blocked output never reaches the caller.")
c("6.1-h", "MUST", "The agent_shutdown verdict is recorded only: nothing is prevented and the approval seam is not consulted there.")
c("6.1-i", "MUST", "A permitted point proceeds with the value the combined verdict left, rewritten or not.")
c("6.1-j", "MUST", "The point obligations apply to the combined verdict, including one produced by an approval resolution.")
c("6.2-a", "MUST", "Under the default tool-seam posture continue, a host_error deny at a tool point is surfaced as a failed tool call and the loop goes on.")
c("6.2-b", "MAY", "A host declaring tool_seam_host_error terminate ends the turn on a host_error deny at a tool point.")
c("6.2-c", "MUST", "A plain policy deny at a tool point is surfaced to the model as a failed call and the loop goes on, whatever the posture.")
c("6.3-a", "MUST", "A context that fails the section 4 envelope check is denied with host_error:context_invalid and no interceptor is called.",
  "only caller input that breaks the section 4.2 types (input.content 42) reaches it from a vector, and whether a host must build and refuse that context or may reject the request before emitting is open (vectors/DECISIONS-PENDING.md P-10)",
  ["reference-host/tests/integration/reserved_reasons.rs::context_invalid_when_the_envelope_fails_and_nothing_is_dispatched",
   "reference-host/src/context/envelope.rs::each_required_member_is_checked"])
c("6.3-b", "MUST", "An interceptor that raises is replaced by a deny with host_error:interceptor_failed.")
c("6.3-c", "MUST", "An interceptor that exceeds the host timeout is replaced by a deny with host_error:interceptor_timeout.")
c("6.3-d", "MUST", "A returned value that fails section 5 is replaced by a deny with host_error:verdict_invalid.")
c("6.3-e", "MUST", "A substituted failure deny takes the failing interceptor's slot in verdicts and in decided_by.")
c("6.3-f", "MUST", "Under sequential/run_all and the parallel profiles the other interceptors still run after one fails.")
c("6.3-g", "MUST", "Under sequential/first_deny a failure ends the fold like any deny.")
c("6.3-h", "MUST", "A host-synthesized message never contains content derived from the target.",
  "record assertions compare whole values and cannot search the message text",
  ["reference-host/tests/integration/composition.rs::host_synthesized_messages_carry_no_payload",
   "reference-host/src/declaration/tests.rs::findings_never_echo_config"])

# §7 composition
c("7-a", "MUST", "Every interceptor returns a verdict; there is no observe-only interceptor.")
c("7-b", "MUST", "The guarded action waits until composition has finished and permitted it.")
c("7-c", "MUST", "Each interceptor works on its own copy of the context; changing it in place affects neither enforcement, identity nor any other interceptor.")
c("7-d", "MUST", "In enforce mode an emission with no interceptor bound at its point is denied with host_error:no_interceptor, whatever the profile.")
c("7-e", "SHOULD", "The interceptor timeout is configurable, 5000 ms by default.")
c("7-f", "MUST", "In evaluate_only an emission with no interceptor bound at its point still gets its record and the action proceeds; the host_error:no_interceptor deny is required in enforce mode only.")
c("7.2-a", "MUST", "Composition is one of the four profiles sequential/first_deny, sequential/run_all, parallel/strictest and parallel/unanimous.")
c("7.2-b", "MUST", "Unset knobs resolve to their fail-closed defaults: on_approval stop, on_transform_conflict deny, on_disagreement deny; no profile means sequential/first_deny.")
c("7.2-c", "MUST", "Every record stamps the profile and the resolved value of each knob it consults; knobs it does not consult are absent.")
c("7.3-a", "MUST", "The winner is the verdict of highest severity; among blocking verdicts of equal severity the lowest index wins.")
c("7.3-b", "MUST", "Under a sequential profile, when transforms tie the last one returned wins.")
c("7.3-c", "MUST", "The combined warnings are the first-seen union over every verdict of the emission, two warnings being equal when reason and message are.")
c("7.3-d", "MUST", "The combined result_labels are the first-seen union over the permitting verdicts only; a combined deny carries none.")
c("7.3-e", "MUST", "Verdicts that lose impose nothing and appear only in the record's verdicts summary.")
c("7.4-a", "MUST", "Sequential profiles call interceptors one after another in registration order.")
c("7.4-b", "MUST", "In enforce mode a sequential transform is applied, with write-back, before the next interceptor runs.")
c("7.4-c", "MUST", "In evaluate_only the later interceptors of a sequential profile see the untransformed context.")
c("7.4-d", "MUST", "A sequential transform that cannot be applied becomes a deny with its host_error reason, ends the fold, and marks fold_truncated when interceptors were skipped.")
c("7.4-e", "MUST", "Under sequential/first_deny the first deny that is not lifted ends the fold and no later interceptor is called.")
c("7.4-f", "MUST", "Under sequential/first_deny with on_approval stop a lifted deny ends the fold and its permit becomes the combined verdict.")
c("7.4-g", "MUST", "Under sequential/first_deny with on_approval resume a lifted deny is replaced by its permit and the fold goes on; a later liftable deny is consulted in its turn.")
c("7.4-h", "MUST", "Under sequential/run_all every interceptor runs whatever the earlier verdicts were.")
c("7.4-i", "MUST", "Under sequential/run_all the seam is consulted at most once, and only when every deny of the emission is liftable.")
c("7.4-j", "MUST", "Under sequential/run_all a permit resolution lifts every deny and the action proceeds with the folded context.")
c("7.4-k", "MUST", "Under sequential/run_all a combined deny discards the folded transforms for enforcement.")
c("7.5-a", "MUST", "Parallel profiles give every interceptor its own copy of the same untransformed snapshot; nothing folds.")
c("7.5-b", "MUST", "Under parallel/strictest the most severe verdict wins; a winning transform returned by exactly one interceptor is applied.")
c("7.5-c", "MUST", "Under parallel/strictest with on_transform_conflict deny, two or more top-severity transforms give a deny with host_error:transform_conflict.")
c("7.5-d", "MUST", "Under parallel/strictest with on_transform_conflict approval, a conflict becomes a synthesized liftable deny that is put to the seam; a permit resolution becomes the combined verdict.")
c("7.5-e", "MUST", "Under parallel/strictest a winning liftable deny is consulted at most once, and transforms that lost are not applied.")
c("7.5-f", "MUST", "Under parallel/unanimous the combined verdict is allow only when every verdict is allow.")
c("7.5-g", "MUST", "Under parallel/unanimous with on_disagreement deny, any deny or transform gives a deny with host_error:composition_disagreement.")
c("7.5-h", "MUST", "Under parallel/unanimous with on_disagreement approval, a disagreement becomes a synthesized liftable deny that is put to the seam.")
c("7.5-i", "MUST", "Under parallel/unanimous an individual liftable deny is never put to the seam on its own.")
c("7.6-a", "MUST", "A permit resolution takes the place of the verdict that triggered the consultation, and the record says resolved_by approval.")
c("7.6-b", "MUST", "decided_by names the consulted interceptor, and is null when the consulted verdict was synthesized by the profile.")

# §7.7 host declaration
c("7.7.1-a", "MUST", "A declaration selects only behaviour the host code has; a document the host cannot honour is refused at load, before any emission.")
c("7.7.1-b", "MUST", "A loader never narrows, over-defaults or partly applies a document.")
c("7.7.2-a", "MUST", "A declaration version that is missing, not a string or not accepted is refused with declaration_error:version_unsupported.")
c("7.7.2-b", "MUST", "Declaration major version 0 is never accepted.")
c("7.7.2-c", "MUST", "A higher minor of an accepted major is refused even when no new member is used.",
  "which minors a loader accepts depends on the host build", ["reference-host/src/declaration/tests.rs::higher_minor_refused"])
c("7.7.2-d", "MUST", "Records of a declaration-built emitter carry the document's own declaration version.")
c("7.7.2-e", "MUST", "A version_unsupported refusal names the loader's accepted set of declaration versions (spec/declaration-errors.json).")
c("7.7.3-a", "MUST", "The members declaration and bindings are required.")
c("7.7.3-b", "MUST", "Every member left out takes the default the specification names.")
c("7.7.3-c", "MUST", "A knob the configured profile does not consult is refused with declaration_error:inconsistent, never silently dropped.")
c("7.7.3-d", "MUST", "Integer members are JSON integers within range; 5000.0 and out-of-range values are refused with declaration_error:invalid_field.")
c("7.7.3-e", "MUST", "A member that breaks a bound is refused, never truncated.",
  None, ["reference-host/src/declaration/tests.rs::oversized_document_refused_not_truncated"])
c("7.7.4-a", "MUST", "A stated surface keeps the four floor points and omits points only in pairs, else declaration_error:inconsistent.")
c("7.7.4-b", "MUST", "incremental_output in a stated surface requires buffered_output false, else declaration_error:inconsistent.")
c("7.7.4-c", "MUST", "A stated surface or configuration that exceeds the host code is refused with declaration_error:surface_unsupported.")
c("7.7.4-d", "MUST", "The configured profile and knob values lie within the stated surface.profiles, and the document's own version within declaration_versions, else declaration_error:inconsistent.")
c("7.7.5-a", "MUST", "Binding ids are unique within a document, else declaration_error:inconsistent.")
c("7.7.5-b", "MUST", "Bindings run in array order, and at a point only the bindings whose at contains that point run.")
c("7.7.5-c", "MUST", "A surface point with no binding is denied with host_error:no_interceptor in enforce mode.")
c("7.7.5-d", "MUST", "A kind resolver that errs or yields no interceptor refuses the document with declaration_error:binding_rejected.")
c("7.7.5-e", "MUST", "A binding at must name points of the surface, else declaration_error:inconsistent.")
c("7.7.6-a", "MUST", "The load steps run in order and the first failing step alone decides the refusal class.")
c("7.7.6-b", "MUST", "A refused document leaves no record and produces no emission.")
c("7.7.6-c", "MUST", "An unknown member at any closed level is refused with declaration_error:unknown_field.")
c("7.7.6-d", "MUST", "A spec member that is not a string, is malformed, names another major or a newer minor is refused with declaration_error:spec_unsupported.")
c("7.7.6-e", "MUST", "A named identity provider, approval resolver or redactor that is not registered is refused with declaration_error:reference_unresolved.")
c("7.7.6-f", "MUST", "A binding kind with no registered resolver is refused with declaration_error:kind_unknown, checked before any resolver runs.")
c("7.7.6-g", "MUST", "A declaration path that is not a readable regular UTF-8 file within 1 MiB is refused with declaration_error:unreadable.",
  None, ["reference-host/src/declaration/tests.rs::unreadable_path_refused"])
c("7.7.6-h", "MUST", "Text that is not one JSON object, or has duplicate keys, trailing content or excessive depth, is refused with declaration_error:malformed.",
  None, ["reference-host/src/declaration/tests.rs::duplicate_key_text_refused_malformed"])
c("7.7.6-i", "MUST", "A wrong type, enum value, pattern, range or required-iff member is refused with declaration_error:invalid_field.")
c("7.7.7-a", "MUST", "The file, text, value and builder paths resolve an equal document to the same resolved form or the same refusal class.")
c("7.7.7-b", "MUST", "A declaration-built emitter is sealed: later registration or reconfiguration is refused.",
  "vectors have no step after construction to attempt it; the reference host holds it by construction, with no method that changes a built emitter (D-44)",
  ["reference-host/src/declaration/tests.rs::declared_emitters_carry_the_declaration_and_code_built_ones_do_not"])
c("7.7.8-a", "MUST", "With bindings, interceptors_registered counts the bindings at the point and verdicts[].name is the binding id; no other declaration content reaches records.")
c("7.7.8-b", "SHOULD", "The loader logs the contract version, document id and document digest once at load, outside the record stream.",
  "the log is outside the record stream, and ctk-harness/1 carries no host log for a vector to read",
  ["reference-host/src/declaration/tests.rs::the_load_is_logged_once_with_version_id_and_digest"])
c("7.7.9-a", "MUST", "A host_declaration host builds its emitter from the CTK document and registry and reports a refusal as a load outcome, never as a run.")

# §8 modes
c("8-a", "MUST", "Every record stamps the mode, enforce or evaluate_only.")
c("8-b", "MUST", "In evaluate_only interceptors run as the profile directs, verdicts are recorded, and every action proceeds as if allowed.")
c("8-c", "MUST", "In evaluate_only no transform is applied.")
c("8-d", "MUST", "In evaluate_only the approval seam is never consulted.")
c("8-e", "MUST", "In evaluate_only a failure is still recorded as its host_error deny while the action proceeds.")
c("8-f", "MAY", "Mode may be selected per session or per point.")
c("8-g", "MUST", "An evaluate_only outcome is never presented to a downstream system as enforcement.",
  "downstream presentation is outside the record stream the runner sees",
  ["reference-host/tests/integration/agent_loop.rs::evaluate_only_records_never_claim_enforcement"])

# §9 approval and redaction
c("9-a", "MUST", "The seam is consulted only when the profile calls for it, only for a liftable deny, and only when a resolver is registered.")
c("9-b", "MUST", "The approval request carries the context identity, the interception point, the liftable deny and the context as presented.")
c("9-c", "MUST", "An approve outcome carries a permit, which then takes the place of the deny.")
c("9-d", "MUST", "A reject outcome carries a deny, which becomes the combined verdict.")
c("9-e", "MUST", "An unresolved outcome gives a deny with host_error:approval_unresolved.")
c("9-f", "MUST", "A resolution whose context_identity is not byte-equal to the request's gives a deny with host_error:approval_identity_mismatch; null echoes null.")
c("9-g", "MUST", "A resolver that raises or times out gives a deny with host_error:approval_resolver_failed.")
c("9-h", "MUST", "A resolution is checked in order: echo, then outcome and verdict presence, then section 5 on the carried verdict, then outcome consistency; the first failure decides.")
c("9-i", "MUST", "A resolution whose verdict is absent on approve or reject, or present on unresolved, gives a deny with host_error:approval_resolver_failed.")
c("9-j", "MUST", "A carried verdict failing section 5 gives a deny with host_error:verdict_invalid.")
c("9-k", "MUST", "An approve carrying a deny, or a reject carrying a permit, gives a deny with host_error:verdict_invalid.")
c("9-l", "MUST", "Every consultation is recorded: resolved_by approval when a permit took effect, rejection for every other end.")
c("9-m", "MUST", "An approved transform that cannot be applied gives a deny with host_error:transform_invalid while resolved_by stays approval.")
c("9-n", "MUST", "The request identity is computed over the context as presented to the seam, after earlier folds and after redaction.")
c("9-o", "MAY", "A host may register a redactor that shapes the context the approver sees.")
c("9-p", "MUST", "Redaction changes only what the approver sees: the action and the record identities use the unredacted context.")
c("9-q", "MUST", "A redactor that raises gives a deny with host_error:approval_resolver_failed.",
  "the CTK redactor overwrites paths and cannot be scripted to fail",
  ["reference-host/tests/integration/reserved_reasons.rs::approval_resolver_failed_when_the_redactor_raises",
   "reference-host/tests/integration/composition.rs::a_panicking_redactor_denies_with_resolver_failed"])
c("9-r", "SHOULD", "A redactor lists the paths it removed under extensions.<host>.redacted.")

# §10 identity and records
c("10.1-a", "MUST", "Without a configured provider the identity provider is jcs-sha256, and every record names its provider.")
c("10.1-b", "MUST", "A custom provider name matches ^[a-z][a-z0-9_-]*$ and does not begin with jcs.",
  "custom providers are code; the CTK registers only ctk-fault",
  ["reference-host/src/identity/provider.rs::custom_names_follow_the_rules",
   "agent-hooks-suite/src/declaration.rs::custom_provider_names_may_not_start_with_jcs"])
c("10.1-c", "MUST", "With the null provider every record carries null identities and a null identity_provider.")
c("10.1-d", "MUST", "A provider that fails denies the emission with host_error:context_invalid before any interceptor runs; it never silently unbinds.")
c("10.1-e", "MUST", "A claim with the null provider states that the host is identity-unbound, and one with a custom provider states whether it is content-derived.",
  "a property of the claim text",
  ["runner/tests/integration/reports.rs::claim_row_states_what_the_surface_obliges"])
c("10.2-a", "MUST", "jcs-sha256 is sha256: followed by the lowercase hex SHA-256 of the UTF-8 RFC 8785 canonical form of the projection.")
c("10.2-b", "MUST", "The projection keeps only the required core and the per-point conditional whitelist; optional and extension fields do not affect identity.",
  "the reference loop builds no optional fields for a vector to vary",
  ["reference-host/src/identity/jcs.rs::projection_drops_optional_members_and_subfields",
   "reference-host/tests/integration/golden.rs::projection_ignores_optional_members",
   "agent-hooks-suite/src/identity.rs::projection_drops_optional_members"])
c("10.2-c", "MUST", "Canonicalization sorts keys by UTF-16 code units, writes numbers per ECMA-262 and uses minimal escaping, so equal values give equal identities whatever their source spelling.")
c("10.2-d", "MUST", "An integral number beyond 2^53-1 in magnitude anywhere in the projection denies the emission with host_error:context_invalid; 2^53-1 itself is accepted.")
c("10.2-e", "MUST", "An integer literal too large for a 64-bit type is caught from the raw text before a parser can coerce it.")
c("10.2-f", "MUST", "A context nested deeper than the depth bound the host enforces (section 12.3, 128 levels recommended) is denied with host_error:context_invalid.")
c("10.2-g", "MUST", "enforced_identity is computed over the context after composition and equals input_identity when no transform was applied.")
c("10.2-h", "MUST", "A folded or applied transform that takes the context out of the identity domain denies the emission with host_error:context_invalid, enforced_identity null and decided_by null.")
c("10.2-i", "MUST", "No identity is computed for a context whose interception_point is absent or outside the closed set.",
  "harnesses always build contexts with a valid point",
  ["reference-host/src/identity/provider.rs::unknown_or_absent_point_has_no_identity",
   "agent-hooks-suite/src/identity.rs::unknown_point_is_refused"])
c("10.2-j", "MUST", "The context_invalid deny for a context outside the identity domain carries a message that says how to repair it (such as writing 64-bit identifiers as decimal strings).")
c("10.3-a", "MUST", "The host writes exactly one record per emission.")
c("10.3-b", "MUST", "A record carries no payload: no context or target content and no transform value.")
c("10.3-c", "MUST", "The record truncates message and warnings[].message to at most 256 UTF-8 bytes on a character boundary, marking a cut with an ellipsis.",
  "where the ellipsis falls relative to the byte budget is not pinned by whole-value assertions",
  ["reference-host/src/verdict/model.rs::long_messages_are_cut_on_a_char_boundary"])
c("10.3-d", "MUST", "The record keeps approval as an empty object, dropping its members.")
c("10.3-e", "MUST", "A record always carries interception_point, mode, verdict, input_identity, enforced_identity, identity_provider, session_id, sequence, decided_by, composition and interceptors_registered.")
c("10.3-f", "MUST", "A record copies the context timestamp and carries trace only when the context had one.")
c("10.3-g", "MUST", "decided_by is the winning index, null for a pure allow and for an outcome the host or profile synthesized.")
c("10.3-h", "MUST", "verdicts lists the invoked interceptors with index and decision, and is present under sequential/run_all and the parallel profiles.")
c("10.3-i", "MUST", "Under the sequential profiles a record whose emission left a bound interceptor uncalled (first-deny short-circuit, approval stop, failed fold transform) carries fold_truncated true; when the member is present it is true exactly then.")
c("10.3-j", "MUST", "resolved_by is absent exactly when the seam was not consulted.")
c("10.3-k", "MUST", "interceptors_registered counts the interceptors bound at the emitted point.")
c("10.3-l", "MUST", "The declaration member is present only on records of a declaration-built emitter.")
c("10.3-m", "MUST", "A record of an emission denied before dispatch carries null identities, decided_by null and no verdicts.")
c("10.3-n", "SHOULD", "When the host cannot build a context at all it still writes a context_invalid record with null identities.",
  "harnesses always build contexts",
  ["reference-host/tests/integration/composition.rs::a_context_that_cannot_be_read_still_leaves_a_record"])
c("10.3-o", "MUST", "The host never stores the unprojected verdict in place of the record.",
  "storage outside the record stream is invisible to the runner",
  ["reference-host/tests/integration/composition.rs::only_the_projection_reaches_the_record_sink"])

# §11 reserved reasons
c("11-a", "MUST", "The host_error: namespace is reserved to the host; the fourteen reasons are used only for their stated causes.")
c("11-b", "MUST", "A verdict from an interceptor or resolver that uses a reserved reason is refused with host_error:verdict_invalid.")
c("11-c", "MUST", "host_error:adapter_unsupported denies a point the adapter cannot emit.",
  "the reference loop can emit every point",
  ["reference-host/tests/integration/reserved_reasons.rs::adapter_unsupported_at_a_point_outside_the_surface"])
c("11-d", "MUST", "declaration_error:* classes are load refusals and never verdict reasons.")

# §12 streaming, concurrency, bounds
c("12.1-a", "MUST", "By default a streamed response is assembled in full before post_model_call.",
  tests=["reference-host/tests/integration/agent_loop.rs::buffered_output_assembles_a_stream_into_one_emission"])
c("12.1-b", "MUST", "Content that no emission evaluated fails closed at end of stream with host_error:streaming_unsupported and is not used.")
c("12.1-c", "MUST", "An incremental host releases nothing beyond its declared bound ahead of a verdict that covers it.")
c("12.1-d", "MUST", "An incremental deny ends the stream and withholds everything not yet released.")
c("12.1-e", "MUST", "Withheld or unevaluated streamed content is never persisted.")
c("12.1-f", "MUST", "A model call that errors is not followed by a post_model_call and nothing partial persists.",
  tests=["reference-host/tests/integration/agent_loop.rs::errored_model_call_is_not_mediated"])
c("12.1-g", "MUST", "A host that cannot assemble a stream emits post_model_call with finish_reason stream_incomplete and a self-deny host_error:streaming_unsupported, and does not use the partial response.",
  tests=["reference-host/tests/integration/agent_loop.rs::buffered_output_fails_closed_on_a_truncated_stream"])
c("12.1a-a", "MUST", "Caller-bound output is held until the output verdict permits it, unless the host declares buffered_output false.")
c("12.1a-b", "MUST", "Released content is exactly the verdicted content, after any transform.")
c("12.1a-c", "MUST", "A host with buffered_output false states in its claim that an output deny cannot retract streamed content.",
  "a property of the claim text",
  ["runner/tests/integration/reports.rs::passing_report_carries_the_claim_row"])
c("12.1a-d", "MUST", "A host that mediates incrementally states its exposure bound in its declaration and claim.",
  "a property of the declaration and claim text",
  ["runner/tests/integration/reports.rs::passing_report_carries_the_claim_row"])
c("12.2-a", "MUST", "Each of several concurrent tool calls gets its own pre_tool_call and post_tool_call pair with a distinct tool_call.id.")
c("12.2-b", "MUST", "A concurrent tool starts only after its own pre_tool_call composition permits it.")
c("12.2-c", "MUST", "Sequence values stay unique and totally ordered under concurrency.",
  "interleaving is not deterministic",
  ["reference-host/tests/integration/composition.rs::concurrent_emissions_get_unique_sequences",
   "reference-host/tests/integration/agent_loop.rs::interceptors_see_strictly_increasing_sequences_under_parallel_tool_calls",
   "runner/tests/integration/expect_keys.rs::parallel_tool_calls_may_interleave_but_never_repeat_or_invert_a_pair"])
c("12.2-d", "MUST", "Interceptors tolerate concurrent calls.",
  "a property of interceptor code",
  ["reference-host/tests/integration/composition.rs::parallel_profiles_dispatch_concurrently",
   "reference-host/tests/integration/agent_loop.rs::parallel_tool_calls_get_their_own_pairs_and_unique_sequences"])
c("12.3-a", "MUST", "A context beyond the size or depth bound is denied with host_error:context_invalid, never crashed on or truncated.",
  "the bound is host-tunable (R-13): CTK-1261, CTK-1262 and CTK-1373..1376 (the bound met exactly and passed by a byte or two) pin the reference host's 5 MiB, advisory (D-13)",
  ["reference-host/src/context/domain.rs::size_beyond_bound_is_refused",
   "reference-host/src/context/domain.rs::depth_beyond_bound_is_refused",
   "reference-host/tests/integration/composition.rs::oversized_contexts_are_refused_before_dispatch",
   "reference-host/tests/integration/composition.rs::a_transform_that_breaks_the_bounds_fails_closed_at_finalize"])
c("12.3-b", "SHOULD", "The size bound is 5 MiB and the depth bound 128 levels.")

# §13 conformance
c("13-a", "MUST", "A host is conformant only when every vector applicable to its declared surface passes.",
  "a property of the runner's verdict over a whole run",
  ["runner/tests/integration/reports.rs::claim_refuses_draft_failures_and_errors"])
c("13-b", "MUST", "An adapter that implements the contract partially does not claim conformance.",
  "a property of the claim process",
  ["runner/tests/integration/reports.rs::claim_refuses_draft_failures_and_errors",
   "runner/tests/integration/cli.rs::run_writes_reports_that_verify_and_a_narrowed_run_cannot_be_claimed"])
c("13-c", "MUST", "A claim names framework, adapter version, spec version, capabilities, profiles, identity provider and SDK, and states every non-default posture.",
  "a property of the claim text",
  ["runner/tests/integration/reports.rs::passing_report_carries_the_claim_row",
   "runner/tests/integration/reports.rs::claim_row_states_what_the_surface_obliges"])
c("13-d", "MUST", "Vectors requiring a capability the host does not declare are skipped with the reason, never failed.",
  "a property of the runner's surface filter",
  ["agent-hooks-suite/src/surface.rs::every_skip_names_its_reason",
   "runner/tests/integration/cli.rs::list_shows_skip_reasons_for_a_declaration"])
c("13-e", "MUST", "A claim names a released specification version; agent-hooks/draft is never claimed.",
  "a property of the claim tool",
  ["runner/tests/integration/reports.rs::claim_refuses_draft_failures_and_errors"])

# §14 security
c("14-a", "MUST", "Refusal findings and host-synthesized messages never echo binding config or payload.",
  "vector assertions do not inspect refusal detail text",
  ["reference-host/tests/integration/composition.rs::host_synthesized_messages_carry_no_payload",
   "reference-host/src/declaration/tests.rs::findings_never_echo_config"])

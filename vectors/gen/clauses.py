"""The agent-hooks/0.1 clause catalog, as data.

Each entry: (id, keyword, section, text, source, quote[, not_vector_testable, unit_tests]). unit_tests go
with not_vector_testable; a clause that vectors came to cover keeps the unit tests that pinned it.
Ids are stable: `<section>-<letter>`. Never renumber; retire by marking, never reuse.

`text` is the requirement in our own words. `quote` (`q=`) is the sentence of the upstream text that
`text` paraphrases, or the shortest complete clause of one (a table row or list item counts), copied
verbatim, Markdown included; it is compared with the file with runs of whitespace collapsed, so a quote may
join lines and adjacent table rows with single spaces. `source` (`src=`) is the file it is found in,
relative to `../shared/upstream`: `agent-hooks/spec/AGENT-HOOKS-0.1.md`, the released 0.1.0-beta text,
unless only a schema (`agent-hooks/spec/schema/...`), `agent-hooks/spec/declaration-errors.json` or
`agent-hooks/spec/DECLARATION-VERSIONS.md` says it. `seed:000` names `../shared/seeds/000_*.txt`, a
description of the SDKs rather than the text: a clause quoting it rests on no normative sentence. Every
c(...) passes q=; q=None (no source, no quote written) marks a clause no sentence supports, the project's
own reading. A quote shows what the text says; where `text` asserts more than its quote, `text` is the
project's reading.

unit_tests name real tests as `<repo-relative file path>::<test fn name>`, e.g.
`agent-hooks/reference-host/src/context/envelope.rs::conditional_members_must_keep_their_types`; check.py verifies that
each named file contains `fn <name>(`. An empty list means no test pins the clause yet (check.py lists them).
"""

C = []

# Sources of quotes, relative to ../shared/upstream (seed:000 is ../shared/seeds/000_*.txt).
SPEC = "agent-hooks/spec/AGENT-HOOKS-0.1.md"
RECORD_SCHEMA = "agent-hooks/spec/schema/interception-record.schema.json"
PATH_GRAMMAR = "agent-hooks/spec/schema/path-grammar.abnf"
SEED_000 = "seed:000"

# Quotes several clauses share.
Q_VERDICT_GATE = (
    "A host that receives a verdict that is not a JSON object, whose `decision` is absent or invalid, "
    "whose `reason` starts with `host_error:`, whose `transform` or `approval` presence violates the "
    "constraints above, whose `warnings` is not an array of objects, whose `evidence` is not an "
    'object, or whose `result_labels` is not an array of strings MUST treat it as `{"decision": '
    '"deny", "reason": "host_error:verdict_invalid"}`.')
Q_LOAD_STEP_7 = (
    "| 7 | Internal consistency (§7.7.3, §7.7.4, §7.7.5): the floor and pairs, knobs under the "
    "consulting profile, the composition inside a stated `surface.profiles`, `incremental_output` "
    "with `buffered_output: false`, the own version in `declaration_versions`, `at` within the "
    "surface, unique binding ids | `inconsistent` |")

_NO_Q = object()


def c(cid, kw, text, nvt=None, tests=None, q=_NO_Q, src=SPEC, seed_states=False):
    if q is _NO_Q:
        raise ValueError("clause %s: pass q=, the quoted sentence (q=None when no sentence supports it)" % cid)
    section = cid.rsplit("-", 1)[0]
    entry = {"id": cid, "keyword": kw, "section": section, "text": text}
    if q is not None:
        entry["source"] = src
        entry["quote"] = q
    if seed_states:
        # The seed states this of the contract itself (not of an implementation), and the clause says so:
        # a gating vector may rest on it (issue 26); spec/tools/quotes.py accepts it for exactly these.
        assert src.startswith("seed:"), cid
        entry["seed_states_contract"] = True
    if nvt:
        entry["not_vector_testable"] = nvt
        entry["unit_tests"] = tests or []
    elif tests:
        # a clause vectors now cover keeps the unit tests that pinned it
        entry["unit_tests"] = tests
    C.append(entry)


# §3 interception points
c("3-a", "MUST", "A host emits only the eight defined interception point values and no other value.",
  q="The set is closed; a host MUST NOT emit an `AgentContext` whose `interception_point` is not one of these values.")
c("3-b", "MUST", "The agent_startup point is emitted exactly once per session, before the session's first input.",
  q="| `agent_startup` | Once, before the first `input` of a session. | `agent_init` | no |")
c("3-c", "MUST", "The input point is emitted for every external request that enters the session.",
  q="| `input` | On ingress of each external request into the session. | `input` | yes |")
c("3-d", "MUST", "The pre_model_call point is emitted immediately before every model request and post_model_call immediately after every model response.",
  q="| `pre_model_call` | Immediately before each model request is dispatched. | `messages` | yes | | `post_model_call` | Immediately after each model response is received. | `response` | yes |")
c("3-e", "MUST", "The pre_tool_call point is emitted before every tool invocation and post_tool_call after the invocation finishes, whether the tool succeeded or reported an error.",
  q="| `pre_tool_call` | Immediately before each tool invocation. | `tool_call.args` | yes | | `post_tool_call` | Immediately after each tool invocation completes (success or error). | `tool_result.value` | yes |")
c("3-f", "MUST", "The output point is emitted before the final response is handed to the caller.",
  q="| `output` | Immediately before the final response is returned to the caller. | `output` | yes |")
c("3-g", "MUST", "The agent_shutdown point is emitted exactly once when the session ends, including an end caused by a block or an error.",
  q="| `agent_shutdown` | Once, after the last `output` of a session or on abnormal termination. | `summary` | no |")
c("3.1-a", "MUST", "agent_startup is the first emission of a session.",
  q="`agent_startup` precedes every other interception point.")
c("3.1-b", "MUST", "agent_shutdown is the last emission of a session.",
  q="`agent_shutdown` follows every other interception point.")
c("3.1-c", "MUST", "Every input emission precedes the model, tool and output emissions it causes.",
  q="Each `input` precedes the `pre_model_call`, `pre_tool_call`, and `output` hooks that result from it.")
c("3.1-d", "MUST", "Every pre_model_call is followed by exactly one post_model_call for that request unless the combined verdict blocked the call.",
  q="Each `pre_model_call` is followed by exactly one corresponding `post_model_call` unless the model call is blocked per §6.")
c("3.1-e", "MUST", "Every pre_tool_call is followed by exactly one post_tool_call carrying the same tool_call.id unless the combined verdict blocked the call.",
  q="Each `pre_tool_call` is followed by exactly one `post_tool_call` for the same `tool_call.id` unless the tool call is blocked per §6.")
c("3.1-f", "MUST", "The sequence value strictly increases across all emissions of one session.",
  q="`sequence` (§4.1) is strictly increasing across all interception points in a session.")
c("3.1-g", "SHOULD", "A host that issues concurrent model calls sets request_id so that each post_model_call can be paired with its pre_model_call.",
  "the CTK mock model answers one request at a time",
  ["agent-hooks/reference-host/tests/integration/agent_loop.rs::model_calls_carry_a_pairing_request_id"],
  q="`request_id` (§4.5), when present, is the pairing key; a host that emits concurrent model calls SHOULD populate it.")
c("3.1-h", "MAY", "A session may contain several input-to-output cycles between one agent_startup and one agent_shutdown.",
  q="A host that supports multi-turn sessions MAY emit multiple `input` → … → `output` cycles between a single `agent_startup` and `agent_shutdown`.")
c("3.2-a", "MAY", "A host that makes no model calls may omit both model points.",
  q="A host that does not perform model calls (e.g., a pure tool router) MAY omit `pre_model_call` and `post_model_call`.")
c("3.2-b", "MAY", "A host that calls no tools may omit both tool points.",
  q="A host that does not invoke tools MAY omit `pre_tool_call` and `post_tool_call`.")
c("3.2-c", "MUST", "A host that omits points declares the reduced surface to the CTK.",
  "a statement of the declared surface, checked by the runner's surface filter rather than by a run",
  ["agent-hooks/suite/src/surface.rs::every_skip_names_its_reason",
   "agent-hooks/suite/src/declaration.rs::minimal_document_takes_conservative_defaults",
   "agent-hooks/reference-host/tests/integration/harness.rs::info_names_both_versions_and_the_declaration"],
  q="Such a host MUST declare its omitted capabilities to the CTK per §13.2")
c("3.2-d", "MUST", "Whatever its capabilities, a host always emits agent_startup, input, output and agent_shutdown.",
  q="Such a host MUST declare its omitted capabilities to the CTK per §13.2 and MUST still emit `agent_startup`, `input`, `output`, and `agent_shutdown`.")
c("3.2-e", "MUST", "Points are omitted only in pairs: both model points or both tool points.",
  q="The surface MUST satisfy the §3.2 floor (`agent_startup`, `input`, `output`, `agent_shutdown` present; model and tool points omitted only in pairs)")

# §4 agent context
c("4.1-a", "MUST", "Every context carries spec, a string of the form agent-hooks/<major>.<minor>.",
  q=r"| `spec` | string | MUST match `^agent-hooks/\d+\.\d+$`. Identifies the spec version the host targets. |")
c("4.1-b", "MUST", "Every context carries interception_point naming the point that emits it.",
  q="| `interception_point` | string | MUST be one of the eight values in §3. |")
c("4.1-c", "MUST", "Every context carries timestamp, the RFC 3339 UTC instant at which it was built.",
  q="| `timestamp` | string | RFC 3339 UTC instant at which the host constructed the context. |")
c("4.1-d", "MUST", "Every context carries an integer sequence that is 0 at agent_startup.",
  q="| `sequence` | integer ≥ 0 | MUST be strictly increasing within `session.id`. Starts at 0 on `agent_startup`. |")
c("4.1-e", "MUST", "Every context carries agent.id, stable for the agent definition, and agent.framework matching [a-z0-9_-]+.",
  q="| `agent.id` | string | Stable identifier for the agent definition. MUST be stable across sessions of the same agent. | | `agent.framework` | string | Lowercase identifier of the host framework, matching `^[a-z0-9_-]+$` (e.g., `langchain`, `openai-agents`, `semantic-kernel`). |")
c("4.1-f", "MUST", "Every context carries session.id, unchanged for the whole session.",
  q="| `session.id` | string | Stable identifier for the run/conversation. MUST be stable across all hooks in one session. |")
c("4.1-g", "MUST", "Every context carries target, the point's transformable value.",
  q="| `target` | any | The value-under-evaluation per §4.3. The root that `$target` in a `transform.path` resolves against. |")
c("4.2-a", "MUST", "An agent_startup context carries agent_init.tools_registered, an array of tool names.",
  q='"agent_init": { "tools_registered": ["string", ...] },')
c("4.2-b", "MUST", "An input context carries input.content and input.role, the role being user, system or external.",
  q='"input": { "content": "string | object", "role": "user" | "system" | "external" },')
c("4.2-c", "MUST", "A pre_model_call context carries model.id and messages.",
  q='"model": { "id": "string" }, "messages": [ { "role": "string", "content": "string | object" }, ... ],')
c("4.2-d", "MUST", "A post_model_call context carries model.id and response with content, tool_calls and finish_reason; tool_calls is present and empty when the model requested no tool.",
  q="`response.tool_calls` MUST be present and MUST be an empty array when the model returned no tool calls.")
c("4.2-e", "MUST", "A pre_tool_call context carries tool_call with id, name and an object args.",
  q='"tool_call": { "id": "string", "name": "string", "args": {} }, "target": <tool_call.args>')
c("4.2-f", "MUST", "A post_tool_call context carries tool_call, whose args are the arguments actually sent, and tool_result with value and is_error.",
  q="`tool_call.args` at `post_tool_call` MUST reflect the arguments actually passed to the tool, i.e., the post-`transform` value when a `transform` verdict was applied at `pre_tool_call`.")
c("4.2-g", "MUST", "An output context carries output.content.",
  q='"output": { "content": "string | object" },')
c("4.2-h", "MUST", "An agent_shutdown context carries summary.reason, one of completed, error or cancelled.",
  q='"summary": { "reason": "completed" | "error" | "cancelled" },')
c("4.3-a", "MUST", "The target of each point is the value its table names: agent_init, input, messages, response, tool_call.args, tool_result.value, output, summary.",
  q="`target` MUST be set to the indicated value.")
c("4.3-b", "MUST", "A transform applied to target is the value the following action uses, and the aliased conditional field reflects it.",
  q="A host MUST set `target` to a deep reference (or deep copy followed by write-back) of the value indicated in the §3 table such that applying a `transform` to `target` is observable in the subsequent action.")
c("4.3-c", "MUST", "A transform at agent_startup or agent_shutdown is refused with host_error:transform_target_forbidden.",
  q="A `transform` verdict at `agent_startup` or `agent_shutdown` MUST be rejected by the host with `host_error:transform_target_forbidden` per §11.")
c("4.3-d", "MUST", "A transform whose path points inside target replaces that location only.",
  q="A host MUST resolve `path` against the context's `target` value and replace the addressed location with `value`. The replacement MUST NOT modify any other part of the `AgentContext`.")
c("4.3-e", "MUST", "What a transform leaves in target is what the following action uses, and every later emission built from it still goes through the section 4 envelope check (presence and JSON type) before dispatch: no interceptor receives a context that fails that check.",
  q="a host MUST validate the §4 envelope (required core and per-point conditional fields, presence and JSON type) **before** dispatching any emission")
c("4.4-a", "MUST", "NaN and the infinities never appear in a context; a host refuses them with host_error:context_invalid.",
  "JSON vector files cannot express non-finite numbers",
  ["agent-hooks/reference-host/src/context/domain.rs::non_finite_numbers_cannot_reach_a_context"],
  q="MUST NOT place non-finite floating-point values (NaN, ±Infinity) or lone Unicode surrogates in any context field.")
c("4.4-b", "MUST", "Strings containing lone surrogates never appear in a context; a host refuses them with host_error:context_invalid.",
  "a lone surrogate does not survive the vector file's JSON parser",
  ["agent-hooks/reference-host/src/context/domain.rs::lone_surrogates_cannot_reach_a_context"],
  q="MUST NOT place non-finite floating-point values (NaN, ±Infinity) or lone Unicode surrogates in any context field.")
c("4.4-c", "SHOULD", "Integers that can exceed 2^53-1 in magnitude are carried as decimal strings.",
  q="SHOULD encode integer identifiers that may exceed ±(2⁵³−1) — 64-bit database keys, snowflake IDs — as decimal **strings** at the adapter boundary (the proto3 JSON convention).")
c("4.4-d", "MUST", "Values are never normalized: each is used exactly as supplied or refused.",
  q="A value is either accepted as supplied or rejected with an actionable message; nothing is silently rewritten.")
c("4.5-a", "MAY", "A host may add the optional well-known fields; their absence is conformant and not gated.",
  q="A host SHOULD populate the following fields when the underlying framework exposes the data. Absence is conformant.")
c("4.6-a", "MUST", "Extension data lives under extensions.<namespace> with a namespace matching ^[a-z][a-z0-9_]*$, and the namespaces acs, ctk and agent_hooks are reserved.",
  "the reference loop adds no extensions and a vector cannot inject one into a context",
  ["agent-hooks/reference-host/src/context/envelope.rs::extension_namespaces_follow_the_grammar"],
  q="`<namespace>` MUST match `^[a-z][a-z0-9_]*$`. The namespaces `acs`, `ctk`, and `agent_hooks` are reserved by this specification.")
c("4.6-b", "MUST", "A host passes extensions through verbatim and never interprets a namespace it does not own.",
  "no vector can place foreign extensions into a host-built context",
  ["agent-hooks/reference-host/tests/integration/composition.rs::foreign_extensions_pass_verbatim_and_stay_out_of_records"],
  q="A host MUST pass `extensions` through to interceptors verbatim and MUST NOT interpret namespaces it does not own.")

# §5 verdict
c("5-a", "MUST", "An interceptor answers with a verdict object whose decision is allow, deny or transform.",
  q="| **Verdict** | The JSON payload an interceptor returns per §5. One of `allow`, `deny`, `transform`. |")
c("5-b", "MUST", "A returned value that is not a JSON object is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-c", "MUST", "A verdict whose decision is missing or outside allow, deny and transform is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-d", "MUST", "A verdict whose reason starts with host_error: is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-e", "MUST", "A verdict carrying transform with a decision other than transform, or a transform decision without transform, is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-f", "MUST", "A verdict carrying approval with an allow or transform decision is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-g", "MUST", "A verdict whose warnings is not an array of objects is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-h", "MUST", "A verdict whose evidence is not an object is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-i", "MUST", "A verdict whose result_labels is not an array of strings is refused with host_error:verdict_invalid.",
  q=Q_VERDICT_GATE)
c("5-j", "MUST", "A verdict whose evidence exceeds 10240 bytes of RFC 8785 canonical UTF-8 is refused with host_error:verdict_invalid; evidence within the cap is accepted.",
  q='A verdict whose `evidence` exceeds 10240 bytes fails §5 validation: the host MUST treat the whole verdict as `{"decision": "deny", "reason": "host_error:verdict_invalid"}`.')
c("5-k", "MUST", "An interceptor returns a verdict that conforms to the verdict schema: an object closed at every level (nothing beyond the eight members section 5 lists and their own members), a string or null reason and message, no host_error: reason in its warnings either, an object approval and a string transform.path. What the host must refuse is the list in 5-b to 5-j.",
  q="An interceptor MUST return a JSON object conforming to `spec/schema/verdict.schema.json`.")
c("5-l", "MUST", "A response envelope {verdict, extensions} is accepted; only the nested verdict is validated and enforced.",
  src=SEED_000, q="The envelope is part of the 0.1 contract.", seed_states=True)
c("5.1-a", "MUST", "An allow lets the action proceed unchanged.",
  q="| `allow` | permit | The action proceeds with `target` unchanged. |")
c("5.1-b", "MUST", "A transform lets the action proceed with the rewritten target.",
  q="| `transform` | permit | The action proceeds with `target` rewritten per §5.2. |")
c("5.1-c", "MUST", "A deny stops the action.",
  q="| `deny` | block | The action MUST NOT proceed. |")
c("5.1-d", "MUST", "A deny carrying approval blocks unless the approval seam, consulted as the profile directs, resolves it to a permit.",
  q="The action MUST NOT proceed **unless** the approval seam (§9), consulted per the composition profile (§7), resolves to a permit verdict.")
c("5.1-e", "MUST", "When no resolver is registered a liftable deny stands as a plain deny, with its own reason.",
  q="A host with no registered resolver enforces the deny as-is; that is conformant behaviour, not an error.")
c("5.1-f", "MUST", "Warnings never change control flow.",
  q="A warning is a recorded concern that does not affect control flow.")
c("5.1-g", "MUST", "Warnings are recorded.",
  q="A host MUST record `warnings` on the interception record (§10.3)")
c("5.1-h", "MUST", "Severity is fixed: deny, then liftable deny, then transform, then allow.",
  q="| **Severity** | The total order on verdicts used by aggregation (§7.3): `deny` > liftable deny > `transform` > `allow`. |")
c("5.2-a", "MUST", "A transform path follows the path grammar: a root, then .name, [index] or [\"name\"] segments, and nothing else.",
  q='`path` segments follow the subset of JSONPath defined in `spec/schema/path-grammar.abnf`: dot-member (`.foo`), bracket-index (`[0]`), and bracket-member (`["foo"]`) only.')
c("5.2-b", "MUST", "The deprecated root $policy_target is accepted and means $target.",
  q="For backward compatibility with ACS v0.3.x, a host MUST also accept the deprecated alias `$policy_target` and treat it as `$target`.")
c("5.2-c", "MUST", "A transform path resolves against the context's target and the replacement changes nothing else.",
  q="A host MUST resolve `path` against the context's `target` value and replace the addressed location with `value`. The replacement MUST NOT modify any other part of the `AgentContext`.")
c("5.2-d", "MUST", "The bare path $target replaces the whole target.",
  src=PATH_GRAMMAR, q="path = root *( segment )")
c("5.2-e", "MUST", "A path not rooted at $target is refused; the emission is denied.",
  q="A `path` rooted elsewhere than `$target`/`$policy_target` MUST yield `host_error:transform_target_forbidden`.")
c("5.2-f", "MUST", "A path that does not resolve, or meets a value of the wrong type, is refused with host_error:transform_invalid.",
  q="A `path` that does not resolve, or whose segment types are incompatible with `target`'s structure, MUST yield `host_error:transform_invalid`.")
c("5.2-g", "MUST", "A transform with no value sets the addressed location to null.",
  q="An absent `value` member is equivalent to `null` (the §10.3 record projection and SDK marshalling layers omit null values, so the two forms MUST agree).")
c("5.2-h", "MUST", "In evaluate_only a transform is checked exactly as in enforce but not applied.",
  q="The host MUST validate `transform` per §5.2 but MUST NOT apply it.")
c("5.3-a", "MUST", "The host never dereferences evidence.verification_pointers.",
  "vectors cannot observe outbound network access",
  ["agent-hooks/reference-host/tests/integration/composition.rs::evidence_pointers_are_never_dereferenced"],
  q="A host MUST NOT dereference `verification_pointers`.")
c("5.3-b", "MUST", "Evidence passes to the record unchanged.",
  q="`evidence` is kept — it is an opaque offline pointer by design (§5.3) and is bounded by the §5.3 size cap.")
c("5.4-a", "MUST", "Result labels of a permitted action are persisted with the data the point produced.",
  q="A host MUST persist `result_labels` alongside the data the interception point's `target` produced (a tool result, a model output, a final output)")
c("5.4-b", "MUST", "Result labels are not persisted for an action that did not proceed.",
  q="A host MUST NOT persist `result_labels` for an action that did not proceed (a `deny` that was not lifted).")
c("5.4-c", "SHOULD", "Persisted labels resurface later under extensions.<namespace>.source_labels.",
  q="SHOULD resurface them as `extensions.<interceptor-namespace>.source_labels` on later hooks whose `target` derives from that data.")

# §6 host obligations
c("6-a", "MUST", "In enforce mode the host acts on the combined verdict at every point as section 6 prescribes.",
  q="| `enforce` | The host honours combined verdicts per §6. |")
c("6.1-a", "MUST", "After a blocked agent_startup no input, model, tool or output point follows, and agent_shutdown is still emitted with summary.reason error.",
  q="A combined `deny` at `agent_startup` means the session MUST NOT process any input: no `input`, model, tool, or `output` interception point may be emitted afterwards. The host MUST still emit `agent_shutdown` (with `summary.reason` = `error`) so the session's record trail is closed.")
c("6.1-b", "MUST", "After a blocked input the turn does not begin: no model, tool or output point follows it.",
  q="At `input` the turn MUST NOT begin.")
c("6.1-c", "MUST", "A blocked pre_model_call sends nothing to the model and is not followed by a post_model_call.",
  q="At `pre_*` hooks the guarded call MUST NOT be dispatched.")
c("6.1-d", "MUST", "A blocked post_model_call discards the response: it is neither used nor re-requested, and the tools it asked for are not called.",
  q="A `deny` (lifted or not, per §7) at these points means the host MUST NOT incorporate the result into subsequent agent state: the model response or tool result MUST be discarded as if it had errored, and the host MUST NOT re-execute the action.")
c("6.1-e", "MUST", "A blocked pre_tool_call does not invoke the tool and is not followed by a post_tool_call.",
  q="At `pre_*` hooks the guarded call MUST NOT be dispatched.")
c("6.1-f", "MUST", "A blocked post_tool_call discards the tool result: it never reaches later state and the tool is not invoked again.",
  q="A `deny` (lifted or not, per §7) at these points means the host MUST NOT incorporate the result into subsequent agent state: the model response or tool result MUST be discarded as if it had errored, and the host MUST NOT re-execute the action.")
c("6.1-g", "MUST", "A blocked output never reaches the caller.",
  q="At `output` the response MUST NOT be returned to the caller.")
c("6.1-h", "MUST", "The agent_shutdown verdict is recorded only: nothing is prevented and the approval seam is not consulted there.",
  q="A block verdict is recorded (the fail-closed audit trail is preserved) but imposes no further obligation; the host MUST NOT re-execute anything and MUST NOT consult the approval seam (§9) for a liftable deny returned at `agent_shutdown` — there is no action to approve.")
c("6.1-i", "MUST", "A permitted point proceeds with the value the combined verdict left, rewritten or not.",
  q="| `transform` | Apply the transform to `target` per §5.2 (if not already applied during sequential fold-through, §7.4), then proceed with the action using the transformed value. |")
c("6.1-j", "MUST", "The point obligations apply to the combined verdict, including one produced by an approval resolution.",
  q="| **Combined verdict** | The single verdict that results from composing all interceptor verdicts (and any approval resolution) at one emission; the verdict §6 obligations apply to. |")
c("6.2-a", "MUST", "Under the default tool-seam posture continue, a host_error deny at a tool point is surfaced as a failed tool call and the loop goes on.",
  q="The host MUST continue the agent loop as if the action had failed (e.g., surface a tool error to the model) unless the host's own semantics terminate the turn.")
c("6.2-b", "MAY", "A host declaring tool_seam_host_error terminate ends the turn on a host_error deny at a tool point.",
  q="`tool_seam_host_error: continue | terminate` (default `continue`) — whether a `host_error:*` deny at `pre_tool_call`/`post_tool_call` continues the agent loop per §6.2's continue rule or terminates the turn under §6.2's \"unless the host's own semantics terminate the turn\" clause.")
c("6.2-c", "MUST", "A plain policy deny at a tool point is surfaced to the model as a failed call and the loop goes on, whatever the posture.",
  q="The host MUST continue the agent loop as if the action had failed (e.g., surface a tool error to the model) unless the host's own semantics terminate the turn.")
c("6.3-a", "MUST", "A context that fails the section 4 envelope check is denied with host_error:context_invalid and no interceptor is called.",
  "only caller input that breaks the section 4.2 types (input.content 42) reaches it from a vector, and whether a host must build and refuse that context or may reject the request before emitting is open (vectors/DECISIONS-PENDING.md P-10)",
  ["agent-hooks/reference-host/tests/integration/reserved_reasons.rs::context_invalid_when_the_envelope_fails_and_nothing_is_dispatched",
   "agent-hooks/reference-host/src/context/envelope.rs::each_required_member_is_checked"],
  q='A host that fails to construct a valid `AgentContext` for an interception point — including a context that fails the §4 envelope check — MUST treat the emission as `{"decision": "deny", "reason": "host_error:context_invalid"}` without dispatching to any interceptor.')
c("6.3-b", "MUST", "An interceptor that raises is replaced by a deny with host_error:interceptor_failed.",
  q="| The interceptor raises (or panics) | `deny` `host_error:interceptor_failed` |")
c("6.3-c", "MUST", "An interceptor that exceeds the host timeout is replaced by a deny with host_error:interceptor_timeout.",
  q="| The interceptor exceeds the host's timeout | `deny` `host_error:interceptor_timeout` |")
c("6.3-d", "MUST", "A returned value that fails section 5 is replaced by a deny with host_error:verdict_invalid.",
  q="| The returned value fails §5 validation | `deny` `host_error:verdict_invalid` |")
c("6.3-e", "MUST", "A substituted failure deny takes the failing interceptor's slot in verdicts and in decided_by.",
  q="The substituted deny takes the failing interceptor's **slot**: it occupies that interceptor's position in the profile's composition (§7.3–§7.5), appears at that index in the record's `verdicts` summary, and carries that index as `decided_by` when it wins (§10.3).")
c("6.3-f", "MUST", "Under sequential/run_all and the parallel profiles the other interceptors still run after one fails.",
  q="In `sequential/run_all` and the parallel profiles, other interceptors' verdicts are unaffected — a single failure does not abort the emission, it composes as a deny.")
c("6.3-g", "MUST", "Under sequential/first_deny a failure ends the fold like any deny.",
  q="The first `deny` (liftable or not) short-circuits: remaining interceptors are NOT invoked.")
c("6.3-h", "MUST", "A host-synthesized message never contains content derived from the target.",
  "record assertions compare whole values and cannot search the message text",
  ["agent-hooks/reference-host/tests/integration/composition.rs::host_synthesized_messages_carry_no_payload",
   "agent-hooks/reference-host/src/declaration/tests.rs::findings_never_echo_config"],
  q="Host-synthesized messages MUST NOT include target-derived content (§14): an exception type name is acceptable, an exception string is not.")

# §7 composition
c("7-a", "MUST", "Every interceptor returns a verdict; there is no observe-only interceptor.",
  q="Every registered interceptor MUST return a `Verdict`; an interceptor that has no control decision to make returns `allow`.")
c("7-b", "MUST", "The guarded action waits until composition has finished and permitted it.",
  q="MUST NOT begin the guarded action until composition (per the declared profile, §7.2) is complete and the combined verdict permits it.")
c("7-c", "MUST", "Each interceptor works on its own copy of the context; changing it in place affects neither enforcement, identity nor any other interceptor.",
  q="MUST pass each interceptor its own copy of the context; an interceptor's in-place mutation of the object it received MUST NOT affect enforcement, identity computation, or later interceptors.")
c("7-d", "MUST", "In enforce mode an emission with no interceptor bound at its point is denied with host_error:no_interceptor, whatever the profile.",
  q="MUST, in `enforce` mode with zero registered interceptors, treat every emission as `deny` with reason `host_error:no_interceptor` (§11).")
c("7-e", "SHOULD", "The interceptor timeout is configurable, 5000 ms by default.",
  q="SHOULD bound interceptor execution with a configurable timeout (RECOMMENDED default: 5000 ms) and apply §6.3 on breach.")
c("7-f", "MUST", "In evaluate_only an emission with no interceptor bound at its point still gets its record and the action proceeds; the host_error:no_interceptor deny is required in enforce mode only.",
  q="| `evaluate_only` | The host invokes interceptors per the declared profile and records verdicts but proceeds with every action as if the combined verdict were `allow`.")
c("7.2-a", "MUST", "Composition is one of the four profiles sequential/first_deny, sequential/run_all, parallel/strictest and parallel/unanimous.",
  q="The profile set is **closed**: a host MUST NOT invent profiles or deviate from the semantics below.")
c("7.2-b", "MUST", "Unset knobs resolve to their fail-closed defaults: on_approval stop, on_transform_conflict deny, on_disagreement deny; no profile means sequential/first_deny.",
  q='When the host does not set a knob the profile consults, its value is: `on_approval: "stop"`, `on_disagreement: "deny"`, `on_transform_conflict: "deny"` — the fail-closed choice in each case.')
c("7.2-c", "MUST", "Every record stamps the profile and the resolved value of each knob it consults; knobs it does not consult are absent.",
  q="Knob members the profile consults MUST be present with their **resolved** values (the §7.2 defaults filled in when the host left them unset); knobs the profile never consults MUST be absent.")
c("7.3-a", "MUST", "The winner is the verdict of highest severity; among blocking verdicts of equal severity the lowest index wins.",
  q="The winner is the highest-severity verdict per the §5.1 order. Ties between block verdicts resolve to the lowest registration index (that index becomes `decided_by`, §10.3).")
c("7.3-b", "MUST", "Under a sequential profile, when transforms tie the last one returned wins.",
  q="in sequential profiles transforms composed through the fold (§7.4), so the last transform returned is the winner.")
c("7.3-c", "MUST", "The combined warnings are the first-seen union over every verdict of the emission, two warnings being equal when reason and message are.",
  q="`warnings`: the first-seen-ordered union of `warnings` from **every** verdict returned in the emission. Two warnings are equal iff both their `reason` and `message` members are equal; duplicates by that test appear once, at first position;")
c("7.3-d", "MUST", "The combined result_labels are the first-seen union over the permitting verdicts only; a combined deny carries none.",
  q="`result_labels`: the first-seen-ordered union of labels from every **permit** verdict returned in the emission (labels are dropped entirely when the emission does not proceed, per §5.4).")
c("7.3-e", "MUST", "Verdicts that lose impose nothing and appear only in the record's verdicts summary.",
  q="Losing verdicts impose no obligations, but every returned verdict is summarized on the record (§10.3) in multi-verdict profiles.")
c("7.4-a", "MUST", "Sequential profiles call interceptors one after another in registration order.",
  q="Interceptors are invoked in registration order.")
c("7.4-b", "MUST", "In enforce mode a sequential transform is applied, with write-back, before the next interceptor runs.",
  q="When an interceptor returns `transform` in `enforce` mode, the host MUST apply it to `target` (per §5.2, including the §4.3 write-back) **before** invoking the next interceptor, so each interceptor observes the context as already transformed by its predecessors.")
c("7.4-c", "MUST", "In evaluate_only the later interceptors of a sequential profile see the untransformed context.",
  q="In `evaluate_only` mode the transform is validated but not applied (§8), so later interceptors observe the untransformed context.")
c("7.4-d", "MUST", "A sequential transform that cannot be applied becomes a deny with its host_error reason, ends the fold, and marks fold_truncated when interceptors were skipped.",
  q="A transform that fails to apply (§5.2) becomes a `deny` with the corresponding `host_error:*` reason and — in both sequential profiles — short-circuits. When that short-circuit (or any other) leaves registered interceptors uninvoked, the record sets `fold_truncated: true` (§10.3) in **either** sequential profile.")
c("7.4-e", "MUST", "Under sequential/first_deny the first deny that is not lifted ends the fold and no later interceptor is called.",
  q="The first `deny` (liftable or not) short-circuits: remaining interceptors are NOT invoked.")
c("7.4-f", "MUST", "Under sequential/first_deny with on_approval stop a lifted deny ends the fold and its permit becomes the combined verdict.",
  q='`"stop"`: a permit resolution becomes the combined verdict and the emission ends — interceptors after the denying one are never invoked.')
c("7.4-g", "MUST", "Under sequential/first_deny with on_approval resume a lifted deny is replaced by its permit and the fold goes on; a later liftable deny is consulted in its turn.",
  q="`\"resume\"`: a permit resolution substitutes for the denying interceptor's verdict (an `allow` continues with the context unchanged; a `transform` is applied per §7.4) and the fold continues with the next interceptor. Each subsequently encountered liftable deny MUST be consulted in turn")
c("7.4-h", "MUST", "Under sequential/run_all every interceptor runs whatever the earlier verdicts were.",
  q="Every interceptor runs, in order, regardless of intermediate verdicts; transforms fold through for visibility exactly as above.")
c("7.4-i", "MUST", "Under sequential/run_all the seam is consulted at most once, and only when every deny of the emission is liftable.",
  q="Approval in `run_all`: the seam is consulted **at most once per emission**, and only when the aggregate winner is a liftable deny and **every** deny returned in the emission carries an `approval` block (a single plain deny makes lifting pointless — severity already decided).")
c("7.4-j", "MUST", "Under sequential/run_all a permit resolution lifts every deny and the action proceeds with the folded context.",
  q="A permit resolution lifts the entire deny set and becomes the combined verdict (an `allow` proceeds with the folded context; a `transform` is applied on top of it).")
c("7.4-k", "MUST", "Under sequential/run_all a combined deny discards the folded transforms for enforcement.",
  q="On a combined deny, folded transforms are discarded — nothing proceeds, so nothing was transformed for enforcement purposes (`enforced_identity` still reflects the folded context, preserving the audit trail of what interceptors observed).")
c("7.5-a", "MUST", "Parallel profiles give every interceptor its own copy of the same untransformed snapshot; nothing folds.",
  q="Every interceptor receives an isolated copy of the same untransformed snapshot. No transform is applied during dispatch; there is no fold.")
c("7.5-b", "MUST", "Under parallel/strictest the most severe verdict wins; a winning transform returned by exactly one interceptor is applied.",
  q="Exactly one interceptor returned `transform` → the host applies it (§5.2) and proceeds.")
c("7.5-c", "MUST", "Under parallel/strictest with on_transform_conflict deny, two or more top-severity transforms give a deny with host_error:transform_conflict.",
  q='`"deny"`: the combined verdict is `{"decision": "deny", "reason": "host_error:transform_conflict"}`.')
c("7.5-d", "MUST", "Under parallel/strictest with on_transform_conflict approval, a conflict becomes a synthesized liftable deny that is put to the seam; a permit resolution becomes the combined verdict.",
  q='`"approval"`: the host synthesizes a liftable deny with reason `host_error:transform_conflict` and consults the seam (§9); the resolver (typically a human) MAY resolve the conflict by returning a `transform` of its own, or an `allow`, or reject.')
c("7.5-e", "MUST", "Under parallel/strictest a winning liftable deny is consulted at most once, and transforms that lost are not applied.",
  q="If the winner is a liftable deny (and no plain deny was returned), the host consults the seam at most once; a permit resolution becomes the combined verdict. Lower-severity transforms returned by other interceptors are NOT applied — they lost the aggregation; they appear in the record's `verdicts` summary.")
c("7.5-f", "MUST", "Under parallel/unanimous the combined verdict is allow only when every verdict is allow.",
  q="The combined verdict is `allow` (with metadata unioned per §7.3) iff **every** interceptor returned `allow`.")
c("7.5-g", "MUST", "Under parallel/unanimous with on_disagreement deny, any deny or transform gives a deny with host_error:composition_disagreement.",
  q='`"deny"`: the combined verdict is `{"decision": "deny", "reason": "host_error:composition_disagreement"}`.')
c("7.5-h", "MUST", "Under parallel/unanimous with on_disagreement approval, a disagreement becomes a synthesized liftable deny that is put to the seam.",
  q='`"approval"`: the host synthesizes a liftable deny with reason `host_error:composition_disagreement` and consults the seam; the resolution (a verdict) becomes the combined verdict on permit.')
c("7.5-i", "MUST", "Under parallel/unanimous an individual liftable deny is never put to the seam on its own.",
  q="Any other outcome — any deny or any transform — is a **disagreement**.")
c("7.6-a", "MUST", "A permit resolution takes the place of the verdict that triggered the consultation, and the record says resolved_by approval.",
  q="Whenever a profile consults the approval seam and receives a permit resolution, that resolution's verdict — expressed in the same three-verdict vocabulary (§9) — **substitutes** for the verdict (or synthesized verdict) that triggered the consultation, at that verdict's position in the profile's semantics.")
c("7.6-b", "MUST", "decided_by names the consulted interceptor, and is null when the consulted verdict was synthesized by the profile.",
  q='`decided_by` (§10.3) remains the index of the interceptor whose liftable deny was consulted (or `null` for a synthesized one); `resolved_by: "approval"` records the substitution.')

# §7.7 host declaration
c("7.7.1-a", "MUST", "A declaration selects only behaviour the host code has; a document the host cannot honour is refused at load, before any emission.",
  q="A declaration that names anything the host cannot honour is refused at load, before any emission (§7.7.6)")
c("7.7.1-b", "MUST", "A loader never narrows, over-defaults or partly applies a document.",
  q="A loader MUST NOT narrow a document, default it past the code's capability, or apply it in part.")
c("7.7.2-a", "MUST", "A declaration version that is missing, not a string or not accepted is refused with declaration_error:version_unsupported.",
  q="MUST refuse any other `declaration` value (missing, not a string, an unknown major, or a minor above the highest it knows) with `declaration_error:version_unsupported`")
c("7.7.2-b", "MUST", "Declaration major version 0 is never accepted.",
  q="Major 0 is reserved for the conformance kit; no loader accepts it, so a vector can name it and get the same refusal on every host.")
c("7.7.2-c", "MUST", "A higher minor of an accepted major is refused even when no new member is used.",
  "which minors a loader accepts depends on the host build", ["agent-hooks/reference-host/src/declaration/tests.rs::higher_minor_refused"],
  q="A higher minor is refused even when the document uses no new member, because an older loader cannot know which new member changes the meaning of an old one.")
c("7.7.2-d", "MUST", "Records of a declaration-built emitter carry the document's own declaration version.",
  q="The resolved form (§7.7.3) and the record (§7.7.8) carry the document's own version string, not the migrated one, so an audit sees what the host was given.")
c("7.7.2-e", "MUST", "A version_unsupported refusal names the loader's accepted set of declaration versions (spec/declaration-errors.json).",
  q="An error carries the class, a list of findings (a JSON pointer such as `/bindings/1/kind` and a detail) and, for `version_unsupported`, the accepted set.")
c("7.7.3-a", "MUST", "The members declaration and bindings are required.",
  q="Every member except `declaration` and `bindings` is OPTIONAL.")
c("7.7.3-b", "MUST", "Every member left out takes the default the specification names.",
  q="Defaults are the values this specification already names (§7.2, §8, §10.1, §13.1) and fail closed.")
c("7.7.3-c", "MUST", "A knob the configured profile does not consult is refused with declaration_error:inconsistent, never silently dropped.",
  q="A knob the declared profile does not consult MUST be refused, never cleared.")
c("7.7.3-d", "MUST", "Integer members are JSON integers within range; 5000.0 and out-of-range values are refused with declaration_error:invalid_field.",
  q="Integer members are written as JSON integers without a fraction or an exponent (`5000`, not `5000.0` or `5e3`); the loader refuses the other forms as `invalid_field` even where a schema validator accepts them.")
c("7.7.3-e", "MUST", "A member that breaks a bound is refused, never truncated.",
  None, ["agent-hooks/reference-host/src/declaration/tests.rs::oversized_document_refused_not_truncated"],
  q="Exceeding a bound is a refusal, never a truncation.")
c("7.7.4-a", "MUST", "A stated surface keeps the four floor points and omits points only in pairs, else declaration_error:inconsistent.",
  q="The surface MUST satisfy the §3.2 floor (`agent_startup`, `input`, `output`, `agent_shutdown` present; model and tool points omitted only in pairs)")
c("7.7.4-b", "MUST", "incremental_output in a stated surface requires buffered_output false, else declaration_error:inconsistent.",
  q="`incremental_output` requires `buffered_output: false`.")
c("7.7.4-c", "MUST", "A stated surface or configuration that exceeds the host code is refused with declaration_error:surface_unsupported.",
  q="Every stated member MUST be a subset of what the host's code reports, and the configured posture MUST equal the one the code implements.")
c("7.7.4-d", "MUST", "The configured profile and knob values lie within the stated surface.profiles, and the document's own version within declaration_versions, else declaration_error:inconsistent.",
  q="The configured composition MUST sit inside the declared surface: the profile present, each resolved knob value in the supported set. `declaration_versions` MUST include the document's own `declaration`.")
c("7.7.5-a", "MUST", "Binding ids are unique within a document, else declaration_error:inconsistent.",
  q=Q_LOAD_STEP_7)
c("7.7.5-b", "MUST", "Bindings run in array order, and at a point only the bindings whose at contains that point run.",
  q="Array order is dispatch order. At point P the interceptors that run are the bindings whose `at` includes P, in array order.")
c("7.7.5-c", "MUST", "A surface point with no binding is denied with host_error:no_interceptor in enforce mode.",
  q="A surface point with no binding behaves per §7: in `enforce` mode every emission there is `deny host_error:no_interceptor`.")
c("7.7.5-d", "MUST", "A kind resolver that errs or yields no interceptor refuses the document with declaration_error:binding_rejected.",
  q="A resolver that returns an error, raises, or returns something other than an interceptor refuses the document (`declaration_error:binding_rejected`) and all work is discarded.")
c("7.7.5-e", "MUST", "A binding at must name points of the surface, else declaration_error:inconsistent.",
  q=Q_LOAD_STEP_7)
c("7.7.6-a", "MUST", "The load steps run in order and the first failing step alone decides the refusal class.",
  q="Each step runs only if the one before it passed, so a given document yields one refusal class on every SDK:")
c("7.7.6-b", "MUST", "A refused document leaves no record and produces no emission.",
  q="Refusal MUST happen before any emitter exists and MUST leave no record.")
c("7.7.6-c", "MUST", "An unknown member at any closed level is refused with declaration_error:unknown_field.",
  q="MUST treat the schema as closed under an accepted version: an unknown member at any closed level is `declaration_error:unknown_field`.")
c("7.7.6-d", "MUST", "A spec member that is not a string, is malformed, names another major or a newer minor is refused with declaration_error:spec_unsupported.",
  q="| `declaration_error:spec_unsupported` | `spec` present with another major, a higher minor than the loader's, or a malformed value |")
c("7.7.6-e", "MUST", "A named identity provider, approval resolver or redactor that is not registered is refused with declaration_error:reference_unresolved.",
  q="| `declaration_error:reference_unresolved` | an unregistered provider, resolver or redactor name |")
c("7.7.6-f", "MUST", "A binding kind with no registered resolver is refused with declaration_error:kind_unknown, checked before any resolver runs.",
  q="| 10 | Every binding kind has a registered resolver (all checked before any runs) | `kind_unknown` |")
c("7.7.6-g", "MUST", "A declaration path that is not a readable regular UTF-8 file within 1 MiB is refused with declaration_error:unreadable.",
  None, ["agent-hooks/reference-host/src/declaration/tests.rs::unreadable_path_refused"],
  q="| 1 | Read (path only): regular file, at most 1 MiB, strict UTF-8, no byte-order mark | `unreadable` |")
c("7.7.6-h", "MUST", "Text that is not one JSON object, or has duplicate keys, trailing content or excessive depth, is refused with declaration_error:malformed.",
  None, ["agent-hooks/reference-host/src/declaration/tests.rs::duplicate_key_text_refused_malformed"],
  q="| 2 | Parse: one JSON object, no duplicate keys, depth at most 32, at most 1 MiB of text | `malformed` |")
c("7.7.6-i", "MUST", "A wrong type, enum value, pattern, range or required-iff member is refused with declaration_error:invalid_field.",
  q="| 6 | Types, enums, patterns, ranges, required-iff rules | `invalid_field` |")
c("7.7.7-a", "MUST", "The file, text, value and builder paths resolve an equal document to the same resolved form or the same refusal class.",
  q="Three construction paths yield the same emitter:")
c("7.7.7-b", "MUST", "A declaration-built emitter is sealed: later registration or reconfiguration is refused.",
  "vectors have no step after construction to attempt it; the reference host holds it by construction, with no method that changes a built emitter (D-44)",
  ["agent-hooks/reference-host/src/declaration/tests.rs::declared_emitters_carry_the_declaration_and_code_built_ones_do_not"],
  q="An emitter built from a declaration is **sealed**: it MUST refuse later registration and reconfiguration (composition, identity provider, timeouts, approval redactor, record bound).")
c("7.7.8-a", "MUST", "With bindings, interceptors_registered counts the bindings at the point and verdicts[].name is the binding id; no other declaration content reaches records.",
  q="With per-point bindings (§7.7.5), `interceptors_registered` is the number of interceptors bound at the emitted point, `verdicts[].index` and `decided_by` index into that list in dispatch order, and `verdicts[].name` is the binding `id`.")
c("7.7.8-b", "SHOULD", "The loader logs the contract version, document id and document digest once at load, outside the record stream.",
  "the log is outside the record stream, and ctk-harness/1 carries no host log for a vector to read",
  ["agent-hooks/reference-host/src/declaration/tests.rs::the_load_is_logged_once_with_version_id_and_digest"],
  q="A host SHOULD log the contract version, the document `id` and the `jcs-sha256` digest of the document once at load, outside the record stream, so an operator can match a running host to a pushed document.")
c("7.7.9-a", "MUST", "A host_declaration host builds its emitter from the CTK document and registry and reports a refusal as a load outcome, never as a run.",
  q="A host that declares it MUST build its emitter from the declaration the CTK supplies, together with the CTK's registry, and MUST surface refusal as a load outcome, never as a run.")

# §8 modes
c("8-a", "MUST", "Every record stamps the mode, enforce or evaluate_only.",
  q='"mode": "enforce" | "evaluate_only",')
c("8-b", "MUST", "In evaluate_only interceptors run as the profile directs, verdicts are recorded, and every action proceeds as if allowed.",
  q="| `evaluate_only` | The host invokes interceptors per the declared profile and records verdicts but proceeds with every action as if the combined verdict were `allow`.")
c("8-c", "MUST", "In evaluate_only no transform is applied.",
  q="The host MUST validate `transform` per §5.2 but MUST NOT apply it.")
c("8-d", "MUST", "In evaluate_only the approval seam is never consulted.",
  q="The host MUST NOT consult the approval seam.")
c("8-e", "MUST", "In evaluate_only a failure is still recorded as its host_error deny while the action proceeds.",
  q="| `evaluate_only` | The host invokes interceptors per the declared profile and records verdicts but proceeds with every action as if the combined verdict were `allow`.")
c("8-f", "MAY", "Mode may be selected per session or per point.",
  q="A host MUST support two modes, selected per session or per interception point:")
c("8-g", "MUST", "An evaluate_only outcome is never presented to a downstream system as enforcement.",
  "downstream presentation is outside the record stream the runner sees",
  ["agent-hooks/reference-host/tests/integration/agent_loop.rs::evaluate_only_records_never_claim_enforcement"],
  q="The host MUST NOT present an `evaluate_only` outcome as enforcement to any downstream system.")

# §9 approval and redaction
c("9-a", "MUST", "The seam is consulted only when the profile calls for it, only for a liftable deny, and only when a resolver is registered.",
  q="The host consults a registered **approval resolver** exactly when the composition profile in effect says to (§7.4–§7.6), and never at `agent_shutdown` (§6.1a) or in `evaluate_only` mode (§8).")
c("9-b", "MUST", "The approval request carries the context identity, the interception point, the liftable deny and the context as presented.",
  q='"context_identity": "<string per §10.1>" | null, "interception_point": "<§3>", "verdict": <the liftable deny Verdict>, "context": <the AgentContext> // MAY be redacted per host policy')
c("9-c", "MUST", "An approve outcome carries a permit, which then takes the place of the deny.",
  q="`approve` MUST carry a permit verdict (`allow` or `transform`). It substitutes per §7.6.")
c("9-d", "MUST", "A reject outcome carries a deny, which becomes the combined verdict.",
  q="`reject` MUST carry `{\"decision\": \"deny\", ...}`. The triggering deny (or the resolver's deny) stands as the combined verdict.")
c("9-e", "MUST", "An unresolved outcome gives a deny with host_error:approval_unresolved.",
  q="`unresolved` means the resolver could not decide. The host MUST treat it as `deny` with `host_error:approval_unresolved`.")
c("9-f", "MUST", "A resolution whose context_identity is not byte-equal to the request's gives a deny with host_error:approval_identity_mismatch; null echoes null.",
  q="The resolution's `context_identity` MUST equal the request's, byte for byte (`null` echoes as `null`). A mismatch MUST be rejected with `host_error:approval_identity_mismatch`.")
c("9-g", "MUST", "A resolver that raises or times out gives a deny with host_error:approval_resolver_failed.",
  q="A resolver that raises or times out MUST yield `deny` with `host_error:approval_resolver_failed`.")
c("9-h", "MUST", "A resolution is checked in order: echo, then outcome and verdict presence, then section 5 on the carried verdict, then outcome consistency; the first failure decides.",
  q="A host MUST validate a resolution in this order, substituting the named deny at the first failure:")
c("9-i", "MUST", "A resolution whose verdict is absent on approve or reject, or present on unresolved, gives a deny with host_error:approval_resolver_failed.",
  q='`outcome` is one of the three values, and `verdict` is present exactly when `outcome != "unresolved"` → `host_error:approval_resolver_failed`;')
c("9-j", "MUST", "A carried verdict failing section 5 gives a deny with host_error:verdict_invalid.",
  q="the carried `verdict` passes §5 validation → `host_error:verdict_invalid`;")
c("9-k", "MUST", "An approve carrying a deny, or a reject carrying a permit, gives a deny with host_error:verdict_invalid.",
  q="outcome/verdict consistency (`approve` carries a permit, `reject` carries a deny) → `host_error:verdict_invalid`.")
c("9-l", "MUST", "Every consultation is recorded: resolved_by approval when a permit took effect, rejection for every other end.",
  q='Consultation outcome (§7.6): `"approval"` iff a permit resolution substituted for a verdict; `"rejection"` iff the seam was consulted and did **not** lift the deny (reject, unresolved, resolver failure, or echo violation)')
c("9-m", "MUST", "An approved transform that cannot be applied gives a deny with host_error:transform_invalid while resolved_by stays approval.",
  q='Consultation outcome (§7.6): `"approval"` iff a permit resolution substituted for a verdict;')
c("9-n", "MUST", "The request identity is computed over the context as presented to the seam, after earlier folds and after redaction.",
  q="The `context_identity` presented in the request is computed by the identity provider from the context **as presented to the resolver** — at consultation time, after any transforms that folded earlier in a sequential dispatch, **and after any host redaction applied for the request**.")
c("9-o", "MAY", "A host may register a redactor that shapes the context the approver sees.",
  q="A host MAY register an **approval redactor** — a pure function producing the context to place in the ApprovalRequest — to minimize that egress.")
c("9-p", "MUST", "Redaction changes only what the approver sees: the action and the record identities use the unredacted context.",
  q="the record's `input_identity`/`enforced_identity` are unaffected — they bind the enforcement path, not the approval egress;")
c("9-q", "MUST", "A redactor that raises gives a deny with host_error:approval_resolver_failed.",
  "the CTK redactor overwrites paths and cannot be scripted to fail",
  ["agent-hooks/reference-host/tests/integration/reserved_reasons.rs::approval_resolver_failed_when_the_redactor_raises",
   "agent-hooks/reference-host/tests/integration/composition.rs::a_panicking_redactor_denies_with_resolver_failed"],
  q="a redactor that raises or panics fails the consultation closed as `deny host_error:approval_resolver_failed`;")
c("9-r", "SHOULD", "A redactor lists the paths it removed under extensions.<host>.redacted.",
  q="hosts SHOULD document removed content under the reserved `extensions.<host>.redacted` shape: an array of §5.2 path strings.")

# §10 identity and records
c("10.1-a", "MUST", "Without a configured provider the identity provider is jcs-sha256, and every record names its provider.",
  q='| `"jcs-sha256"` | The default provider defined in §10.2. Shipped by every SDK; in effect unless the host configures otherwise. |')
c("10.1-b", "MUST", "A custom provider name matches ^[a-z][a-z0-9_-]*$ and does not begin with jcs.",
  "custom providers are code; the CTK registers only ctk-fault",
  ["agent-hooks/reference-host/src/identity/provider.rs::custom_names_follow_the_rules",
   "agent-hooks/suite/src/declaration.rs::custom_provider_names_may_not_start_with_jcs"],
  q="A host (and every SDK constructor) MUST reject a host-defined provider name that does not match `^[a-z][a-z0-9_-]*$` or that begins with `jcs`")
c("10.1-c", "MUST", "With the null provider every record carries null identities and a null identity_provider.",
  q="Approvals bind only by request/response correlation; records carry `null` identities and self-describe as **unbound**.")
c("10.1-d", "MUST", "A provider that fails denies the emission with host_error:context_invalid before any interceptor runs; it never silently unbinds.",
  q="A declared provider that raises, panics, or returns a non-string MUST fail the emission closed as `deny` `host_error:context_invalid` before any interceptor runs")
c("10.1-e", "MUST", "A claim with the null provider states that the host is identity-unbound, and one with a custom provider states whether it is content-derived.",
  "a property of the claim text",
  ["runner/tests/integration/reports.rs::claim_row_states_what_the_surface_obliges"],
  q="A conformance claim (§13.3) MUST disclose whether the declared provider is content-derived.")
c("10.2-a", "MUST", "jcs-sha256 is sha256: followed by the lowercase hex SHA-256 of the UTF-8 RFC 8785 canonical form of the projection.",
  q='`context_identity(ctx)` is `"sha256:" + lowercase_hex(SHA-256(canonical_json(ctx_rc)))`')
c("10.2-b", "MUST", "The projection keeps only the required core and the per-point conditional whitelist; optional and extension fields do not affect identity.",
  "the reference loop builds no optional fields for a vector to vary",
  ["agent-hooks/reference-host/src/identity/jcs.rs::projection_drops_optional_members_and_subfields",
   "agent-hooks/reference-host/tests/integration/golden.rs::projection_ignores_optional_members",
   "agent-hooks/suite/src/identity.rs::projection_drops_optional_members"],
  q="All other members — optional and namespaced fields and nested optional subfields such as `tool_result.duration_ms` or `tool_call.content_hash` — are excluded, so adding optional data never perturbs the identity.")
c("10.2-c", "MUST", "Canonicalization sorts keys by UTF-16 code units, writes numbers per ECMA-262 and uses minimal escaping, so equal values give equal identities whatever their source spelling.",
  q="`canonical_json` is RFC 8785 (JSON Canonicalization Scheme): object members sorted by UTF-16 code units, numbers per ECMA-262 `Number::toString`, minimal RFC 8259 string escapes, no insignificant whitespace.")
c("10.2-d", "MUST", "An integral number beyond 2^53-1 in magnitude anywhere in the projection denies the emission with host_error:context_invalid; 2^53-1 itself is accepted.",
  q='The provider MUST reject — as `deny` with `host_error:context_invalid` and a remediation-detail message (e.g., *"integer exceeds 2^53; string-encode 64-bit identifiers, see §4.4"*) — any context whose projection contains: - an integral number outside ±(2⁵³−1)')
c("10.2-e", "MUST", "An integer literal too large for a 64-bit type is caught from the raw text before a parser can coerce it.",
  q="an integral number outside ±(2⁵³−1) (canonicalization would silently round it, making the identity non-injective);")
c("10.2-f", "MUST", "A context nested deeper than the depth bound the host enforces (section 12.3, 128 levels recommended) is denied with host_error:context_invalid.",
  q="breach of whatever size or depth limit the host or the shipped core enforces MUST yield `deny` with `host_error:context_invalid`")
c("10.2-g", "MUST", "enforced_identity is computed over the context after composition and equals input_identity when no transform was applied.",
  q="| `enforced_identity` | Provider output after composition completes (post-fold in sequential profiles). Equal to `input_identity` when no transform was applied, and always equal in `evaluate_only` mode. |")
c("10.2-h", "MUST", "A folded or applied transform that takes the context out of the identity domain denies the emission with host_error:context_invalid, enforced_identity null and decided_by null.",
  q="`null` is reserved for pure-allow combinations, §5.2 transform-application failures, and profile-synthesized verdicts (`transform_conflict`, `composition_disagreement`, `no_interceptor`, identity-provider rejection).")
c("10.2-i", "MUST", "No identity is computed for a context whose interception_point is absent or outside the closed set.",
  "harnesses always build contexts with a valid point",
  ["agent-hooks/reference-host/src/identity/provider.rs::unknown_or_absent_point_has_no_identity",
   "agent-hooks/suite/src/identity.rs::unknown_point_is_refused"],
  q="The provider MUST reject a context whose `interception_point` is absent or outside the closed §3 set")
c("10.2-j", "MUST", "The context_invalid deny for a context outside the identity domain carries a message that says how to repair it (such as writing 64-bit identifiers as decimal strings).",
  q='The provider MUST reject — as `deny` with `host_error:context_invalid` and a remediation-detail message (e.g., *"integer exceeds 2^53; string-encode 64-bit identifiers, see §4.4"*) — any context whose projection contains:')
c("10.3-a", "MUST", "The host writes exactly one record per emission.",
  q="A host MUST produce one **InterceptionRecord** per emission.")
c("10.3-b", "MUST", "A record carries no payload: no context or target content and no transform value.",
  q="The record is payload-free: it carries no context or target content.")
c("10.3-c", "MUST", "The record truncates message and warnings[].message to at most 256 UTF-8 bytes on a character boundary, marking a cut with an ellipsis.",
  "where the ellipsis falls relative to the byte budget is not pinned by whole-value assertions",
  ["agent-hooks/reference-host/src/verdict/model.rs::long_messages_are_cut_on_a_char_boundary"],
  q="`message` and each `warnings[].message` are truncated to at most 256 UTF-8 bytes (on a character boundary, with a trailing `…` when truncated);")
c("10.3-d", "MUST", "The record keeps approval as an empty object, dropping its members.",
  q="`approval` presence is kept but its members are stripped (an empty object);")
c("10.3-e", "MUST", "A record always carries interception_point, mode, verdict, input_identity, enforced_identity, identity_provider, session_id, sequence, decided_by, composition and interceptors_registered.",
  src=RECORD_SCHEMA, q='"required": [ "interception_point", "mode", "verdict", "input_identity", "enforced_identity", "identity_provider", "session_id", "sequence", "composition", "interceptors_registered" ]')
c("10.3-f", "MUST", "A record copies the context timestamp and carries trace only when the context had one.",
  q="| `timestamp` | OPTIONAL. The context's RFC 3339 `timestamp`, copied verbatim — the event time audit/SIEM sinks index on. Absent when the context lacked the field. |")
c("10.3-g", "MUST", "decided_by is the winning index, null for a pure allow and for an outcome the host or profile synthesized.",
  q="Registration index of the interceptor whose verdict won the aggregation (§7.3) or whose liftable deny was consulted (§7.6).")
c("10.3-h", "MUST", "verdicts lists the invoked interceptors with index and decision, and is present under sequential/run_all and the parallel profiles.",
  q="Payload-free per-interceptor summary `{index, decision, reason?, name?}`. REQUIRED in multi-verdict profiles (`sequential/run_all`, `parallel/*`); OPTIONAL in `sequential/first_deny`.")
c("10.3-i", "MUST", "Under the sequential profiles a record whose emission left a bound interceptor uncalled (first-deny short-circuit, approval stop, failed fold transform) carries fold_truncated true; when the member is present it is true exactly then.",
  q="`true` iff one or more registered interceptors were never invoked in this emission — a first-deny short-circuit, an approval-stop, or a failed fold-transform (§7.4).")
c("10.3-j", "MUST", "resolved_by is absent or null exactly when the seam was not consulted.",
  q="absent iff the seam was never consulted.")
c("10.3-k", "MUST", "interceptors_registered counts the interceptors bound at the emitted point.",
  q="Number of interceptors registered at emission time; with per-point bindings (§7.7.5), the number bound at the emitted point.")
c("10.3-l", "MUST", "The declaration member is present only on records of a declaration-built emitter.",
  q="Present iff the emitter was built from a declaration document; absent for a host configured in code.")
c("10.3-m", "MUST", "A record of an emission denied before dispatch carries null identities, decided_by null and no verdicts (absent or empty).",
  q="an invalid envelope is the §6.3 `context_invalid` deny — no interceptor runs, no identity is computed, and the record carries best-effort envelope fields with `null` identities and the fail-closed verdict, never a plausible one.")
c("10.3-n", "SHOULD", "When the host cannot build a context at all it still writes a context_invalid record with null identities.",
  "harnesses always build contexts",
  ["agent-hooks/reference-host/tests/integration/composition.rs::a_context_that_cannot_be_read_still_leaves_a_record"],
  q="SHOULD produce an interception record for the failed emission: the payload-free projection of a synthesized `deny` with reason `host_error:context_invalid`")
c("10.3-o", "MUST", "The host never stores the unprojected verdict in place of the record.",
  "storage outside the record stream is invisible to the runner",
  ["agent-hooks/reference-host/tests/integration/composition.rs::only_the_projection_reaches_the_record_sink"],
  q="A host MUST NOT persist the unprojected verdict in place of the record.")

# §11 reserved reasons
c("11-a", "MUST", "The host_error: namespace is reserved to the host; the fourteen reasons are used only for their stated causes.",
  q="A host MUST use the following `reason` values, and only these, when it synthesizes a `deny` verdict per §6.3, §5.2, §7.5, §9, or §10.3 (host projection failure).")
c("11-b", "MUST", "A verdict from an interceptor or resolver that uses a reserved reason is refused with host_error:verdict_invalid.",
  q="An interceptor MUST NOT emit a `reason` beginning with `host_error:`.")
c("11-c", "MUST", "host_error:adapter_unsupported denies a point the adapter cannot emit.",
  "the reference loop can emit every point",
  ["agent-hooks/reference-host/tests/integration/reserved_reasons.rs::adapter_unsupported_at_a_point_outside_the_surface"],
  q="| `host_error:adapter_unsupported` | The host adapter cannot emit this interception point. |")
c("11-d", "MUST", "declaration_error:* classes are load refusals and never verdict reasons.",
  q="Refusals are construction errors, not verdicts.")

# §12 streaming, concurrency, bounds
c("12.1-a", "MUST", "By default a streamed response is assembled in full before post_model_call.",
  tests=["agent-hooks/reference-host/tests/integration/agent_loop.rs::buffered_output_assembles_a_stream_into_one_emission"],
  q="A host that streams model output MUST assemble the complete response before emitting `post_model_call`.")
c("12.1-b", "MUST", "Content that no emission evaluated fails closed at end of stream with host_error:streaming_unsupported and is not used.",
  q="content that no emission evaluated MUST fail closed at end of stream with `host_error:streaming_unsupported` rather than settle clean — the same failure mode as the non-assembling host above;")
c("12.1-c", "MUST", "An incremental host releases nothing beyond its declared bound ahead of a verdict that covers it.",
  q="no part of the response is released to the caller beyond the declared exposure bound ahead of a verdict covering it;")
c("12.1-d", "MUST", "An incremental deny ends the stream and withholds everything not yet released.",
  q="a `deny` terminates the stream and withholds everything not yet released, including content an earlier emission permitted;")
c("12.1-e", "MUST", "Withheld or unevaluated streamed content is never persisted.",
  q="durable incorporation (§6.1) is gated by the same discipline as release: content withheld at termination — including content an earlier emission permitted but the host had not yet released — or that no emission evaluated MUST NOT be persisted.")
c("12.1-f", "MUST", "A model call that errors is not followed by a post_model_call and nothing partial persists.",
  tests=["agent-hooks/reference-host/tests/integration/agent_loop.rs::errored_model_call_is_not_mediated"],
  q="Assembly that fails because the model call itself errored is an errored model call, not this shape: there is no complete response to evaluate, the host handles the failure as it handles any errored action — nothing partial egresses or persists (§6.1) — and `post_model_call` is not the vehicle for reporting the provider's error.")
c("12.1-g", "MUST", "A host that cannot assemble a stream emits post_model_call with finish_reason stream_incomplete and a self-deny host_error:streaming_unsupported, and does not use the partial response.",
  tests=["agent-hooks/reference-host/tests/integration/agent_loop.rs::buffered_output_fails_closed_on_a_truncated_stream"],
  q='A host that cannot assemble MUST emit `post_model_call` with `response.finish_reason: "stream_incomplete"` and a `deny` self-verdict with `host_error:streaming_unsupported`, and MUST NOT incorporate the partial response.')
c("12.1a-a", "MUST", "Caller-bound output is held until the output verdict permits it, unless the host declares buffered_output false.",
  q="A host that streams output to its caller MUST buffer the stream and MUST NOT release any part of it to the caller until the `output` emission's combined verdict permits, UNLESS the host declares the capability `buffered_output: false` in its conformance surface (§13.1).")
c("12.1a-b", "MUST", "Released content is exactly the verdicted content, after any transform.",
  q="The content released once the verdict permits MUST be the verdicted content (the transformed value when the combined verdict is `transform`); a host MUST NOT rewrite content between the verdict and its release.")
c("12.1a-c", "MUST", "A host with buffered_output false states in its claim that an output deny cannot retract streamed content.",
  "a property of the claim text",
  ["runner/tests/integration/reports.rs::passing_report_carries_the_claim_row"],
  q="A claim with `buffered_output: false` MUST state that a `deny` at `output` cannot retract already-streamed content (§12.1a)")
c("12.1a-d", "MUST", "A host that mediates incrementally states its exposure bound in its declaration and claim.",
  "a property of the declaration and claim text",
  ["runner/tests/integration/reports.rs::passing_report_carries_the_claim_row"],
  q="A host that additionally mediates incrementally under the §12.1 exception MUST state its exposure bound in the declaration:")
c("12.2-a", "MUST", "Each of several concurrent tool calls gets its own pre_tool_call and post_tool_call pair with a distinct tool_call.id.",
  q="Each tool call MUST be bracketed by its own `pre_tool_call`/`post_tool_call` pair sharing one distinct `tool_call.id`;")
c("12.2-b", "MUST", "A concurrent tool starts only after its own pre_tool_call composition permits it.",
  q="the tool MUST NOT start before its `pre_tool_call` composition completes and `post_tool_call` MUST NOT be emitted before the tool returns.")
c("12.2-c", "MUST", "Sequence values stay unique and totally ordered under concurrency.",
  "interleaving is not deterministic",
  ["agent-hooks/reference-host/tests/integration/composition.rs::concurrent_emissions_get_unique_sequences",
   "agent-hooks/reference-host/tests/integration/agent_loop.rs::interceptors_see_strictly_increasing_sequences_under_parallel_tool_calls",
   "runner/tests/integration/expect_keys.rs::parallel_tool_calls_may_interleave_but_never_repeat_or_invert_a_pair"],
  q="`sequence` values MUST be unique and totally ordered within the session; hosts MUST assign them atomically (they establish the audit order of records under concurrency).")
c("12.2-d", "MUST", "Interceptors tolerate concurrent calls.",
  "a property of interceptor code",
  ["agent-hooks/reference-host/tests/integration/composition.rs::parallel_profiles_dispatch_concurrently",
   "agent-hooks/reference-host/tests/integration/agent_loop.rs::parallel_tool_calls_get_their_own_pairs_and_unique_sequences"],
  q="Interceptors MUST tolerate concurrent invocation across emissions within a session.")
c("12.3-a", "MUST", "A context beyond the size or depth bound is denied with host_error:context_invalid, never crashed on or truncated.",
  "the bound is host-tunable (R-13): CTK-1261, CTK-1262 and CTK-1373..1376 (the bound met exactly and passed by a byte or two) pin the reference host's 5 MiB, advisory (D-13)",
  ["agent-hooks/reference-host/src/context/domain.rs::size_beyond_bound_is_refused",
   "agent-hooks/reference-host/src/context/domain.rs::depth_beyond_bound_is_refused",
   "agent-hooks/reference-host/tests/integration/composition.rs::oversized_contexts_are_refused_before_dispatch",
   "agent-hooks/reference-host/tests/integration/composition.rs::a_transform_that_breaks_the_bounds_fails_closed_at_finalize"],
  q="What is normative is the failure mode: breach of whatever size or depth limit the host or the shipped core enforces MUST yield `deny` with `host_error:context_invalid`, and MUST NOT crash the process or silently truncate the context.")
c("12.3-b", "SHOULD", "The size bound is 5 MiB and the depth bound 128 levels.",
  q="- **Serialized context size** — RECOMMENDED default: 5 MiB. - **Nesting depth** — RECOMMENDED default: 128 levels.")

# §13 conformance
c("13-a", "MUST", "A host is conformant only when every vector applicable to its declared surface passes.",
  "a property of the runner's verdict over a whole run",
  ["runner/tests/integration/reports.rs::claim_refuses_draft_failures_and_errors"],
  q="A host is **conformant** when it passes 100% of the CTK vectors applicable to its declaration.")
c("13-b", "MUST", "An adapter that implements the contract partially does not claim conformance.",
  "a property of the claim process",
  ["runner/tests/integration/reports.rs::claim_refuses_draft_failures_and_errors",
   "runner/tests/integration/cli.rs::run_writes_reports_that_verify_and_a_narrowed_run_cannot_be_claimed"],
  q="Partial adapters under development can run vector subsets locally but MUST NOT claim conformance.")
c("13-c", "MUST", "A claim names framework, adapter version, spec version, capabilities, profiles, identity provider and SDK, and states every non-default posture.",
  "a property of the claim text",
  ["runner/tests/integration/reports.rs::passing_report_carries_the_claim_row",
   "runner/tests/integration/reports.rs::claim_row_states_what_the_surface_obliges"],
  q="A conformance claim is the tuple `(<framework>, <adapter-version>, agent-hooks/<spec-version>, <capabilities>, <profiles>, <identity-provider>, <sdk-lang>@<sdk-version>)` plus the CTK report, recorded in `conformance/CLAIMS.md`.")
c("13-d", "MUST", "Vectors requiring a capability the host does not declare are skipped with the reason, never failed.",
  "a property of the runner's surface filter",
  ["agent-hooks/suite/src/surface.rs::every_skip_names_its_reason",
   "runner/tests/integration/cli.rs::list_shows_skip_reasons_for_a_declaration"],
  q="Passing 100% of non-skipped vectors and attaching the report.")
c("13-e", "MUST", "A claim names a released specification version; agent-hooks/draft is never claimed.",
  "a property of the claim tool",
  ["runner/tests/integration/reports.rs::claim_refuses_draft_failures_and_errors"],
  src=SEED_000, q="A claim names a released version, and every runner refuses a report that names the draft.")

# §14 security
c("14-a", "MUST", "Refusal findings and host-synthesized messages never echo binding config or payload.",
  "vector assertions do not inspect refusal detail text",
  ["agent-hooks/reference-host/tests/integration/composition.rs::host_synthesized_messages_carry_no_payload",
   "agent-hooks/reference-host/src/declaration/tests.rs::findings_never_echo_config"],
  q="Refusal messages, from the loader and from resolvers, MUST NOT echo `config`.")


# What a host must have for a clause to apply to it (§3.2, §13.1; issue 27): `needs` lists the capabilities
# of the declared surface the clause is about. A clause without `needs` binds every host, the floor surface
# (agent_startup, input, output, agent_shutdown, no capability) included; `ctk coverage --surface` checks that
# each MUST clause that applies to a minimal surface has a vector that applies to that surface.
# The model points come with `model_calls`, the tool points with `tool_calls` (HOSTS.md §1).
NEEDS = {
    # §3, §3.1, §4.2, §6.1, §12.1: the model points and what a model call does
    "model_calls": ["3-d", "3.1-d", "3.1-g", "3.2-e", "4.2-c", "4.2-d", "6.1-c", "6.1-d",
                    "12.1-a", "12.1-b", "12.1-e", "12.1-f", "12.1-g"],
    # §3, §3.1, §4.2, §6.1, §6.2: the tool points and the tool seam
    "tool_calls": ["3-e", "3.1-e", "4.2-e", "4.2-f", "6.1-e", "6.1-f", "6.2-a", "6.2-b", "6.2-c",
                   "12.2-a", "12.2-b", "12.2-c", "12.2-d"],
    "parallel_tool_calls": ["12.2-a", "12.2-b", "12.2-c", "12.2-d"],
    # §12.1 "A host that streams model output": assembling, or failing closed when it cannot (the kit
    # scripts a stream to a host declaring streaming and buffered_output, or incremental_output)
    "streaming": ["12.1-a", "12.1-g"],
    # §12.1's exception: mediation segment by segment, its four items
    "incremental_output": ["12.1-b", "12.1-c", "12.1-d", "12.1-e"],
    # §7.7: the declaration document and what only a declaration-built emitter does
    "host_declaration": ["10.3-l", "11-d"],
    # §3.1: several turns in one session
    "multi_turn": ["3.1-h"],
    # §10.2: only a value beyond 2^53-1 leaves the identity domain through a transform or carries the repair
    # hint, and a vector may hand one only to a host that declares it can carry it (§13.1, the vector lint)
    "int64_json": ["10.2-h", "10.2-j"],
}


def _needs():
    ids = {c["id"] for c in C}
    for cap, listed in NEEDS.items():
        for cid in listed:
            assert cid in ids, (cap, cid)
    for c in C:
        needs = [cap for cap, listed in NEEDS.items() if c["id"] in listed]
        if c["section"].startswith("7.7"):
            needs.append("host_declaration")
        if "incremental_output" in needs:
            needs.append("model_calls")
        if needs:
            c["needs"] = sorted(set(needs))


_needs()

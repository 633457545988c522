"""Block 0001-0099: every point x decision (allow, transform, deny, liftable deny)."""
from lib import *

# Ids 0001..0099. Each vector's id is written at its call site (never counted), so adding or
# removing a vector never renumbers another.

# scenario + strict point list when everything passes, per point
SCEN = {
    SU: (tool_scenario, FULL_TOOL, MT), IN: (plain_scenario, FULL_PLAIN, M),
    PM: (plain_scenario, FULL_PLAIN, M), PO: (tool_scenario, FULL_TOOL, MT),
    PT: (tool_scenario, FULL_TOOL, MT), PTT: (tool_scenario, FULL_TOOL, MT),
    OUT: (plain_scenario, FULL_PLAIN, M), SD: (plain_scenario, FULL_PLAIN, M),
}
FINAL = {tool_scenario: "done", plain_scenario: "hello there"}
PART = "enforcement/points"
SHORT = {SU: "startup", IN: "input", PM: "pre-model", PO: "post-model", PT: "pre-tool",
         PTT: "post-tool", OUT: "output", SD: "shutdown"}
CLAUSE_BLOCK = {SU: "6.1-a", IN: "6.1-b", PM: "6.1-c", PO: "6.1-d", PT: "6.1-e", PTT: "6.1-f",
                OUT: "6.1-g", SD: "6.1-h"}

# --- allow with a warning at each point: control flow unchanged, warning recorded
for num, p in [(1, SU), (2, IN), (3, PM), (4, PO), (5, PT), (6, PTT), (7, OUT), (8, SD)]:
    scen, full, caps = SCEN[p]
    reason = "ctk:note-" + SHORT[p]
    V(num, "allow-warning-" + SHORT[p],
      "An allow carrying a warning at %s changes nothing in the run and the warning reaches the record" % p,
      "5.1, 10.3", ["5.1-a", "5.1-f", "5.1-g", "6.1-i", "10.3-g", "3.1-a", "3.1-b", "3.1-f"], "verdict/warnings",
      scen(), {
          "interceptions": ix(full, {0: {"sequence": 0}}),
          "records": [rec(p, {"verdict.decision": "allow", "verdict.warnings[0].reason": reason,
                              "verdict.warnings[0].message": "keep an eye on this", "decided_by": None,
                              "mode": "enforce"})],
          "final_output": FINAL[scen], "run_outcome": "completed", "identities_equal": True},
      caps=caps, script=[rule(p, {"decision": "allow", "warnings": [{"reason": reason, "message": "keep an eye on this"}]})])


# --- plain deny at each point
def deny_expect(p, reason, liftable_=False):
    lift = {"verdict.approval": {}} if liftable_ else {}
    # No "fold_truncated": False here: the text requires the member only when it is true (D-15 is advisory;
    # spec/0.1/DECISIONS.md, "Rulings of issue 9").
    r = {"verdict.decision": "deny", "verdict.reason": reason, "decided_by": 0}
    r.update(lift)
    recabs = ["resolved_by"]
    if p == SU:
        return {"interceptions": ix([SU, SD], {0: {"sequence": 0, "agent_init.tools_registered": ["lookup"],
                                                    "target.tools_registered": ["lookup"]},
                                               1: {"summary.reason": "error"}}),
                "interceptions_absent": [IN, PM, OUT],
                "tool_not_invoked": ["lookup"], "records": [rec(SU, r, recabs)],
                "final_output": None, "run_outcome": "blocked"}
    if p == IN:
        return {"interceptions": ix([SU, IN, SD], {1: {"input.content": "say hello", "input.role": "user",
                                                        "target.content": "say hello"},
                                                   2: {"summary.reason": "error"}}),
                "interceptions_absent": [PM, PO, OUT],
                "records": [rec(IN, r, recabs)], "final_output": None, "run_outcome": "blocked"}
    if p == PM:
        return {"interceptions": ix([SU, IN, PM, SD], {2: {"messages[0].content": "say hello",
                                                            "messages[0].role": "user", "target[0].content": "say hello"}}),
                "interceptions_absent": [PO, OUT],
                "records": [rec(PM, r, recabs)], "final_output": None, "run_outcome": "blocked"}
    if p == PO:
        return {"interceptions": ix([SU, IN, PM, PO, SD], {3: {"response.tool_calls[0].name": "lookup",
                                                                "target.finish_reason": "tool_calls",
                                                                "response.content": None}}),
                "interceptions_absent": [PT, PTT, OUT], "tool_not_invoked": ["lookup"],
                "records": [rec(PO, r, recabs)], "final_output": None, "run_outcome": "blocked"}
    if p == PT:
        return {"interceptions": ix([SU, IN, PM, PO, PT, PM, PO, OUT, SD],
                                    {4: {"tool_call.id": "tc-1", "tool_call.name": "lookup",
                                         "tool_call.args.q": "alpha", "target.q": "alpha"},
                                     5: {"context_must_contain": [reason]},
                                     8: {"summary.reason": "completed"}}),
                "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
                "records": [rec(PT, r, recabs)], "final_output": "done", "run_outcome": "completed"}
    if p == PTT:
        return {"interceptions": ix(FULL_TOOL, {5: {"tool_call.id": "tc-1", "tool_result.value": "RAW-RESULT-77",
                                                    "tool_result.is_error": False, "target": "RAW-RESULT-77"},
                                                6: {"context_must_contain": [reason],
                                                    "context_must_not_contain": ["RAW-RESULT-77"]}}),
                "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
                "records": [rec(PTT, r, recabs)], "final_output": "done", "run_outcome": "completed"}
    if p == OUT:
        return {"interceptions": ix(FULL_PLAIN, {4: {"output.content": "hello there", "target.content": "hello there"}}),
                "records": [rec(OUT, r, recabs)], "final_output": None, "run_outcome": "blocked"}
    if p == SD:
        return {"interceptions": ix(FULL_PLAIN, {5: {"summary.reason": "completed", "target.reason": "completed"}}),
                "records": [rec(SD, r, recabs)], "final_output": "hello there", "run_outcome": "completed"}


def scen_for(p):
    if p == PTT:
        return tool_scenario(ret="RAW-RESULT-77")
    return SCEN[p][0]()


for num, p in [(9, SU), (10, IN), (11, PM), (12, PO), (13, PT), (14, PTT), (15, OUT), (16, SD)]:
    reason = "ctk:stop-" + SHORT[p]
    covers = ["5.1-c", "6-a", CLAUSE_BLOCK[p], "10.3-g"]
    covers += {SU: ["3.2-d", "3-g", "4.2-a", "4.1-d"], IN: ["4.2-b", "3.2-d"], PM: ["4.2-c", "3.1-d"],
               PO: ["4.2-d", "3.1-d"], PT: ["4.2-e", "3.1-e", "6.2-c"], PTT: ["4.2-f", "3-e"],
               OUT: ["4.2-g", "12.1a-a"], SD: ["4.2-h", "3-g"]}[p]
    V(num, "deny-" + SHORT[p], "A plain deny at %s: the guarded step does not happen and the run goes on only as section 6 allows" % p,
      "6, 6.1", covers, PART, scen_for(p), deny_expect(p, reason), caps=SCEN[p][2],
      script=[rule(p, deny(reason))])

# --- liftable deny with no resolver: stands as plain deny with its own reason
for num, p in [(17, SU), (18, IN), (19, PM), (20, PO), (21, PT), (22, PTT), (23, OUT), (24, SD)]:
    reason = "ctk:needs-human-" + SHORT[p]
    V(num, "liftable-no-resolver-" + SHORT[p],
      "A liftable deny at %s with no resolver registered blocks like a plain deny and keeps its own reason" % p,
      "5.1, 9", ["5.1-d", "5.1-e", "9-a", "10.3-d", "10.3-j", CLAUSE_BLOCK[p]], "approval_seam",
      scen_for(p), deny_expect(p, reason, True), caps=SCEN[p][2],
      script=[rule(p, liftable(reason, approval={"ticket": "T-17", "queue": "ops"}))])

# --- liftable deny approved with an allow: the step proceeds
for num, p in [(25, SU), (26, IN), (27, PM), (28, PO), (29, PT), (30, PTT), (31, OUT)]:
    scen, full, caps = SCEN[p]
    reason = "ctk:ask-first-" + SHORT[p]
    exp = {"interceptions": ix(full), "records": [rec(p, {"verdict.decision": "allow", "resolved_by": "approval",
                                                          "decided_by": 0})],
           "final_output": FINAL[scen], "run_outcome": "completed"}
    if scen is tool_scenario:
        exp["tool_invocations"] = [{"name": "lookup", "args": {"q": "alpha"}}]
    V(num, "liftable-approved-" + SHORT[p],
      "A liftable deny at %s lifted by an approve resolution lets the step proceed as if allowed" % p,
      "5.1, 6.1, 7.6, 9", ["5.1-d", "9-c", "7.6-a", "7.6-b", "6.1-j", "9-l", "7.4-f"], "approval_seam",
      scen(), exp, caps=caps, script=[rule(p, liftable(reason))],
      approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])

# shutdown: the seam is never consulted
V(32, "liftable-shutdown-not-consulted",
  "A liftable deny at agent_shutdown is recorded as a deny without consulting a registered resolver",
  "6.1, 9", ["6.1-h", "9-a", "10.3-j"], "approval_seam", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(SD, {"verdict.decision": "deny", "verdict.reason": "ctk:closing-review"},
                                                     ["resolved_by"])],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[rule(SD, liftable("ctk:closing-review"))],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])

# --- transforms at each point where permitted
TP = "transform/targets"
V(33, "transform-input-content", "A transform of $target.content at input becomes the first message the model sees",
  "4.3, 5.2, 6.1", ["4.3-a", "4.3-b", "5.1-b", "5.2-c", "10.3-b", "10.2-g"], TP, plain_scenario(text="raw question"),
  {"interceptions": ix(FULL_PLAIN, {1: {"input.content": "raw question"},
                                    2: {"messages[0].content": "clean question", "messages[0].role": "user"}}),
   "records": [rec(IN, {"verdict.decision": "transform", "verdict.transform.path": "$target.content", "decided_by": 0},
                   ["verdict.transform.value"])],
   "final_output": "hello there", "run_outcome": "completed", "identities_equal": False},
  caps=M, script=[rule(IN, transform("$target.content", "clean question"))])

V(34, "transform-pre-model-messages", "A transform of the first message at pre_model_call is the history the loop keeps for the next model call",
  "4.3, 5.2", ["4.3-a", "4.3-b", "5.1-b", "5.2-a"], TP, tool_scenario(text="original prompt"),
  {"interceptions": ix(FULL_TOOL, {2: {"messages[0].content": "original prompt"},
                                   6: {"messages[0].content": "rewritten prompt", "target[0].content": "rewritten prompt"}}),
   "records": [rec(PM, {"verdict.decision": "transform", "verdict.transform.path": "$target[0].content"})],
   "final_output": "done", "run_outcome": "completed", "identities_equal": False},
  caps=MT, script=[rule(PM, transform("$target[0].content", "rewritten prompt"), match={"target[0].content": "original prompt"})],
  advisory="P-4")
# Gating twin of CTK-0034: whether the rewrite persists into the history of later model calls is P-4 (the text
# says only that the transformed value is what the action uses, section 6); every reading applies the transform.
V(57, "transform-pre-model-messages-applied", "A transform of the first message at pre_model_call is applied: the record carries the transform and the enforced identity differs from the input identity",
  "4.3, 5.2, 6", ["4.3-a", "5.1-b", "5.2-a"], TP, tool_scenario(text="original prompt"),
  {"interceptions": ix(FULL_TOOL, {2: {"messages[0].content": "original prompt"}}),
   "records": [rec(PM, {"verdict.decision": "transform", "verdict.transform.path": "$target[0].content"})],
   "final_output": "done", "run_outcome": "completed", "identities_equal": False},
  caps=MT, script=[rule(PM, transform("$target[0].content", "rewritten prompt"), match={"target[0].content": "original prompt"})])

V(35, "transform-post-model-tool-args", "A transform of a requested tool call's args at post_model_call decides what the tool receives",
  "4.3, 5.2, 6.1", ["4.3-a", "4.3-b", "5.2-c", "6.1-i"], TP, tool_scenario(args={"q": "alpha", "limit": 3}),
  {"interceptions": ix(FULL_TOOL, {4: {"tool_call.args.q": "beta", "tool_call.args.limit": 3}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "beta", "limit": 3}}],
   "records": [rec(PO, {"verdict.decision": "transform"})], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PO, transform("$target.tool_calls[0].args.q", "beta"), match={"response.finish_reason": "tool_calls"})])

V(36, "transform-post-model-content", "A transform of response content at post_model_call is what output carries and the caller receives",
  "4.3, 6.1, 12.1a", ["4.3-b", "5.1-b", "12.1a-b"], TP, plain_scenario(final="unvetted reply"),
  {"interceptions": ix(FULL_PLAIN, {3: {"response.content": "unvetted reply"}, 4: {"output.content": "vetted reply"}}),
   "records": [rec(PO, {"verdict.decision": "transform", "decided_by": 0})],
   "final_output": "vetted reply", "run_outcome": "completed"},
  caps=M, script=[rule(PO, transform("$target.content", "vetted reply"))])

V(37, "transform-pre-tool-arg", "A transform of one argument at pre_tool_call reaches the tool and the post_tool_call context; other arguments stay",
  "4.2, 4.3, 5.2", ["4.2-f", "4.3-b", "4.3-d", "5.2-c"], TP, tool_scenario(args={"q": "alpha", "page": 2}),
  {"interceptions": ix(FULL_TOOL, {4: {"tool_call.args.q": "alpha"}, 5: {"tool_call.args.q": "gamma", "tool_call.args.page": 2}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "gamma", "page": 2}}],
   "records": [rec(PT, {"verdict.decision": "transform", "verdict.transform.path": "$target.q"}, ["verdict.transform.value"])],
   "final_output": "done", "run_outcome": "completed", "identities_equal": False},
  caps=MT, script=[rule(PT, transform("$target.q", "gamma"))])

V(38, "transform-post-tool-whole-result", "A bare $target transform at post_tool_call replaces the whole tool result before the model sees it",
  "4.3, 5.2, 6.1", ["4.3-a", "5.2-d", "6.1-i"], TP, tool_scenario(ret="RAW-RESULT-88"),
  {"interceptions": ix(FULL_TOOL, {6: {"context_must_contain": ["scrubbed-result"], "context_must_not_contain": ["RAW-RESULT-88"]}}),
   "records": [rec(PTT, {"verdict.decision": "transform", "verdict.transform.path": "$target"})],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PTT, transform("$target", "scrubbed-result"))])

V(39, "transform-output-content", "A transform of output content is exactly what the caller receives",
  "4.3, 6.1, 12.1a", ["4.3-a", "4.3-b", "12.1a-b", "6.1-i"], TP, plain_scenario(final="draft answer"),
  {"interceptions": ix(FULL_PLAIN, {4: {"output.content": "draft answer"}}),
   "records": [rec(OUT, {"verdict.decision": "transform", "verdict.transform.path": "$target.content"})],
   "final_output": "final answer (edited)", "run_outcome": "completed"},
  caps=M, script=[rule(OUT, transform("$target.content", "final answer (edited)"))])

# decided_by is not asserted at CTK-0040/0041: §10.3 reserves null for "§5.2 transform-application failures" and a
# transform at agent_startup/agent_shutdown is rejected "per §11" (§4.3), so null and the answering interceptor's
# index both follow the text (freedom decided-by-forbidden-transform); CTK-1430/1431 pin null (advisory D-79).
V(40, "transform-forbidden-startup", "A transform at agent_startup is refused with transform_target_forbidden and the session never starts",
  "4.3, 11", ["4.3-c", "6.1-a", "11-a"], TP, tool_scenario(),
  {"interceptions": ix([SU, SD], {1: {"summary.reason": "error"}}),
   "records": [rec(SU, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_target_forbidden"})],
   "tool_not_invoked": ["lookup"], "final_output": None, "run_outcome": "blocked"},
  caps=MT, script=[rule(SU, transform("$target.tools_registered", []))])

V(41, "transform-forbidden-shutdown", "A transform at agent_shutdown is recorded as a transform_target_forbidden deny and changes nothing else",
  "4.3, 6.1, 11", ["4.3-c", "6.1-h", "11-a"], TP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(SD, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_target_forbidden"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[rule(SD, transform("$target.reason", "cancelled"))])

V(42, "transform-policy-target-alias-output", "The deprecated $policy_target root works at output exactly like $target",
  "5.2", ["5.2-b"], TP, plain_scenario(final="legacy text"),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, {"verdict.decision": "transform"})],
   "final_output": "legacy text, reviewed", "run_outcome": "completed"},
  caps=M, script=[rule(OUT, transform("$policy_target.content", "legacy text, reviewed"))])

V(43, "transform-nested-array-element", "A transform addressing one array element inside args replaces that element only",
  "5.2", ["5.2-a", "5.2-c", "4.3-d"], TP,
  tool_scenario(args={"filters": [{"op": "eq", "v": 1}, {"op": "like", "v": 2}], "keep": "yes"}),
  {"interceptions": ix(FULL_TOOL), "tool_invocations": [{"name": "lookup", "args": {"filters": [{"op": "eq", "v": 1}, {"op": "eq", "v": 2}], "keep": "yes"}}],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, transform("$target.filters[1].op", "eq"))])

V(44, "transform-quoted-segment", "A transform path using the [\"name\"] segment form resolves like the dotted form",
  "5.2", ["5.2-a"], TP, tool_scenario(args={"q-text": "alpha"}),
  {"interceptions": ix(FULL_TOOL), "tool_invocations": [{"name": "lookup", "args": {"q-text": "delta"}}],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, transform('$target["q-text"]', "delta"))])

V(45, "transform-missing-value-is-null", "A transform without a value member sets the addressed argument to null",
  "5.2", ["5.2-g"], TP, tool_scenario(args={"q": "alpha", "token": "abc"}),
  {"interceptions": ix(FULL_TOOL), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha", "token": None}}],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, transform("$target.token", novalue=True))])

V(46, "transform-whole-args", "A bare $target transform at pre_tool_call replaces the whole argument object",
  "5.2", ["5.2-d", "4.3-b"], TP, tool_scenario(args={"q": "alpha", "debug": True}),
  {"interceptions": ix(FULL_TOOL, {5: {"tool_call.args": {"q": "omega"}}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "omega"}}], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, transform("$target", {"q": "omega"}))])

V(47, "transform-unresolvable-input", "A transform whose path does not resolve at input denies with transform_invalid and the turn never starts",
  "5.2, 11", ["5.2-f", "6.1-b"], TP, plain_scenario(),
  {"interceptions": ix([SU, IN, SD]),
   "records": [rec(IN, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_invalid", "decided_by": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(IN, transform("$target.meta.lang", "en"))])

V(48, "transform-index-on-object", "A transform that indexes into an object at pre_tool_call denies with transform_invalid and the tool does not run",
  "5.2, 6.2", ["5.2-f", "6.2-a", "6.2-b"], TP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_invalid"})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, script=[rule(PT, transform("$target[0]", "x"))])

V(49, "transform-index-out-of-range", "A transform addressing a message index past the end at pre_model_call denies with transform_invalid",
  "5.2", ["5.2-f", "6.1-c"], TP, plain_scenario(),
  {"interceptions": ix([SU, IN, PM, SD]), "interceptions_absent": [PO],
   "records": [rec(PM, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_invalid"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PM, transform("$target[7].content", "x"))])

V(50, "transform-rooted-elsewhere", "A transform path rooted outside $target is refused and the output is not released",
  "5.2", ["5.2-e"], TP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, {"verdict.decision": "deny",
                                                       "verdict.reason": "host_error:transform_target_forbidden"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(OUT, transform("$context.output.content", "sneaky"))])

# A transform that leaves the point's conditional fields with the wrong JSON type (section 4.2 types). The project's
# reading (D-35 / P-3): the composed context fails the section 4 envelope check and the emission is denied
# host_error:context_invalid at the transforming point. The text checks types "before dispatching any emission"
# (section 10.2) and says a transform value is "any JSON value" (section 5.2), so a host may instead let the breakage
# surface at the next emission's envelope check: CTK-0051..0055 are advisory, and CTK-0056 asserts what both readings
# share (spec/0.1/DECISIONS.md, "Rulings of issue 9").
CI = "host_error:context_invalid"
V(51, "transform-args-not-object", "A bare $target transform that makes tool_call.args a string is not applied: the tool does not run and no post_tool_call is emitted",
  "4.2, 4.3, 5.2, 10.2", ["4.3-e", "4.2-e", "4.2-f"], TP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": CI})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, script=[rule(PT, transform("$target", "not-an-object"))], advisory="D-35")
V(52, "transform-messages-not-array", "A bare $target transform that makes messages an object is not applied: the model is not called",
  "4.2, 4.3, 5.2, 10.2", ["4.3-e", "4.2-c", "6.1-c"], TP, plain_scenario(),
  {"interceptions": ix([SU, IN, PM, SD]), "interceptions_absent": [PO, OUT],
   "records": [rec(PM, {"verdict.decision": "deny", "verdict.reason": CI})], "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PM, transform("$target", {"role": "user", "content": "not a list"}))], advisory="D-35")
V(53, "transform-tool-calls-not-array", "A transform that makes response.tool_calls a string is not applied: the response is discarded and nothing reaches the caller",
  "4.2, 4.3, 5.2, 10.2", ["4.3-e", "4.2-d", "6.1-d"], TP, plain_scenario(),
  {"interceptions": ix([SU, IN, PM, PO, SD]), "interceptions_absent": [OUT],
   "records": [rec(PO, {"verdict.decision": "deny", "verdict.reason": CI})], "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PO, transform("$target.tool_calls", "none"))], advisory="D-35")
# The same check does not depend on the identity provider: with the null provider no identity is computed, yet a
# transform that drops a required conditional member must still be refused.
V(54, "transform-output-shape-null-provider", "With the null provider, a bare $target transform that replaces output with a string is still refused: nothing reaches the caller",
  "4.2, 4.3, 10.1", ["4.3-e", "4.2-g", "6.1-g"], TP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, {"verdict.decision": "deny", "verdict.reason": CI, "identity_provider": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, identity_provider=None, script=[rule(OUT, transform("$target", "plain text"))], advisory="D-35")
V(55, "transform-input-shape-null-provider", "With the null provider, a bare $target transform that replaces input with a string is still refused: the turn never begins",
  "4.2, 4.3, 10.1", ["4.3-e", "4.2-b", "6.1-b"], TP, plain_scenario(),
  {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM],
   "records": [rec(IN, {"verdict.decision": "deny", "verdict.reason": CI, "identity_provider": None})], "final_output": None, "run_outcome": "blocked"},
  caps=M, identity_provider=None, script=[rule(IN, transform("$target", "plain text"))], advisory="D-35")
# Gating twin of CTK-0051: whichever emission refuses the broken args (the transforming pre_tool_call, or the
# post_tool_call whose envelope check sees tool_call.args as a string), no interceptor ever receives a context whose
# tool_call.args is not an object, and the refusal is a host_error deny at the tool seam (posture applies).
V(56, "transform-args-not-object-never-dispatched", "A bare $target transform that makes tool_call.args a string never reaches an interceptor: post_tool_call is not dispatched and the run follows the tool-seam posture",
  "4.2, 4.3, 6.3, 10.2", ["4.2-e", "4.2-f", "4.3-e"], TP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, script=[rule(PT, transform("$target", "not-an-object"))])

# Section 12.1: a model call that itself errors is an errored action, never mediated: no post_model_call follows its
# pre_model_call and nothing of it persists. The session still ends with agent_shutdown (section 3). `respond.error`
# is the harness protocol's way to fail the call (agent-hooks/adapter/HOSTS.md section 4, scenario.json); that the run
# then ends `error` is the harness protocol's convention, not the text's.
# D-35 on a single member (advisory, like CTK-0051..0055): a transform of input.role to a value outside its closed
# set leaves input.content valid; the composed context fails the section 4.2 types, so the emission is denied
# host_error:context_invalid.
V(59, "transform-input-role-outside-set", "A transform that sets input.role to admin, outside user, system and external, is not applied: the turn never begins",
  "4.2, 4.3, 5.2", ["4.3-e", "4.2-b", "6.1-b"], TP, plain_scenario(),
  {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM],
   "records": [rec(IN, {"verdict.decision": "deny", "verdict.reason": CI})], "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(IN, transform("$target.role", "admin"))], advisory="D-35")
V(58, "model-call-error-not-mediated", "A model call that fails after its pre_model_call is not mediated: no post_model_call, no output, agent_shutdown still closes the session",
  "12.1, 3", ["12.1-f", "3-g", "3.1-b"], PART,
  {"input": {"content": "say hello", "role": "user"},
   "model_script": [{"respond": {"content": "PARTIAL-REPLY", "tool_calls": [], "finish_reason": "stop",
                                 "error": {"message": "upstream unavailable"}}}]},
  {"interceptions": ix([SU, IN, PM, SD], {3: {"summary.reason": "error"}}),
   "interceptions_absent": [PO, OUT], "final_output": None, "run_outcome": "error"},
  caps=M, script=[])

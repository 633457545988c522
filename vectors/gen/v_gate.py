"""Block 0100-0199: the section 5 gate, reserved reasons refused from interceptors, failures."""
from lib import *

# Ids 0100..0199. Each vector's id is written at its call site (never counted), so adding or
# removing a vector never renumbers another.
GP = "verdict/gate"


def at_pre_tool(reason=None, extra_rec=None, absent=None):
    """The tool call denied at pre_tool_call (a host_error deny: the run's outcome follows the posture)."""
    a = {"verdict.decision": "deny"}
    if reason:
        a["verdict.reason"] = reason
    if extra_rec:
        a.update(extra_rec)
    return {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT],
            "tool_not_invoked": ["lookup"], "records": [rec(PT, a, absent)],
            "run_outcome": "completed", "run_outcome_by_posture": POSTURE}


def at_input(reason=None):
    a = {"verdict.decision": "deny"}
    if reason:
        a["verdict.reason"] = reason
    return {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM],
            "records": [rec(IN, a)], "final_output": None, "run_outcome": "blocked"}


def at_output(reason=None):
    a = {"verdict.decision": "deny"}
    if reason:
        a["verdict.reason"] = reason
    return {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, a)], "final_output": None, "run_outcome": "blocked"}


VI = "host_error:verdict_invalid"
# Section 5 names the failures a host MUST refuse ("not a JSON object, whose decision is absent or invalid, whose
# reason starts with host_error:, whose transform or approval presence violates the constraints above, whose
# warnings is not an array of objects, whose evidence is not an object, or whose result_labels is not an array of
# strings", plus the evidence cap of section 5.3). The rows below that refuse something outside that list pin the
# project's reading that every schema violation is refused (D-03, D-60, P-8, P-9); they are advisory
# (spec/0.1/DECISIONS.md, "Rulings of issue 9").
ADVISORY = {107: "D-60", 119: "D-03", 154: "D-60", 155: "D-60", 156: "P-9", 170: "D-04"}
CASES = [
    # id, slug, title, raw, covers, where
    (100, "non-object-string", "a bare string instead of a verdict object", "allow", ["5-b"], "tool"),
    (101, "non-object-array", "an array wrapping an allow verdict", [{"decision": "allow"}], ["5-b"], "input"),
    (102, "non-object-number", "a number instead of a verdict object", 42, ["5-b"], "output"),
    (103, "decision-missing", "a verdict without decision", {"reason": "ctk:forgot"}, ["5-c"], "tool"),
    (104, "decision-warn", "the SDK sugar word warn used as a decision", {"decision": "warn"}, ["5-c"], "input"),
    (105, "decision-escalate", "the SDK sugar word escalate used as a decision", {"decision": "escalate"}, ["5-c"], "tool"),
    (106, "decision-uppercase", "ALLOW in capitals", {"decision": "ALLOW"}, ["5-c"], "output"),
    (107, "reason-not-string", "a numeric reason", {"decision": "deny", "reason": 403}, ["5-k"], "tool"),
    (108, "transform-on-allow", "an allow carrying a transform body", {"decision": "allow", "transform": {"path": "$target.q", "value": "x"}}, ["5-e"], "tool"),
    (109, "transform-body-missing", "a transform decision without a transform body", {"decision": "transform", "reason": "ctk:half"}, ["5-e"], "input"),
    (110, "transform-on-deny", "a deny carrying a transform body", {"decision": "deny", "reason": "ctk:x", "transform": {"path": "$target.q", "value": "x"}}, ["5-e"], "output"),
    (111, "approval-on-allow", "an allow carrying an approval block", {"decision": "allow", "approval": {}}, ["5-f"], "tool"),
    (112, "approval-on-transform", "a transform carrying an approval block", {"decision": "transform", "transform": {"path": "$target.q", "value": "x"}, "approval": {}}, ["5-f"], "tool"),
    (113, "warnings-object", "warnings given as a single object", {"decision": "allow", "warnings": {"reason": "ctk:w"}}, ["5-g"], "tool"),
    (114, "warnings-strings", "warnings given as an array of strings", {"decision": "allow", "warnings": ["ctk:w"]}, ["5-g"], "input"),
    (115, "evidence-string", "evidence given as a string", {"decision": "deny", "reason": "ctk:e", "evidence": "see log 7"}, ["5-h"], "output"),
    (116, "evidence-over-cap", "evidence whose canonical form exceeds 10240 bytes", {"decision": "allow", "evidence": {"artefact": "Z" * 10300}}, ["5-j"], "tool"),
    (117, "labels-string", "result_labels given as a string", {"decision": "allow", "result_labels": "pii"}, ["5-i"], "tool"),
    (118, "labels-number-item", "result_labels holding a number", {"decision": "allow", "result_labels": ["pii", 7]}, ["5-i"], "output"),
    (119, "unknown-member", "an allow with an unknown top-level member", {"decision": "allow", "priority": "high"}, ["5-k"], "tool"),
    # D-04 (advisory): the envelope's extensions, when present, is an object; section 5 validates only the nested verdict.
    (170, "envelope-extensions-not-object", "a response envelope whose extensions is a string", {"verdict": {"decision": "allow"}, "extensions": "acme"}, ["5-l"], "input"),
    (120, "envelope-invalid-nested", "a response envelope whose nested verdict lacks a decision", {"verdict": {"reason": "ctk:x"}, "extensions": {"acme": {"receipt": {}}}}, ["5-l"], "input"),
]
for num, slug, what, raw, cov, where in CASES:
    scen, caps, fn = {"tool": (tool_scenario, MT, at_pre_tool), "input": (plain_scenario, M, at_input),
                      "output": (plain_scenario, M, at_output)}[where]
    point = {"tool": PT, "input": IN, "output": OUT}[where]
    V(num, "gate-" + slug, "The verdict gate refuses %s with verdict_invalid at %s" % (what, point),
      "5, 6.3", cov + ["6.3-d", "5-a"], GP, scen(), fn(VI), caps=caps,
      script=[rule(point, raw=raw, raw_set=True)], advisory=ADVISORY.get(num))

# accepted shapes (the gate must not over-refuse)
# The evidence rides on the winning verdict (a transform, decided_by 0). The all-allow case (P-2 / D-29: the combined
# verdict is the lowest-index allow, so its evidence reaches the record) is CTK-0165.
V(121, "gate-evidence-within-cap", "Evidence well under the 10240-byte cap is accepted: the transform carrying it applies and the record keeps the evidence unchanged",
  "5, 5.3, 10.3", ["5-j", "5.3-b", "10.3-b"], GP, tool_scenario(),
  {"interceptions": ix(FULL_TOOL, {5: {"tool_call.args.q": "beta"}}), "tool_invocations": [{"name": "lookup", "args": {"q": "beta"}}],
   "records": [rec(PT, {"verdict.decision": "transform", "decided_by": 0,
                        "verdict.evidence": {"artefact": "E" * 4000, "verification_pointers": {"log": "https://audit.invalid/e/1"}}})],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, transform("$target.q", "beta", evidence={"artefact": "E" * 4000,
                                                                    "verification_pointers": {"log": "https://audit.invalid/e/1"}}))])

V(122, "gate-envelope-deny-enforced", "A response envelope's nested deny is enforced and its extensions stay out of the decision",
  "5", ["5-l", "5.1-c"], GP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:enveloped-no", "decided_by": 0},
                   ["verdict.extensions", "extensions", "verdict.verdict"])], "run_outcome": "completed"},
  caps=MT, script=[rule(PT, raw={"verdict": {"decision": "deny", "reason": "ctk:enveloped-no"},
                                 "extensions": {"acme": {"receipt": {"id": "r-1"}}}}, raw_set=True)])

V(123, "gate-envelope-allow", "A response envelope with a nested allow lets the run complete normally",
  "5", ["5-l", "5.1-a"], GP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, {"verdict.decision": "allow"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[rule(OUT, raw={"verdict": {"decision": "allow"}, "extensions": {"acme": {"trace": "t"}}}, raw_set=True)])

# gate: grammar errors in transform paths deny. A path not rooted at $target / $policy_target is
# transform_target_forbidden, any other grammar error transform_invalid (spec/0.1/DECISIONS.md D-10, P-8).
TI, TF = "host_error:transform_invalid", "host_error:transform_target_forbidden"
for num, slug, path, reason in [(124, "wildcard", "$target.*", TI), (125, "negative-index", "$target.items[-1]", TI),
                                (126, "single-quotes", "$target['q']", TI), (127, "no-dollar", "target.q", TF),
                                (128, "filter", "$target[?(@.q)]", TI), (171, "unclosed-index", "$target.items[1", TI)]:
    V(num, "gate-path-" + slug, "A transform path outside the path grammar (%s) denies the tool call with %s" % (path, reason),
      "5.2", ["5.2-a", "5.2-e"], GP, tool_scenario(args={"q": "alpha", "items": [1, 2]}), at_pre_tool(reason), caps=MT,
      script=[rule(PT, transform(path, "x"))])

# every reserved reason is refused when an interceptor claims it
RESERVED = [(129, "context_invalid"), (130, "interceptor_failed"), (131, "interceptor_timeout"),
            (132, "verdict_invalid"), (133, "transform_invalid"), (134, "transform_target_forbidden"),
            (135, "transform_conflict"), (136, "composition_disagreement"), (137, "approval_resolver_failed"),
            (138, "approval_unresolved"), (139, "approval_identity_mismatch"), (140, "adapter_unsupported"),
            (141, "no_interceptor"), (142, "streaming_unsupported")]
for i, (num, r) in enumerate(RESERVED):
    where = ["tool", "input", "output"][i % 3]
    scen, caps, fn = {"tool": (tool_scenario, MT, at_pre_tool), "input": (plain_scenario, M, at_input),
                      "output": (plain_scenario, M, at_output)}[where]
    point = {"tool": PT, "input": IN, "output": OUT}[where]
    V(num, "reserved-claimed-" + r.replace("_", "-"),
      "An interceptor deny claiming host_error:%s is refused by the gate as verdict_invalid" % r,
      "5, 11", ["5-d", "11-a", "11-b"], "fail_closed/reserved_reasons", scen(), fn(VI), caps=caps,
      script=[rule(point, raw=deny("host_error:" + r), raw_set=True)])

# --- interceptor failures (raise, timeout) at several points
FP = "fail_closed/interceptor_failure"
V(143, "raise-at-startup", "An interceptor that raises at agent_startup fails closed with interceptor_failed and the session never starts",
  "6.3, 6.1", ["6.3-b", "6.3-e", "6.1-a"], FP, tool_scenario(),
  {"interceptions": ix([SU, SD]), "records": [rec(SU, {"verdict.decision": "deny", "verdict.reason": "host_error:interceptor_failed", "decided_by": 0})],
   "tool_not_invoked": ["lookup"], "final_output": None, "run_outcome": "blocked"},
  caps=MT, script=[rule(SU, fault="raise")])
V(144, "raise-at-pre-model", "An interceptor that raises at pre_model_call fails closed and the model is never called",
  "6.3", ["6.3-b", "6.1-c"], FP, plain_scenario(),
  {"interceptions": ix([SU, IN, PM, SD]), "records": [rec(PM, {"verdict.decision": "deny", "verdict.reason": "host_error:interceptor_failed"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PM, fault="raise")])
V(145, "raise-at-post-tool", "An interceptor that raises at post_tool_call fails closed and the tool result never reaches the model",
  "6.3, 6.2", ["6.3-b", "6.1-f", "6.2-a"], FP, tool_scenario(ret="RAW-RESULT-99"),
  {"sequence_strict": False, "interceptions": ix([PTT]),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PTT, {"verdict.decision": "deny", "verdict.reason": "host_error:interceptor_failed", "decided_by": 0})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, script=[rule(PTT, fault="raise")])
V(146, "raise-at-output", "An interceptor that raises at output fails closed and nothing reaches the caller",
  "6.3", ["6.3-b", "6.1-g"], FP, plain_scenario(),
  at_output("host_error:interceptor_failed"), caps=M, script=[rule(OUT, fault="raise")])
V(147, "raise-at-pre-tool", "An interceptor that raises at pre_tool_call fails closed; the tool does not run",
  "6.3, 6.2", ["6.3-b", "6.2-a", "6.2-b"], FP, tool_scenario(), at_pre_tool("host_error:interceptor_failed", {"decided_by": 0}),
  caps=MT, script=[rule(PT, fault="raise")])
V(148, "timeout-at-pre-tool", "An interceptor that never answers at pre_tool_call is cut off with interceptor_timeout",
  "6.3, 7", ["6.3-c", "6.3-e", "7-b"], FP, tool_scenario(), at_pre_tool("host_error:interceptor_timeout", {"decided_by": 0}),
  caps=MT, script=[rule(PT, fault="timeout")], interceptor_timeout_ms=1000)
V(149, "timeout-at-input", "An interceptor that never answers at input is cut off with interceptor_timeout and the turn never begins",
  "6.3", ["6.3-c", "6.1-b"], FP, plain_scenario(), at_input("host_error:interceptor_timeout"),
  caps=M, script=[rule(IN, fault="timeout")], interceptor_timeout_ms=1000)
V(150, "timeout-at-post-model", "An interceptor that never answers at post_model_call is cut off and the response is discarded",
  "6.3", ["6.3-c", "6.1-d"], FP, tool_scenario(),
  {"interceptions": ix([SU, IN, PM, PO, SD]), "tool_not_invoked": ["lookup"],
   "records": [rec(PO, {"verdict.decision": "deny", "verdict.reason": "host_error:interceptor_timeout"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=MT, script=[rule(PO, fault="timeout")], interceptor_timeout_ms=1000)
V(151, "malformed-at-post-model", "A transform decision without a body at post_model_call is refused and the response is discarded",
  "5, 6.3", ["5-e", "6.3-d", "6.1-d"], FP, tool_scenario(),
  {"interceptions": ix([SU, IN, PM, PO, SD]), "tool_not_invoked": ["lookup"],
   "records": [rec(PO, {"verdict.decision": "deny", "verdict.reason": VI, "decided_by": 0})],
   "final_output": None, "run_outcome": "blocked"},
  caps=MT, script=[rule(PO, fault="malformed_verdict")])

# ---- gate completions (appended; ids continue the block)
V(152, "gate-evidence-at-cap", "Evidence whose canonical form is exactly 10240 bytes is accepted and the transform carrying it applies",
  "5, 5.3", ["5-j"], GP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT], {1: {"tool_call.args.q": "capped"}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "capped"}}],
   "records": [rec(PT, {"verdict.decision": "transform", "decided_by": 0})], "run_outcome": "completed"},
  caps=MT, script=[rule(PT, transform("$target.q", "capped", evidence={"artefact": "E" * (10240 - len('{"artefact":""}'))}))])
V(153, "gate-evidence-one-over-cap", "Evidence one byte over the 10240-byte canonical cap is refused with verdict_invalid",
  "5, 5.3, 6.3", ["5-j", "6.3-d"], GP, tool_scenario(), at_pre_tool(VI),
  caps=MT, script=[rule(PT, transform("$target.q", "capped", evidence={"artefact": "E" * (10241 - len('{"artefact":""}'))}))])
for num, slug, what, raw, cov, where in [
    (154, "warning-reserved-reason", "a warning whose reason claims host_error:", {"decision": "allow", "warnings": [{"reason": "host_error:no_interceptor"}]}, ["5-k", "5-g"], "tool"),
    (155, "approval-not-object", "an approval member that is not an object", {"decision": "deny", "reason": "ctk:x", "approval": True}, ["5-f"], "input"),
    (156, "message-not-string", "a numeric message", {"decision": "allow", "message": 5}, ["5-a"], "output"),
    (157, "labels-null-item", "result_labels holding null", {"decision": "allow", "result_labels": [None]}, ["5-i"], "tool"),
    (158, "decision-null", "a null decision", {"decision": None}, ["5-c"], "input"),
    (159, "json-null", "a JSON null instead of a verdict object", None, ["5-b"], "output"),
    (160, "empty-object", "an empty object", {}, ["5-c"], "tool"),
]:
    scen, caps, fn = {"tool": (tool_scenario, MT, at_pre_tool), "input": (plain_scenario, M, at_input),
                      "output": (plain_scenario, M, at_output)}[where]
    point = {"tool": PT, "input": IN, "output": OUT}[where]
    V(num, "gate-" + slug, "The verdict gate refuses %s with verdict_invalid at %s" % (what, point),
      "5, 6.3", cov + ["6.3-d"], GP, scen(), fn(VI), caps=caps,
      script=[rule(point, raw=raw, raw_set=True)], advisory=ADVISORY.get(num))
V(161, "gate-accepts-empty-members", "Empty warnings and result_labels arrays are valid: the allow stands and the tool runs",
  "5", ["5-a", "5-g", "5-i"], GP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "allow"})], "run_outcome": "completed"},
  caps=MT, script=[rule(PT, raw={"decision": "allow", "warnings": [], "result_labels": []}, raw_set=True)])
V(162, "gate-envelope-without-extensions", "A response envelope carrying only a nested deny is enforced like the bare deny",
  "5", ["5-l"], GP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:wrapped", "decided_by": 0})], "run_outcome": "completed"},
  caps=MT, script=[rule(PT, raw={"verdict": {"decision": "deny", "reason": "ctk:wrapped"}}, raw_set=True)])
# P-8: a path that is not a string is a structural fault of the verdict (D-10). Advisory: the text also lets a
# host judge it as a path "rooted elsewhere" (transform_target_forbidden) or one that "does not resolve"
# (transform_invalid), section 5.2; CTK-0167 asserts what every reading shares.
V(163, "gate-transform-path-not-string", "A transform whose path is a number is a structural fault: the tool call is denied with verdict_invalid",
  "5, 5.2", ["5-e", "5.2-a", "6.3-d"], GP, tool_scenario(), at_pre_tool(VI), caps=MT,
  script=[rule(PT, raw={"decision": "transform", "transform": {"path": 5, "value": 1}}, raw_set=True)], advisory="P-8")

# ---- decided after the triage (appended; ids continue the block)
# P-9: a non-string warnings[].message fails the gate like a non-string message (the verdict is closed and typed).
V(164, "gate-warning-message-not-string", "The verdict gate refuses a warning whose message is a number with verdict_invalid at pre_tool_call",
  "5, 6.3", ["5-g", "6.3-d"], GP, tool_scenario(), at_pre_tool(VI), caps=MT,
  script=[rule(PT, raw={"decision": "allow", "warnings": [{"reason": "ctk:w", "message": 5}]}, raw_set=True)],
  advisory="P-9")
# P-2 / D-29: when every verdict allows, the combined verdict is the lowest-index allow, so its reason and evidence
# reach the record unchanged; decided_by stays null (nothing blocked or transformed).
EV = {"artefact": "first-allow-evidence", "verification_pointers": {"log": "https://audit.invalid/e/2"}}
V(165, "gate-all-allow-keeps-first-evidence", "When every interceptor allows, the record's combined allow is the lowest-index allow with its reason and evidence unchanged",
  "5.3, 7.3, 10.3", ["5.3-b", "7.3-a", "10.3-b"], GP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "allow", "verdict.reason": "ctk:first-allow", "verdict.evidence": EV,
                        "decided_by": None, "verdicts[1].decision": "allow"})],
   "run_outcome": "completed"},
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "reason": "ctk:first-allow", "evidence": EV})],
                    [rule(PT, {"decision": "allow", "reason": "ctk:second-allow", "evidence": {"artefact": "second"}})]],
  advisory="D-29")

# ---- gating twins of advisory vectors (spec/0.1/DECISIONS.md, "Rulings of issue 9")
# CTK-0165's twin. Section 7.4: "If no interceptor returned deny, the combined verdict is the last transform returned,
# or allow -- with metadata unioned per section 7.3." Whose reason and evidence the allow carries is not said; the
# decision, decided_by null (section 10.3) and the unions are.
V(166, "gate-all-allow-unions-metadata", "When every interceptor allows, the combined verdict is an allow with decided_by null, the first-seen union of the warnings and the union of the labels",
  "7.3, 7.4, 10.3", ["7.3-c", "7.3-d", "10.3-g"], GP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "allow", "decided_by": None,
                        "verdict.warnings[0].reason": "ctk:w-one", "verdict.warnings[1].reason": "ctk:w-two",
                        "verdict.result_labels": ["label-a", "label-b"]}, ["verdict.warnings[2]"])],
   "run_outcome": "completed"},
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "reason": "ctk:first-allow", "result_labels": ["label-a"],
                               "warnings": [{"reason": "ctk:w-one", "message": "first"}]})],
                    [rule(PT, {"decision": "allow", "reason": "ctk:second-allow", "result_labels": ["label-a", "label-b"],
                               "warnings": [{"reason": "ctk:w-one", "message": "first"},
                                            {"reason": "ctk:w-two", "message": "second"}]})]])
# CTK-0163's twin: whichever reason a host gives a numeric path, the transform is never applied and the tool never
# runs; every candidate reason is a host_error deny, so the tool-seam posture applies.
V(167, "gate-transform-path-not-string-denied", "A transform whose path is a number is denied: the tool never runs and the run follows the tool-seam posture",
  "5, 5.2", ["5.2-a", "6.3-d"], GP, tool_scenario(), at_pre_tool(), caps=MT,
  script=[rule(PT, raw={"decision": "transform", "transform": {"path": 5, "value": 1}}, raw_set=True)])
# CTK-0107's twin, moved to input, where a plain deny and a host_error deny both keep the turn from starting: a
# deny with a numeric reason is still a deny.
V(168, "gate-reason-not-string-still-denies", "A deny whose reason is a number keeps the turn from starting, whether or not the gate refuses the reason",
  "5, 6", ["5.1-c", "6-a"], GP, plain_scenario(), at_input(), caps=M,
  script=[rule(IN, raw={"decision": "deny", "reason": 403}, raw_set=True)])
# CTK-0155's twin: a deny whose approval member is not an object is a deny under every reading (refused by the gate,
# or a deny whose approval block cannot be consulted); the turn does not start.
V(169, "gate-approval-not-object-still-denies", "A deny whose approval member is not an object keeps the turn from starting, whether or not the gate refuses it",
  "5, 6", ["5.1-c", "6-a"], GP, plain_scenario(), at_input(), caps=M,
  script=[rule(IN, raw={"decision": "deny", "reason": "ctk:x", "approval": True}, raw_set=True)])
# CTK-0165 under the other profiles (D-29, advisory): when every verdict allows, the combined verdict is the
# lowest-index allow under sequential/run_all and both parallel profiles too, so its reason and evidence reach the
# record. The text names the decision and decided_by null, not whose reason the allow carries (ruling R-2).
for num, profile, title in [
        (172, "sequential/run_all", "Under sequential/run_all, when every interceptor allows, the record's combined allow is the lowest-index allow with its reason and evidence"),
        (173, "parallel/strictest", "Under parallel/strictest, when every interceptor allows, the record's combined allow is the lowest-index allow with its reason and evidence"),
        (174, "parallel/unanimous", "Under parallel/unanimous, when every interceptor allows, the record's combined allow is the lowest-index allow with its reason and evidence")]:
    V(num, "gate-all-allow-keeps-first-evidence-" + profile.replace("/", "-").replace("_", "-"), title,
      "5.3, 7.3, 10.3", ["5.3-b", "7.3-a", "10.3-b"], GP, tool_scenario(),
      {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
       "records": [rec(PT, {"verdict.decision": "allow", "verdict.reason": "ctk:first-allow", "verdict.evidence": EV,
                            "decided_by": None, "verdicts[1].decision": "allow"})],
       "run_outcome": "completed"},
      caps=MT, scripts=[[rule(PT, {"decision": "allow", "reason": "ctk:first-allow", "evidence": EV})],
                        [rule(PT, {"decision": "allow", "reason": "ctk:second-allow", "evidence": {"artefact": "second"}})]],
      composition={"profile": profile}, advisory="D-29")

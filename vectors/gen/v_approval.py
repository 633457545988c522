"""Block 0400-0499: approval seam outcomes, validation order, redaction."""
from lib import *

# Ids 0400..0499. Each vector's id is written at its call site (never counted), so adding or
# removing a vector never renumbers another.
AP = "approval_seam"
RP = "approval_seam/redaction"
LIFT = [rule(PT, liftable("ctk:needs-sign-off"), match={"tool_call.name": "lookup"})]
LIFT_IN = [rule(IN, liftable("ctk:needs-sign-off"))]


def res(outcome=None, verdict=None, **kw):
    r = {}
    if outcome is not None:
        r["outcome"] = outcome
    if verdict is not None:
        r["verdict"] = verdict
    r.update(kw)
    return [{"resolve": r}]


def tool_ran(args=None, **rec_assert):
    return {"sequence_strict": False, "interceptions": ix([PT, PTT]),
            "tool_invocations": [{"name": "lookup", "args": args or {"q": "alpha"}}],
            "records": [rec(PT, rec_assert)], "run_outcome": "completed"}


def tool_blocked_host(reason, absent=None):
    return {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT],
            "tool_not_invoked": ["lookup"],
            "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": reason, "resolved_by": "rejection"}, absent)],
            "run_outcome": "completed", "run_outcome_by_posture": POSTURE}


def input_blocked(reason=None):
    """The turn never starts after a consultation that did not lift the deny; reason None asserts none."""
    r = {"verdict.decision": "deny"}
    if reason is not None:
        r["verdict.reason"] = reason
    r["resolved_by"] = "rejection"
    return {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM],
            "records": [rec(IN, r)], "final_output": None, "run_outcome": "blocked"}


# An unresolved resolution under the sequential profiles: section 9 says "The host MUST treat it as deny with
# host_error:approval_unresolved", section 7.4 says "A rejected or unresolved resolution leaves the deny standing as the
# combined verdict" (first_deny; run_all likewise). Both keep the emission denied and record resolved_by rejection;
# which deny is the combined verdict is D-62 (ruling R-12). At the tool seam the two readings also differ in the run
# outcome under the terminate posture (a host_error reason follows the posture, the interceptor's own deny does not),
# so the tool-seam vectors that pin the reason are advisory and their twins run at input or post_model_call.


V(400, "approve-transform-applied", "An approve resolution carrying a transform rewrites the args the tool receives",
  "9, 7.6", ["9-c", "7.6-a", "5.1-b"], AP, tool_scenario(),
  tool_ran({"q": "approved-value"}, **{"verdict.decision": "transform", "resolved_by": "approval", "decided_by": 0}),
  caps=MT, script=LIFT, approval_script=res("approve", transform("$target.q", "approved-value")))
V(401, "reject-reason-stands", "A reject resolution's deny becomes the combined verdict with the resolver's reason",
  "9", ["9-d", "9-l"], AP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:declined-by-reviewer", "resolved_by": "rejection"})],
   "run_outcome": "completed"},
  caps=MT, script=LIFT, approval_script=res("reject", deny("ctk:declined-by-reviewer")), advisory="P-7")
V(402, "reject-at-input-blocks", "A reject resolution at input keeps the turn from starting",
  "9, 6.1", ["9-d", "6.1-b", "6.1-j"], AP, plain_scenario(),
  {"interceptions": ix([SU, IN, SD]), "records": [rec(IN, {"verdict.decision": "deny", "resolved_by": "rejection"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=LIFT_IN, approval_script=res("reject", deny("ctk:not-today")))
V(403, "unresolved-outcome", "An unresolved resolution gives approval_unresolved",
  "9, 11", ["9-e", "9-l", "11-a"], AP, tool_scenario(), tool_blocked_host("host_error:approval_unresolved"),
  caps=MT, script=LIFT, approval_script=res("unresolved"), advisory="D-62")
V(404, "no-rule-matches-unresolved", "A resolver whose rules do not match answers unresolved, which leaves the deny at input standing",
  "9", ["9-e", "9-l"], AP, plain_scenario(), input_blocked(),
  caps=M, script=LIFT_IN, approval_script=[{"match": {"input.content": "something else"}, "resolve": {"outcome": "approve", "verdict": ALLOW}}])
V(405, "resolver-raises", "A resolver that raises gives approval_resolver_failed and counts as a rejection",
  "9, 11", ["9-g", "9-l", "11-a"], AP, tool_scenario(), tool_blocked_host("host_error:approval_resolver_failed"),
  caps=MT, script=LIFT, approval_script=[{"resolve": {"fault": "raise"}}])
V(406, "echo-mismatch", "A resolution echoing a different context identity gives approval_identity_mismatch",
  "9, 11", ["9-f", "9-l", "11-a"], AP, tool_scenario(), tool_blocked_host("host_error:approval_identity_mismatch"),
  caps=MT, script=LIFT, approval_script=res("approve", ALLOW, identity_override="sha256:" + "0" * 64))
V(407, "echo-checked-first", "Echo is checked first: a mismatched echo on an approve carrying a deny gives approval_identity_mismatch",
  "9", ["9-h", "9-f"], AP, plain_scenario(), input_blocked("host_error:approval_identity_mismatch"),
  caps=M, script=LIFT_IN, approval_script=res("approve", deny("ctk:odd"), identity_override="sha256:feedface"))
V(408, "echo-empty-string", "An empty-string echo never matches a jcs-sha256 request identity",
  "9", ["9-f"], AP, tool_scenario(), tool_blocked_host("host_error:approval_identity_mismatch"),
  caps=MT, script=LIFT, approval_script=res("approve", ALLOW, identity_override=""))
V(409, "approve-without-verdict", "An approve with no verdict is a malformed resolution: approval_resolver_failed",
  "9", ["9-i", "9-h"], AP, tool_scenario(), tool_blocked_host("host_error:approval_resolver_failed"),
  caps=MT, script=LIFT, approval_script=res("approve"))
V(410, "reject-without-verdict", "A reject with no verdict is a malformed resolution: approval_resolver_failed at input",
  "9", ["9-i"], AP, plain_scenario(), input_blocked("host_error:approval_resolver_failed"),
  caps=M, script=LIFT_IN, approval_script=res("reject"))
V(411, "unresolved-with-verdict", "An unresolved carrying a verdict is a malformed resolution: approval_resolver_failed",
  "9", ["9-i", "9-h"], AP, tool_scenario(), tool_blocked_host("host_error:approval_resolver_failed"),
  caps=MT, script=LIFT, approval_script=res("unresolved", ALLOW))
V(412, "presence-before-gate", "Presence is checked before the verdict gate: unresolved with an invalid verdict gives approval_resolver_failed",
  "9", ["9-h", "9-i"], AP, plain_scenario(), input_blocked("host_error:approval_resolver_failed"),
  caps=M, script=LIFT_IN, approval_script=res("unresolved", verdict_raw={"decision": "perhaps"}))
V(413, "approve-invalid-verdict", "An approve carrying a verdict with an unknown decision gives verdict_invalid",
  "9, 5", ["9-j", "9-h"], AP, tool_scenario(), tool_blocked_host("host_error:verdict_invalid"),
  caps=MT, script=LIFT, approval_script=res("approve", verdict_raw={"decision": "perhaps"}))
V(414, "approve-reserved-reason", "An approve carrying an allow with a host_error reason gives verdict_invalid",
  "9, 11", ["9-j", "11-b"], AP, tool_scenario(), tool_blocked_host("host_error:verdict_invalid"),
  caps=MT, script=LIFT, approval_script=res("approve", verdict_raw={"decision": "allow", "reason": "host_error:no_interceptor"}))
V(415, "echo-before-presence", "Echo is checked before presence: a mismatched approve with no verdict gives approval_identity_mismatch",
  "9", ["9-h", "9-f"], AP, plain_scenario(), input_blocked("host_error:approval_identity_mismatch"),
  caps=M, script=LIFT_IN, approval_script=res("approve", identity_override="sha256:" + "c" * 64))
V(416, "approve-carrying-deny", "An approve whose verdict is a deny is inconsistent: verdict_invalid at input",
  "9", ["9-k"], AP, plain_scenario(), input_blocked("host_error:verdict_invalid"),
  caps=M, script=LIFT_IN, approval_script=res("approve", deny("ctk:contradiction")))
V(417, "reject-carrying-allow", "A reject whose verdict is an allow is inconsistent: verdict_invalid",
  "9", ["9-k"], AP, tool_scenario(), tool_blocked_host("host_error:verdict_invalid"),
  caps=MT, script=LIFT, approval_script=res("reject", ALLOW))
V(418, "reject-carrying-transform", "A reject whose verdict is a transform is inconsistent: verdict_invalid",
  "9", ["9-k"], AP, tool_scenario(), tool_blocked_host("host_error:verdict_invalid"),
  caps=MT, script=LIFT, approval_script=res("reject", transform("$target.q", "x")))
V(419, "approve-failing-transform", "An approved transform that cannot be applied denies transform_invalid with resolved_by still approval",
  "9", ["9-m", "5.2-f"], AP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_invalid", "resolved_by": "approval"})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT, script=LIFT, approval_script=res("approve", transform("$target.a.b.c", "x")))
V(420, "request-context-presented", "The approver receives the point's context: a rule matching the tool arguments lifts the deny",
  "9", ["9-b", "9-a"], AP, tool_scenario(args={"q": "alpha", "amount": 250}),
  tool_ran({"q": "alpha", "amount": 250}, **{"resolved_by": "approval"}),
  caps=MT, script=LIFT, approval_script=[{"match": {"tool_call.args.amount": 250, "interception_point": "pre_tool_call"},
                                          "resolve": {"outcome": "approve", "verdict": ALLOW}}])
V(421, "echo-recomputed-matches", "A resolver that recomputes jcs-sha256 over the request context echoes the request identity",
  "9, 10.2", ["9-f", "9-n", "10.2-c"], AP, tool_scenario(args={"q": "alpha", "n": 1.5, "u": "caf\u00e9"}),
  tool_ran({"q": "alpha", "n": 1.5, "u": "caf\u00e9"}, **{"resolved_by": "approval"}),
  caps=MT, script=LIFT, approval_script=res("approve", ALLOW, echo_recomputed=True))
# The same with strings that need escapes in the canonical form (a quote, a backslash, control characters), each well
# past the first sixteen bytes of its string and in both eight-byte halves, so a canonicaliser that skips escapes on
# a fast path computes another identity than the resolver's (RFC 8785 section 3.2.2.2).
V(449, "echo-recomputed-escapes", "A resolver that recomputes jcs-sha256 over strings needing escapes echoes the request identity",
  "9, 10.2", ["9-f", "9-n", "10.2-c"], AP,
  tool_scenario(args={"q": "alpha", "s": "0123456789abcdefghij\"quoted\" 0123456789abcdef back\\slash",
                      "c": "0123456789abcdefghijk\tand\u0001 and 0123456789abcdefghijklmnop\u001f"}),
  tool_ran({"q": "alpha", "s": "0123456789abcdefghij\"quoted\" 0123456789abcdef back\\slash",
            "c": "0123456789abcdefghijk\tand\u0001 and 0123456789abcdefghijklmnop\u001f"}, **{"resolved_by": "approval"}),
  caps=MT, script=LIFT, approval_script=res("approve", ALLOW, echo_recomputed=True))
V(422, "evaluate-only-never-consults", "In evaluate_only a liftable deny is recorded as a deny, the seam is never consulted and the tool runs",
  "8, 9", ["8-d", "8-b", "9-a"], AP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:needs-sign-off", "mode": "evaluate_only"}, ["resolved_by"])],
   "run_outcome": "completed", "identities_equal": True},
  caps=MT, mode="evaluate_only", script=LIFT, approval_script=res("approve", ALLOW))
V(423, "null-provider-echo-null", "With the null provider the request identity is null and a null echo lifts the deny",
  "9, 10.1", ["9-f", "10.1-c"], AP, tool_scenario(),
  tool_ran(**{"resolved_by": "approval", "input_identity": None, "enforced_identity": None, "identity_provider": None}),
  caps=MT, identity_provider=None, script=LIFT, approval_script=res("approve", ALLOW))
V(424, "null-provider-nonnull-echo", "With the null provider an echoed string identity is a mismatch",
  "9, 10.1", ["9-f", "10.1-c"], AP, tool_scenario(), tool_blocked_host("host_error:approval_identity_mismatch"),
  caps=MT, identity_provider=None, script=LIFT, approval_script=res("approve", ALLOW, identity_override="sha256:" + "a" * 64))
V(425, "seam-once-per-emission", "Each emission consults the seam on its own: both tool calls of one response are approved separately",
  "9", ["9-a", "9-l"], AP,
  {"input": {"content": "two lookups", "role": "user"},
   "tools": [{"name": "lookup", "behavior": [{"return": {"ok": True}}]}],
   "model_script": [{"respond": {"content": None, "tool_calls": [{"id": "tc-1", "name": "lookup", "args": {"q": "same"}},
                                                               {"id": "tc-2", "name": "lookup", "args": {"q": "same"}}],
                                 "finish_reason": "tool_calls"}},
                    {"respond": {"content": "both done", "tool_calls": [], "finish_reason": "stop"}}]},
  # §12.2 fixes the contract per tool call, not the order of a batch (freedom tool-call-order): the two calls carry
  # the same arguments, so neither the contexts' nor the invocations' order is asserted.
  {"sequence_strict": False, "interceptions": ix([PT, PTT, PT, PTT]),
   "tool_invocations": [{"name": "lookup", "args": {"q": "same"}}, {"name": "lookup", "args": {"q": "same"}}],
   "records": [rec(PT, {"resolved_by": "approval"}), rec(PT, {"resolved_by": "approval"})],
   "final_output": "both done", "run_outcome": "completed"},
  caps=MT, script=LIFT, approval_script=res("approve", ALLOW))
V(426, "selective-approval", "A resolver that approves one tool call and rejects the next decides each call independently",
  "9", ["9-c", "9-d"], AP,
  {"input": {"content": "two lookups", "role": "user"},
   "tools": [{"name": "lookup", "behavior": [{"return": {"ok": True}}]}],
   "model_script": [{"respond": {"content": None, "tool_calls": [{"id": "tc-1", "name": "lookup", "args": {"q": "fine"}},
                                                               {"id": "tc-2", "name": "lookup", "args": {"q": "risky"}}],
                                 "finish_reason": "tool_calls"}},
                    {"respond": {"content": "partly done", "tool_calls": [], "finish_reason": "stop"}}]},
  # Order-free (freedom tool-call-order): the one invocation shows which call was approved, and both records say
  # the seam was consulted, in whichever order the host handled the calls.
  {"sequence_strict": False, "interceptions": ix([PT, PTT]),
   "tool_invocations": [{"name": "lookup", "args": {"q": "fine"}}],
   "records": [rec(PT, present=["resolved_by"]), rec(PT, present=["resolved_by"])],
   "final_output": "partly done", "run_outcome": "completed"},
  caps=MT, script=LIFT, approval_script=[{"match": {"target.q": "fine"}, "resolve": {"outcome": "approve", "verdict": ALLOW}},
                                         {"resolve": {"outcome": "reject", "verdict": deny("ctk:too-risky")}}])

# ---- redaction
V(427, "redact-approver-sees-marker", "The redactor overwrites a secret argument in what the approver sees; a recomputed echo still matches",
  "9", ["9-o", "9-n", "9-f"], RP, tool_scenario(args={"q": "alpha", "card": "4111-1111"}),
  tool_ran({"q": "alpha", "card": "4111-1111"}, **{"resolved_by": "approval"}),
  caps=MT, script=LIFT, redact_for_approval=["$target.card"],
  approval_script=[{"match": {"target.card": "[redacted]"}, "resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])
V(428, "redact-hides-original", "A resolver looking for the unredacted secret finds nothing and the deny stays unresolved",
  "9", ["9-o", "9-n"], RP, tool_scenario(args={"q": "alpha", "card": "4111-1111"}),
  tool_blocked_host("host_error:approval_unresolved"),
  caps=MT, script=LIFT, redact_for_approval=["$target.card"],
  approval_script=[{"match": {"target.card": "4111-1111"}, "resolve": {"outcome": "approve", "verdict": ALLOW}}],
  advisory="D-62")
V(429, "redact-action-unredacted", "Redaction shapes only the approval request: the tool gets the real value and record identities are untouched",
  "9", ["9-p", "10.2-g"], RP, tool_scenario(args={"q": "alpha", "card": "4111-1111"}),
  dict(tool_ran({"q": "alpha", "card": "4111-1111"}, **{"resolved_by": "approval"}), identities_equal=True),
  caps=MT, script=LIFT, redact_for_approval=["$target.card"],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])
V(430, "redact-stale-echo-mismatch", "An echo of the identity of the unredacted context does not match the redacted request",
  "9", ["9-n", "9-f"], RP, tool_scenario(args={"q": "alpha", "card": "4111-1111"}),
  tool_blocked_host("host_error:approval_identity_mismatch"),
  caps=MT, script=LIFT, redact_for_approval=["$target.card"],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": ALLOW, "identity_override": "sha256:" + "b" * 64}}])
V(431, "redact-unresolvable-path", "A redaction path that does not resolve leaves the request as it was and the approval proceeds",
  "9", ["9-o"], RP, tool_scenario(),
  tool_ran(**{"resolved_by": "approval"}),
  caps=MT, script=LIFT, redact_for_approval=["$target.not_here"],
  approval_script=[{"match": {"target.q": "alpha"}, "resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])
V(432, "redact-at-input", "Redacting the whole input content for the approver still lets an approve start the turn with the real text",
  "9", ["9-o", "9-p"], RP, plain_scenario(text="my password is hunter2"),
  {"interceptions": ix(FULL_PLAIN, {2: {"messages[0].content": "my password is hunter2"}}),
   "records": [rec(IN, {"resolved_by": "approval", "verdict.decision": "allow"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=LIFT_IN, redact_for_approval=["$target.content"],
  approval_script=[{"match": {"input.content": "[redacted]"}, "resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])

# ---- completions (appended; ids continue the block)
V(433, "request-after-fold", "The approver sees the context after earlier folds: target and the point's field both carry the folded value, and a recomputed echo matches",
  "9", ["9-n", "9-b", "9-f"], AP, tool_scenario(),
  tool_ran({"q": "folded"}, **{"resolved_by": "approval"}),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))], [rule(PT, liftable("ctk:needs-sign-off"))]],
  approval_script=[{"match": {"target.q": "folded", "tool_call.args.q": "folded"},
                    "resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])
V(434, "redact-after-fold", "Redaction applies to the folded context: the approver sees the marker in target and in tool_call.args, the tool gets the folded value",
  "9", ["9-n", "9-o", "9-p"], RP, tool_scenario(),
  tool_ran({"q": "folded"}, **{"resolved_by": "approval"}),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))], [rule(PT, liftable("ctk:needs-sign-off"))]],
  redact_for_approval=["$target.q"],
  approval_script=[{"match": {"target.q": "[redacted]", "tool_call.args.q": "[redacted]"},
                    "resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])
V(435, "approve-transform-post-tool", "An approved transform at post_tool_call replaces the result the model sees next",
  "9, 6.1", ["9-c", "6.1-i", "6.1-j"], AP, tool_scenario(ret="RAW-RESULT-31"),
  {"sequence_strict": False, "interceptions": ix([PTT, PM], {1: {"context_must_contain": ["APPROVED-RESULT"],
                                                                   "context_must_not_contain": ["RAW-RESULT-31"]}}),
   "records": [rec(PTT, {"verdict.decision": "transform", "resolved_by": "approval"})], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PTT, liftable("ctk:check-result"))],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target", "APPROVED-RESULT")}}])
V(436, "approve-transform-input", "An approved transform at input is the text the model receives",
  "9, 6.1", ["9-c", "6.1-j", "4.3-b"], AP, plain_scenario(text="original text"),
  {"interceptions": ix(FULL_PLAIN, {2: {"messages[0].content": "approved text"}}),
   "records": [rec(IN, {"verdict.decision": "transform", "resolved_by": "approval"})], "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=LIFT_IN, approval_script=res("approve", transform("$target.content", "approved text")))
V(437, "approve-transform-post-model", "An approved transform of the response content is the output the caller receives",
  "9, 6.1", ["9-c", "6.1-j"], AP, plain_scenario(final="model text"),
  {"interceptions": ix(FULL_PLAIN, {4: {"output.content": "approved reply"}}),
   "records": [rec(PO, {"verdict.decision": "transform", "resolved_by": "approval"})], "final_output": "approved reply", "run_outcome": "completed"},
  caps=M, script=[rule(PO, liftable("ctk:check-reply"))], approval_script=res("approve", transform("$target.content", "approved reply")))
V(438, "unresolved-post-model", "An unresolved answer at post_model_call discards the response: nothing reaches the caller",
  "9, 6.1", ["9-e", "6.1-d"], AP, plain_scenario(),
  {"interceptions": ix([SU, IN, PM, PO, SD]), "records": [rec(PO, {"verdict.decision": "deny", "resolved_by": "rejection"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, script=[rule(PO, liftable("ctk:check-reply"))], approval_script=res("unresolved"))
V(439, "approved-transform-changes-identity", "An approved transform changes the enforced identity of the emission it rewrites",
  "9, 10.2", ["10.2-g", "9-c"], AP, tool_scenario(),
  dict(tool_ran({"q": "z"}, **{"resolved_by": "approval"}), identities_equal=False),
  caps=MT, script=LIFT, approval_script=res("approve", transform("$target.q", "z")))
V(440, "approved-allow-keeps-identity", "An approved allow applies nothing: every record's input and enforced identities stay equal",
  "9, 10.2", ["10.2-g", "9-c"], AP, tool_scenario(),
  dict(tool_ran(**{"resolved_by": "approval"}), identities_equal=True),
  caps=MT, script=LIFT, approval_script=res("approve", ALLOW))


# The resolver recomputes jcs-sha256 over the request context it received; an echo that matches proves the host's
# identity is the canonical one over values that stress RFC 8785 (numbers, key order, escapes), at several points.
def echo_vec(num, slug, title, scen, point, caps, advisory=None):
    V(num, "echo-recomputed-" + slug, title, "9, 10.2", ["9-f", "10.2-a", "10.2-c"], AP, scen,
      {"sequence_strict": False, "interceptions": ix([point]),
       "records": [rec(point, {"verdict.decision": "allow", "resolved_by": "approval"})], "run_outcome": "completed"},
      caps=caps, script=[rule(point, liftable("ctk:needs-sign-off"))], advisory=advisory,
      approval_script=[{"resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])


def _raw(text):
    return "@@RAW:" + text + "@@"


# 1e+21 is not among CTK-0441's numbers: §10.2 has jcs-sha256 reject "an integral number outside ±(2⁵³−1)", which
# by the letter covers a float literal of integral value too, so a host may refuse it (freedom integral-float-refused).
# CTK-1432 keeps the reference host's reading, accepted (advisory D-13).
echo_vec(441, "numbers", "A recomputed echo matches over numbers whose canonical form differs from their spelling",
         tool_scenario(args={"i": 1, "f": _raw("1.0"), "neg0": _raw("-0.0"), "small": _raw("1e-07"),
                             "pi": _raw("3.141592653589793"), "tiny": _raw("5e-324")}), PT, MT)
echo_vec(442, "utf16-key-order", "A recomputed echo matches over keys that sort differently by UTF-16 code units than by code points",
         tool_scenario(args={"": 1, "\ue000": 2, "\U00010000": 3, "z": 4, "\u00e9": 5}), PT, MT)
echo_vec(443, "escapes", "A recomputed echo matches over strings that need control, quote and backslash escapes",
         tool_scenario(args={"s": "\u0000\u001f\"\\/\u007f\u2028"}), PT, MT)
echo_vec(444, "post-model", "A recomputed echo matches at post_model_call, whose response carries null content and tool calls",
         tool_scenario(), PO, MT)
echo_vec(445, "post-tool", "A recomputed echo matches at post_tool_call over a structured tool result",
         tool_scenario(ret={"v": [1, 2.5, "x", None], "n": None}), PTT, MT)
echo_vec(446, "output", "A recomputed echo matches at output", plain_scenario(), OUT, M)
# Gating twins of CTK-0403 and CTK-0428 (advisory D-62): what both readings of an unresolved resolution share, at
# input, where every deny keeps the turn from starting whatever the posture.
V(447, "unresolved-at-input-blocks", "An unresolved resolution at input leaves the emission denied, recorded as a rejection, and the turn never begins",
  "9, 6.1", ["9-e", "9-l", "6.1-b"], AP, plain_scenario(), input_blocked(),
  caps=M, script=LIFT_IN, approval_script=res("unresolved"))
V(448, "redact-hides-original-at-input", "A resolver looking for the unredacted input finds nothing, so the deny at input is not lifted",
  "9", ["9-o", "9-n", "9-l"], RP, plain_scenario(text="card 4111-1111"), input_blocked(),
  caps=M, script=LIFT_IN, redact_for_approval=["$target.content"],
  approval_script=[{"match": {"target.content": "card 4111-1111"}, "resolve": {"outcome": "approve", "verdict": ALLOW}}])

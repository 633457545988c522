"""Block 0300-0399: every profile x knob value x outcome."""
from lib import *

# Ids 0300..0399. Each vector's id is written at its call site (never counted), so adding or
# removing a vector never renumbers another.
FD = lambda on=None: dict({"profile": "sequential/first_deny"}, **({"on_approval": on} if on else {}))
RA = {"profile": "sequential/run_all"}
PS = lambda k=None: dict({"profile": "parallel/strictest"}, **({"on_transform_conflict": k} if k else {}))
PU = lambda k=None: dict({"profile": "parallel/unanimous"}, **({"on_disagreement": k} if k else {}))
P_FD, P_RA, P_PS, P_PU = ("composition/sequential_first_deny", "composition/sequential_run_all",
                          "composition/parallel_strictest", "composition/parallel_unanimous")
APPROVE = [{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}]
REJECT = [{"resolve": {"outcome": "reject", "verdict": {"decision": "deny", "reason": "ctk:operator-said-no"}}}]
ARGS = {"q": "alpha"}


def ran(args=None, **extra):
    e = {"sequence_strict": False, "interceptions": ix([PT]),
         "tool_invocations": [{"name": "lookup", "args": args or ARGS}], "run_outcome": "completed"}
    e.update(extra)
    return e


def blocked(**extra):
    e = {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT],
         "tool_not_invoked": ["lookup"], "run_outcome": "completed"}
    e.update(extra)
    return e


def hostdeny(**extra):
    e = blocked(**extra)
    e["run_outcome_by_posture"] = POSTURE
    return e


A = lambda: [rule(PT, ALLOW)]

# ---------------- sequential/first_deny
V(300, "fd-all-allow", "first_deny, on_approval stop: three allows give an allow with every interceptor summarized",
  "7.2, 7.4, 10.3", ["7.4-a", "7.2-c", "10.3-g", "10.3-h", "10.3-k", "7.2-a"], P_FD, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "decided_by": None,
                        "composition.profile": "sequential/first_deny", "composition.on_approval": "stop",
                        "interceptors_registered": 3}, ["composition.on_transform_conflict", "composition.on_disagreement"])]),
  caps=MT, scripts=[A(), A(), A()], composition=FD("stop"))
V(301, "fd-default-knob-stamped", "With only the profile configured, first_deny records the default on_approval stop",
  "7.2", ["7.2-b", "7.2-c"], P_FD, tool_scenario(),
  ran(records=[rec(PT, {"composition.on_approval": "stop", "composition.profile": "sequential/first_deny"})]),
  caps=MT, scripts=[A(), A()], composition=FD())
V(302, "fd-no-profile-default", "With no composition configured the record shows sequential/first_deny with on_approval stop",
  "7.2", ["7.2-b", "7.2-c"], P_FD, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(SU, {"composition": {"profile": "sequential/first_deny", "on_approval": "stop"}})],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, script=[])
V(303, "fd-transform-folds", "first_deny folds a transform before the next interceptor, which then sees the new args and allows",
  "7.4", ["7.4-b", "7.3-b", "5.1-b"], P_FD, tool_scenario(),
  ran({"q": "folded"}, records=[rec(PT, {"verdict.decision": "transform", "decided_by": 0})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))],
                    [rule(PT, deny("ctk:saw-unfolded"), match={"target.q": "alpha"}), rule(PT, ALLOW)]],
  composition=FD("stop"))
V(304, "fd-deny-first-truncates", "first_deny stops at a deny from the first interceptor; the rest are never called",
  "7.4, 10.3", ["7.4-e", "10.3-i", "10.3-h"], P_FD, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:first-says-no", "decided_by": 0, "fold_truncated": True,
                            "interceptors_registered": 3}, ["verdicts[1]"])]),
  caps=MT, scripts=[[rule(PT, deny("ctk:first-says-no"))], [rule(PT, deny("ctk:second"))], A()], composition=FD("stop"))
V(305, "fd-deny-last-not-truncated", "first_deny with the deny coming from the last interceptor records fold_truncated false",
  "7.4, 10.3", ["7.4-e", "10.3-i", "7.3-a"], P_FD, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:last-says-no", "decided_by": 2, "fold_truncated": False})]),
  caps=MT, scripts=[A(), A(), [rule(PT, deny("ctk:last-says-no"))]], composition=FD("stop"), advisory="D-15")
V(306, "fd-stop-approval-ends-fold", "first_deny with on_approval stop: the lifted deny ends the fold, so a later plain deny is never reached",
  "7.4, 7.6, 9", ["7.4-f", "7.6-a", "7.6-b", "9-l"], P_FD, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": 0, "fold_truncated": True}, ["verdicts[1]"])]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:check"))], [rule(PT, deny("ctk:would-block"))]],
  composition=FD("stop"), approval_script=APPROVE)
V(307, "fd-resume-later-deny-wins", "first_deny with on_approval resume: after the lift the fold continues and a later plain deny blocks",
  "7.4, 7.6", ["7.4-g", "7.3-a", "9-l"], P_FD, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:second-check", "decided_by": 1,
                            "resolved_by": "approval", "composition.on_approval": "resume"})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:check"))], [rule(PT, deny("ctk:second-check"))]],
  composition=FD("resume"), approval_script=APPROVE)
V(308, "fd-resume-allow-continues", "first_deny resume: the lifted deny is replaced and the remaining interceptors all run",
  "7.4", ["7.4-g"], P_FD, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval",
                        "verdict.warnings[0].reason": "ctk:third-ran"})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:check"))], A(),
                    [rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:third-ran"}]})]],
  composition=FD("resume"), approval_script=APPROVE)
V(309, "fd-resume-transform-resolution-folds", "first_deny resume: a transform resolution is folded, so the next interceptor sees the approved args",
  "7.4, 7.6, 9", ["7.4-g", "9-c", "7.4-b"], P_FD, tool_scenario(),
  ran({"q": "approved-q"}, records=[rec(PT, {"verdict.decision": "transform", "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:check"))],
                    [rule(PT, deny("ctk:unapproved-args"), match={"target.q": "alpha"}), rule(PT, ALLOW)]],
  composition=FD("resume"),
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "approved-q")}}])
V(310, "fd-resume-two-liftable", "first_deny resume: two liftable denies are each put to the seam and both lift",
  "7.4, 9", ["7.4-g", "9-a"], P_FD, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:first-gate"))], [rule(PT, liftable("ctk:second-gate"))]],
  composition=FD("resume"), approval_script=APPROVE)
V(311, "fd-resume-reject-stops", "first_deny resume: a rejected liftable deny ends the fold and later interceptors are not called",
  "7.4, 9", ["7.4-e", "9-d", "9-l", "10.3-i"], P_FD, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "resolved_by": "rejection",
                            "fold_truncated": True}, ["verdicts[1]"])]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:check"))], A()], composition=FD("resume"), approval_script=REJECT)
V(312, "fd-failure-second", "first_deny: the second interceptor raising takes slot 1 and decides the deny",
  "6.3, 7.4", ["6.3-e", "6.3-g", "6.3-b"], P_FD, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 1, "fold_truncated": True}, ["verdicts[2]"])]),
  caps=MT, scripts=[A(), [rule(PT, fault="raise")], A()], composition=FD("stop"))
V(313, "fd-failed-fold-truncates", "first_deny: a transform that cannot be applied denies transform_invalid and skips the rest",
  "7.4, 10.3", ["7.4-d", "10.3-i", "10.3-g"], P_FD, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:transform_invalid", "decided_by": None, "fold_truncated": True}, ["verdicts[1]"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.nope.deeper", 1))], A()], composition=FD("stop"))
V(314, "fd-liftable-then-plain-stop-no-resolver", "first_deny without a resolver: a liftable deny ends the fold as a plain deny",
  "7.4, 5.1", ["5.1-e", "7.4-e"], P_FD, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:review", "decided_by": 0, "fold_truncated": True}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:review"))], A()], composition=FD("resume"))

# ---------------- sequential/run_all
V(315, "ra-all-allow", "run_all: every interceptor runs; no knob appears in the composition stamp",
  "7.2, 7.4, 10.3", ["7.4-h", "7.2-c", "10.3-h", "7.2-a"], P_RA, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "composition": {"profile": "sequential/run_all"},
                        "verdicts[2].decision": "allow"}, ["composition.on_approval"])]),
  caps=MT, scripts=[A(), A(), A()], composition=RA)
V(316, "ra-transforms-chain", "run_all folds transforms in order: the second rewrites what the first produced and wins",
  "7.4, 7.3", ["7.4-b", "7.3-b", "7.4-a"], P_RA, tool_scenario(),
  ran({"q": "step-two"}, records=[rec(PT, {"verdict.decision": "transform", "decided_by": 1})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "step-one"))],
                    [rule(PT, transform("$target.q", "step-two"), match={"target.q": "step-one"})]], composition=RA)
V(317, "ra-deny-first-rest-run", "run_all: a deny from the first interceptor still lets the later ones run and be summarized",
  "7.4, 10.3", ["7.4-h", "10.3-h", "7.3-e"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:early-no", "decided_by": 0,
                            "verdicts[1].decision": "allow", "verdicts[2].decision": "transform"})]),
  caps=MT, scripts=[[rule(PT, deny("ctk:early-no"))], A(), [rule(PT, transform("$target.q", "zz"))]], composition=RA)
V(318, "ra-two-liftable-approved", "run_all: two liftable denies are lifted by one approve resolution",
  "7.4, 9", ["7.4-i", "7.4-j", "9-l"], P_RA, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:gate-a"))], [rule(PT, liftable("ctk:gate-b"))]], composition=RA, approval_script=APPROVE)
V(319, "ra-plain-deny-blocks-seam", "run_all: one plain deny among liftable ones wins and the seam is not consulted",
  "7.4, 7.3", ["7.4-i", "7.3-a", "10.3-j"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:hard-no", "decided_by": 0}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, deny("ctk:hard-no"))], [rule(PT, liftable("ctk:soft"))]], composition=RA, approval_script=APPROVE)
# P-7: after a reject, under every profile, the combined verdict is the resolver's own deny (its reason).
V(320, "ra-liftable-rejected", "run_all: a rejected resolution blocks the action and a deny is the combined verdict",
  "7.4, 9", ["7.4-i", "9-d", "9-l"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "resolved_by": "rejection"})]),
  caps=MT, scripts=[A(), [rule(PT, liftable("ctk:soft"))]], composition=RA, approval_script=REJECT)
V(321, "ra-approval-keeps-fold", "run_all: a permit resolution lets the action proceed with the args folded before it",
  "7.4, 9", ["7.4-j", "9-n"], P_RA, tool_scenario(),
  ran({"q": "normalized"}, records=[rec(PT, {"resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "normalized"))], [rule(PT, liftable("ctk:review"))]], composition=RA,
  approval_script=[{"match": {"target.q": "normalized"}, "resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])
V(322, "ra-deny-discards-fold", "run_all: a combined deny discards an earlier folded transform; the tool does not run",
  "7.4", ["7.4-k", "7.3-a"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:late-no", "decided_by": 1, "verdicts[0].decision": "transform"},
                       ["verdict.transform"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "rewritten"))], [rule(PT, deny("ctk:late-no"))]], composition=RA)
V(323, "ra-failure-takes-slot", "run_all: a raising interceptor takes its slot; the other one still runs; the lower index wins the tie",
  "6.3, 7.4", ["6.3-e", "6.3-f", "7.3-a"], P_RA, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 0, "verdicts[0].decision": "deny",
                             "verdicts[1].decision": "deny"})]),
  caps=MT, scripts=[[rule(PT, fault="raise")], [rule(PT, deny("ctk:also-no"))]], composition=RA)
V(324, "ra-failed-fold-short-circuit", "run_all: a transform that cannot be applied short-circuits the fold with fold_truncated true",
  "7.4, 10.3", ["7.4-d", "10.3-i"], P_RA, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:transform_invalid", "decided_by": None, "fold_truncated": True},
                        ["verdicts[1]"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.missing.leaf", "x"))], A()], composition=RA)
V(325, "ra-warnings-union", "run_all: warnings are the first-seen union over all verdicts, duplicates collapsed",
  "7.3", ["7.3-c", "5.1-g"], P_RA, tool_scenario(),
  ran(records=[rec(PT, {"verdict.warnings[0].reason": "ctk:w-one", "verdict.warnings[1].reason": "ctk:w-two"},
                   ["verdict.warnings[2]"])]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:w-one", "message": "m"}]})],
                    [rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:w-one", "message": "m"}]})],
                    [rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:w-two"}]})]], composition=RA)
V(326, "ra-warnings-on-deny", "run_all: warnings from an allow survive into a combined deny",
  "7.3", ["7.3-c", "5.1-f"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "verdict.warnings[0].reason": "ctk:fyi"})]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:fyi"}]})], [rule(PT, deny("ctk:no"))]], composition=RA)
V(327, "ra-labels-union", "run_all: result_labels of permitting verdicts are unioned in first-seen order",
  "7.3", ["7.3-d"], P_RA, tool_scenario(),
  ran({"q": "x"}, records=[rec(PT, {"verdict.result_labels": ["pii", "finance", "eu"]})]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "result_labels": ["pii", "finance"]})],
                    [rule(PT, transform("$target.q", "x", result_labels=["finance", "eu"]))]], composition=RA)
V(328, "ra-labels-dropped-on-deny", "run_all: a combined deny carries no result_labels",
  "7.3", ["7.3-d"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny"}, ["verdict.result_labels"])]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "result_labels": ["pii"]})], [rule(PT, deny("ctk:no", result_labels=["x"]))]],
  composition=RA)

# ---------------- parallel/strictest
V(329, "ps-all-allow", "strictest: all allow gives allow; the default knob deny is stamped and fold_truncated is absent",
  "7.2, 7.5, 10.3", ["7.5-b", "7.2-b", "7.2-c", "10.3-i", "10.3-h", "7.2-a"], P_PS, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "composition": {"profile": "parallel/strictest", "on_transform_conflict": "deny"},
                        "verdicts[1].decision": "allow"}, ["fold_truncated"])]),
  caps=MT, scripts=[A(), A()], composition=PS(), advisory="D-15")
V(330, "ps-single-transform-applied", "strictest: a single transform beats allows and is applied",
  "7.5", ["7.5-b", "7.3-a"], P_PS, tool_scenario(),
  ran({"q": "only-one"}, records=[rec(PT, {"verdict.decision": "transform", "decided_by": 1})]),
  caps=MT, scripts=[A(), [rule(PT, transform("$target.q", "only-one"))], A()], composition=PS("deny"))
V(331, "ps-snapshot-isolation", "strictest: a peer sees the untransformed snapshot, so its deny on the original args wins",
  "7.5", ["7.5-a", "7.3-a"], P_PS, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:original-args", "decided_by": 1})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "cleaned"))],
                    [rule(PT, deny("ctk:original-args"), match={"target.q": "alpha"})]], composition=PS("deny"))
V(332, "ps-conflict-deny-input", "strictest with knob deny: two transforms at input give transform_conflict and the turn does not start",
  "7.5, 11", ["7.5-c", "11-a", "7.6-b"], P_PS, plain_scenario(),
  {"interceptions": ix([SU, IN, SD]), "records": [rec(IN, {"verdict.reason": "host_error:transform_conflict", "decided_by": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, scripts=[[rule(IN, transform("$target.content", "one"))], [rule(IN, transform("$target.content", "two"))]],
  composition=PS("deny"))
V(333, "ps-conflict-deny-tool", "strictest with knob deny: two transforms at pre_tool_call give transform_conflict; the tool does not run",
  "7.5", ["7.5-c"], P_PS, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:transform_conflict", "composition.on_transform_conflict": "deny"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))]], composition=PS("deny"))
V(334, "ps-conflict-approval-allow", "strictest with knob approval: the conflict is put to the seam; an allow proceeds with the original args",
  "7.5, 7.6", ["7.5-d", "7.6-a", "7.6-b"], P_PS, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": None,
                        "composition.on_transform_conflict": "approval"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))]],
  composition=PS("approval"), approval_script=APPROVE)
V(335, "ps-conflict-approval-own-transform", "strictest with knob approval: a resolver transform is applied",
  "7.5, 9", ["7.5-d", "9-c"], P_PS, tool_scenario(),
  ran({"q": "settled"}, records=[rec(PT, {"verdict.decision": "transform", "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))]],
  composition=PS("approval"), approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "settled")}}])
V(336, "ps-conflict-approval-reject", "strictest with knob approval: a reject keeps the conflict blocked with the resolver's reason",
  "7.5, 9", ["7.5-d", "9-d"], P_PS, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:operator-said-no", "resolved_by": "rejection"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))]],
  composition=PS("approval"), approval_script=REJECT, advisory="P-7")
# The knob synthesizes a liftable deny (section 7.5; a liftable deny is one carrying approval, section 5.1), and with no
# resolver nothing replaces it, so it is the combined verdict; the record keeps its approval as an empty object (10.3).
V(337, "ps-conflict-approval-no-resolver", "strictest with knob approval and no resolver: the synthesized deny stands as transform_conflict",
  "7.5, 5.1, 10.3", ["7.5-d", "5.1-e", "10.3-d"], P_PS, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:transform_conflict", "verdict.approval": {}}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))]], composition=PS("approval"))
V(338, "ps-liftable-beats-transform", "strictest: a lifted deny wins over a lower transform, which is not applied",
  "7.5", ["7.5-e", "5.1-h"], P_PS, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": 0})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:review"))], [rule(PT, transform("$target.q", "losing"))]],
  composition=PS("deny"), approval_script=APPROVE)
V(339, "ps-plain-beats-liftable", "strictest: a plain deny outranks a liftable one and the seam is not consulted",
  "7.5, 5.1", ["5.1-h", "7.3-a", "7.5-e"], P_PS, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:hard", "decided_by": 1}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:soft"))], [rule(PT, deny("ctk:hard"))]], composition=PS("approval"), approval_script=APPROVE)
V(340, "ps-deny-tie-lowest-index", "strictest: between two plain denies the lower index wins",
  "7.3", ["7.3-a"], P_PS, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:first", "decided_by": 0, "verdicts[1].decision": "deny"})]),
  caps=MT, scripts=[[rule(PT, deny("ctk:first"))], [rule(PT, deny("ctk:second"))]], composition=PS("deny"))
V(341, "ps-failure-others-run", "strictest: a timed-out interceptor is a deny in its slot while the others still run",
  "6.3, 7.5", ["6.3-f", "6.3-c", "6.3-e"], P_PS, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_timeout", "decided_by": 1, "verdicts[0].decision": "allow",
                             "verdicts[2].decision": "allow"})]),
  caps=MT, scripts=[A(), [rule(PT, fault="timeout")], A()], composition=PS("deny"), interceptor_timeout_ms=1000)

# ---------------- parallel/unanimous
V(342, "pu-all-allow", "unanimous: all allow gives allow with the default on_disagreement deny stamped",
  "7.5, 7.2", ["7.5-f", "7.2-b", "7.2-c", "7.2-a"], P_PU, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "composition": {"profile": "parallel/unanimous", "on_disagreement": "deny"}})]),
  caps=MT, scripts=[A(), A(), A()], composition=PU())
V(343, "pu-transform-disagrees", "unanimous with knob deny: an allow and a transform disagree; output is withheld",
  "7.5", ["7.5-g"], P_PU, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, {"verdict.reason": "host_error:composition_disagreement", "decided_by": None,
                                                           "verdicts[1].decision": "transform"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M, scripts=[[rule(OUT, ALLOW)], [rule(OUT, transform("$target.content", "other"))]], composition=PU("deny"))
V(344, "pu-deny-disagrees", "unanimous with knob deny: a plain deny is a disagreement at pre_tool_call",
  "7.5", ["7.5-g"], P_PU, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:composition_disagreement", "verdicts[0].decision": "allow",
                             "verdicts[1].decision": "deny"})]),
  caps=MT, scripts=[A(), [rule(PT, deny("ctk:nope"))]], composition=PU("deny"))
# DECISIONS.md D-16 / P-1: a failure under unanimous is one more disagreement; its deny stays in its slot (that the
# slot also carries its reserved reason is D-61, CTK-0379).
V(345, "pu-failure-disagrees", "unanimous: a raising interceptor is a deny in its slot, the peers still run and the tool is blocked",
  "6.3, 7.5", ["6.3-f", "7.5-g", "6.3-e"], P_PU, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:composition_disagreement", "decided_by": None,
                             "verdicts[2].index": 2, "verdicts[2].decision": "deny", "verdicts[0].decision": "allow",
                             "verdicts[1].decision": "allow"})]),
  caps=MT, scripts=[A(), A(), [rule(PT, fault="raise")]], composition=PU("deny"))
V(346, "pu-approval-allow", "unanimous with knob approval: the disagreement is put to the seam and an allow proceeds",
  "7.5, 7.6", ["7.5-h", "7.6-b"], P_PU, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": None,
                        "composition.on_disagreement": "approval"})]),
  caps=MT, scripts=[A(), [rule(PT, transform("$target.q", "other"))]], composition=PU("approval"), approval_script=APPROVE)
V(347, "pu-approval-transform", "unanimous with knob approval: a resolver transform becomes the combined verdict and is applied",
  "7.5, 9", ["7.5-h", "9-c"], P_PU, tool_scenario(),
  ran({"q": "agreed"}, records=[rec(PT, {"verdict.decision": "transform", "resolved_by": "approval"})]),
  caps=MT, scripts=[A(), [rule(PT, deny("ctk:nope"))]], composition=PU("approval"),
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "agreed")}}])
V(348, "pu-approval-reject", "unanimous with knob approval: a reject blocks with the resolver's reason",
  "7.5, 9", ["7.5-h", "9-d"], P_PU, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:operator-said-no", "resolved_by": "rejection"})]),
  caps=MT, scripts=[A(), [rule(PT, transform("$target.q", "other"))]], composition=PU("approval"), approval_script=REJECT,
  advisory="P-7")
V(349, "pu-liftable-not-direct", "unanimous with knob deny: an individual liftable deny is not put to the seam",
  "7.5", ["7.5-i", "7.5-g"], P_PU, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:composition_disagreement"}, ["resolved_by"])]),
  caps=MT, scripts=[A(), [rule(PT, liftable("ctk:ask"))]], composition=PU("deny"), approval_script=APPROVE)
V(350, "pu-warnings-union", "unanimous: the combined allow carries the union of both interceptors' warnings",
  "7.3, 7.5", ["7.3-c", "7.5-f"], P_PU, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "verdict.warnings[0].reason": "ctk:a", "verdict.warnings[1].reason": "ctk:b"})]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:a"}]})],
                    [rule(PT, {"decision": "allow", "warnings": [{"reason": "ctk:b"}]})]], composition=PU("deny"))

# ---------------- knob-value completions (appended; ids continue the block)
V(351, "fd-resume-all-allow", "first_deny with on_approval resume: plain allows give an allow and the resume knob is stamped",
  "7.2, 7.4", ["7.2-c", "7.4-a"], P_FD, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "decided_by": None,
                        "composition": {"profile": "sequential/first_deny", "on_approval": "resume"}}, ["resolved_by"])]),
  caps=MT, scripts=[A(), A()], composition=FD("resume"))
V(352, "fd-resume-plain-transform", "first_deny with on_approval resume: a transform folds and wins exactly as under stop",
  "7.4", ["7.4-b", "7.3-b"], P_FD, tool_scenario(),
  ran({"q": "resumed"}, records=[rec(PT, {"verdict.decision": "transform", "decided_by": 1})]),
  caps=MT, scripts=[A(), [rule(PT, transform("$target.q", "resumed"))]], composition=FD("resume"))
V(353, "fd-resume-failure-after-lift", "first_deny resume: after a lift the next interceptor raising decides the deny in its own slot",
  "6.3, 7.4", ["6.3-e", "6.3-g", "7.4-g"], P_FD, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 1, "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:check"))], [rule(PT, fault="raise")]], composition=FD("resume"), approval_script=APPROVE)
V(354, "ps-approval-knob-all-allow", "strictest with knob approval: all allow gives allow without consulting the seam",
  "7.2, 7.5", ["7.2-c", "7.5-b", "9-a"], P_PS, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "composition": {"profile": "parallel/strictest", "on_transform_conflict": "approval"}},
                   ["resolved_by"])]),
  caps=MT, scripts=[A(), A()], composition=PS("approval"), approval_script=APPROVE)
V(355, "ps-approval-knob-single-transform", "strictest with knob approval: a single transform is no conflict and applies without the seam",
  "7.5", ["7.5-b", "9-a"], P_PS, tool_scenario(),
  ran({"q": "solo"}, records=[rec(PT, {"verdict.decision": "transform", "decided_by": 0}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "solo"))], A()], composition=PS("approval"), approval_script=APPROVE)
V(356, "ps-approval-knob-liftable-rejected", "strictest with knob approval: a winning liftable deny that the resolver rejects stays blocked",
  "7.5, 9", ["7.5-e", "9-d", "9-l"], P_PS, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "resolved_by": "rejection"})]),
  caps=MT, scripts=[A(), [rule(PT, liftable("ctk:check"))]], composition=PS("approval"), approval_script=REJECT)
V(357, "ps-approval-knob-failure", "strictest with knob approval: a raising interceptor is a plain deny that outranks everything",
  "6.3, 7.5", ["6.3-f", "6.3-e", "6.3-b"], P_PS, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 0, "verdicts[1].decision": "transform"},
                        ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, fault="raise")], [rule(PT, transform("$target.q", "x"))]], composition=PS("approval"),
  approval_script=APPROVE)
V(358, "pu-approval-knob-all-allow", "unanimous with knob approval: unanimous allows never reach the seam",
  "7.5", ["7.5-f", "9-a", "7.2-c"], P_PU, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "composition": {"profile": "parallel/unanimous", "on_disagreement": "approval"}},
                   ["resolved_by"])]),
  caps=MT, scripts=[A(), A()], composition=PU("approval"), approval_script=APPROVE)
V(359, "pu-approval-knob-liftable", "unanimous with knob approval: a liftable deny is a disagreement and the synthesized deny is what the seam lifts",
  "7.5", ["7.5-h", "7.5-i", "7.6-b"], P_PU, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": None})]),
  caps=MT, scripts=[A(), [rule(PT, liftable("ctk:ask"))]], composition=PU("approval"),
  approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])
V(360, "pu-approval-knob-failure-unresolved", "unanimous with knob approval: a failure is a disagreement put to the seam; an unresolved approver leaves it denied",
  "7.5, 9", ["7.5-h", "9-e", "6.3-f"], P_PU, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:approval_unresolved", "resolved_by": "rejection",
                             "verdicts[0].decision": "allow",
                             "verdicts[1].decision": "deny", "composition.on_disagreement": "approval"})]),
  caps=MT, scripts=[A(), [rule(PT, fault="raise")]], composition=PU("approval"),
  approval_script=[{"resolve": {"outcome": "unresolved"}}])
V(361, "ra-transform-then-liftable-rejected", "run_all: a reject after a folded transform leaves the deny; the tool never sees the fold",
  "7.4, 9", ["7.4-k", "9-d"], P_RA, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.decision": "deny", "resolved_by": "rejection"}, ["verdict.transform"])]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))], [rule(PT, liftable("ctk:soft"))]], composition=RA,
  approval_script=REJECT)

# ---------------- completions (appended; ids continue the block)
V(362, "ra-failure-outranks-liftable", "run_all: a raising interceptor is a plain deny, so a liftable deny beside it is never put to the seam",
  "6.3, 7.4", ["7.4-i", "6.3-e", "6.3-f", "10.3-j"], P_RA, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 1, "verdicts[0].decision": "deny"},
                        ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:soft"))], [rule(PT, fault="raise")]], composition=RA, approval_script=APPROVE)
V(363, "ps-failure-outranks-liftable", "strictest: a raising interceptor outranks a liftable deny and the seam is not consulted",
  "6.3, 7.5", ["7.5-e", "6.3-e", "6.3-f", "10.3-j"], P_PS, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 1}, ["resolved_by"])]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:soft"))], [rule(PT, fault="raise")]], composition=PS("deny"), approval_script=APPROVE)
V(364, "ps-lifted-deny-beats-two-transforms", "strictest: a liftable deny outranks two transforms, so there is no conflict; the approval lifts it and neither transform applies",
  "7.5", ["7.5-e", "7.3-a"], P_PS, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": 2})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))], [rule(PT, liftable("ctk:l"))]],
  composition=PS("deny"), approval_script=APPROVE)
V(365, "ra-approval-transform-on-fold", "run_all: an approve carrying a transform is applied on top of the folded context",
  "7.4, 9", ["7.4-j", "9-c"], P_RA, tool_scenario(args={"q": "alpha", "n": 1}),
  ran({"q": "folded", "n": 2}, records=[rec(PT, {"verdict.decision": "transform", "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))], [rule(PT, liftable("ctk:l"))]], composition=RA,
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.n", 2)}}])
V(366, "fd-resume-transform-then-fold", "first_deny resume: an approved transform folds, the next interceptor sees it and adds its own transform; both apply",
  "7.4, 7.6", ["7.4-g", "7.4-b", "9-c"], P_FD, tool_scenario(args={"q": "alpha", "n": 1}),
  ran({"q": "approved", "n": 5}, records=[rec(PT, {"verdict.decision": "transform", "resolved_by": "approval", "decided_by": 1})]),
  caps=MT, scripts=[[rule(PT, liftable("ctk:l"))], [rule(PT, transform("$target.n", 5), match={"target.q": "approved"})]],
  composition=FD("resume"), approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "approved")}}])
# Section 7.6: the approved allow takes the place of the lifted deny in its slot; section 7.3: the transform in the
# earlier slot outranks that allow, so it stays the combined verdict and decides.
V(381, "fd-resume-allow-after-transform", "first_deny resume: an approved allow after a folded transform leaves the transform as the combined verdict",
  "7.4, 7.3, 7.6", ["7.4-g", "7.3-a", "7.6-a", "10.3-g"], P_FD, tool_scenario(),
  ran({"q": "folded"}, records=[rec(PT, {"verdict.decision": "transform", "verdict.transform.path": "$target.q",
                                         "decided_by": 0, "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))], [rule(PT, liftable("ctk:check"))]],
  composition=FD("resume"), approval_script=APPROVE)
# The same with an approved transform: it takes the lifted deny's slot, after the folded one, and section 7.3 lets the
# last transform returned win, so the approval's transform decides in its slot.
V(382, "fd-resume-transform-after-transform", "first_deny resume: an approved transform after a folded transform is the combined verdict and decides in its slot",
  "7.4, 7.3, 7.6", ["7.4-g", "7.3-a", "7.6-a", "10.3-g"], P_FD, tool_scenario(args={"q": "alpha", "n": 1}),
  ran({"q": "folded", "n": 2}, records=[rec(PT, {"verdict.decision": "transform", "verdict.transform.path": "$target.n",
                                                 "decided_by": 1, "resolved_by": "approval"})]),
  caps=MT, scripts=[[rule(PT, transform("$target.q", "folded"))], [rule(PT, liftable("ctk:check"))]],
  composition=FD("resume"), approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.n", 2)}}])

# the write-back of a folded transform is what the next interceptor sees in the point's own field, at every point
WB = [
    (367, IN, plain_scenario(text="orig"), M, "$target.content", "new", "input.content",
     {"interceptions": ix(FULL_PLAIN, {2: {"messages[0].content": "new"}}), "final_output": "hello there"}),
    (368, PM, plain_scenario(text="orig"), M, "$target[0].content", "new", "messages[0].content",
     {"interceptions": ix(FULL_PLAIN), "final_output": "hello there"}),
    (369, PO, plain_scenario(final="orig"), M, "$target.content", "new", "response.content",
     {"interceptions": ix(FULL_PLAIN, {4: {"output.content": "new"}}), "final_output": "new"}),
    (370, PT, tool_scenario(args={"q": "orig"}), MT, "$target.q", "new", "tool_call.args.q",
     {"interceptions": ix(FULL_TOOL, {5: {"tool_call.args.q": "new"}}), "final_output": "done",
      "tool_invocations": [{"name": "lookup", "args": {"q": "new"}}]}),
    (371, PTT, tool_scenario(ret="orig"), MT, "$target", "NEW-RESULT", "tool_result.value",
     {"interceptions": ix(FULL_TOOL, {6: {"context_must_contain": ["NEW-RESULT"]}}), "final_output": "done"}),
    (372, OUT, plain_scenario(final="orig"), M, "$target.content", "new", "output.content",
     {"interceptions": ix(FULL_PLAIN), "final_output": "new"}),
]
for num, p, scen, caps, path, val, field, exp in WB:
    exp = dict(exp, run_outcome="completed", records=[rec(p, {"verdict.decision": "transform", "decided_by": 0})])
    V(num, "fd-write-back-" + p.replace("_", "-"),
      "first_deny at %s: after a folded transform the next interceptor sees the new value in %s, not only in target" % (p, field),
      "4.3, 7.4", ["4.3-b", "7.4-b"], P_FD, scen, exp, caps=caps, composition=FD("stop"),
      scripts=[[rule(p, transform(path, val))], [rule(p, deny("ctk:stale-field"), match={field: "orig"})]])


# ---------------- rulings of issue 9 (spec/0.1/DECISIONS.md, "Rulings of issue 9: gating vs advisory")
# fold_truncated is required when true (section 7.4: "the record sets fold_truncated: true"); section 10.3 defines its
# value ("true iff one or more registered interceptors were never invoked") without requiring the member otherwise.
# The project's reading (D-15: present and false whenever a sequential composition ran to the end, absent under the
# parallel profiles) is pinned by the advisory vectors CTK-0305, CTK-0329 and CTK-0374.
V(373, "fd-deny-last-decides", "first_deny with the deny coming from the last interceptor: that deny decides with its own index",
  "7.4, 10.3", ["7.4-e", "7.3-a", "10.3-g"], P_FD, tool_scenario(),
  blocked(records=[rec(PT, {"verdict.reason": "ctk:last-says-no", "decided_by": 2})]),
  caps=MT, scripts=[A(), A(), [rule(PT, deny("ctk:last-says-no"))]], composition=FD("stop"))
V(374, "ra-all-ran-not-truncated", "run_all: when every interceptor ran, the record states fold_truncated false",
  "7.4, 10.3", ["10.3-i", "7.4-h"], P_RA, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "fold_truncated": False, "verdicts[2].decision": "allow"})]),
  caps=MT, scripts=[A(), A(), A()], composition=RA, advisory="D-15")
V(375, "ps-all-allow-default-knob", "strictest: all allow gives allow; the default knob deny is stamped and both interceptors are summarized",
  "7.2, 7.5, 10.3", ["7.5-b", "7.2-b", "7.2-c", "10.3-h", "7.2-a"], P_PS, tool_scenario(),
  ran(records=[rec(PT, {"verdict.decision": "allow", "composition": {"profile": "parallel/strictest", "on_transform_conflict": "deny"},
                        "verdicts[1].decision": "allow"})]),
  caps=MT, scripts=[A(), A()], composition=PS())
# Section 9: "The triggering deny (or the resolver's deny) stands as the combined verdict." At the tool seam the two
# readings differ in the run outcome when the triggering deny is host-synthesized (a host_error reason follows the
# posture, the resolver's plain deny does not), so CTK-0336 and CTK-0348 are advisory (P-7) and their twins run at
# input, where every deny keeps the turn from starting.
def input_rejected():
    return {"interceptions": ix([SU, IN, SD]), "interceptions_absent": [PM],
            "records": [rec(IN, {"verdict.decision": "deny", "resolved_by": "rejection"})],
            "final_output": None, "run_outcome": "blocked"}


V(376, "ps-conflict-approval-reject-at-input", "strictest with knob approval: a reject keeps a transform conflict at input blocked and the turn never begins",
  "7.5, 9", ["7.5-d", "9-d"], P_PS, plain_scenario(), input_rejected(),
  caps=M, scripts=[[rule(IN, transform("$target.content", "a"))], [rule(IN, transform("$target.content", "b"))]],
  composition=PS("approval"), approval_script=REJECT)
V(377, "pu-approval-reject-at-input", "unanimous with knob approval: a reject keeps a disagreement at input blocked and the turn never begins",
  "7.5, 9", ["7.5-h", "9-d"], P_PU, plain_scenario(), input_rejected(),
  caps=M, scripts=[[], [rule(IN, transform("$target.content", "other"))]], composition=PU("approval"), approval_script=REJECT)
# Section 10.3 writes the summary {index, decision, reason?, name?} and the record schema leaves reason optional;
# no sentence requires a verdict's reason in its summary entry. The gating vectors show a summarized verdict by its
# decision; carrying each reason (an interceptor's own, a substituted failure's reserved one) is D-61.
V(378, "ra-summary-keeps-reasons", "run_all: the verdicts summary carries each verdict's reason, the substituted failure's reserved one included",
  "6.3, 7.4, 10.3", ["10.3-h", "6.3-e", "7.4-h"], P_RA, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:interceptor_failed", "decided_by": 1,
                             "verdicts[0].reason": "ctk:fine", "verdicts[1].reason": "host_error:interceptor_failed",
                             "verdicts[2].reason": "ctk:also-no"})]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "reason": "ctk:fine"})], [rule(PT, fault="raise")],
                    [rule(PT, deny("ctk:also-no"))]], composition=RA, advisory="D-61")
V(379, "pu-summary-keeps-failure-reason", "unanimous: a raising interceptor's slot in the verdicts summary carries its reserved reason",
  "6.3, 7.5, 10.3", ["10.3-h", "6.3-e", "7.5-g"], P_PU, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.reason": "host_error:composition_disagreement", "decided_by": None,
                             "verdicts[1].reason": "host_error:interceptor_failed", "verdicts[0].reason": "ctk:fine"})]),
  caps=MT, scripts=[[rule(PT, {"decision": "allow", "reason": "ctk:fine"})], [rule(PT, fault="raise")]],
  composition=PU("deny"), advisory="D-61")
# Section 9: "unresolved ... The host MUST treat it as deny with host_error:approval_unresolved." Under the parallel
# profiles no other sentence speaks of an unresolved resolution (section 7.4's "leaves the deny standing" is written
# for the sequential profiles), so the reason gates here (ruling R-12).
V(380, "ps-liftable-unresolved", "strictest: a winning liftable deny put to the seam and answered unresolved gives approval_unresolved",
  "7.5, 9, 11", ["9-e", "9-l", "7.5-e", "11-a"], P_PS, tool_scenario(),
  hostdeny(records=[rec(PT, {"verdict.decision": "deny", "verdict.reason": "host_error:approval_unresolved",
                             "resolved_by": "rejection", "verdicts[0].decision": "allow", "verdicts[1].decision": "deny"})]),
  caps=MT, scripts=[A(), [rule(PT, liftable("ctk:hold"))]], composition=PS("deny"),
  approval_script=[{"resolve": {"outcome": "unresolved"}}])

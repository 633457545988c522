"""Block 1430-1449: the reference host's spelling where the text allows several (issue 26).

A gating vector accepts every behaviour the text allows (spec/0.1/freedoms.json); where the reference host
prefers one, the preference is pinned here, advisory, next to the decision that records it. Under
`ctk-reference-host --freedoms ID` the reference host takes the other choice, and exactly the advisory vectors
below that pin that freedom may fail.
"""
from lib import *
from v_approval import echo_vec, _raw
from v_identity import IP, tool_args_scen, rejected_post_model
from v_points import TP, deny_expect

# Ids 1430..1449, written at each call site.

# Freedom decided-by-forbidden-transform: the reference host records a transform at agent_startup/agent_shutdown as a
# transform-application failure, decided_by null (D-79); CTK-0040/0041 gate on the rest.
V(1430, "transform-forbidden-startup-decided-by-null", "A transform at agent_startup is refused with decided_by null, as a transform-application failure",
  "4.3, 10.3", ["4.3-c", "10.3-g"], TP, tool_scenario(),
  {"interceptions": ix([SU, SD]),
   "records": [rec(SU, {"verdict.reason": "host_error:transform_target_forbidden", "decided_by": None})],
   "run_outcome": "blocked"},
  caps=MT, script=[rule(SU, transform("$target.tools_registered", []))], advisory="D-79")
V(1431, "transform-forbidden-shutdown-decided-by-null", "A transform at agent_shutdown is refused with decided_by null, as a transform-application failure",
  "4.3, 10.3", ["4.3-c", "10.3-g"], TP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(SD, {"verdict.reason": "host_error:transform_target_forbidden", "decided_by": None})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[rule(SD, transform("$target.reason", "cancelled"))], advisory="D-79")

# Freedom integral-float-refused: the reference host keeps a float literal of integral value beyond 2^53-1 in the
# jcs-sha256 domain (D-13, G-03), so the recomputed echo matches and the approval lifts the deny.
echo_vec(1432, "integral-float", "A recomputed echo matches over 1e+21, which the reference host keeps in the identity domain as a float",
         tool_scenario(args={"big": _raw("1e+21")}), PT, MT, advisory="D-13")

# Freedoms resolved-by-null and verdicts-empty: the reference host leaves both members out (D-15); the gating
# vectors accept null resp. [] as well.
V(1433, "resolved-by-left-out", "A deny the approval seam never saw leaves resolved_by out of the record (not null)",
  "10.3", ["10.3-j"], "record/fields", tool_scenario(), deny_expect(PT, "ctk:blocked-by-policy"),
  caps=MT, script=[rule(PT, deny("ctk:blocked-by-policy"))], advisory="D-15")
V(1434, "verdicts-left-out-nothing-dispatched", "Under sequential/first_deny an emission denied before dispatch leaves verdicts out (not [])",
  "10.3", ["10.3-m"], IP, tool_args_scen(9007199254740992), rejected_post_model("int64_json"),
  caps=MT + ["int64_json"], script=[rule(PO, deny("ctk:should-not-be-asked"))], advisory="D-15")

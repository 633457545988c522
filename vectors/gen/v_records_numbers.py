"""Ids 1920-1939, 1949 and 1960-1979: vectors for gaps the Python example host's mutants showed (issue 27,
reports/mutation/python-host/survivors.txt), beyond the declaration loader (v_decl_gaps.py) and streams
(v_streams.py)."""
from lib import V, rec, ix, rule, deny, transform, tool_scenario, plain_scenario, ALLOW, FULL_TOOL, FULL_PLAIN, SU, IN, PT, PTT, SD, MT, M
from v_approval import echo_vec, _raw
from v_gate import at_pre_tool, GP, VI, TI

# §10.2: jcs-sha256 writes "numbers per ECMA-262 Number::toString". CTK-0441's numbers leave out a negative
# fraction (the sign), a magnitude below 0.1 written in plain digits (its leading zeros) and an exponent form with
# two significant digits (the point inside the mantissa): a host that misspells any of them presents the resolver
# a context whose recomputed identity differs, so the approval cannot lift the deny. Every number here is
# non-integral, so the freedom integral-float-refused (a float literal of integral value beyond 2^53-1) never
# applies.
echo_vec(1920, "numbers-fractions", "A recomputed echo matches over negative fractions, a magnitude below 0.1 and exponent forms with two significant digits",
         tool_scenario(args={"neg": _raw("-0.5"), "milli": _raw("0.001"), "small": _raw("1.5e-7"),
                             "negsmall": _raw("-2.5e-8"), "mixed": _raw("-123.456")}), PT, MT)

# ---------------------------------------------------------------- the verdict gate's edges (§5)


def tool_runs(records):
    """The tool call proceeds and the run completes."""
    return {"interceptions": ix(FULL_TOOL), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
            "records": records, "final_output": "done", "run_outcome": "completed"}


# §5: "A host that receives a verdict ... whose `warnings` is not an array of objects ... MUST treat it as
# {"decision": "deny", "reason": "host_error:verdict_invalid"}". CTK-0113/0114 give an object with a member and an
# array of strings; an empty object, an empty string and arrays holding other non-objects are as far from the shape.
for num, slug, what, warnings in [(1921, "empty-object", "an empty object", {}),
                                  (1922, "empty-string", "an empty string", ""),
                                  (1923, "number-item", "an array holding a number", [5]),
                                  (1924, "null-item", "an array holding null", [None]),
                                  (1925, "array-item", "an array holding an array", [[{"reason": "ctk:w"}]])]:
    V(num, "gate-warnings-" + slug, "The verdict gate refuses warnings given as %s with verdict_invalid at pre_tool_call" % what,
      "5, 6.3", ["5-g", "6.3-d", "5-a"], GP, tool_scenario(), at_pre_tool(VI), caps=MT,
      script=[rule(PT, raw={"decision": "allow", "warnings": warnings}, raw_set=True)])

# §5.2: "A `path` that does not resolve, or whose segment types are incompatible with `target`'s structure, MUST
# yield `host_error:transform_invalid`", and the verdict schema gives transform {path, value}: a transform member
# that is not an object, or has no path, can be applied nowhere. Whether the host calls that verdict_invalid (the
# schema) or transform_invalid (§5.2) the text does not settle, so only the deny is asserted.
for num, slug, what, body in [(1926, "string", "a string", "x"), (1927, "number", "a number", 5),
                              (1928, "no-path", "an object without path", {"value": "x"})]:
    V(num, "gate-transform-body-" + slug, "A transform verdict whose transform is %s denies the tool call" % what,
      "5, 5.2", ["5-e", "5.2-c", "6.3-d"], GP, tool_scenario(), at_pre_tool(), caps=MT,
      script=[rule(PT, raw={"decision": "transform", "transform": body}, raw_set=True)])

# §5.2 again: an index one past the end of an array addresses no location ("replace the addressed location").
V(1929, "transform-index-one-past-end", "A transform path indexing one past the end of an array ($target.items[2] of two) denies the tool call with transform_invalid",
  "5.2", ["5.2-c", "5.2-a"], "transform/targets", tool_scenario(args={"q": "alpha", "items": [1, 2]}), at_pre_tool(TI),
  caps=MT, script=[rule(PT, transform("$target.items[2]", 3))])

# §5: "| `message` | no | Free-form human-readable text. |": only reason is barred from host_error:, so an allow
# whose message starts with it is a valid allow and the action proceeds (§5.1 "allow").
V(1930, "gate-message-host-error-prefix-allowed", "An allow whose message starts with host_error: is valid: the tool runs and the run completes",
  "5, 5.1", ["5-a", "5.1-a"], GP, tool_scenario(),
  tool_runs([rec(PT, {"verdict.decision": "allow"})]), caps=MT,
  script=[rule(PT, {"decision": "allow", "message": "host_error: this is only text"})])

# §5.3: "A host MUST propagate `evidence` to its audit sink unchanged when present", on a deny (the decisive verdict
# under every profile reading), with verification_pointers the host must not dereference.
EVIDENCE = {"artefact": "policy-run-17", "verification_pointers": {"log": "https://audit.invalid/r/17", "sig": "urn:ctk:sig:17"}}
V(1931, "deny-evidence-recorded-unchanged", "A deny's evidence with verification_pointers reaches the record unchanged",
  "5.3, 10.3", ["5.3-b"], "record/projection", tool_scenario(),
  at_pre_tool("ctk:evidence-deny", {"verdict.evidence": EVIDENCE}), caps=MT,
  script=[rule(PT, deny("ctk:evidence-deny", evidence=EVIDENCE))])

# The same sentence with the members the other way round: nothing in §5 orders an object's members, and a gate that
# judges them one by one must judge verification_pointers whatever comes before it.
EVIDENCE_POINTERS_FIRST = {"verification_pointers": {"log": "https://audit.invalid/r/18"}, "artefact": "policy-run-18"}
V(1939, "deny-evidence-pointers-first-recorded", "A deny's evidence whose verification_pointers come before artefact reaches the record unchanged",
  "5.3, 10.3", ["5.3-b"], "record/projection", tool_scenario(),
  at_pre_tool("ctk:evidence-first", {"verdict.evidence": EVIDENCE_POINTERS_FIRST}), caps=MT,
  script=[rule(PT, deny("ctk:evidence-first", evidence=EVIDENCE_POINTERS_FIRST))])

# §10.3: "`message` and each `warnings[].message` are truncated to at most 256 UTF-8 bytes (on a character boundary,
# with a trailing `…` when truncated)": a message of exactly 256 bytes fits and is kept whole. (The clause 10.3-c
# stays not_vector_testable for where a cut falls; this vector covers the warnings being recorded, 5.1-g.)
M256 = "m" * 250 + "\u00e9" * 3
assert len(M256.encode("utf-8")) == 256
V(1932, "record-message-256-bytes-kept", "A verdict message and a warning message of exactly 256 UTF-8 bytes are recorded whole",
  "10.3", ["5.1-g"], "record/projection", tool_scenario(),
  at_pre_tool("ctk:long-enough", {"verdict.message": M256, "verdict.warnings[0].message": M256}), caps=MT,
  script=[rule(PT, deny("ctk:long-enough", message=M256, warnings=[{"reason": "ctk:w", "message": M256}]))])

# §5.1 "A host MUST record warnings on the interception record", and §5 gives a warning as {reason?, message?}: a
# warning with a message only is valid and recorded.
V(1933, "record-warning-message-only", "A warning with a message and no reason is valid and recorded with the deny that carries it",
  "5.1, 10.3", ["5.1-g", "5-g"], "record/projection", tool_scenario(),
  at_pre_tool("ctk:warned", {"verdict.warnings[0].message": "only a message"}, ["verdict.warnings[0].reason"]), caps=MT,
  script=[rule(PT, deny("ctk:warned", warnings=[{"message": "only a message"}]))])

# §10.3 "`approval` presence is kept but its members are stripped": an allow has no approval, so its record has none.
V(1934, "record-allow-has-no-approval", "The record of an allow carries no approval member",
  "10.3", ["10.3-d", "5.1-a"], "record/projection", tool_scenario(),
  tool_runs([rec(PT, {"verdict.decision": "allow"}, ["verdict.approval"])]), caps=MT,
  script=[rule(PT, ALLOW)])

# §4.3 "A transform verdict at agent_startup or agent_shutdown MUST be rejected by the host with
# host_error:transform_target_forbidden" holds in evaluate_only too (§8: "The host MUST validate transform per
# §5.2"; a failure is recorded as its host_error deny while the action proceeds).
V(1935, "evaluate-only-transform-at-startup-forbidden", "In evaluate_only a transform at agent_startup is recorded as a transform_target_forbidden deny, and the run proceeds",
  "4.3, 8", ["4.3-c", "8-e", "8-b"], "enforcement/evaluate_only", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(SU, {"verdict.decision": "deny", "verdict.reason": "host_error:transform_target_forbidden",
                        "mode": "evaluate_only"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, mode="evaluate_only", script=[rule(SU, transform("$target.tools_registered", []))])

# §10.3: verdicts is "REQUIRED in multi-verdict profiles (`sequential/run_all`, `parallel/*`)", and an emission
# rejected before dispatch invoked no interceptor: under run_all its record carries verdicts, empty. But for such an
# emission §10.2 asks only "best-effort envelope fields with `null` identities and the fail-closed verdict", and both
# upstream SDKs leave verdicts out there: the reading is D-15's, advisory.
for num, slug, comp in [(1936, "run-all", {"profile": "sequential/run_all"}),
                        (1937, "strictest", {"profile": "parallel/strictest", "on_transform_conflict": "deny"})]:
    V(num, "refused-before-dispatch-verdicts-present-" + slug,
      "Under %s a record of an emission refused before dispatch carries verdicts, empty" % comp["profile"],
      "10.3, 10.1", ["10.3-h", "10.3-m", "10.1-d"], "record/fields", tool_scenario(),
      {"interceptions": [], "interceptions_absent": [SU, IN, SD],
       "records": [{"interception_point": SU,
                    "assert": {"verdict.decision": "deny", "verdict.reason": "host_error:context_invalid",
                               "input_identity": None, "identity_provider": "ctk-fault"},
                    "present": ["verdicts"], "no_entries": ["verdicts"]}],
       "tool_not_invoked": ["lookup"], "final_output": None, "run_outcome": "blocked"},
      caps=MT, identity_provider="ctk-fault", composition=comp, script=[rule(SU, deny("ctk:never-consulted"))],
      advisory="D-15")

# §5.2 under parallel/strictest: the one transform wins, its path resolves nowhere, and the host "MUST yield
# host_error:transform_invalid" (AH-CTK-102/103 show it under the sequential profiles only).
V(1938, "strictest-unresolvable-transform-invalid", "Under parallel/strictest a lone transform whose path resolves nowhere denies the tool call with transform_invalid",
  "5.2, 7.2", ["5.2-c"], "composition/parallel_strictest", tool_scenario(),
  at_pre_tool(TI), caps=MT, composition={"profile": "parallel/strictest", "on_transform_conflict": "deny"},
  scripts=[[rule(PT, transform("$target.missing.deeper", "x"))], [rule(PT, ALLOW)]])

# §10.3: verdicts entries are "{index, decision, reason?, name?}", and "`name` is the host-chosen registration
# identifier for the interceptor at `index`": a string when the host has one, left out otherwise, never null. Under
# run_all verdicts is REQUIRED, so every entry is there to look at, whichever way the host registered its interceptors.
V(1949, "record-verdict-entry-name-string-or-absent", "Under run_all each verdicts entry's name is a string or absent, never null or another type",
  "10.3", ["10.3-h"], "record/fields", tool_scenario(),
  tool_runs([{"interception_point": PT, "assert": {"verdict.decision": "allow", "verdicts[0].index": 0, "verdicts[1].index": 1},
              "types": {"verdicts[0].name": ["absent", "string"], "verdicts[1].name": ["absent", "string"]}}]),
  caps=MT, composition={"profile": "sequential/run_all"}, scripts=[[rule(PT, ALLOW)], [rule(PT, ALLOW)]])

# CTK-0534 again, with its record's resolved_by: §10.3 gives "rejection" iff the seam was consulted and did not lift
# the deny, absent iff it was never consulted. Whether a seam with no request identity to put to the resolver counts as
# consulted the text does not settle (D-24 reads it as consulted), so either is accepted, and nothing else: a liftable
# deny the seam could not lift was certainly not resolved by approval.
V(1960, "two-pow-53-folded-before-the-seam-resolved-by", "A liftable deny the seam cannot identify (a fold put 2^53 in the arguments) records resolved_by rejection or none, never another value",
  "9, 10.3", ["9-n", "10.2-d"], "identity/canonical", tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "tool_not_invoked": ["lookup"],
   "records": [{"interception_point": PT, "assert": {"verdict.decision": "deny", "verdict.reason": "host_error:context_invalid"},
                "one_of": {"resolved_by": [None, "rejection"]}}],
   "run_outcome": "completed", "run_outcome_by_posture": {"posture": "tool_seam_host_error",
                                                          "outcomes": {"continue": "completed", "terminate": "blocked"}}},
  caps=MT + ["int64_json"],
  scripts=[[rule(PT, transform("$target.q", 9007199254740992))], [rule(PT, deny("ctk:check", approval={}))]],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "fixed")}}])

# §10.2: jcs-sha256 writes "numbers per ECMA-262 Number::toString", which writes an integral value below 10^21 in
# plain digits (1e20 is 100000000000000000000). Such a float literal is integral and beyond ±(2^53−1), so a host may
# also refuse the context (freedom integral-float-refused): the deny is then context_invalid. Either reading passes;
# a host that accepts the number but spells it otherwise presents the resolver a context whose recomputed identity
# differs, and its deny (approval_identity_mismatch) is neither. The number is in the tool's result, which no point
# before post_tool_call carries. Under the terminate posture the readings end the run differently (a refusal at the
# tool seam blocks it), so the vector is for hosts implementing continue, where both complete.
V(1961, "echo-recomputed-integral-float-1e20", "A recomputed echo over the float literal 1e20 lifts the deny, or the host refuses the context: never an identity mismatch",
  "9, 10.2", ["9-f", "10.2-a", "10.2-c"], "approval_seam", tool_scenario(ret={"big": _raw("1e20")}),
  {"sequence_strict": False, "interceptions": [],
   "records": [{"interception_point": PTT,
                "one_of": {"verdict.decision": ["allow", "deny"], "verdict.reason": [None, "host_error:context_invalid"]}}],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, host_posture="continue", script=[rule(PTT, deny("ctk:needs-sign-off", approval={}))],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])

# §10.2: the jcs-sha256 projection holds "exactly the fields marked required ..., including the nested subfield
# whitelists": the input member only as {content, role}. A transform of the whole input target that adds a member
# leaves it in the target (projected whole) but not in the input member's whitelist, so a host that projects the
# whole member presents the resolver a context whose recomputed identity differs. Whether a host may refuse such a
# transform the text does not say plainly, so a refusal (transform_invalid or context_invalid) passes too.
V(1962, "echo-recomputed-input-member-beyond-whitelist", "A recomputed echo after a transform adds a member to the input lifts the next deny: the projection keeps only input's whitelisted subfields",
  "9, 10.2", ["9-f", "10.2-a"], "approval_seam", plain_scenario(),
  {"sequence_strict": False, "interceptions": [],
   "records": [{"interception_point": IN,
                "one_of": {"verdict.decision": ["allow", "transform", "deny"],
                           "verdict.reason": [None, "host_error:transform_invalid", "host_error:context_invalid"]}}],
   "run_outcome": "completed"},
  caps=M, scripts=[[rule(IN, transform("$target", {"content": "say hello", "role": "user", "extra": 1}))],
                   [rule(IN, deny("ctk:needs-sign-off", approval={}))]],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": ALLOW, "echo_recomputed": True}}])

"""Block 0500-0599 identity; 0600-0699 records; 0700-0799 evaluate_only; 0800-0849 isolation."""
from lib import *

# Ids 0500..0599. Each vector's id is written at its call site (never counted), so adding or
# removing a vector never renumbers another.
IP = "identity/canonical"
ID = "identity_provider"
CI = "host_error:context_invalid"


def raw(text):
    """Marker: the writer replaces the quoted marker with this literal JSON text."""
    return "@@RAW:" + text + "@@"


def same_value(num, slug, title, args, path, value, equal, covers, invocation=None, advisory=None):
    """The unusual spelling sits in the scenario's raw text, which the host parses itself; the verdict carries the
    plain spelling. A host whose identity depends on the source spelling (raw text, undecoded escapes, kept number
    lexemes, insertion order) gets different input and enforced identities."""
    exp = {"interceptions": ix(FULL_TOOL),
           "records": [rec(PT, {"verdict.decision": "transform", "identity_provider": "jcs-sha256"})],
           "final_output": "done", "run_outcome": "completed", "identities_equal": equal}
    if invocation is not None:
        exp["tool_invocations"] = [{"name": "lookup", "args": invocation}]
    V(num, slug, title, "10.2", covers, IP, tool_scenario(args=args), exp, caps=MT,
      script=[rule(PT, transform(path, value))], advisory=advisory)


same_value(500, "id-int-vs-float-spelling", "Rewriting 1 as 1.0 leaves the canonical form, so the identities stay equal",
           {"n": 1}, "$target.n", raw("1.0"), True, ["10.2-c", "10.2-g"])
same_value(501, "id-negative-zero", "Rewriting 0 as -0.0 leaves the canonical form, so the identities stay equal",
           {"n": 0}, "$target.n", raw("-0.0"), True, ["10.2-c"])
same_value(502, "id-exponent-spelling", "0.0000001 and 1e-7 are one number; rewriting one as the other keeps the identities equal",
           {"x": raw("0.0000001")}, "$target.x", raw("1e-7"), True, ["10.2-c"])
same_value(503, "id-upper-exponent", "100 and 1E2 are one number; rewriting keeps the identities equal",
           {"x": 100}, "$target.x", raw("1E2"), True, ["10.2-c"])
same_value(504, "id-fraction-exponent", "1.5 and 15e-1 are one number; rewriting keeps the identities equal",
           {"x": 1.5}, "$target.x", raw("15e-1"), True, ["10.2-c"])
same_value(505, "id-key-order", "Rewriting an object with its keys in another order keeps the identities equal",
           {"q": "alpha", "opts": {"b": 2, "a": 1, "c": {"z": 0, "y": [1, 2]}}}, "$target.opts",
           raw('{"c":{"y":[1,2],"z":0},"a":1,"b":2}'), True, ["10.2-c"])
same_value(506, "id-escaped-bmp", "A string spelled with a \\u escape equals the literal character: identities stay equal",
           {"q": raw('"caf\\u00e9"')}, "$target.q", "caf\u00e9", True, ["10.2-c"])
same_value(507, "id-surrogate-pair", "An astral character spelled as an escaped surrogate pair equals the literal: identities stay equal",
           {"q": raw('"smile \\ud83d\\ude00"')}, "$target.q", "smile \U0001F600", True, ["10.2-c"])
same_value(508, "id-escaped-solidus", "An escaped solidus equals a plain one: identities stay equal",
           {"q": raw('"a\\/b"')}, "$target.q", "a/b", True, ["10.2-c"])
same_value(509, "id-control-escapes", "Control characters spelled with different escapes are one string: identities stay equal",
           {"q": raw('"tab\\u0009here\\u000aline"')}, "$target.q", "tab\there\nline", True, ["10.2-c"])
same_value(510, "id-no-unicode-normalization", "Precomposed and decomposed e-acute differ; no normalization, so the identities differ and the tool gets the new form",
           {"q": "caf\u00e9"}, "$target.q", "cafe\u0301", False, ["4.4-d", "10.2-g"], {"q": "cafe\u0301"})
same_value(511, "id-string-vs-number", "The string \"1\" and the number 1 are different values: identities differ",
           {"n": 1}, "$target.n", "1", False, ["10.2-g", "4.4-d"], {"n": "1"})
same_value(512, "id-adjacent-doubles", "Two adjacent doubles are different values: identities differ",
           {"x": 1}, "$target.x", raw("1.0000000000000002"), False, ["10.2-c", "10.2-g"])


def nested(levels):
    """{"n": {"n": ... "leaf"}} with `levels` objects."""
    return {"n": nested(levels - 1)} if levels else "leaf"


# Section 12.3: the depth bound is host-tunable ("a host that declares different bounds remains conformant"), and the
# text sets no floor. 40 levels of argument nesting stays within the reference host's 128 (D-13), not within every
# bound a host may choose: CTK-0513 is advisory. Its twin CTK-0531 nests no deeper than the gating set already does
# (CTK-0505, CTK-0043), so it adds no depth demand of its own (ruling R-13).
same_value(513, "id-deep-nesting-ok", "A transform inside a 40-level nested argument applies and identities stay equal for an identical value",
           {"q": "alpha", "d": nested(40)}, "$target.d" + ".n" * 40, "leaf", True, ["10.2-c", "4.3-d"], advisory="D-13")
same_value(531, "id-nesting-ok", "A transform inside a three-level nested argument applies and identities stay equal for an identical value",
           {"q": "alpha", "d": nested(3)}, "$target.d" + ".n" * 3, "leaf", True, ["10.2-c", "4.3-d"])
# D-13's bound, met exactly: the context object is level 1 and every member or element one level below its parent, a
# scalar included. The composed post_model_call context below holds "leaf" at level 128 (response 2, tool_calls 3, the
# call 4, args 5, the 122 objects 6..127), so the bound lets it through and the run goes on. A context this deep crosses
# ctk-harness/1 only as a transform's result: any other way in nests it past the 128 levels a JSON reader takes in one
# line. Advisory: section 12.3 lets a host declare a lower bound.
V(532, "id-depth-at-bound-ok", "A transform that leaves the composed context exactly 128 levels deep is applied and the tool gets the value",
  "12.3, 4.3", ["12.3-b", "4.3-d"], IP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PO, PT]),
   "records": [rec(PO, {"verdict.decision": "transform", "verdict.transform.path": "$target.tool_calls[0].args.q"})],
   "tool_invocations": [{"name": "lookup", "args": {"q": nested(122)}}], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PO, transform("$target.tool_calls[0].args.q", nested(122)), match={"target.finish_reason": "tool_calls"})],
  advisory="D-13")


def tool_args_scen(v):
    return tool_scenario(args={"id": v})


V(514, "max-safe-integer-accepted", "An argument equal to 2^53-1 stays in the identity domain and the run completes",
  "10.2, 4.4", ["10.2-d", "4.4-d"], IP, tool_args_scen(9007199254740991),
  {"interceptions": ix(FULL_TOOL, {4: {"tool_call.args.id": 9007199254740991}}),
   "tool_invocations": [{"name": "lookup", "args": {"id": 9007199254740991}}],
   "records": [rec(PO, {"verdict.decision": "allow"}), rec(PT, {"verdict.decision": "allow"})],
   "final_output": "done", "run_outcome": "completed", "identities_equal": True}, caps=MT, script=[])
V(515, "min-safe-integer-accepted", "An argument equal to -(2^53-1) stays in the identity domain and the run completes",
  "10.2", ["10.2-d"], IP, tool_args_scen(-9007199254740991),
  {"interceptions": ix(FULL_TOOL), "tool_invocations": [{"name": "lookup", "args": {"id": -9007199254740991}}],
   "final_output": "done", "run_outcome": "completed"}, caps=MT, script=[])


# 2^53-1 stays in the domain wherever an identity is taken: here also for the approval request (section 9), which
# identifies the context as presented to the seam.
V(533, "min-safe-integer-at-the-seam", "An argument of -(2^53-1) stays in the identity domain for the approval request too: the approval lifts the deny",
  "10.2, 9", ["10.2-d", "9-n"], IP, tool_args_scen(-9007199254740991),
  {"sequence_strict": False, "interceptions": ix([PT]), "tool_invocations": [{"name": "lookup", "args": {"id": -9007199254740991}}],
   "records": [rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": 0})],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, liftable("ctk:check"))],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])


# Section 9 takes the request identity over the context as presented, after the folds before it (9-n), and the
# jcs-sha256 provider rejects an integer beyond 2^53-1 in the projection as context_invalid (10.2-d): a fold that leaves
# 2^53 in the arguments leaves the seam no identity to put to the resolver, so the liftable deny is not lifted, and
# the transform the resolver would approve never reaches the tool. (That the record then says resolved_by rejection is
# D-24's reading, not asserted here.)
V(534, "two-pow-53-folded-before-the-seam", "A fold that puts 2^53 into the arguments before a liftable deny leaves no request identity: denied context_invalid, the approving resolver's transform never applies",
  "9, 10.2", ["9-n", "10.2-d"], IP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": CI})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT + ["int64_json"],
  scripts=[[rule(PT, transform("$target.q", 9007199254740992))], [rule(PT, liftable("ctk:check"))]],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "fixed")}}])


# Section 9 identifies the context as presented to the seam with the jcs-sha256 provider, whose domain (10.2-d) stops
# at 2^53-1 in magnitude and covers the whole projection, arrays included: an argument of 2^53-1 (CTK-0533's positive
# twin), a small negative integer, and arrays nested several levels deep all stay in the domain, so the approval lifts
# the deny and the tool runs with the arguments as given.
for num, slug, title, args in [
        (535, "max-safe-integer-at-the-seam", "An argument of 2^53-1 stays in the identity domain for the approval request too: the approval lifts the deny",
         {"id": 9007199254740991}),
        (536, "negative-integer-at-the-seam", "A small negative integer argument stays in the identity domain for the approval request: the approval lifts the deny",
         {"id": -3}),
        (537, "nested-arrays-at-the-seam", "Arguments holding arrays nested eight levels deep stay in the identity domain for the approval request: the approval lifts the deny",
         {"grid": [[[[[[[[1, -2]]]]]]]]})]:
    V(num, slug, title, "10.2, 9", ["10.2-d", "9-n"], IP, tool_scenario(args=args),
      {"sequence_strict": False, "interceptions": ix([PT]), "tool_invocations": [{"name": "lookup", "args": args}],
       "records": [rec(PT, {"verdict.decision": "allow", "resolved_by": "approval", "decided_by": 0})],
       "final_output": "done", "run_outcome": "completed"},
      caps=MT, script=[rule(PT, liftable("ctk:check"))],
      approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}])
# CTK-0534 with the integer inside an array: the domain covers array elements too (10.2-d, "anywhere in the
# projection"), so the seam has no request identity and the liftable deny is not lifted.
V(538, "two-pow-53-in-array-folded-before-the-seam", "A fold that puts 2^53 inside an array argument before a liftable deny leaves no request identity: denied context_invalid, the approving resolver's transform never applies",
  "9, 10.2", ["9-n", "10.2-d"], IP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": CI})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT + ["int64_json"],
  scripts=[[rule(PT, transform("$target.q", [1, 9007199254740992]))], [rule(PT, liftable("ctk:check"))]],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": transform("$target.q", "fixed")}}])


# Section 4.4 carries a 64-bit identifier as a decimal string, and 10.2-d/10.2-e judge integral numbers only: digits
# inside a string, an escaped quote before them included, are no integer literal, and integers within 2^53-1 stay in
# the domain whatever their digits (95 sorts above 9007199254740991 as text; 1234567890123456 has as many digits). A
# tool result holding them reaches post_tool_call, which is dispatched and allowed.
for num, slug, title, ret in [
        (540, "digit-strings-in-tool-result", "Decimal strings of 20 digits in a tool result, one behind an escaped quote, are strings: post_tool_call is dispatched and allowed",
         {"serial": "18446744073709551616", "note": 'call "18446744073709551616" now'}),
        (541, "safe-integers-in-tool-result", "Integers within 2^53-1 in a tool result (95, and the 16-digit 1234567890123456) stay in the domain: post_tool_call is dispatched and allowed",
         {"count": 95, "ticket": 1234567890123456})]:
    V(num, slug, title, "4.4, 10.2", ["4.4-c", "4.4-d", "10.2-d"], IP, tool_scenario(ret=ret),
      {"interceptions": ix(FULL_TOOL), "records": [rec(PTT, {"verdict.decision": "allow"})],
       "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "final_output": "done", "run_outcome": "completed"},
      caps=MT, script=[])


def rejected_post_model(cap):
    return {"interceptions": ix([SU, IN, PM, SD]), "interceptions_absent": [PO, PT],
            "tool_not_invoked": ["lookup"],
            "records": [rec(PO, {"verdict.decision": "deny", "verdict.reason": CI, "input_identity": None,
                                 "enforced_identity": None, "decided_by": None, "identity_provider": "jcs-sha256"},
                            ["verdicts"], ["verdict.message"])],
            "final_output": None, "run_outcome": "blocked"}


V(516, "two-pow-53-rejected", "An argument of exactly 2^53 leaves the identity domain: post_model_call is denied before dispatch",
  "10.2, 4.4, 6.3", ["10.2-d", "10.2-j", "10.3-m", "11-a"], IP, tool_args_scen(9007199254740992), rejected_post_model("int64_json"),
  caps=MT + ["int64_json"], script=[rule(PO, deny("ctk:should-not-be-asked"))])
V(517, "neg-two-pow-53-rejected", "An argument of -2^53 leaves the identity domain: post_model_call is denied before dispatch",
  "10.2", ["10.2-d", "10.2-j", "10.3-m"], IP, tool_args_scen(-9007199254740992), rejected_post_model("int64_json"),
  caps=MT + ["int64_json"], script=[])
V(518, "two-pow-64-rejected", "An integer literal of 2^64 is caught from the raw text and denied before dispatch",
  "10.2", ["10.2-e", "10.2-d", "10.2-j"], IP, tool_args_scen(18446744073709551616), rejected_post_model("bigint_json"),
  caps=MT + ["bigint_json"], script=[])
V(519, "huge-negative-literal-rejected", "A negative integer literal far beyond 64 bits is caught from the raw text and denied",
  "10.2", ["10.2-e", "10.2-j"], IP, tool_args_scen(-123456789012345678901234567890), rejected_post_model("bigint_json"),
  caps=MT + ["bigint_json"], script=[])
V(520, "decimal-string-accepted", "A 64-bit identifier carried as a decimal string is accepted unchanged",
  "4.4", ["4.4-c", "4.4-d"], IP, tool_args_scen("9007199254740993"),
  {"interceptions": ix(FULL_TOOL, {4: {"tool_call.args.id": "9007199254740993"}}),
   "tool_invocations": [{"name": "lookup", "args": {"id": "9007199254740993"}}],
   "final_output": "done", "run_outcome": "completed"}, caps=MT, script=[])
V(521, "big-int-in-input", "An oversized integer inside structured input content is refused at input; the turn never begins",
  "10.2, 6.1", ["10.2-d", "10.3-m"], IP,
  {"input": {"content": {"account": 9007199254740993, "note": "pay"}, "role": "external"},
   "model_script": [{"respond": {"content": "ok", "tool_calls": [], "finish_reason": "stop"}}]},
  {"interceptions": ix([SU, SD]), "interceptions_absent": [IN, PM],
   "records": [rec(IN, {"verdict.reason": CI, "input_identity": None, "enforced_identity": None, "decided_by": None}, ["verdicts"])],
   "final_output": None, "run_outcome": "blocked"}, caps=M + ["int64_json"], script=[])
V(522, "big-int-in-tool-result", "An oversized integer in a tool result is refused at post_tool_call before dispatch",
  "10.2, 6.2", ["10.2-d", "6.2-a"], IP, tool_scenario(ret={"id": 9007199254740993}),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT],
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PTT, {"verdict.reason": CI, "input_identity": None, "decided_by": None})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE}, caps=MT + ["int64_json"], script=[])
V(523, "post-fold-out-of-domain-output", "A transform that puts 2^53+1 into output takes the context out of domain: denied, enforced identity null",
  "10.2, 6.1", ["10.2-h", "6.1-g"], IP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(OUT, {"verdict.reason": CI, "enforced_identity": None, "decided_by": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M + ["int64_json"], script=[rule(OUT, transform("$target.content", 9007199254740993))])
V(524, "post-fold-out-of-domain-run-all", "run_all: a folded transform adding 2^53 fails closed at finalize even though every verdict permitted",
  "10.2", ["10.2-h"], IP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.reason": CI, "enforced_identity": None, "decided_by": None})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT + ["int64_json"], composition={"profile": "sequential/run_all"},
  scripts=[[rule(PT, transform("$target.q", 9007199254740992))], [rule(PT, ALLOW)]])
V(525, "unicode-passes-verbatim", "Mixed-script input with emoji and combining marks reaches the model exactly as sent",
  "4.4", ["4.4-d", "4.2-b"], IP, plain_scenario(text="Gr\u00fc\u00dfe \u4e16\u754c \U0001F30D e\u0301 \u05e9\u05dc\u05d5\u05dd"),
  {"interceptions": ix(FULL_PLAIN, {1: {"input.content": "Gr\u00fc\u00dfe \u4e16\u754c \U0001F30D e\u0301 \u05e9\u05dc\u05d5\u05dd"},
                                    2: {"messages[0].content": "Gr\u00fc\u00dfe \u4e16\u754c \U0001F30D e\u0301 \u05e9\u05dc\u05d5\u05dd"}}),
   "final_output": "hello there", "run_outcome": "completed", "identities_equal": True}, caps=M, script=[])
V(526, "structured-input-verbatim", "Structured input content with nested arrays and nulls is passed through untouched",
  "4.2, 4.4", ["4.2-b", "4.4-d"], IP,
  {"input": {"content": {"items": [1, None, {"k": [True, False]}], "empty": {}}, "role": "system"},
   "model_script": [{"respond": {"content": "ok", "tool_calls": [], "finish_reason": "stop"}}]},
  {"interceptions": ix(FULL_PLAIN, {1: {"input.content": {"items": [1, None, {"k": [True, False]}], "empty": {}},
                                        "input.role": "system"}}),
   "final_output": "ok", "run_outcome": "completed"}, caps=M, script=[])

# providers
V(527, "null-provider-records", "With the null provider every record has null identities and a null provider, even across a transform",
  "10.1", ["10.1-c", "10.3-e"], ID, tool_scenario(),
  {"interceptions": ix(FULL_TOOL), "tool_invocations": [{"name": "lookup", "args": {"q": "nulled"}}],
   "records": [rec(SU, {"input_identity": None, "enforced_identity": None, "identity_provider": None}),
               rec(PT, {"verdict.decision": "transform", "input_identity": None, "enforced_identity": None, "identity_provider": None}),
               rec(SD, {"identity_provider": None, "input_identity": None})],
   "final_output": "done", "run_outcome": "completed", "identities_equal": True},
  caps=MT, identity_provider=None, script=[rule(PT, transform("$target.q", "nulled"))])
V(528, "default-provider-named", "Without a configured provider every record names jcs-sha256",
  "10.1", ["10.1-a"], ID, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(p, {"identity_provider": "jcs-sha256"}) for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, script=[])
V(529, "explicit-jcs-provider", "An explicitly configured jcs-sha256 provider behaves like the default and a transform changes the enforced identity",
  "10.1, 10.2", ["10.1-a", "10.2-g"], ID, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(IN, {"identity_provider": "jcs-sha256", "verdict.decision": "transform"})],
   "final_output": "hello there", "run_outcome": "completed", "identities_equal": False},
  caps=M, identity_provider="jcs-sha256", script=[rule(IN, transform("$target.content", "changed"))])
V(530, "faulty-provider-startup", "A failing custom provider denies agent_startup before any interceptor, even one that would deny",
  "10.1, 6.1", ["10.1-d", "10.3-m", "6.1-a"], ID, tool_scenario(),
  {"interceptions": [], "interceptions_absent": [SU, IN, SD],
   "records": [rec(SU, {"verdict.decision": "deny", "verdict.reason": CI, "decided_by": None, "input_identity": None,
                        "enforced_identity": None, "identity_provider": "ctk-fault"}, ["verdicts"])],
   "tool_not_invoked": ["lookup"], "final_output": None, "run_outcome": "blocked"},
  caps=MT, identity_provider="ctk-fault", script=[rule(SU, deny("ctk:never-consulted"))])

# ---------------- records 0600
# Ids 0600..0699.
RF = "record/fields"
V(600, "one-record-per-emission", "Each of the ten emissions of a tool loop writes one record, in order, with its own sequence",
  "10.3, 3.1, 4.1", ["10.3-a", "3.1-f", "4.1-d", "3.1-a", "3.1-b", "3-b", "3-c", "3-d", "3-e", "3-f", "3-g", "3.1-c", "3.1-d", "3.1-e"], RF,
  tool_scenario(),
  {"interceptions": ix(FULL_TOOL, {0: {"sequence": 0}}),
   # P-5: sequences only strictly increase from 0 (checked implicitly on every vector); no exact value past 0 is pinned
   "records": [rec(p, dict({"interception_point": p}, **({"sequence": 0} if p == SU else {})), present=["sequence"])
               for p in FULL_TOOL],
   "final_output": "done", "run_outcome": "completed", "identities_equal": True}, caps=MT, script=[])
V(601, "always-present-fields", "Records carry every always-present field, stamp mode and composition, and carry no resolved_by (absent or null) when no seam was consulted",
  "10.3", ["10.3-e", "10.3-f", "8-a"], RF, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(p, {"mode": "enforce", "decided_by": None, "interceptors_registered": 1,
                       "composition": {"profile": "sequential/first_deny", "on_approval": "stop"}},
                   ["resolved_by"],
                   ["session_id", "sequence", "timestamp", "verdict", "input_identity", "enforced_identity",
                    "identity_provider", "composition", "interception_point"]) for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, script=[])
V(602, "context-core-fields", "Every context carries and validates the required core, names its own point and the wire version, and starts sequence at 0",
  "4.1", ["4.1-a", "4.1-b", "4.1-c", "4.1-e", "4.1-f", "4.1-g", "3-a"], "context/points", tool_scenario(),
  {"interceptions": [dict(e, context_must_validate=True, context=dict({"spec": "agent-hooks/0.1",
                                      "interception_point": e["interception_point"]}, **({"sequence": 0} if i == 0 else {})))
                    for i, e in enumerate(ix(FULL_TOOL))],
   "final_output": "done", "run_outcome": "completed"}, caps=MT, script=[])
V(603, "tool-error-still-post", "A tool that reports an error is still followed by post_tool_call with is_error true",
  "3, 4.2", ["3-e", "4.2-f", "3.1-e"], "context/points", tool_scenario(ret="disk full", is_error=True),
  {"interceptions": ix(FULL_TOOL, {5: {"tool_result.is_error": True, "tool_result.value": "disk full", "tool_call.id": "tc-1"}}),
   "final_output": "done", "run_outcome": "completed"}, caps=MT, script=[])
V(604, "no-tools-empty-calls", "A reply with no tool calls carries an empty tool_calls array and no tool point fires",
  "4.2, 3.2", ["4.2-d", "4.2-a", "3.2-e"], "context/points", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN, {0: {"agent_init.tools_registered": []}, 3: {"response.tool_calls": [], "response.finish_reason": "stop"}}),
   "interceptions_absent": [PT, PTT], "final_output": "hello there", "run_outcome": "completed"}, caps=M, script=[])
# P-6: tools_registered has no fixed order, so the listing is checked name by name, never as a whole array.
V(605, "tools-registered-any-order", "agent_startup lists every registered tool by name, in any order",
  "4.2", ["4.2-a"], "context/points",
  dict(tool_scenario(), tools=[{"name": "archive", "behavior": [{"return": 1}]},
                              {"name": "lookup", "behavior": [{"return": {"hits": 1}, "is_error": False}]},
                              {"name": "zip", "behavior": [{"return": 2}]}]),
  {"interceptions": ix(FULL_TOOL, {0: {"context_must_contain": ['"archive"', '"lookup"', '"zip"']}}),
   "final_output": "done", "run_outcome": "completed"}, caps=MT, script=[])
V(606, "verdict-projection", "The record keeps reason, short message, warnings and labels, strips approval members and drops the transform value",
  "10.3", ["10.3-b", "10.3-d", "5.1-g"], "record/projection", tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([IN, PT]),
   "records": [rec(IN, {"verdict.decision": "transform", "verdict.transform.path": "$target.content",
                        "verdict.message": "trimmed whitespace", "verdict.result_labels": ["cleaned"],
                        "verdict.warnings[0].message": "minor edit"}, ["verdict.transform.value"]),
               rec(PT, {"verdict.decision": "deny", "verdict.approval": {}, "verdict.message": "ask a human"})],
   "tool_not_invoked": ["lookup"], "run_outcome": "completed"},
  caps=MT, script=[rule(IN, transform("$target.content", "find alpha", message="trimmed whitespace", result_labels=["cleaned"],
                                     warnings=[{"reason": "ctk:edit", "message": "minor edit"}])),
                   rule(PT, liftable("ctk:human", message="ask a human", approval={"queue": "secops", "sla_minutes": 30}))])
V(607, "interceptors-registered-count", "interceptors_registered counts the two registered interceptors on every record",
  "10.3", ["10.3-k"], RF, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(p, {"interceptors_registered": 2}) for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, scripts=[[], []])
V(608, "zero-interceptors-enforce", "With no interceptor in enforce mode agent_startup is denied no_interceptor and nothing runs",
  "7, 11", ["7-d", "10.3-k", "10.3-g", "11-a"], RF, tool_scenario(),
  {"interceptions": [], "tool_not_invoked": ["lookup"],
   "records": [rec(SU, {"verdict.reason": "host_error:no_interceptor", "decided_by": None, "interceptors_registered": 0})],
   "final_output": None, "run_outcome": "blocked"}, caps=MT, scripts=[])
V(609, "decided-by-allow-null", "A pure allow records decided_by null while a deny records the deciding index",
  "10.3", ["10.3-g"], "record/decided_by", tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT]),
   "records": [rec(PM, {"decided_by": None}), rec(PT, {"decided_by": 1, "verdict.reason": "ctk:second"})],
   "tool_not_invoked": ["lookup"], "run_outcome": "completed"},
  caps=MT, scripts=[[], [rule(PT, deny("ctk:second"))]])
V(610, "warnings-message-kept", "A warning message within 256 bytes survives verbatim in the record",
  "10.3", ["10.3-b", "5.1-g"], "record/projection", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(OUT, {"verdict.warnings[0].message": "m" * 200, "verdict.warnings[0].reason": "ctk:long"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[rule(OUT, {"decision": "allow", "warnings": [{"reason": "ctk:long", "message": "m" * 200}]})])
V(611, "shutdown-reason-completed", "A normal run ends with agent_shutdown whose summary and target say completed",
  "4.2, 3.1", ["4.2-h", "3.1-b", "4.3-a"], "context/points", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN, {5: {"summary.reason": "completed", "target.reason": "completed"}}),
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, script=[])
V(612, "external-role-input", "An input with role external is carried with that role to the model",
  "4.2", ["4.2-b"], "context/points", plain_scenario(role="external", text="webhook payload"),
  {"interceptions": ix(FULL_PLAIN, {1: {"input.role": "external"}, 2: {"messages[0].role": "external"}}),
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, script=[])
# 5.4-b: labels of an action that did not proceed are never persisted (a host that reports no persisted state
# has nothing to show; one that does must not show them). The labelled allow loses to the later deny.
V(613, "labels-not-persisted-when-blocked", "Result labels of an allow that a later deny overrules are neither in the record nor persisted",
  "5.4, 7.3", ["5.4-b", "7.3-d"], RF, tool_scenario(ret="RAW-RESULT-54"),
  {"sequence_strict": False, "interceptions": ix([PTT, PM], {1: {"context_must_not_contain": ["RAW-RESULT-54"]}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PTT, {"verdict.decision": "deny", "verdict.reason": "ctk:result-refused", "decided_by": 1},
                   ["verdict.result_labels"])],
   "persisted_must_not_contain": ["ctk-withheld-label", "RAW-RESULT-54"], "final_output": "done", "run_outcome": "completed"},
  caps=MT, scripts=[[rule(PTT, {"decision": "allow", "result_labels": ["ctk-withheld-label"]})],
                    [rule(PTT, deny("ctk:result-refused"))]])
# D-15 (advisory): with no interceptor bound the emission is still composed, so a sequential record states
# fold_truncated false and a parallel one leaves the member out. Section 10.3 defines the member for the sequential
# profiles only; the text requires neither spelling (ruling R-3), so both vectors are advisory.
V(614, "zero-interceptors-sequential-fold-stated", "With no interceptor under first_deny the no_interceptor record states fold_truncated false",
  "10.3, 7", ["10.3-i", "7-d"], RF, tool_scenario(),
  {"interceptions": [], "tool_not_invoked": ["lookup"],
   "records": [rec(SU, {"verdict.reason": "host_error:no_interceptor", "decided_by": None, "fold_truncated": False})],
   "final_output": None, "run_outcome": "blocked"}, caps=MT, scripts=[],
  composition={"profile": "sequential/first_deny"}, advisory="D-15")
V(615, "zero-interceptors-parallel-no-fold", "With no interceptor under parallel/strictest the no_interceptor record carries no fold_truncated",
  "10.3, 7", ["10.3-i", "7-d"], RF, tool_scenario(),
  {"interceptions": [], "tool_not_invoked": ["lookup"],
   "records": [rec(SU, {"verdict.reason": "host_error:no_interceptor", "decided_by": None}, ["fold_truncated"])],
   "final_output": None, "run_outcome": "blocked"}, caps=MT, scripts=[],
  composition={"profile": "parallel/strictest"}, advisory="D-15")
# Section 10.3: verdicts "is present under sequential/run_all and the parallel profiles", and lists the invoked
# interceptors. A no_interceptor emission is composed with nothing bound (its input identity is computed; it is not
# an emission denied before dispatch, 10.3-m), so under a multi-verdict profile its record carries verdicts, and with
# no interceptor invoked the list is empty.
V(617, "zero-interceptors-run-all-verdicts-listed", "With no interceptor under sequential/run_all the no_interceptor record still carries verdicts, an empty list",
  "10.3, 7", ["10.3-h", "7-d"], RF, tool_scenario(),
  {"interceptions": [], "tool_not_invoked": ["lookup"],
   "records": [rec(SU, {"verdict.reason": "host_error:no_interceptor", "decided_by": None, "verdicts": []}, present=["verdicts"])],
   "final_output": None, "run_outcome": "blocked"}, caps=MT, scripts=[],
  composition={"profile": "sequential/run_all"})
V(618, "zero-interceptors-unanimous-verdicts-listed", "With no interceptor under parallel/unanimous the no_interceptor record still carries verdicts, an empty list",
  "10.3, 7", ["10.3-h", "7-d"], RF, tool_scenario(),
  {"interceptions": [], "tool_not_invoked": ["lookup"],
   "records": [rec(SU, {"verdict.reason": "host_error:no_interceptor", "decided_by": None, "verdicts": []}, present=["verdicts"])],
   "final_output": None, "run_outcome": "blocked"}, caps=MT, scripts=[],
  composition={"profile": "parallel/unanimous"})
# A warning message longer than 256 bytes, of two-byte characters, so that a cut lands inside a character unless it
# steps back to a boundary (10.3-c; where the ellipsis falls is not pinned, so only what 5.1 requires is asserted:
# the warning is recorded and changes nothing).
V(616, "warnings-message-long-multibyte", "A warning message of 300 bytes of two-byte characters is recorded (cut on a character boundary) and changes nothing in the run",
  "10.3, 5.1", ["5.1-f", "5.1-g"], "record/projection", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN),
   "records": [rec(OUT, {"verdict.decision": "allow", "verdict.warnings[0].reason": "ctk:long-accented"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[rule(OUT, {"decision": "allow", "warnings": [{"reason": "ctk:long-accented", "message": "\u00e9" * 150}]})])

# ---------------- evaluate_only 0700
# Ids 0700..0799.
EP = "enforcement/evaluate_only"
EV = "evaluate_only"
V(700, "eval-deny-input-proceeds", "evaluate_only: a deny at input is recorded with mode evaluate_only and the run goes on",
  "8", ["8-a", "8-b"], EP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(IN, {"verdict.decision": "deny", "mode": "evaluate_only"})],
   "final_output": "hello there", "run_outcome": "completed", "identities_equal": True},
  caps=M, mode=EV, script=[rule(IN, deny("ctk:would-block"))])
V(701, "eval-deny-startup-proceeds", "evaluate_only: a deny at agent_startup does not stop the session",
  "8", ["8-b"], EP, tool_scenario(),
  {"interceptions": ix(FULL_TOOL), "records": [rec(SU, {"verdict.decision": "deny", "mode": "evaluate_only"})],
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "final_output": "done", "run_outcome": "completed"},
  caps=MT, mode=EV, script=[rule(SU, deny("ctk:would-block"))])
V(702, "eval-deny-output-released", "evaluate_only: a deny at output still releases the output",
  "8", ["8-b"], EP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(OUT, {"verdict.decision": "deny"})],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, mode=EV, script=[rule(OUT, deny("ctk:would-withhold"))])
V(703, "eval-transform-not-applied", "evaluate_only: a transform is recorded but the tool gets the original args and identities stay equal",
  "8, 5.2", ["8-c", "5.2-h", "10.2-g"], EP, tool_scenario(),
  {"interceptions": ix(FULL_TOOL, {5: {"tool_call.args.q": "alpha"}}), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "transform", "mode": "evaluate_only"})],
   "final_output": "done", "run_outcome": "completed", "identities_equal": True},
  caps=MT, mode=EV, script=[rule(PT, transform("$target.q", "ignored"))])
V(704, "eval-no-fold", "evaluate_only: the next interceptor sees the untransformed args and its deny on them is recorded",
  "8, 7.4", ["7.4-c", "8-c"], EP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "deny", "verdict.reason": "ctk:saw-original", "decided_by": 1})],
   "run_outcome": "completed"},
  caps=MT, mode=EV, composition={"profile": "sequential/run_all"},
  scripts=[[rule(PT, transform("$target.q", "new"))], [rule(PT, deny("ctk:saw-original"), match={"target.q": "alpha"})]])
V(705, "eval-zero-interceptors", "evaluate_only with no interceptor records a no_interceptor deny at every point and the run completes",
  "7, 8", ["7-f", "8-b"], EP, plain_scenario(),
  {"interceptions": [], "records": [rec(p, {"verdict.reason": "host_error:no_interceptor", "mode": "evaluate_only", "decided_by": None})
                                    for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, mode=EV, scripts=[], advisory="D-05")
# CTK-0705's twin. Section 7 requires the no_interceptor deny "in enforce mode" only; in evaluate_only the text says
# what every emission does (section 8: records, and every action proceeds as if the combined verdict were allow)
# but not which verdict an emission with no interceptor records (spec/0.1/DECISIONS.md, "Rulings of issue 9").
V(712, "eval-zero-interceptors-proceeds", "evaluate_only with no interceptor still records every emission, stamped evaluate_only with decided_by null, and the run completes",
  "7, 8, 10.3", ["8-b", "10.3-a", "7-f"], EP, plain_scenario(),
  {"interceptions": [], "records": [rec(p, {"mode": "evaluate_only", "decided_by": None}) for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"}, caps=M, mode=EV, scripts=[])
V(706, "eval-failure-recorded", "evaluate_only: a raising interceptor is recorded as interceptor_failed and the tool still runs",
  "8, 6.3", ["8-e", "6.3-b"], EP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.reason": "host_error:interceptor_failed", "mode": "evaluate_only"})], "run_outcome": "completed"},
  caps=MT, mode=EV, script=[rule(PT, fault="raise")])
V(707, "eval-invalid-transform-checked", "evaluate_only: a transform that could not apply is still found out and recorded as a deny",
  "8, 5.2", ["5.2-h", "8-e"], EP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.decision": "deny"})], "run_outcome": "completed"},
  caps=MT, mode=EV, script=[rule(PT, transform("$target.x.y", 1))])
V(708, "eval-conflict-recorded", "evaluate_only with parallel/strictest: a transform conflict is recorded and the args stay original",
  "8, 7.5", ["8-b", "7.5-c"], EP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.reason": "host_error:transform_conflict", "mode": "evaluate_only"})], "run_outcome": "completed"},
  caps=MT, mode=EV, composition={"profile": "parallel/strictest", "on_transform_conflict": "deny"},
  scripts=[[rule(PT, transform("$target.q", "a"))], [rule(PT, transform("$target.q", "b"))]])
V(709, "eval-gate-recorded", "evaluate_only: an invalid verdict is recorded as verdict_invalid and the model response is used",
  "8, 5", ["8-e", "5-c"], EP, plain_scenario(),
  {"interceptions": ix(FULL_PLAIN), "records": [rec(PO, {"verdict.reason": "host_error:verdict_invalid", "mode": "evaluate_only"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M, mode=EV, script=[rule(PO, raw={"decision": "block"}, raw_set=True)])

V(710, "eval-first-deny-truncates", "evaluate_only with first_deny: the first deny still ends the fold (fold_truncated true) while the tool runs",
  "8, 7.4", ["8-b", "7.4-e", "10.3-i"], EP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.reason": "ctk:would-stop", "decided_by": 0, "fold_truncated": True, "mode": "evaluate_only"},
                   ["verdicts[1]"])],
   "run_outcome": "completed"},
  caps=MT, mode=EV, scripts=[[rule(PT, deny("ctk:would-stop"))], [rule(PT, deny("ctk:never-called"))]])
V(711, "eval-timeout-recorded", "evaluate_only: an interceptor that never answers is recorded as interceptor_timeout and the tool still runs",
  "8, 6.3", ["8-e", "6.3-c"], EP, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "records": [rec(PT, {"verdict.reason": "host_error:interceptor_timeout", "mode": "evaluate_only", "decided_by": 0})],
   "run_outcome": "completed"},
  caps=MT, mode=EV, interceptor_timeout_ms=1000, script=[rule(PT, fault="timeout")])

# ---------------- isolation 0800
# Ids 0800..0849.
IS = "enforcement/isolation"
CHECK = [rule(PT, ALLOW, match={"target.q": "alpha", "tool_call.args.q": "alpha"}), rule(PT, deny("ctk:saw-tampering"))]
for num, prof, slug in [(800, {"profile": "sequential/run_all"}, "run-all"),
                        (801, {"profile": "sequential/first_deny"}, "first-deny"),
                        (802, {"profile": "parallel/strictest"}, "strictest"),
                        (803, {"profile": "parallel/unanimous"}, "unanimous")]:
    V(num, "mutation-isolated-" + slug,
      "%s: an interceptor that mutates its context in place changes nothing for the next interceptor, the tool or the identities" % prof["profile"],
      "7", ["7-c", "7-a"], IS, tool_scenario(),
      {"sequence_strict": False, "interceptions": ix([PT, PTT]), "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
       "records": [rec(PT, {"verdict.decision": "allow"})],
       "run_outcome": "completed", "identities_equal": True},
      caps=MT, composition=prof, scripts=[[rule(PT, fault="mutate")], CHECK])
V(804, "mutation-output-unchanged", "An interceptor that mutates the output context in place does not change what the caller receives",
  "7", ["7-c"], IS, plain_scenario(final="pristine answer"),
  {"interceptions": ix(FULL_PLAIN), "final_output": "pristine answer", "run_outcome": "completed", "identities_equal": True},
  caps=M, script=[rule(OUT, fault="mutate")])

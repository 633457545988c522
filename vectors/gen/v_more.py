"""Block 0900-0949 multi-turn; 0950-0999 parallel tool calls; 1000-1049 streaming; 1100-1199 declaration."""
import json

from lib import *

# ---------------- multi-turn
# Ids 0900..0949. Each vector's id is written at its call site (never counted), so adding or
# removing a vector never renumbers another.
MTP = "loop/multi_turn"
MTC = ["model_calls", "multi_turn"]


def turns_scen(first="first answer", second="second answer", extra_script=None, tools=None, text2="second question"):
    s = {"input": {"content": "first question", "role": "user"},
         "turns": [{"input": {"content": text2, "role": "user"}}],
         "model_script": [{"respond": {"content": first, "tool_calls": [], "finish_reason": "stop"}}]
                         + (extra_script or [{"respond": {"content": second, "tool_calls": [], "finish_reason": "stop"}}])}
    if tools:
        s["tools"] = tools
    return s


TWO = [SU, IN, PM, PO, OUT, IN, PM, PO, OUT, SD]
# P-5: sequence starts at 0 and strictly increases across both turns (the runner checks the increase implicitly);
# exact values past 0 are not pinned.
V(900, "two-turns-one-session", "Two turns share one agent_startup and one agent_shutdown, with sequence increasing across them",
  "3.1, 4.1", ["3.1-h", "3.1-a", "3.1-b", "3.1-f", "3-b", "3-c", "3.1-c"], MTP, turns_scen(),
  {"interceptions": ix(TWO, {0: {"sequence": 0}, 1: {"input.content": "first question"},
      5: {"input.content": "second question"}, 8: {"output.content": "second answer"}}),
   "records": [rec(OUT, present=["sequence"]), rec(IN, present=["sequence"]), rec(SD, present=["sequence"])],
   "run_outcome": "completed"}, caps=MTC, script=[])
V(901, "second-turn-tool-denied", "A tool call denied in the second turn does not run and the second turn still answers",
  "3.1, 6.1", ["3.1-h", "6.1-e"], MTP,
  turns_scen(extra_script=[{"respond": {"content": None, "tool_calls": [{"id": "tc-9", "name": "lookup", "args": {"q": "late"}}],
                                         "finish_reason": "tool_calls"}},
                            {"respond": {"content": "second answer", "tool_calls": [], "finish_reason": "stop"}}],
             tools=[{"name": "lookup", "behavior": [{"return": "UNREACHED"}]}]),
  {"interceptions": ix([SU, IN, PM, PO, OUT, IN, PM, PO, PT, PM, PO, OUT, SD], {8: {"tool_call.id": "tc-9"}}),
   "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.reason": "ctk:late-tool"})], "run_outcome": "completed"},
  caps=MTC + ["tool_calls"], script=[rule(PT, deny("ctk:late-tool"))])
V(902, "second-turn-input-transform", "A transform of the second turn's input is what the model sees in that turn",
  "4.3, 3.1", ["4.3-b", "3.1-h"], MTP, turns_scen(),
  {"interceptions": ix(TWO, {5: {"input.content": "second question"}, 6: {"context_must_contain": ["second question, clarified"]}}),
   "records": [rec(IN, {"verdict.decision": "allow"}), rec(IN, {"verdict.decision": "transform"})], "run_outcome": "completed"},
  caps=MTC, script=[rule(IN, transform("$target.content", "second question, clarified"), match={"input.content": "second question"})])
V(903, "turn-records-per-emission", "Each turn writes its own records; only one agent_startup and one agent_shutdown record exist",
  "10.3, 3", ["10.3-a", "3-b", "3-g"], MTP, turns_scen(),
  {"interceptions": ix(TWO),
   "records": [rec(SU, {"sequence": 0}), rec(IN, present=["sequence"]), rec(IN, present=["sequence"]),
               rec(SD, present=["sequence"])],
   "run_outcome": "completed"}, caps=MTC, script=[])

# ---------------- parallel tool calls
# Ids 0950..0999.
PP = "loop/parallel_tool_calls"
PC = MT + ["parallel_tool_calls"]


def par_scen(alpha_behavior=None):
    return {"input": {"content": "do both", "role": "user"},
            "tools": [{"name": "alpha_tool", "behavior": alpha_behavior or [{"return": "RES-A"}]},
                      {"name": "beta_tool", "behavior": [{"return": "RES-B"}]}],
            "model_script": [{"respond": {"content": None, "parallel": True, "finish_reason": "tool_calls",
                                          "tool_calls": [{"id": "tc-a", "name": "alpha_tool", "args": {"q": "raw"}},
                                                         {"id": "tc-b", "name": "beta_tool", "args": {"q": "b"}}]}},
                             {"respond": {"content": "both handled", "tool_calls": [], "finish_reason": "stop"}}]}


def par_expect(must=None, must_not=None, **extra):
    last = {}
    if must:
        last["context_must_contain"] = must
    if must_not:
        last["context_must_not_contain"] = must_not
    e = {"sequence_strict": False,
         "interceptions": ix([SU, IN, PM, PO, PT, PTT, PM, PO, OUT, SD], {6: last}),
         "final_output": "both handled", "run_outcome": "completed"}
    e.update(extra)
    return e


V(950, "parallel-both-allowed", "Two concurrent tool calls each get their own pre/post pair and both results reach the model",
  "12.2, 3.1", ["12.2-a", "12.2-b", "3.1-e"], PP, par_scen(),
  par_expect(["RES-A", "RES-B"], records=[rec(PT, {"verdict.decision": "allow"}), rec(PT, {"verdict.decision": "allow"}),
                                           rec(PTT, {"verdict.decision": "allow"})]),
  caps=PC, script=[])
V(951, "parallel-one-denied", "A deny for one of two concurrent tool calls stops only that tool",
  "12.2, 6.1", ["12.2-b", "6.1-e"], PP, par_scen(),
  par_expect(["RES-A", "ctk:beta-blocked"], ["RES-B"], tool_not_invoked=["beta_tool"]),
  caps=PC, script=[rule(PT, deny("ctk:beta-blocked"), match={"tool_call.name": "beta_tool"})])
V(952, "parallel-one-transformed", "A transform of one concurrent call's args reaches that tool only",
  "12.2, 4.3", ["12.2-a", "4.3-b"], PP,
  par_scen([{"when_args": {"q": "safe"}, "return": "RES-SAFE"}, {"return": "RES-RAW"}]),
  par_expect(["RES-SAFE", "RES-B"], ["RES-RAW"]),
  caps=PC, script=[rule(PT, transform("$target.q", "safe"), match={"tool_call.name": "alpha_tool"})])
V(953, "parallel-post-deny-one", "A post_tool_call deny for one concurrent call discards only that result",
  "12.2, 6.1", ["12.2-a", "6.1-f"], PP, par_scen(),
  par_expect(["RES-A"], ["RES-B"]),
  caps=PC, script=[rule(PTT, deny("ctk:beta-result-tainted"), match={"tool_call.name": "beta_tool"})])
V(954, "parallel-run-all-per-call", "Under run_all each concurrent call composes on its own: a deny on beta leaves alpha's fold intact",
  "12.2, 7.4", ["12.2-b", "7.4-h"], PP,
  par_scen([{"when_args": {"q": "safe"}, "return": "RES-SAFE"}, {"return": "RES-RAW"}]),
  par_expect(["RES-SAFE"], ["RES-RAW", "RES-B"], tool_not_invoked=["beta_tool"]),
  caps=PC, composition={"profile": "sequential/run_all"},
  scripts=[[rule(PT, transform("$target.q", "safe"), match={"tool_call.name": "alpha_tool"})],
           [rule(PT, deny("ctk:no-beta"), match={"tool_call.name": "beta_tool"})]])

# ---------------- incremental streaming
# Ids 1000..1049.
SP = "streaming/incremental"
SC = ["model_calls", "incremental_output"]


def stream_scen(chunks, truncated=False, finish="stop"):
    r = {"content": "".join(chunks), "stream": chunks, "tool_calls": [], "finish_reason": finish}
    if truncated:
        r["stream_truncated"] = True
    return {"input": {"content": "tell me", "role": "user"}, "model_script": [{"respond": r}]}


V(1000, "stream-three-segments", "Three streamed chunks give three post_model_call emissions over growing prefixes, all released",
  "12.1, 12.1a", ["12.1-c", "3-d", "12.1a-b"], SP, stream_scen(["alpha ", "beta ", "gamma"]),
  {"interceptions": ix([SU, IN, PM, PO, PO, PO, OUT, SD], {
      3: {"response.content": "alpha ", "response.finish_reason": "incremental"},
      4: {"response.content": "alpha beta ", "response.finish_reason": "incremental"},
      5: {"response.content": "alpha beta gamma", "response.finish_reason": "stop"},
      6: {"output.content": "alpha beta gamma"}}),
   "records": [rec(PO, {"verdict.decision": "allow"}), rec(PO, {"verdict.decision": "allow"}), rec(PO, {"verdict.decision": "allow"})],
   "released_output": "alpha beta gamma", "final_output": "alpha beta gamma", "run_outcome": "completed"},
  caps=SC, script=[])
V(1001, "stream-single-chunk", "A one-chunk stream is one post_model_call with the scripted finish reason",
  "12.1", ["12.1-c"], SP, stream_scen(["entire reply"]),
  {"interceptions": ix([SU, IN, PM, PO, OUT, SD], {3: {"response.content": "entire reply", "response.finish_reason": "stop"}}),
   "released_output": "entire reply", "final_output": "entire reply", "run_outcome": "completed"}, caps=SC, script=[])
V(1002, "stream-deny-last-segment", "A deny on the last segment ends the stream: only earlier permitted segments were released",
  "12.1", ["12.1-d", "12.1-e"], SP, stream_scen(["alpha ", "beta ", "gamma"]),
  {"sequence_strict": False, "interceptions": ix([PO, PO, PO, SD]), "interceptions_absent": [OUT],
   "records": [rec(PO, {"verdict.decision": "allow"}), rec(PO, {"verdict.decision": "allow"}),
               rec(PO, {"verdict.decision": "deny", "verdict.reason": "ctk:bad-ending"})],
   "released_output": "alpha beta ", "persisted_must_not_contain": ["gamma"], "final_output": None, "run_outcome": "blocked"},
  caps=SC, script=[rule(PO, deny("ctk:bad-ending"), match={"response.content": "alpha beta gamma"})])
V(1003, "stream-deny-middle-withholds", "A deny on the middle segment withholds it and everything after; none of it is persisted",
  "12.1", ["12.1-d", "12.1-e"], SP, stream_scen(["safe start, ", "LEAKED-TOKEN", " trailing words"]),
  {"sequence_strict": False, "interceptions": ix([PO, PO, SD], {0: {"response.content": "safe start, "}}),
   "interceptions_absent": [OUT],
   "records": [rec(PO, {"verdict.decision": "allow"}), rec(PO, {"verdict.decision": "deny", "verdict.reason": "ctk:leak"})],
   "released_output": "safe start, ", "persisted_must_not_contain": ["LEAKED-TOKEN", "trailing words"],
   "final_output": None, "run_outcome": "blocked"},
  caps=SC, script=[rule(PO, deny("ctk:leak"), match={"response.content": "safe start, LEAKED-TOKEN"})])
V(1004, "stream-truncated-residue", "A stream that dies leaves unevaluated residue that fails closed with streaming_unsupported",
  "12.1, 11", ["12.1-b", "12.1-e", "11-a"], SP, stream_scen(["one ", "two ", "three-residue"], truncated=True),
  {"sequence_strict": False, "interceptions": ix([PO, PO, SD], {0: {"response.content": "one "}, 1: {"response.content": "one two "}}),
   "interceptions_absent": [OUT],
   "records": [rec(PO, {"verdict.decision": "allow"}), rec(PO, {"verdict.decision": "allow"}),
               rec(PO, {"verdict.decision": "deny", "verdict.reason": "host_error:streaming_unsupported"})],
   "released_output": "one two ", "persisted_must_not_contain": ["three-residue"], "final_output": None, "run_outcome": "blocked"},
  caps=SC, script=[])
V(1005, "stream-output-deny-after-release", "An output deny after a fully permitted stream leaves final_output null",
  "12.1a, 6.1", ["6.1-g", "12.1-c"], SP, stream_scen(["part one ", "part two"]),
  {"sequence_strict": False, "interceptions": ix([PO, PO, OUT, SD]),
   "records": [rec(OUT, {"verdict.decision": "deny", "verdict.reason": "ctk:late-veto"})],
   "final_output": None, "run_outcome": "blocked"},
  caps=SC, script=[rule(OUT, deny("ctk:late-veto"))])

# ---------------- host declaration
# Ids 1100..1199.
DL, DB, DR = "declaration/load", "declaration/bindings", "declaration/refusal"
HD = ["host_declaration"]
DV = "agent-hooks-declaration/1.0"


def b(bid, script, at=None, timeout_ms=None):
    x = {"id": bid, "kind": "ctk.scripted", "config": {"script": script}}
    if at is not None:
        x["at"] = at
    if timeout_ms is not None:
        x["timeout_ms"] = timeout_ms
    return x


def doc(bindings, configuration=None, surface=None, **extra):
    d = {"declaration": DV, "spec": "agent-hooks/0.1"}
    if configuration is not None:
        d["configuration"] = configuration
    if surface is not None:
        d["surface"] = surface
    d.update(extra)
    if bindings is not None:
        d["bindings"] = bindings
    return d


ACC = {"outcome": "accepted", "paths_equivalent": True}
V(1100, "decl-minimal-stamped", "A minimal declaration builds the emitter; every record carries the contract version and default composition",
  "7.7, 10.3", ["7.7.2-d", "7.7.3-b", "7.7.9-a", "7.7.7-a", "10.3-l"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(p, {"declaration": DV, "composition": {"profile": "sequential/first_deny", "on_approval": "stop"},
                       "mode": "enforce", "identity_provider": "jcs-sha256", "interceptors_registered": 1}) for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]], host_declaration=doc([b("guard", 0)]))
V(1101, "decl-binding-names", "Under run_all from a declaration, verdicts name each binding by its id",
  "7.7.8", ["7.7.8-a", "7.7.5-b"], DB, tool_scenario(),
  {"load": ACC, "sequence_strict": False, "interceptions": ix([PT]),
   "records": [rec(PT, {"verdicts[0].name": "baseline", "verdicts[1].name": "second-opinion", "interceptors_registered": 2,
                        "composition": {"profile": "sequential/run_all"}})],
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "run_outcome": "completed"},
  caps=MT + HD, scripts=[[], []],
  host_declaration=doc([b("baseline", 0), b("second-opinion", 1)], {"composition": {"profile": "sequential/run_all"}}))
V(1102, "decl-per-point-counts", "A binding limited to pre_tool_call is counted only there and runs second in array order",
  "7.7.5, 10.3", ["7.7.5-b", "7.7.8-a", "10.3-k"], DB, tool_scenario(),
  {"load": ACC, "sequence_strict": False, "interceptions": ix([SU, PT, SD]),
   "records": [rec(SU, {"interceptors_registered": 1}),
               rec(PT, {"interceptors_registered": 2, "verdicts[1].name": "tool-only", "verdicts[1].decision": "deny", "decided_by": 1}),
               rec(SD, {"interceptors_registered": 1})],
   "tool_not_invoked": ["lookup"], "run_outcome": "completed"},
  caps=MT + HD, scripts=[[], [rule(PT, deny("ctk:tool-only-no"))]],
  host_declaration=doc([b("everywhere", 0), b("tool-only", 1, at=[PT])], {"composition": {"profile": "sequential/run_all"}}))
V(1103, "decl-unbound-output", "A surface point left without a binding (output) is denied no_interceptor and nothing is released",
  "7.7.5", ["7.7.5-c", "7-d"], DB, plain_scenario(),
  {"load": ACC, "interceptions": ix([SU, IN, PM, PO, SD]),
   "records": [rec(OUT, {"verdict.reason": "host_error:no_interceptor", "interceptors_registered": 0, "decided_by": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M + HD, scripts=[[]], host_declaration=doc([b("most-points", 0, at=[SU, IN, PM, PO, PT, PTT, SD])]))
V(1104, "decl-empty-bindings", "A declaration with an empty bindings array builds a host that denies every emission",
  "7.7.5", ["7.7.5-c", "7.7.3-a"], DB, tool_scenario(),
  {"load": ACC, "interceptions": [], "tool_not_invoked": ["lookup"],
   "records": [rec(SU, {"verdict.reason": "host_error:no_interceptor", "declaration": DV})],
   "final_output": None, "run_outcome": "blocked"},
  caps=MT + HD, scripts=[[]], host_declaration=doc([]))
V(1105, "decl-evaluate-only", "A declaration selecting evaluate_only lets a deny through and stamps the mode",
  "7.7.3, 8", ["7.7.3-b", "8-a", "8-b"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(IN, {"mode": "evaluate_only", "verdict.decision": "deny", "declaration": DV})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[rule(IN, deny("ctk:observe-only"))]],
  host_declaration=doc([b("watch", 0)], {"mode": "evaluate_only"}))
V(1106, "decl-strictest-approval", "A declared parallel/strictest with on_transform_conflict approval consults the declared resolver",
  "7.7.3, 7.5", ["7.5-d", "7.7.6-e"], DL, tool_scenario(),
  {"load": ACC, "sequence_strict": False, "interceptions": ix([PT]),
   "records": [rec(PT, {"verdict.decision": "allow", "resolved_by": "approval",
                        "composition": {"profile": "parallel/strictest", "on_transform_conflict": "approval"}})],
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "run_outcome": "completed"},
  caps=MT + HD, scripts=[[rule(PT, transform("$target.q", "one"))], [rule(PT, transform("$target.q", "two"))]],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}],
  host_declaration=doc([b("left", 0), b("right", 1)],
                       {"composition": {"profile": "parallel/strictest", "on_transform_conflict": "approval"},
                        "approval": {"resolver": "ctk-scripted"}}))
V(1107, "decl-null-provider", "A declaration with identity_provider null yields null identities on every record",
  "7.7.3, 10.1", ["10.1-c", "7.7.3-b"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(p, {"identity_provider": None, "input_identity": None, "enforced_identity": None}) for p in (SU, OUT)],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]], host_declaration=doc([b("guard", 0)], {"identity_provider": None}))
V(1108, "decl-faulty-provider", "A declaration naming the registered faulty provider denies agent_startup context_invalid",
  "7.7.3, 10.1", ["10.1-d"], DL, plain_scenario(),
  {"load": ACC, "interceptions": [],
   "records": [rec(SU, {"verdict.reason": "host_error:context_invalid", "identity_provider": "ctk-fault", "input_identity": None})],
   "final_output": None, "run_outcome": "blocked"},
  caps=M + HD, scripts=[[]], host_declaration=doc([b("guard", 0)], {"identity_provider": "ctk-fault"}))
V(1109, "decl-resume-knob", "A declared first_deny with on_approval resume continues after a lift to a later deny",
  "7.7.3, 7.4", ["7.4-g"], DL, tool_scenario(),
  {"load": ACC, "sequence_strict": False, "interceptions": ix([PT]),
   "records": [rec(PT, {"verdict.reason": "ctk:second-no", "decided_by": 1, "composition.on_approval": "resume"})],
   "tool_not_invoked": ["lookup"], "run_outcome": "completed"},
  caps=MT + HD, scripts=[[rule(PT, liftable("ctk:ask"))], [rule(PT, deny("ctk:second-no"))]],
  approval_script=[{"resolve": {"outcome": "approve", "verdict": {"decision": "allow"}}}],
  host_declaration=doc([b("first", 0), b("second", 1)],
                       {"composition": {"profile": "sequential/first_deny", "on_approval": "resume"}, "approval": {"resolver": "ctk-scripted"}}))
V(1110, "decl-binding-timeout", "A per-binding timeout_ms cuts off a binding that never answers with interceptor_timeout",
  "7.7.5, 6.3", ["6.3-c"], DB, tool_scenario(),
  {"load": ACC, "sequence_strict": False, "interceptions": ix([PT]), "interceptions_absent": [PTT], "tool_not_invoked": ["lookup"],
   "records": [rec(PT, {"verdict.reason": "host_error:interceptor_timeout", "decided_by": 1})],
   "run_outcome": "completed", "run_outcome_by_posture": POSTURE},
  caps=MT + HD, scripts=[[], [rule(PT, fault="timeout")]],
  host_declaration=doc([b("quick", 0), b("slow", 1, at=[PT], timeout_ms=50)]))
V(1111, "decl-informative-members", "Informative members (id, host, extensions) are accepted and never reach records",
  "7.7.3, 7.7.8", ["7.7.8-a", "7.7.3-b"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(SU, {"declaration": DV}, ["id", "host", "extensions"])],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]],
  host_declaration=doc([b("guard", 0)], id="edge-eu-1", host={"name": "sample-host", "version": "2.4.1"},
                       extensions={"acme": {"ticket": "OPS-12"}}))
V(1112, "decl-redactor", "A declared redactor shapes the approval request while the tool gets the real value",
  "7.7.3, 9", ["9-o", "9-p"], DL, tool_scenario(args={"q": "alpha", "pin": "1234"}),
  {"load": ACC, "sequence_strict": False, "interceptions": ix([PT, PTT]),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha", "pin": "1234"}}],
   "records": [rec(PT, {"resolved_by": "approval"})], "run_outcome": "completed"},
  caps=MT + HD, scripts=[[rule(PT, liftable("ctk:pin-check"))]], redact_for_approval=["$target.pin"],
  approval_script=[{"match": {"target.pin": "[redacted]"}, "resolve": {"outcome": "approve", "verdict": {"decision": "allow"}, "echo_recomputed": True}}],
  host_declaration=doc([b("pin-guard", 0)], {"approval": {"resolver": "ctk-scripted", "redactor": "ctk-redact"}}))


def refused(num, slug, title, cls, document, covers, invalid=False, text=None, file=None, advisory=None,
            detail_contains=None):
    """A refusal vector. `document` is the parsed value (None: none), `text` the raw text
    (host_declaration_text), `file` a file fault (host_declaration_file)."""
    kw = {}
    if document is not None:
        kw["host_declaration"] = document
    if text is not None:
        kw["host_declaration_text"] = text
    if file is not None:
        kw["host_declaration_file"] = file
    # classes found before cross-member checks may trip a schema linter; mark them so a linter skips them
    if invalid or cls in ("version_unsupported", "spec_unsupported", "unknown_field", "invalid_field", "inconsistent"):
        kw["host_declaration_invalid"] = True
    V(num, "decl-refuse-" + slug, title, "7.7.6", covers + ["7.7.6-a", "7.7.6-b", "7.7.1-a", "11-d"], DR, plain_scenario(),
      {"load": dict({"outcome": "refused", "class": "declaration_error:" + cls, "paths_equivalent": True},
                    **({"detail_contains": detail_contains} if detail_contains else {})),
       "interceptions": [], "run_outcome": "error"},
      caps=HD, scripts=[[]], advisory=advisory, **kw)


G = [b("guard", 0)]
refused(1113, "version-2-0", "A declaration version with an unknown major (2.0) is refused as version_unsupported", "version_unsupported",
        dict(doc(G), declaration="agent-hooks-declaration/2.0"), ["7.7.2-a"], True)
refused(1114, "version-number", "A declaration version given as a number is refused as version_unsupported", "version_unsupported",
        dict(doc(G), declaration=1.0), ["7.7.2-a"], True)
refused(1115, "version-bare", "A declaration version without the contract prefix is refused as version_unsupported", "version_unsupported",
        dict(doc(G), declaration="1.0"), ["7.7.2-a"], True)
refused(1116, "version-major-zero", "A declaration version of major 0 is refused as version_unsupported", "version_unsupported",
        dict(doc(G), declaration="agent-hooks-declaration/0.9"), ["7.7.2-a", "7.7.2-b"], True)
# A 0.1 loader's accepted set is agent-hooks-declaration/1.0, the one version 0.1 defines; the
# refused version is chosen so that no echo of it contains that identifier.
refused(1224, "version-names-accepted-set", "A version_unsupported refusal of agent-hooks-declaration/3.0 names the accepted "
        "version agent-hooks-declaration/1.0 in its error", "version_unsupported",
        dict(doc(G), declaration="agent-hooks-declaration/3.0"), ["7.7.2-a", "7.7.2-e"], True,
        detail_contains=["agent-hooks-declaration/1.0"])
refused(1117, "spec-other-major", "A spec member naming another major (agent-hooks/2.1) is refused as spec_unsupported", "spec_unsupported",
        dict(doc(G), spec="agent-hooks/2.1"), ["7.7.6-d"], True)
refused(1118, "spec-number", "A spec member given as a number is refused as spec_unsupported", "spec_unsupported",
        dict(doc(G), spec=0.1), ["7.7.6-d"], True)
refused(1119, "spec-newer-minor", "A spec member naming a newer minor (agent-hooks/0.9) is refused as spec_unsupported", "spec_unsupported",
        dict(doc(G), spec="agent-hooks/0.9"), ["7.7.6-d"], True)
refused(1120, "unknown-root", "An unknown root member is refused as unknown_field", "unknown_field",
        doc(G, policies=["strict"]), ["7.7.6-c"], True)
refused(1121, "unknown-binding-member", "An unknown member inside a binding is refused as unknown_field", "unknown_field",
        doc([dict(b("guard", 0), priority=1)]), ["7.7.6-c"], True)
refused(1122, "unknown-timeouts-member", "An unknown member inside configuration.timeouts is refused as unknown_field", "unknown_field",
        doc(G, {"timeouts": {"interceptor_ms": 5000, "retry_ms": 10}}), ["7.7.6-c"], True)
refused(1123, "unknown-host-member", "An unknown member inside host is refused as unknown_field", "unknown_field",
        doc(G, host={"name": "sample-host", "owner": "team-x"}), ["7.7.6-c"], True)
refused(1124, "mode-enum", "An unknown mode value is refused as invalid_field", "invalid_field",
        doc(G, {"mode": "shadow"}), ["7.7.6-i", "7.7.1-b"], True)
refused(1125, "profile-enum", "An invented composition profile is refused as invalid_field", "invalid_field",
        doc(G, {"composition": {"profile": "sequential/majority"}}), ["7.7.6-i", "7.2-a"], True)
refused(1126, "timeout-zero", "An interceptor timeout of 0 ms is out of range and refused as invalid_field", "invalid_field",
        doc(G, {"timeouts": {"interceptor_ms": 0}}), ["7.7.3-d", "7.7.6-i"], True)
refused(1127, "timeout-float", "An interceptor timeout written as 5000.0 is not a JSON integer and is refused as invalid_field", "invalid_field",
        doc(G, {"timeouts": {"interceptor_ms": 5000.0}}), ["7.7.3-d"], True)
refused(1128, "binding-id-pattern", "A binding id with capitals breaks the id pattern and is refused as invalid_field", "invalid_field",
        doc([b("Guard", 0)]), ["7.7.6-i"], True)
refused(1129, "bindings-missing", "A document without bindings is refused as invalid_field", "invalid_field",
        doc(None), ["7.7.3-a"], True)
refused(1130, "host-name-missing", "A host member without name is refused as invalid_field", "invalid_field",
        doc(G, host={"version": "1.0.0"}), ["7.7.6-i"], True)
refused(1131, "knob-enum", "An on_approval value outside stop and resume is refused as invalid_field", "invalid_field",
        doc(G, {"composition": {"profile": "sequential/first_deny", "on_approval": "later"}}), ["7.7.6-i"], True)
refused(1132, "unconsulted-knob", "first_deny with on_disagreement set is refused as inconsistent, not silently cleared", "inconsistent",
        doc(G, {"composition": {"profile": "sequential/first_deny", "on_disagreement": "deny"}}), ["7.7.3-c", "7.7.1-b"])
refused(1133, "run-all-conflict-knob", "run_all with on_transform_conflict set is refused as inconsistent", "inconsistent",
        doc(G, {"composition": {"profile": "sequential/run_all", "on_transform_conflict": "approval"}}), ["7.7.3-c"])
refused(1134, "duplicate-binding-id", "Two bindings sharing an id are refused as inconsistent", "inconsistent",
        doc([b("same", 0), b("same", 0)]), ["7.7.5-a"])
refused(1135, "surface-without-output", "A stated surface without output breaks the floor and is refused as inconsistent", "inconsistent",
        doc(G, surface={"interception_points": [SU, IN, PM, PO, PT, PTT, SD]}), ["7.7.4-a"])
refused(1136, "surface-half-tool-pair", "A stated surface with pre_tool_call but no post_tool_call is refused as inconsistent", "inconsistent",
        doc(G, surface={"interception_points": [SU, IN, PM, PO, PT, OUT, SD]}), ["7.7.4-a"])
refused(1137, "binding-at-outside-surface", "A binding at a point the stated surface leaves out is refused as inconsistent", "inconsistent",
        doc([b("guard", 0, at=[PT])], surface={"interception_points": [SU, IN, PM, PO, OUT, SD], "capabilities": ["model_calls", "host_declaration"]}),
        ["7.7.5-e"])
refused(1138, "incremental-buffered", "incremental_output stated together with buffered_output true is refused as inconsistent", "inconsistent",
        doc(G, surface={"capabilities": ["model_calls", "tool_calls", "incremental_output", "host_declaration"], "buffered_output": True}),
        ["7.7.4-b"])
refused(1139, "profile-outside-surface", "A configured profile missing from the stated surface.profiles is refused as inconsistent", "inconsistent",
        doc(G, {"composition": {"profile": "parallel/unanimous"}}, surface={"profiles": {"sequential/run_all": {}}}), ["7.7.4-d"])
refused(1140, "own-version-not-listed", "A stated declaration_versions lacking the document's own version is refused as inconsistent", "inconsistent",
        doc(G, surface={"declaration_versions": ["agent-hooks-declaration/5.0"]}), ["7.7.4-d"])
# The surfaces of CTK-1141 and CTK-1170 state every member but profiles, so the refusal class does not depend on how
# a host fills what a partial surface leaves out: section 7.7.4 fills omitted members "from the host's surface
# (buffered_output defaults to true)" (ruling R-10, D-63), so for a host that mediates incrementally a partial surface
# that leaves buffered_output out is declaration_error:inconsistent (step 7) before step 8 is reached. A host lacking
# any stated member is refused at step 8 too, so every host expects surface_unsupported. CTK-1135...1140 state
# partial surfaces that are inconsistent for their own rule whatever the fill.
def full_surface(versions):
    return {"interception_points": [SU, IN, PM, PO, PT, PTT, OUT, SD],
            "capabilities": ["model_calls", "tool_calls", "host_declaration"], "buffered_output": True,
            "declaration_versions": versions}


refused(1141, "surface-version-beyond-code", "A stated surface claiming a contract version the host lacks is refused as surface_unsupported",
        "surface_unsupported", doc(G, surface=full_surface([DV, "agent-hooks-declaration/7.0"])), ["7.7.4-c"])
refused(1142, "resolver-unregistered", "An approval resolver name nobody registered is refused as reference_unresolved", "reference_unresolved",
        doc(G, {"approval": {"resolver": "nobody-home"}}), ["7.7.6-e"])
refused(1143, "redactor-unregistered", "A redactor name nobody registered is refused as reference_unresolved", "reference_unresolved",
        doc(G, {"approval": {"redactor": "no-such-redactor"}}), ["7.7.6-e"])
refused(1144, "provider-unregistered", "A custom identity provider name nobody registered is refused as reference_unresolved", "reference_unresolved",
        doc(G, {"identity_provider": "hmac-sha256-zz"}), ["7.7.6-e"])
refused(1145, "kind-unregistered", "A binding kind with no registered resolver is refused as kind_unknown", "kind_unknown",
        doc([{"id": "guard", "kind": "com.example.missing"}]), ["7.7.6-f"])
refused(1146, "kind-checked-before-resolvers", "An unknown kind in the second binding is refused before the first binding's resolver could fail",
        "kind_unknown", doc([b("bad-index", 99), {"id": "later", "kind": "org.example.ghost"}]), ["7.7.6-f"])
# The patterns of the 1.0 document schema (section 7.7.3), each broken where a looser check would let it pass.
refused(1172, "kind-unregistered-digit-underscore", "A well-formed binding kind with a digit and an underscore that nobody registered is refused as kind_unknown, not invalid_field",
        "kind_unknown", doc([{"id": "guard", "kind": "com.example2.missing_kind"}]), ["7.7.6-f"])
refused(1173, "document-id-pattern", "A document id with capitals and a space breaks the id pattern and is refused as invalid_field", "invalid_field",
        doc(G, id="Host Declaration"), ["7.7.6-i"], True)
refused(1176, "document-id-first-character", "A document id whose only fault is its first character (a capital) is refused as invalid_field", "invalid_field",
        doc(G, id="Host-declaration"), ["7.7.6-i"], True)
refused(1177, "exposure-bound-empty", "A stated exposure_bound that is the empty string breaks its 1 to 512 characters and is refused as invalid_field",
        "invalid_field", doc(G, surface={"buffered_output": False, "exposure_bound": ""}), ["7.7.6-i"], True)
# Section 7.7.3 types $schema as a string (read by nothing, dropped from the resolved form) and section 7.7.5 gives
# the binding kind its pattern: a value of the wrong type or breaking the pattern is refused at step 6, before the kind
# is looked up (a kind that breaks the pattern is invalid_field, never kind_unknown).
refused(1178, "schema-member-number", "A $schema member given as a number, not a string, is refused as invalid_field", "invalid_field",
        doc(G, **{"$schema": 7}), ["7.7.6-i"], True)
refused(1179, "binding-kind-without-dot", "A binding kind without a dot breaks the kind pattern and is refused as invalid_field, not kind_unknown",
        "invalid_field", doc([{"id": "guard", "kind": "scripted"}]), ["7.7.6-i"], True)
refused(1174, "resolver-name-pattern", "An approval resolver name with capitals breaks the name pattern: invalid_field (step 6), before any lookup",
        "invalid_field", doc(G, {"approval": {"resolver": "Nobody-Home"}}), ["7.7.6-i"], True)
refused(1175, "extensions-namespace-hyphen", "An extensions namespace with a hyphen breaks ^[a-z][a-z0-9_]*$ and is refused as invalid_field",
        "invalid_field", doc(G, extensions={"acme-corp": {"ticket": "t-1"}}), ["7.7.6-i"], True)
# Section 7.7.2 writes a version id agent-hooks-declaration/<major>.<minor> (the 1.0 schema's pattern for every
# surface.declaration_versions entry): an entry with no minor breaks the pattern at step 6, before step 8 compares the
# stated versions with the host code.
refused(1180, "surface-version-without-minor", "A stated declaration_versions entry with no minor (agent-hooks-declaration/2) breaks the version-id pattern: invalid_field, not surface_unsupported",
        "invalid_field", doc(G, surface=full_surface([DV, "agent-hooks-declaration/2"])), ["7.7.6-i"], True)
refused(1184, "surface-version-pre-release-minor", "A stated declaration_versions entry whose minor carries a suffix (agent-hooks-declaration/1.0-beta) breaks the version-id pattern: invalid_field",
        "invalid_field", doc(G, surface=full_surface([DV, "agent-hooks-declaration/1.0-beta"])), ["7.7.6-i"], True)
# What a pattern allows loads: an extensions namespace with an underscore and a digit after its first letter
# (section 7.7.3 keys extensions by the section 4.6 namespace rule, ^[a-z][a-z0-9_]*$).
V(1183, "decl-extensions-namespace-underscore-digit", "An extensions namespace with an underscore and a digit after its first letter (acme_corp2) matches the namespace rule: the document loads and the run completes",
  "7.7.3", ["7.7.3-b"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN), "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]], host_declaration=doc(G, extensions={"acme_corp2": {"ticket": "t-1"}}))
# Section 7.7.4: a stated surface.profiles entry lists the knob values the host supports under that profile, and the
# configured knob value must lie within it: resume, listed there, loads (an absent list would mean the default only).
V(1182, "decl-surface-profile-knob-listed", "A surface stated in full whose sequential/first_deny lists on_approval stop and resume lets the configuration choose resume: it loads and records carry it",
  "7.7.4", ["7.7.4-d"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(SU, {"declaration": DV, "composition.on_approval": "resume"})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]],
  host_declaration=doc(G, {"composition": {"profile": "sequential/first_deny", "on_approval": "resume"}},
                       surface=dict(full_surface([DV]), profiles={"sequential/first_deny": {"on_approval": ["stop", "resume"]}})))
# Section 7.7.4: a stated surface that omits buffered_output takes the default true (section 13.1: "false MUST be
# declared explicitly"), and exposure_bound is present exactly when buffered_output is false: a bound stated without
# buffered_output: false beside it breaks that required-iff rule at step 6 (7.7.6-i), before any fill could make the
# surface inconsistent at step 7.
refused(1185, "exposure-bound-without-buffered-output", "A stated surface with an exposure_bound but no buffered_output (so buffered_output true) is refused as invalid_field",
        "invalid_field", doc(G, surface={"exposure_bound": "one assembled response"}), ["7.7.6-i"], True)
# The same required-iff rule from its other sides (section 7.7.4: exposure_bound "present iff buffered_output false"),
# and its 1 to 512 characters broken by one: each is refused at step 6.
refused(1188, "buffered-false-without-exposure-bound", "A stated surface with buffered_output false and no exposure_bound is refused as invalid_field",
        "invalid_field", doc(G, surface={"buffered_output": False}), ["7.7.6-i"], True)
refused(1189, "buffered-true-with-exposure-bound", "A stated surface with buffered_output true beside an exposure_bound is refused as invalid_field",
        "invalid_field", doc(G, surface={"buffered_output": True, "exposure_bound": "one assembled response"}), ["7.7.6-i"], True)
refused(1190, "exposure-bound-513-characters", "A stated exposure_bound of 513 characters breaks its 1 to 512 and is refused as invalid_field, not truncated",
        "invalid_field", doc(G, surface={"buffered_output": False, "exposure_bound": "w" * 513}), ["7.7.6-i", "7.7.3-e"], True)
# Section 7.7.3's identity_provider: null, jcs-sha256, or a custom provider name, which section 10.1 forbids to begin
# with jcs. jcs-sha256 written out loads and every record names it; jcs-custom is no provider name at all (step 6),
# so it is invalid_field before any lookup could call it unregistered.
V(1191, "decl-identity-provider-jcs-stated", "A declaration that states identity_provider jcs-sha256 loads and every record names jcs-sha256",
  "7.7.3, 10.1", ["7.7.3-b", "10.1-a", "7.7.9-a"], DL, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(p, {"identity_provider": "jcs-sha256", "declaration": DV}) for p in FULL_PLAIN],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]], host_declaration=doc(G, {"identity_provider": "jcs-sha256"}))
refused(1192, "provider-name-jcs-prefix", "A custom identity provider name beginning with jcs (jcs-custom) is refused as invalid_field, not looked up",
        "invalid_field", doc(G, {"identity_provider": "jcs-custom"}), ["7.7.6-i"], True)
# Section 7.7.5: a binding id matches ^[a-z][a-z0-9_-]{0,63}$. An underscore after the first letter is allowed (the
# document loads and the record names the binding by that id); a capital letter after the first is not.
V(1186, "decl-binding-id-underscore", "A binding id with an underscore and a digit after its first letter (first_guard2) matches the id pattern: it loads and verdicts name it",
  "7.7.5, 7.7.8", ["7.7.5-b", "7.7.8-a", "7.7.9-a"], DB, plain_scenario(),
  {"load": ACC, "interceptions": ix(FULL_PLAIN),
   "records": [rec(SU, {"verdicts[0].name": "first_guard2", "composition": {"profile": "sequential/run_all"}})],
   "final_output": "hello there", "run_outcome": "completed"},
  caps=M + HD, scripts=[[]],
  host_declaration=doc([b("first_guard2", 0)], {"composition": {"profile": "sequential/run_all"}}))
refused(1187, "binding-id-capital-inside", "A binding id whose only fault is a capital letter after its first character (gUard) breaks the id pattern: invalid_field",
        "invalid_field", doc([b("gUard", 0)]), ["7.7.6-i"], True)
refused(1147, "script-out-of-range", "A ctk.scripted binding naming a script that does not exist is refused as binding_rejected", "binding_rejected",
        doc([b("guard", 9)]), ["7.7.5-d"])
# One past the last: the vector has one interceptor script (index 0), so script 1 names none either.
refused(1193, "script-one-past-end", "A ctk.scripted binding naming script 1 of a vector with one script (index 0) is refused as binding_rejected", "binding_rejected",
        doc([b("guard", 1)]), ["7.7.5-d"])
refused(1148, "script-negative", "A ctk.scripted binding with a negative script index is refused as binding_rejected", "binding_rejected",
        doc([b("guard", 0), b("broken", -1)]), ["7.7.5-d", "7.7.1-b"])
refused(1149, "order-unknown-before-invalid", "A document with both an unknown member and a bad enum is refused for the earlier step: unknown_field",
        "unknown_field", doc(G, {"mode": "shadow"}, colour="red"), ["7.7.6-a", "7.7.6-c"], True)
refused(1150, "order-version-first", "A document with a bad version and an unknown member is refused as version_unsupported", "version_unsupported",
        dict(doc(G, colour="red"), declaration="agent-hooks-declaration/3.0"), ["7.7.6-a", "7.7.2-a"], True)
refused(1151, "order-invalid-before-inconsistent", "A bad mode plus a duplicate binding id is refused for the earlier step: invalid_field",
        "invalid_field", doc([b("same", 0), b("same", 0)], {"mode": "shadow"}), ["7.7.6-a"], True)
refused(1152, "order-reference-before-kind", "An unregistered resolver plus an unknown kind is refused for the earlier step: reference_unresolved",
        "reference_unresolved", doc([{"id": "guard", "kind": "com.example.missing"}], {"approval": {"resolver": "nobody-home"}}), ["7.7.6-a"])


# ---------------- refusals before the schema: unreadable (step 1) and malformed (step 2)
# CTK-1153..1157 are hand-written (vectors/gen/handwritten/); generated ids resume at 1158.
# Ids 1158..1199.


def nested(levels):
    """An object nested `levels` deep ({} is one level)."""
    v = {}
    for _ in range(levels - 1):
        v = {"n": v}
    return v


def depth(x):
    if isinstance(x, dict):
        return 1 + max([depth(v) for v in x.values()] or [0])
    if isinstance(x, list):
        return 1 + max([depth(v) for v in x] or [0])
    return 0


GUARD = '{"id": "guard", "kind": "ctk.scripted", "config": {"script": 0}}'
HEAD = '"declaration": "%s", "spec": "agent-hooks/0.1"' % DV
# root (1) > extensions (2) > 31 more levels: 33, one beyond the bound of 32
DEEP = doc(G, extensions={"deep": nested(31)})
assert depth(DEEP) == 33, depth(DEEP)

refused(1158, "malformed-root-array", "A document whose root is an array, not an object, is refused as malformed", "malformed",
        [doc(G)], ["7.7.6-h"], True)
refused(1159, "malformed-root-string", "A document given as a JSON string holding its text is refused as malformed", "malformed",
        json.dumps(doc(G)), ["7.7.6-h"], True)
refused(1160, "malformed-depth-33", "A document nested 33 levels deep, one beyond the bound, is refused as malformed, not truncated",
        "malformed", DEEP, ["7.7.6-h", "7.7.3-e"], advisory="D-46")
refused(1161, "malformed-duplicate-root-key", "Text repeating the root member bindings is refused as malformed, not resolved to either",
        "malformed", None, ["7.7.6-h"], True,
        text='{%s, "bindings": [], "bindings": [%s]}' % (HEAD, GUARD))
refused(1162, "malformed-duplicate-nested-key", "Text repeating configuration.mode is refused as malformed", "malformed", None,
        ["7.7.6-h"], True,
        text='{%s, "configuration": {"mode": "enforce", "mode": "evaluate_only"}, "bindings": [%s]}' % (HEAD, GUARD))
refused(1163, "malformed-trailing-content", "Text with a second object after the document is refused as malformed", "malformed", None,
        ["7.7.6-h"], True, text='{%s, "bindings": [%s]} {"bindings": []}' % (HEAD, GUARD))
refused(1164, "malformed-truncated-text", "Text that ends before the document closes is not JSON and is refused as malformed",
        "malformed", None, ["7.7.6-h"], True, text='{%s, "bindings": [%s]' % (HEAD, GUARD))
refused(1165, "unreadable-missing-file", "A declaration path that names no file is refused as unreadable", "unreadable", None,
        ["7.7.6-g"], file="missing")
refused(1166, "unreadable-directory", "A declaration path that names a directory is refused as unreadable", "unreadable", None,
        ["7.7.6-g"], file="directory")
refused(1167, "unreadable-bom", "A declaration file starting with a UTF-8 byte-order mark is refused as unreadable", "unreadable",
        doc(G), ["7.7.6-g"], file="bom")
refused(1168, "unreadable-invalid-utf8", "A declaration file holding a byte that is not UTF-8 is refused as unreadable", "unreadable",
        doc(G), ["7.7.6-g"], file="invalid_utf8")
refused(1169, "unreadable-oversized", "A declaration file of 1 MiB plus one byte is refused as unreadable, not truncated", "unreadable",
        doc(G), ["7.7.6-g", "7.7.3-e"], file="oversized")

# ---------------- surface_unsupported: a second case
refused(1170, "surface-version-higher-minor", "A stated surface claiming declaration version 1.9, a minor no loader has, is refused as surface_unsupported",
        "surface_unsupported", doc(G, surface=full_surface([DV, "agent-hooks-declaration/1.9"])), ["7.7.4-c"])

# ---------------- rulings of issue 9 (spec/0.1/DECISIONS.md, "Rulings of issue 9: gating vs advisory")
# Section 7.7.3: a document "nests at most 32 levels". Counting the root object as level 1 is D-46 (CTK-1160,
# advisory); a count that starts below the root finds 32 levels in CTK-1160's document. 34 levels by D-46's count
# break the bound under either count.
DEEPER = doc(G, extensions={"deep": nested(32)})
assert depth(DEEPER) == 34, depth(DEEPER)
refused(1171, "malformed-depth-34", "A document nested 34 levels deep, beyond the bound however the root is counted, is refused as malformed, not truncated",
        "malformed", DEEPER, ["7.7.6-h", "7.7.3-e"])


def nested_array(levels):
    """An array nested `levels` deep ([] is one level)."""
    v = []
    for _ in range(levels - 1):
        v = [v]
    return v


# Arrays nest like objects: CTK-1171's 34 levels, reached through arrays inside an extension value.
DEEPER_ARRAYS = doc(G, extensions={"deep": nested_array(32)})
assert depth(DEEPER_ARRAYS) == 34, depth(DEEPER_ARRAYS)
refused(1181, "malformed-depth-34-arrays", "A document nested 34 levels deep through arrays is refused as malformed on every load path, not truncated",
        "malformed", DEEPER_ARRAYS, ["7.7.6-h", "7.7.3-e"])

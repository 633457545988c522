"""A buffered host's model streams (issue 27; ids CTK-1900..1919).

Section 12.1 binds every host that streams model output: "A host that streams model output MUST assemble
the complete response before emitting `post_model_call`. A host that cannot assemble MUST emit
`post_model_call` with `response.finish_reason: "stream_incomplete"` and a `deny` self-verdict with
`host_error:streaming_unsupported`, and MUST NOT incorporate the partial response."

Until these vectors, the kit scripted a chunked stream only to a host declaring `incremental_output`
(CTK-1000..1005, and CTK-1270/1271, which hand such a host a buffered declaration), so a buffering host
without `host_declaration` never met one, and the Python example host's stream code was never judged
(reports/mutation/python-host/survivors.txt). These vectors need the capabilities `streaming` (the host
streams model output, section 13.1's vocabulary) and `buffered_output` (the host buffers: the runner skips
them for a host declaring `buffered_output: false`, whose segment-by-segment mediation section 12.1's
exception governs instead). agent-hooks/adapter/HOSTS.md section 4.4 says what a buffered host does with
`respond.stream` and `stream_truncated` (a stream it received but cannot assemble, apart from
`respond.error`, a model call that errored).

What the text leaves open stays unasserted: whether the host also dispatches the `stream_incomplete`
emission to its interceptors before denying it (the vectors match contexts as a subsequence and never
name `post_model_call` among the points absent; CTK-1270 did, gating, until stop 35), and which sequence
numbers the emissions take.
"""
from lib import V, rec, ix, tool_scenario, SU, IN, PM, PO, PT, PTT, OUT, SD

PART = "streaming/buffered"
CAPS = ["model_calls", "streaming", "buffered_output"]
Q_ASSEMBLE = ["12.1-a", "12.1a-a"]
Q_CANNOT = ["12.1-g", "11-a", "10.3-e"]
# §10.3: a record "always carries interception_point, mode, verdict, input_identity, enforced_identity,
# identity_provider, session_id, sequence, decided_by, composition and interceptors_registered" (10.3-e), and
# copies the context's timestamp (10.3-f): the host's own deny is recorded like any other emission.
SELF_DENIED = {"verdict.decision": "deny", "verdict.reason": "host_error:streaming_unsupported", "mode": "enforce",
               "identity_provider": "jcs-sha256", "interceptors_registered": 1,
               "composition.profile": "sequential/first_deny"}
RECORD_MEMBERS = ["input_identity", "enforced_identity", "session_id", "sequence", "decided_by", "timestamp"]


def stream_scenario(chunks, truncated=False, after_tool=False):
    """One streamed response of `chunks`; with after_tool, it answers a permitted tool round."""
    respond = {"content": "".join(chunks), "stream": list(chunks), "tool_calls": [], "finish_reason": "stop"}
    if truncated:
        respond["stream_truncated"] = True
    if after_tool:
        scenario = tool_scenario(text="tell me")
        scenario["model_script"][1] = {"respond": respond}
        return scenario
    return {"input": {"content": "tell me", "role": "user"}, "model_script": [{"respond": respond}]}


V(1900, "stream-buffered-assembled-once", "A buffered host that streams a response assembles every chunk into one post_model_call over the whole content, and the run completes with it",
  "12.1", Q_ASSEMBLE, PART, stream_scenario(["alpha-part ", "beta-part ", "gamma-part"]),
  {"sequence_strict": False,
   "interceptions": ix([SU, IN, PM, PO, OUT, SD], {3: {"response.content": "alpha-part beta-part gamma-part",
                                                       "response.finish_reason": "stop"},
                                                   4: {"output.content": "alpha-part beta-part gamma-part"}}),
   "records": [rec(PO, {"verdict.decision": "allow"}), rec(OUT, {"verdict.decision": "allow"})],
   "final_output": "alpha-part beta-part gamma-part", "run_outcome": "completed"},
  caps=CAPS, script=[])

V(1901, "stream-buffered-truncated-self-denied", "A buffered host whose stream dies denies the response itself (host_error:streaming_unsupported), uses none of it, emits no output, and the run ends blocked",
  "12.1", Q_CANNOT, PART, stream_scenario(["alpha-part ", "beta-residue"], truncated=True),
  {"sequence_strict": False,
   "interceptions": ix([SU, IN, PM, SD]),
   "interceptions_absent": [OUT],
   "records": [rec(PO, SELF_DENIED, present=RECORD_MEMBERS)],
   "persisted_must_not_contain": ["alpha-part", "beta-residue"],
   "final_output": None, "run_outcome": "blocked"},
  caps=CAPS, script=[])

V(1902, "stream-buffered-truncated-after-tool-round", "A buffered host whose second response's stream dies, after a permitted tool round, denies that response itself and uses none of it: the run ends blocked",
  "12.1", Q_CANNOT, PART,
  stream_scenario(["delta-part ", "omega-residue"], truncated=True, after_tool=True),
  {"sequence_strict": False,
   "interceptions": ix([SU, IN, PM, PO, PT, PTT, PM, SD]),
   "interceptions_absent": [OUT],
   "records": [rec(PO, {"verdict.decision": "allow"}),
               rec(PO, SELF_DENIED, present=RECORD_MEMBERS)],
   "persisted_must_not_contain": ["delta-part", "omega-residue"],
   "final_output": None, "run_outcome": "blocked"},
  caps=CAPS + ["tool_calls"], script=[])

# The same with the host built from a declaration (§10.3: every record of an emitter built from a declaration
# carries `declaration`, the host's own deny included): the buffered twin of CTK-1270, which needs
# incremental_output, for a host that streams and buffers.
DECLARATION = {
    "declaration": "agent-hooks-declaration/1.0", "spec": "agent-hooks/0.1",
    "surface": {"interception_points": [SU, IN, PM, PO, PT, PTT, OUT, SD],
                "capabilities": ["model_calls", "tool_calls", "streaming", "host_declaration"],
                "buffered_output": True, "declaration_versions": ["agent-hooks-declaration/1.0"],
                "profiles": {"sequential/first_deny": {"on_approval": ["stop"]}}},
    "bindings": [{"id": "guard", "kind": "ctk.scripted", "config": {"script": 0}}],
}
V(1903, "stream-buffered-truncated-declared", "A buffered host built from a declaration whose stream dies denies the response itself, and the record of that deny names the declaration",
  "12.1, 10.3", Q_CANNOT + ["10.3-l"], PART, stream_scenario(["alpha-part ", "beta-residue"], truncated=True),
  {"load": {"outcome": "accepted", "paths_equivalent": True}, "sequence_strict": False,
   "interceptions": ix([SU, IN, PM, SD]),
   "interceptions_absent": [OUT],
   "records": [rec(PO, dict(SELF_DENIED, declaration="agent-hooks-declaration/1.0"), present=RECORD_MEMBERS)],
   "persisted_must_not_contain": ["alpha-part", "beta-residue"],
   "final_output": None, "run_outcome": "blocked"},
  caps=CAPS + ["host_declaration"], scripts=[[]], host_declaration=DECLARATION)

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
exception governs instead). harness-protocol/HOSTS.md section 4.4 says what a buffered host does with
`respond.stream` and `stream_truncated` (a stream it received but cannot assemble, apart from
`respond.error`, a model call that errored).

What the text leaves open stays unasserted: whether the host also dispatches the `stream_incomplete`
emission to its interceptors before denying it (the vectors match contexts as a subsequence and never
name `post_model_call` among the points absent), and which sequence numbers the emissions take.
"""
from lib import V, rec, ix, tool_scenario, SU, IN, PM, PO, PT, PTT, OUT, SD

PART = "streaming/buffered"
CAPS = ["model_calls", "streaming", "buffered_output"]
Q_ASSEMBLE = ["12.1-a", "12.1a-a"]
Q_CANNOT = ["12.1-g", "11-a"]


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
   "records": [rec(PO, {"verdict.decision": "deny", "verdict.reason": "host_error:streaming_unsupported"})],
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
               rec(PO, {"verdict.decision": "deny", "verdict.reason": "host_error:streaming_unsupported"})],
   "persisted_must_not_contain": ["delta-part", "omega-residue"],
   "final_output": None, "run_outcome": "blocked"},
  caps=CAPS + ["tool_calls"], script=[])

"""Ids 1390-1399: vectors that close mutation-run gaps (issue 13) in what a session persists (section 5.4) and what a
run reports it released (section 12.1a).
Each vector cites the text its expectation follows from; the mutants it kills are named in the comment above it."""
from lib import *  # noqa: F401,F403

RF = "record/fields"

# Section 5.4 (5.4-a): the result labels of a permitted action are persisted with the data the point produced. The
# harness protocol has a host report all its durable state as `persisted`, so a kept label shows in its text; where
# it sits is the host's choice, so the vector asks only that it is there. Labels ride on two data-producing points,
# the input and the tool result. Kills Session::keep -> (), labels_of -> None, Some(Default::default()) and
# `delete !` in labels_of, each of which loses the labels.
V(1390, "labels-persist-with-permitted-data", "Result labels of a permitted input and a permitted tool result are persisted with the session",
  "5.4", ["5.4-a"], RF, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([IN, PTT]),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "persisted_must_contain": ["ctk-kept-input-label", "ctk-kept-result-label"],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(IN, {"decision": "allow", "result_labels": ["ctk-kept-input-label"]}),
                   rule(PTT, {"decision": "allow", "result_labels": ["ctk-kept-result-label"]})])

# D-30 (advisory): `persisted.labels` holds one entry per permitted emission that carried labels, none for an
# emission without any. Section 5.4 fixes no shape, so this pins the project's. In the compact text the runner
# searches, an entry without labels would read `"labels":[]`; the session's own list is not empty here, because the
# input's labels are kept. Kills labels_of's `&&` -> `||`, which keeps an empty entry for every permitted emission.
V(1391, "labels-entries-only-where-labelled", "persisted.labels has an entry only for an emission whose permit carried labels, none with an empty list",
  "5.4", ["5.4-a"], RF, tool_scenario(),
  {"sequence_strict": False, "interceptions": ix([IN, PTT]),
   "persisted_must_contain": ["ctk-kept-input-label"], "persisted_must_not_contain": ["\"labels\":[]"],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(IN, {"decision": "allow", "result_labels": ["ctk-kept-input-label"]})], advisory="D-30")


# D-19 (advisory): `released_output` is reported only when the run streamed. A response scripted without `stream` is
# delivered whole: its post_model_call, then the output verdict, then the caller (12.1a-a), so no segment is released
# incrementally and the host leaves the member out; a buffered host never reports it. The spec fixes no harness
# report, so a host that reports `""` here (it released nothing either) fails only this advisory vector. Kills
# (output.rs) Watermark::streamed -> true, which reports `released_output: ""` for every run that released nothing.
V(1392, "unstreamed-run-reports-no-released-output",
  "A run whose model response is not streamed releases nothing incrementally: the host reports no released_output",
  "12.1a", ["12.1a-a"], "streaming/incremental", plain_scenario(),
  {"interceptions": ix(FULL_PLAIN, {4: {"output.content": "hello there"}}),
   "released_output": None, "final_output": "hello there", "run_outcome": "completed"},
  caps=M, script=[], advisory="D-19")

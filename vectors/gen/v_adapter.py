"""Ids 1940-1959: checks of the kit's own agent loop (agent-hooks/adapter/HOSTS.md section 4), where the spec leaves
the behaviour to the host: what the history holds, how a scripted tool answers, when the script runs out (issue 27:
the Python example host's loop survivors, reports/mutation/python-host/survivors.txt).

Every other vector relies on this loop, and none of these rests on a clause: each names its HOSTS.md section in
adapter_contract and covers nothing, so a host that fails one gets a harness error that blames its adapter, never a
conformance failure (vector grammar 1.3)."""
from lib import V, rec, ix, rule, deny, tool_scenario, SU, IN, PM, PO, PT, PTT, OUT, SD, MT

LOOP = "adapter/loop"
USER = {"role": "user", "content": "find alpha"}


def call(n, args=None, tool="lookup"):
    return {"id": "tc-%d" % n, "name": tool, "args": {"q": "alpha"} if args is None else args}


def step(content, calls=(), parallel=False):
    r = {"content": content, "tool_calls": list(calls), "finish_reason": "tool_calls" if calls else "stop"}
    if parallel:
        r["parallel"] = True
    return {"respond": r}


def scenario(steps, behavior=None, tools=None):
    return {"input": dict(USER), "model_script": steps,
            "tools": tools if tools is not None else [{"name": "lookup", "behavior": behavior or [{"return": {"hits": 1}}]}]}


# HOSTS.md 4.1: the tool message ({"role": "tool", "content": <permitted value>}) and then the assistant message
# ({"role": "assistant", "content": <content, "" when null>}) are appended after each tool round; the next
# pre_model_call shows the whole history. Both spellings of the assistant content are taken: a step with content and
# one with null.
V(1940, "history-after-tool-rounds", "The history the next pre_model_call shows holds each tool message and then the assistant message, with \"\" for a null content",
  "4.2", [], LOOP,
  scenario([step("looking", [call(1)]), step(None, [call(2, {"q": "beta"})]), step("done")],
           behavior=[{"when_args": {"q": "beta"}, "return": "B"}, {"return": {"hits": 1}}]),
  {"interceptions": ix([SU, IN, PM, PO, PT, PTT, PM, PO, PT, PTT, PM, PO, OUT, SD], {
      6: {"messages": [USER, {"role": "tool", "content": {"hits": 1}}, {"role": "assistant", "content": "looking"}]},
      10: {"messages": [USER, {"role": "tool", "content": {"hits": 1}}, {"role": "assistant", "content": "looking"},
                        {"role": "tool", "content": "B"}, {"role": "assistant", "content": ""}]}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}, {"name": "lookup", "args": {"q": "beta"}}],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[], adapter_contract="HOSTS.md \u00a74.1")

# HOSTS.md 4.2: a denied call leaves {"role": "tool", "content": "blocked: <reason>"} in its place.
V(1941, "history-after-denied-tool", "A denied tool call leaves the tool message \"blocked: <reason>\" in the history the next pre_model_call shows",
  "4.2", [], LOOP, scenario([step(None, [call(1)]), step("done")]),
  {"interceptions": ix([SU, IN, PM, PO, PT, PM, PO, OUT, SD], {
      5: {"messages": [USER, {"role": "tool", "content": "blocked: ctk:no-lookup"}, {"role": "assistant", "content": ""}]}}),
   "tool_not_invoked": ["lookup"], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[rule(PT, deny("ctk:no-lookup"))], adapter_contract="HOSTS.md \u00a74.2")

# HOSTS.md 4.1, step 3: a turn's permitted output is appended as an assistant message, so the second turn's
# pre_model_call shows the first turn's question and answer before its own question.
V(1942, "history-across-turns", "The second turn's pre_model_call shows the first turn's output as an assistant message",
  "4.2", [], LOOP,
  {"input": {"content": "first question", "role": "user"},
   "turns": [{"input": {"content": "second question", "role": "user"}}],
   "model_script": [step("first answer"), step("second answer")]},
  {"interceptions": ix([SU, IN, PM, PO, OUT, IN, PM, PO, OUT, SD], {
      6: {"messages": [{"role": "user", "content": "first question"}, {"role": "assistant", "content": "first answer"},
                       {"role": "user", "content": "second question"}]}}),
   "final_output": "second answer", "run_outcome": "completed"},
  caps=["model_calls", "multi_turn"], script=[], adapter_contract="HOSTS.md \u00a74.1")

# HOSTS.md 4.1: "A null content emits no output and the turn's output is null."
V(1943, "null-content-no-output", "A last response with null content emits no output and the run completes with a null output",
  "4.2", [], LOOP, {"input": dict(USER), "model_script": [step(None)]},
  {"interceptions": ix([SU, IN, PM, PO, SD], {4: {"summary.reason": "completed"}}),
   "final_output": None, "run_outcome": "completed"},
  caps=["model_calls"], script=[], adapter_contract="HOSTS.md \u00a74.1")

# HOSTS.md 4.1: "No entry left: the run ends with outcome error."
V(1944, "model-script-runs-out", "A model script with no entry left for the next model step ends the run with outcome error",
  "4.2", [], LOOP, scenario([step(None, [call(1)])]),
  {"interceptions": ix([SU, IN, PM, PO, PT, PTT, PM, SD], {7: {"summary.reason": "error"}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "final_output": None, "run_outcome": "error"},
  caps=MT, script=[], adapter_contract="HOSTS.md \u00a74.1")

# HOSTS.md 4.3: a call naming a tool the scenario does not register is no invocation; its result is
# {"value": "unknown tool", "is_error": true}, post_tool_call is emitted and the loop goes on.
V(1945, "unknown-tool-answers-error-result", "A call to a tool the scenario does not register gets the result \"unknown tool\" with is_error true and the loop goes on",
  "4.2", [], LOOP, scenario([step(None, [call(1, tool="missing")]), step("done")]),
  {"interceptions": ix([SU, IN, PM, PO, PT, PTT, PM, PO, OUT, SD], {
      5: {"tool_call.name": "missing", "tool_result.value": "unknown tool", "tool_result.is_error": True},
      6: {"messages": [USER, {"role": "tool", "content": "unknown tool"}, {"role": "assistant", "content": ""}]}}),
   "tool_invocations": [], "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[], adapter_contract="HOSTS.md \u00a74.3")

# HOSTS.md 4.3: the first behaviour clause whose when_args equals the arguments, or that has none, answers, with
# is_error false unless it says otherwise. (One call a step: the calls of one response may run in another order.)
V(1946, "tool-behaviour-first-match", "A tool answers with the first behaviour clause whose when_args match, is_error false by default",
  "4.2", [], LOOP,
  scenario([step(None, [call(1)]), step(None, [call(2, {"q": "beta"})]), step("done")],
           behavior=[{"when_args": {"q": "beta"}, "return": "B", "is_error": True}, {"return": "A"}]),
  {"interceptions": ix([SU, IN, PM, PO, PT, PTT, PM, PO, PT, PTT, PM, PO, OUT, SD], {
      5: {"tool_result.value": "A", "tool_result.is_error": False}, 9: {"tool_result.value": "B", "tool_result.is_error": True}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}, {"name": "lookup", "args": {"q": "beta"}}],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[], adapter_contract="HOSTS.md \u00a74.3")

# HOSTS.md 4.3: "If no clause answers, the invocation is still recorded and the run ends with outcome error", in a
# sequential round and in a parallel one.
# (A parallel round has no invocation order and interleaves its points, so the lint lets its vector pin neither.)
V(1947, "tool-no-behaviour-matches", "A call no behaviour clause answers is recorded as an invocation and ends the run with outcome error",
  "4.2", [], LOOP,
  scenario([step(None, [call(1)]), step("UNREACHED")], behavior=[{"when_args": {"q": "beta"}, "return": "B"}]),
  {"interceptions": ix([SU, IN, PM, PO, PT, SD], {5: {"summary.reason": "error"}}),
   "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}], "final_output": None, "run_outcome": "error"},
  caps=MT, script=[], adapter_contract="HOSTS.md \u00a74.3")
V(1948, "tool-no-behaviour-matches-parallel", "A call of a parallel round no behaviour clause answers ends the run with outcome error",
  "4.2", [], LOOP,
  scenario([step(None, [call(1)], parallel=True), step("UNREACHED")], behavior=[{"when_args": {"q": "beta"}, "return": "B"}]),
  {"sequence_strict": False, "interceptions": ix([PT, SD], {1: {"summary.reason": "error"}}),
   "interceptions_absent": [OUT], "final_output": None, "run_outcome": "error"},
  caps=MT + ["parallel_tool_calls"], script=[], adapter_contract="HOSTS.md \u00a74.3")

# HOSTS.md 4.3: when_args matches by "JSON equality, numbers by value": 1 and 1.0 are one number, true is not 1 (not even
# inside an array), arrays match element by element and only at the same length, and a value of another JSON type never
# matches. One call a step, as above. (The Python example host's kit mutants of json_equal, issue 29, showed that no
# vector compared anything but strings; the reference host then compared numbers by spelling.)
EQ_WHEN = {"flag": True, "xs": [1, 2.0, True], "o": {"k": "v"}}
EQ_CALLS = [{"flag": 1, "xs": [1, 2, True], "o": {"k": "v"}},              # true is not 1
            {"flag": True, "xs": [1.0, 2, True], "o": {"k": "v"}},         # numbers by value: matches
            {"flag": True, "xs": [1, 2, False], "o": {"k": "v"}},          # one element differs
            {"flag": True, "xs": [1, 2, True, 4], "o": {"k": "v"}},        # longer
            {"flag": True, "xs": [1, 2, 1], "o": {"k": "v"}},              # true is not 1 inside an array
            {"flag": True, "xs": 5, "o": "v"},                             # other JSON types
            {"flag": True, "xs": [1, 2, True], "o": "v"}]                  # an object against a string
EQ_ANSWERS = ["fallback", "matched", "fallback", "fallback", "fallback", "fallback", "fallback"]
V(1952, "tool-behaviour-json-equality", "A behaviour clause's when_args matches by JSON equality with numbers by value: 1.0 matches 1, true never matches 1, arrays match element by element",
  "4.2", [], LOOP,
  scenario([step(None, [call(n + 1, args)]) for n, args in enumerate(EQ_CALLS)] + [step("done")],
           behavior=[{"when_args": EQ_WHEN, "return": "matched"}, {"return": "fallback"}]),
  {"interceptions": ix([SU, IN] + [PM, PO, PT, PTT] * len(EQ_CALLS) + [PM, PO, OUT, SD],
                       {5 + 4 * n: {"tool_result.value": answer} for n, answer in enumerate(EQ_ANSWERS)}),
   "tool_invocations": [{"name": "lookup", "args": args} for args in EQ_CALLS],
   "final_output": "done", "run_outcome": "completed"},
  caps=MT, script=[], adapter_contract="HOSTS.md \u00a74.3")

# The same loop on every surface with tools, a tool router included (HOSTS.md 4.6: without model_calls each
# model_script entry is the agent's own step; "no entry left still ends the run with outcome error"). These name only
# the floor and tool points and match them as a subsequence, so they hold whether or not the model points are emitted.
V(1950, "script-runs-out-any-surface", "On any surface with tools, a script with no entry left after a tool round ends the run with outcome error",
  "4.2", [], LOOP, scenario([step(None, [call(1)])]),
  {"sequence_strict": False, "interceptions": ix([SU, PT, PTT, SD], {3: {"summary.reason": "error"}}),
   "interceptions_absent": [OUT], "tool_invocations": [{"name": "lookup", "args": {"q": "alpha"}}],
   "final_output": None, "run_outcome": "error"},
  caps=["tool_calls"], script=[], adapter_contract="HOSTS.md \u00a74.6")
V(1951, "unknown-tool-any-surface", "On any surface with tools, a call to a tool the scenario does not register gets \"unknown tool\" with is_error true and the turn ends with the next entry",
  "4.2", [], LOOP, scenario([step(None, [call(1, tool="missing")]), step("done")]),
  {"sequence_strict": False,
   "interceptions": ix([SU, PT, PTT, OUT, SD], {2: {"tool_result.value": "unknown tool", "tool_result.is_error": True},
                                                3: {"output.content": "done"}}),
   "tool_invocations": [], "final_output": "done", "run_outcome": "completed"},
  caps=["tool_calls"], script=[], adapter_contract="HOSTS.md \u00a74.3")

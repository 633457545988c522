"""What an Agent Hooks host adapter (`ctk-harness/1`, agent-hooks/adapter/PROTOCOL.md) needs
besides its own emitter: the handshake and the vector lifecycle, the callbacks to the runner's
scripted interceptors, resolver and redactor, the scenario a vector feeds the agent loop (the
scripted model, the mock tools, the turns: HOSTS.md section 4), and the run record (HOSTS.md
section 5).

The part that is the vendor's stays the vendor's: the emitter (context, gate, composition,
identities, records) and, for declaration vectors, the declaration loader. A host implements
`Host` and calls `serve(host)`.
"""

import copy

from .link import CallbackError, Link, RpcError, log

PROTOCOL = "ctk-harness/1"


class ScenarioError(Exception):
    """The script cannot go on (no model response left, no behaviour clause of a mock tool
    matches): HOSTS.md section 4 ends the run with outcome `error`."""


class Callbacks:
    """The runner's side of a vector's interceptors, resolver and redactor (PROTOCOL.md section
    3). Each call waits at most `timeout_s` (the host's own timeout fires then: `TimeoutError`).

    A host that announces the features `known-answers` and `recorded-contexts` gets, with
    `vector/run`, what some interceptors answer whatever the context (PROTOCOL.md section 2.2):
    `intercept` then answers those calls itself, reporting the context with a `callback/record`
    notification where the runner records it, and calls back for the rest. A host that announces
    neither is sent nothing, and every call is a callback."""

    def __init__(self, link):
        self.link = link
        # vector/run's `known_answers`, by interceptor index; empty outside a run.
        self.known = []

    def known_answer(self, index, context):
        """The answer `vector/run` carried for interceptor `index` on `context`, or None."""
        entry = self.known[index] if isinstance(index, int) and 0 <= index < len(self.known) else None
        point = context.get("interception_point") if isinstance(context, dict) else None
        if not isinstance(entry, dict) or not isinstance(point, str):
            return None
        at = entry.get("at") or {}
        answer = at[point] if point in at else entry.get("elsewhere")
        if answer is not None and entry.get("record"):
            # Before the answer leads anywhere: the runner records in line order.
            self.link.write({"jsonrpc": "2.0", "method": "callback/record",
                             "params": {"index": index, "context": context}})
        return answer

    def intercept(self, index, context, timeout_s):
        """Interceptor `index` on its own copy `context`: `("response", value, changed_context or
        None)` or `("raised", message, None)`. A changed context must be written into the copy the
        host passed, as an in-process interceptor would have mutated it."""
        result = self.known_answer(index, context)
        if result is None:
            result = self.link.call("callback/intercept", {"index": index, "context": context}, timeout_s)
        if result.get("outcome") == "raised":
            return "raised", result.get("message", ""), None
        return "response", result.get("response"), result.get("context")

    def resolve_approval(self, request, timeout_s):
        """The approval resolver on `request`: `("resolution", value)` or `("raised", message)`."""
        result = self.link.call("callback/resolve_approval", {"request": request}, timeout_s)
        if result.get("outcome") == "raised":
            return "raised", result.get("message", "")
        return "resolution", result.get("resolution")

    def redact(self, context, timeout_s):
        """The redactor on `context`: `("redacted", context)` or `("raised", message)`."""
        result = self.link.call("callback/redact", {"context": context}, timeout_s)
        if result.get("outcome") == "raised":
            return "raised", result.get("message", "")
        return "redacted", result.get("context")


class Script:
    """The scripted model: the n-th model call of the run, counted across turns, receives the
    n-th `respond` (HOSTS.md section 4.1). For a host without `model_calls`, each entry is the
    agent's own next step instead (section 4.6)."""

    def __init__(self, scenario):
        entries = scenario.get("model_script", [])
        self._entries = entries if isinstance(entries, list) else []
        self._next = 0

    def next_response(self):
        """The next scripted response, as the scenario wrote it; `ScenarioError` when none is
        left, or when it is a failing call (`respond.error`, not mediated: no post_model_call)."""
        if self._next >= len(self._entries):
            raise ScenarioError("the model script has no response left")
        entry = self._entries[self._next]
        self._next += 1
        respond = entry.get("respond") if isinstance(entry, dict) else None
        respond = respond if isinstance(respond, dict) else {}
        if respond.get("error") is not None:
            raise ScenarioError("the model call failed")
        return respond


def response_of(respond):
    """The model response a `respond` entry makes: `content` (a stream's chunks joined, for a
    buffered host), `tool_calls` and `finish_reason`."""
    content = respond.get("content")
    if respond.get("stream") is not None and not respond.get("stream_truncated"):
        content = "".join(respond["stream"])
    return {"content": content, "tool_calls": copy.deepcopy(respond.get("tool_calls", [])),
            "finish_reason": respond.get("finish_reason")}


class Tools:
    """The scenario's mock tools (HOSTS.md section 4.3), and every invocation, in order."""

    def __init__(self, scenario):
        tools = scenario.get("tools", [])
        self.by_name = {t["name"]: t for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)}
        self.invocations = []

    def registered(self):
        """`agent_init.tools_registered`: the names, sorted by code point."""
        return sorted(self.by_name)

    def invoke(self, name, args):
        """Run mock tool `name` on `args`: `(value, is_error)`. A name no tool has is answered with
        the error result "unknown tool" and is no invocation; an invocation no behaviour clause
        answers is recorded, then ends the run (`ScenarioError`)."""
        tool = self.by_name.get(name) if isinstance(name, str) else None
        if tool is None:
            return "unknown tool", True
        self.invocations.append({"name": name, "args": copy.deepcopy(args)})
        clause = next((c for c in tool.get("behavior", [])
                       if "when_args" not in c or json_equal(c["when_args"], args)), None)
        if clause is None:
            raise ScenarioError(f"no behaviour of {name!r} matches its arguments")
        return copy.deepcopy(clause.get("return")), bool(clause.get("is_error", False))


def blocked(reason):
    """The message the model is given instead of a denied tool call or a discarded result
    (HOSTS.md section 4.2): never the withheld arguments or value."""
    return {"role": "tool", "content": f"blocked: {reason if reason is not None else 'denied'}"}


def inputs(scenario):
    """Each turn's input, in order: `input`, then every `turns[].input` (role `user` by default)."""
    given = [scenario.get("input")] + [t.get("input") for t in scenario.get("turns", []) if isinstance(t, dict)]
    return [{"content": g.get("content"), "role": g.get("role", "user")} if isinstance(g, dict) else
            {"content": None, "role": "user"} for g in given]


def json_equal(a, b):
    """JSON equality, numbers by value (`1` equals `1.0`; `true` is not `1`)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def run_record(outcome, final_output=None, tools=None, records=None, persisted=None, error=None, **more):
    """A `vector/run` result (PROTOCOL.md section 2.2): `outcome` is `completed`, `blocked` or
    `error`. Leave out only what the host cannot report: a vector that checks a missing member is
    an error, never a pass."""
    record = {"outcome": outcome, "final_output": final_output,
              "tool_invocations": list(tools.invocations) if tools is not None else []}
    if records is not None:
        record["records"] = records
    if persisted is not None:
        record["persisted"] = persisted
    if error is not None:
        record["error"] = error
    record.update(more)
    return record


class Host:
    """What a host adapter implements; `serve` drives it."""

    def info(self):
        """`initialize`'s `host`: `name`, `version`, `spec_versions`, and optionally `declaration`
        and `features` (PROTOCOL.md section 2.1)."""
        raise NotImplementedError

    def setup(self, setup):
        """Register what `vector/setup` asks (HOSTS.md section 2); raise `RpcError(-32000, ...,
        "setup")` for what the host cannot run."""
        raise NotImplementedError

    def run(self, setup, callbacks):
        """Run the set-up vector's scenario and return its run record (`run_record`)."""
        raise NotImplementedError

    def teardown(self):
        """Forget the vector."""


def serve(host, link=None):
    """Serve `host` on the process's stdio until `shutdown`; returns the exit status."""
    link = link if link is not None else Link()
    callbacks = Callbacks(link)
    state = {"setup": None}

    def handle(method, params):
        if method == "initialize":
            if params.get("protocol") != PROTOCOL:
                raise RpcError(-32001, f"this host speaks {PROTOCOL}")
            return {"protocol": PROTOCOL, "host": host.info()}
        if method == "vector/setup":
            host.setup(params)
            state["setup"] = params
            return {}
        if method == "vector/run":
            if state["setup"] is None:
                raise RpcError(-32000, "vector/run before vector/setup", "run")
            known = params.get("known_answers")
            callbacks.known = known if isinstance(known, list) else []
            try:
                return host.run(state["setup"], callbacks)
            finally:
                callbacks.known = []
        if method == "vector/teardown":
            state["setup"] = None
            host.teardown()
            return {}
        raise RpcError(-32601, f"no method {method!r}")

    return link.serve(handle)


__all__ = ["PROTOCOL", "CallbackError", "Callbacks", "Host", "RpcError", "Script",
           "ScenarioError", "Tools", "blocked", "inputs", "json_equal", "log", "response_of",
           "run_record", "serve"]

"""The kit's own tests: the link over a pipe, the scenario model, and both serve loops driven by
scripted runner lines. Standard library only: python3 -m unittest discover kits/python/tests."""

import io
import json
import os
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from ctk_kit import agent_hooks, ahp  # noqa: E402
from ctk_kit.link import CallbackError, Link, RpcError  # noqa: E402


class Pipe:
    """A runner end: lines written to the kit's stdin, lines read from its stdout."""

    def __init__(self):
        r, w = os.pipe()
        self.stdin = os.fdopen(r, "r", encoding="utf-8")
        self._w = os.fdopen(w, "w", encoding="utf-8")
        self.out = io.StringIO()

    def send(self, msg):
        self._w.write(json.dumps(msg) + "\n")
        self._w.flush()

    def close(self):
        self._w.close()

    def lines(self):
        return [json.loads(l) for l in self.out.getvalue().splitlines()]


class LinkTests(unittest.TestCase):
    def test_a_callback_answer_completes_it_and_a_late_one_is_dropped(self):
        p = Pipe()
        link = Link(p.stdin, p.out)
        rid, future = link.send("callback/intercept", {"index": 0, "context": {}})
        p.send({"jsonrpc": "2.0", "id": rid, "result": {"outcome": "response", "response": {"decision": "allow"}}})
        self.assertEqual(future.result(timeout=5)["result"]["response"], {"decision": "allow"})
        with self.assertRaises(TimeoutError):
            link.call("callback/redact", {"context": {}}, timeout_s=0.05)
        # The abandoned callback's answer arrives: nothing waits for it, nothing breaks.
        p.send({"jsonrpc": "2.0", "id": rid + 1, "result": {"outcome": "redacted", "context": {}}})
        p.send({"jsonrpc": "2.0", "id": 7, "method": "shutdown"})
        self.assertEqual(link.serve(lambda m, params: {}), 0)
        self.assertEqual(p.lines()[-1], {"jsonrpc": "2.0", "id": 7, "result": {}})

    def test_an_error_answer_or_a_closed_link_fails_the_callback(self):
        p = Pipe()
        link = Link(p.stdin, p.out)
        threading.Timer(0.05, lambda: p.send({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "x"}})).start()
        with self.assertRaises(CallbackError):
            link.call("callback/intercept", {}, timeout_s=5)
        threading.Timer(0.05, p.close).start()
        with self.assertRaises(CallbackError):
            link.call("callback/intercept", {}, timeout_s=5)

    def test_garbage_gets_a_parse_error_and_the_loop_answers_errors_and_stays_up(self):
        p = Pipe()
        link = Link(p.stdin, p.out)
        p._w.write("not json\n")
        p.send({"jsonrpc": "2.0", "id": 1, "method": "boom"})
        p.send({"jsonrpc": "2.0", "id": 2, "method": "refuse"})
        p.send({"jsonrpc": "2.0", "id": 3, "method": "fine"})
        p.close()

        def handle(method, params):
            if method == "boom":
                raise ValueError("the adapter broke")
            if method == "refuse":
                raise RpcError(-32000, "cannot", "setup")
            return {"ok": True}

        self.assertEqual(link.serve(handle), 0)
        got = p.lines()
        self.assertEqual(got[0]["error"]["code"], -32700)
        self.assertEqual(got[1]["error"], {"code": -32603, "message": "ValueError: the adapter broke"})
        self.assertEqual(got[2]["error"], {"code": -32000, "message": "cannot", "data": {"phase": "setup"}})
        self.assertEqual(got[3]["result"], {"ok": True})


class ScenarioTests(unittest.TestCase):
    SCENARIO = {
        "input": {"content": "find alpha"},
        "turns": [{"input": {"content": "again", "role": "user"}}],
        "tools": [{"name": "lookup", "behavior": [
            {"when_args": {"q": 1}, "return": "one"},
            {"when_args": {"q": True}, "return": "yes", "is_error": True}]}],
        "model_script": [
            {"respond": {"content": None, "tool_calls": [{"id": "t", "name": "lookup", "args": {"q": 1.0}}],
                         "finish_reason": "tool_calls"}},
            {"respond": {"content": "x", "stream": ["a", "b"], "finish_reason": "stop"}},
            {"respond": {"content": "never", "error": {"message": "down"}}},
        ],
    }

    def test_the_script_counts_across_turns_and_a_failing_call_ends_it(self):
        s = agent_hooks.Script(self.SCENARIO)
        self.assertEqual(s.next_response()["finish_reason"], "tool_calls")
        self.assertEqual(agent_hooks.response_of(s.next_response())["content"], "ab")
        with self.assertRaisesRegex(agent_hooks.ScenarioError, "failed"):
            s.next_response()
        with self.assertRaisesRegex(agent_hooks.ScenarioError, "no response left"):
            s.next_response()
        self.assertEqual([i["role"] for i in agent_hooks.inputs(self.SCENARIO)], ["user", "user"])

    def test_tools_match_by_json_equality_and_an_unknown_tool_is_no_invocation(self):
        t = agent_hooks.Tools(self.SCENARIO)
        self.assertEqual(t.registered(), ["lookup"])
        self.assertEqual(t.invoke("lookup", {"q": 1.0}), ("one", False))
        self.assertEqual(t.invoke("lookup", {"q": True}), ("yes", True))  # true is not 1
        self.assertEqual(t.invoke("nope", {}), ("unknown tool", True))
        with self.assertRaises(agent_hooks.ScenarioError):
            t.invoke("lookup", {"q": 2})
        self.assertEqual([i["args"] for i in t.invocations], [{"q": 1.0}, {"q": True}, {"q": 2}])
        self.assertEqual(agent_hooks.blocked(None), {"role": "tool", "content": "blocked: denied"})


def served(host, run_params, first_answer):
    """Serve `host` through one vector whose `vector/run` has `run_params`, answering the first
    `callback/intercept` with `first_answer`; the pipe, once the host has shut down (bounded: a kit
    that never calls back fails the test, not hangs it)."""
    p = Pipe()
    link = Link(p.stdin, p.out)
    for m in [{"id": 1, "method": "initialize", "params": {"protocol": "ctk-harness/1"}},
              {"id": 2, "method": "vector/setup", "params": {"spec": "agent-hooks/0.1"}},
              {"id": 3, "method": "vector/run", "params": run_params}]:
        p.send(dict(m, jsonrpc="2.0"))

    def runner():
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            asked = [l for l in p.lines() if l.get("method") == "callback/intercept"]
            if asked:
                p.send({"jsonrpc": "2.0", "id": asked[0]["id"],
                        "result": {"outcome": "response", "response": first_answer}})
                break
            time.sleep(0.005)
        while time.monotonic() < deadline and not any(l.get("id") == 3 and "result" in l for l in p.lines()):
            time.sleep(0.005)
        p.send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})

    threading.Thread(target=runner, daemon=True).start()
    assert agent_hooks.serve(host, link) == 0, "serve ended with a failure status"
    return p


class ServeTests(unittest.TestCase):
    def test_a_host_is_driven_through_the_vector_lifecycle_with_its_callbacks(self):
        class Echo(agent_hooks.Host):
            def info(self):
                return {"name": "echo", "version": "1", "spec_versions": ["agent-hooks/0.1"], "features": []}

            def setup(self, setup):
                if setup["spec"] != "agent-hooks/0.1":
                    raise RpcError(-32000, "no", "setup")

            def run(self, setup, callbacks):
                kind, verdict, _ = callbacks.intercept(0, {"interception_point": "input"}, timeout_s=5)
                return agent_hooks.run_record("completed", final_output=verdict["decision"], records=[])

        p = served(Echo(), {}, {"decision": "allow"})
        answers = {l["id"]: l for l in p.lines() if "method" not in l}
        self.assertEqual(answers[1]["result"]["protocol"], "ctk-harness/1")
        self.assertEqual(answers[3]["result"]["final_output"], "allow")
        self.assertEqual(answers[3]["result"]["tool_invocations"], [])

    def test_known_answers_are_answered_by_the_kit_and_recorded_contexts_reported_in_order(self):
        class Asks(agent_hooks.Host):
            def info(self):
                return {"name": "asks", "version": "1", "spec_versions": ["agent-hooks/0.1"],
                        "features": ["known-answers", "recorded-contexts"]}

            def setup(self, setup):
                pass

            def run(self, setup, callbacks):
                got = [callbacks.intercept(0, {"interception_point": "input", "n": 1}, timeout_s=5),
                       callbacks.intercept(1, {"interception_point": "input"}, timeout_s=5),
                       callbacks.intercept(0, {"interception_point": "output", "n": 2}, timeout_s=5)]
                return agent_hooks.run_record("completed", final_output=[g[1] for g in got], records=[])

        known = [{"at": {"output": {"outcome": "raised", "message": "scripted"}},
                  "elsewhere": {"outcome": "response", "response": {"decision": "allow"}}, "record": True},
                 {"at": {"input": None}, "elsewhere": {"outcome": "response", "response": {}}}]
        # Interceptor 1's answer at `input` is not known: it is the one callback.
        p = served(Asks(), {"known_answers": known}, {"decision": "deny"})
        lines = p.lines()
        asked = [l for l in lines if l.get("method") == "callback/intercept"]
        self.assertEqual([a["params"]["index"] for a in asked], [1])
        reported = [l for l in lines if l.get("method") == "callback/record"]
        self.assertEqual([r["params"] for r in reported],
                         [{"index": 0, "context": {"interception_point": "input", "n": 1}},
                          {"index": 0, "context": {"interception_point": "output", "n": 2}}])
        self.assertTrue(all("id" not in r for r in reported), "a notification has no id")
        answers = {l["id"]: l for l in lines if "method" not in l}
        self.assertEqual(answers[3]["result"]["final_output"], [{"decision": "allow"}, {"decision": "deny"}, "scripted"])

    def test_an_ahp_harness_may_be_async_and_is_shut_down(self):
        class Async(ahp.Harness):
            ended = False

            async def info(self):
                return {"name": "a", "version": "1", "protocolVersions": ["0.1"], "bindings": ["stdio"],
                        "lifecycles": ["persistent"], "profiles": ["base"]}

            async def load(self, registration, env, cwd):
                return ahp.refused([("/hooks/0", "bad")]) if registration is None else ahp.loaded()

            async def tool_call(self, params):
                return ahp.denied("no", code="com.example.x")

            def shutdown(self):
                Async.ended = True

        p = Pipe()
        link = Link(p.stdin, p.out)
        for m in [{"id": "1", "method": "initialize", "params": {"adapter": "ctk-ahp-adapter/1"}},
                  {"id": "2", "method": "harness/load", "params": {"registration": None}},
                  {"id": "3", "method": "harness/tool_call", "params": {}},
                  {"id": "4", "method": "harness/tool_calls", "params": {"calls": []}},
                  {"id": "5", "method": "shutdown"}]:
            p.send(dict(m, jsonrpc="2.0"))
        self.assertEqual(ahp.serve(Async(), link), 0)
        got = {l["id"]: l for l in p.lines()}
        self.assertEqual(got["1"]["result"]["adapter"], "ctk-ahp-adapter/1")
        self.assertEqual(got["2"]["result"], {"loaded": False, "refused": [{"pointer": "/hooks/0", "reason": "bad"}]})
        self.assertEqual(got["3"]["result"]["outcome"], "denied")
        self.assertEqual(got["4"]["error"]["code"], -32601)
        self.assertTrue(Async.ended)


if __name__ == "__main__":
    unittest.main()

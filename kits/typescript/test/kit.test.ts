// The kit's own tests: the link over in-memory streams, the scenario model and the serve loop.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { CallbackTimeout, JsonObject, Link, RpcError } from "../src/link.js";
import { Callbacks, Script, ScenarioError, Tools, blocked, responseOf, serve } from "../src/agentHooks.js";

function runner() {
  const toKit = new PassThrough();
  const fromKit = new PassThrough();
  const got: JsonObject[] = [];
  let buffered = "";
  fromKit.on("data", (chunk: Buffer) => {
    buffered += chunk.toString();
    let nl: number;
    while ((nl = buffered.indexOf("\n")) >= 0) {
      got.push(JSON.parse(buffered.slice(0, nl)));
      buffered = buffered.slice(nl + 1);
    }
  });
  const send = (m: JsonObject) => toKit.write(JSON.stringify({ jsonrpc: "2.0", ...m }) + "\n");
  return { link: new Link(toKit, fromKit), got, send, end: () => toKit.end() };
}

test("a callback answer completes it, a timeout abandons it, and its late answer is dropped", async () => {
  const r = runner();
  const asked = r.link.call("callback/intercept", { index: 0, context: {} });
  setImmediate(() => r.send({ id: 1, result: { outcome: "response", response: { decision: "allow" } } }));
  assert.deepEqual((await asked).response, { decision: "allow" });
  await assert.rejects(r.link.call("callback/redact", { context: {} }, 20), CallbackTimeout);
  r.send({ id: 2, result: { outcome: "redacted", context: {} } });
  r.send({ id: 9, method: "shutdown" });
  assert.equal(await r.link.serve(() => ({})), 0);
  assert.deepEqual(r.got.at(-1), { jsonrpc: "2.0", id: 9, result: {} });
});

test("the loop answers an error for a failing or refusing handler and stays up", async () => {
  const r = runner();
  r.send({ id: 1, method: "boom" });
  r.send({ id: 2, method: "refuse" });
  r.send({ id: 3, method: "fine" });
  r.end();
  const status = await r.link.serve((method) => {
    if (method === "boom") throw new Error("the adapter broke");
    if (method === "refuse") throw new RpcError(-32000, "cannot", "setup");
    return { ok: true };
  });
  assert.equal(status, 0);
  assert.equal((r.got[0].error as JsonObject).code, -32603);
  assert.deepEqual(r.got[1].error, { code: -32000, message: "cannot", data: { phase: "setup" } });
  assert.deepEqual(r.got[2].result, { ok: true });
});

test("the script counts across turns, streams join, and tools match by JSON equality", () => {
  const scenario: JsonObject = {
    input: { content: "x" },
    tools: [{ name: "lookup", behavior: [{ when_args: { q: 1 }, return: "one" }] }],
    model_script: [{ respond: { content: "c", stream: ["a", "b"] } }, { respond: { error: { message: "down" } } }],
  };
  const s = new Script(scenario);
  assert.equal(responseOf(s.nextResponse()).content, "ab");
  assert.throws(() => s.nextResponse(), ScenarioError);
  assert.throws(() => s.nextResponse(), /no response left/);
  const t = new Tools(scenario);
  assert.deepEqual(t.invoke("lookup", { q: 1.0 }), { value: "one", isError: false });
  assert.deepEqual(t.invoke("nope", {}), { value: "unknown tool", isError: true });
  assert.throws(() => t.invoke("lookup", { q: 2 }), ScenarioError);
  assert.equal(t.invocations.length, 2);
  assert.deepEqual(blocked(null), { role: "tool", content: "blocked: denied" });
});

test("a host is driven through the vector lifecycle and calls the runner back", async () => {
  const r = runner();
  const host = {
    info: () => ({ name: "echo", version: "1", spec_versions: ["agent-hooks/0.1"] }),
    setup: () => {},
    run: async (_: JsonObject, callbacks: Callbacks) => {
      const a = await callbacks.intercept(0, { interception_point: "input" }, 1000);
      return { outcome: "completed", final_output: a.outcome === "response" ? (a.response as JsonObject).decision : null };
    },
  };
  r.send({ id: 1, method: "initialize", params: { protocol: "ctk-harness/1" } });
  r.send({ id: 2, method: "vector/setup", params: { spec: "agent-hooks/0.1" } });
  r.send({ id: 3, method: "vector/run", params: {} });
  const served = serve(host, r.link);
  for (let i = 0; i < 200 && !r.got.some((m) => m.method === "callback/intercept"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const cb = r.got.find((m) => m.method === "callback/intercept");
  assert.ok(cb, "the host called back");
  r.send({ id: cb.id, result: { outcome: "response", response: { decision: "allow" } } });
  for (let i = 0; i < 200 && !r.got.some((m) => m.id === 3 && "result" in m); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  r.send({ id: 4, method: "shutdown" });
  assert.equal(await served, 0);
  const answer = r.got.find((m) => m.id === 3 && "result" in m);
  assert.equal((answer?.result as JsonObject).final_output, "allow");
});

test("known answers are answered by the kit and recorded contexts reported in order", async () => {
  const r = runner();
  const host = {
    info: () => ({ name: "asks", version: "1", spec_versions: ["agent-hooks/0.1"], features: ["known-answers", "recorded-contexts"] }),
    setup: () => {},
    run: async (_: JsonObject, callbacks: Callbacks) => {
      const got = [
        await callbacks.intercept(0, { interception_point: "input", n: 1 }, 1000),
        await callbacks.intercept(1, { interception_point: "input" }, 1000),
        await callbacks.intercept(0, { interception_point: "output", n: 2 }, 1000),
      ];
      return { outcome: "completed", final_output: got.map((a) => (a.outcome === "response" ? a.response : a.message)) };
    },
  };
  const known: JsonObject[] = [
    { at: { output: { outcome: "raised", message: "scripted" } }, elsewhere: { outcome: "response", response: { decision: "allow" } }, record: true },
    { at: { input: null }, elsewhere: { outcome: "response", response: {} } },
  ];
  r.send({ id: 1, method: "initialize", params: { protocol: "ctk-harness/1" } });
  r.send({ id: 2, method: "vector/setup", params: { spec: "agent-hooks/0.1" } });
  r.send({ id: 3, method: "vector/run", params: { known_answers: known } });
  const served = serve(host, r.link);
  for (let i = 0; i < 200 && !r.got.some((m) => m.method === "callback/intercept"); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const asked = r.got.filter((m) => m.method === "callback/intercept");
  assert.deepEqual(asked.map((m) => (m.params as JsonObject).index), [1], "interceptor 1 at input is the one callback");
  r.send({ id: asked[0].id, result: { outcome: "response", response: { decision: "deny" } } });
  for (let i = 0; i < 200 && !r.got.some((m) => m.id === 3 && "result" in m); i++) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  r.send({ id: 4, method: "shutdown" });
  assert.equal(await served, 0);
  const reported = r.got.filter((m) => m.method === "callback/record");
  assert.deepEqual(reported.map((m) => m.params), [
    { index: 0, context: { interception_point: "input", n: 1 } },
    { index: 0, context: { interception_point: "output", n: 2 } },
  ]);
  assert.ok(reported.every((m) => !("id" in m)), "a notification has no id");
  const answer = r.got.find((m) => m.id === 3 && "result" in m);
  assert.deepEqual((answer?.result as JsonObject).final_output, [{ decision: "allow" }, { decision: "deny" }, "scripted"]);
});

test("an AHP harness is served: handshake, load, calls, a missing feature, shutdown", async () => {
  const { serve, loaded, denied } = await import("../src/ahp.js");
  const r = runner();
  let ended = false;
  const harness = {
    info: async () => ({ name: "a", version: "1", protocolVersions: ["0.1"], bindings: ["stdio"], lifecycles: ["persistent"], profiles: ["base"] }),
    load: async () => loaded(),
    toolCall: async () => denied("no", "com.example.x"),
    shutdown: () => {
      ended = true;
    },
  };
  r.send({ id: "1", method: "initialize", params: { adapter: "ctk-ahp-adapter/1" } });
  r.send({ id: "2", method: "harness/load", params: { registration: {} } });
  r.send({ id: "3", method: "harness/tool_call", params: {} });
  r.send({ id: "4", method: "harness/tool_calls", params: { calls: [] } });
  r.send({ id: "5", method: "shutdown" });
  assert.equal(await serve(harness, r.link), 0);
  const by = new Map(r.got.map((m) => [m.id, m]));
  assert.equal((by.get("1")?.result as JsonObject).adapter, "ctk-ahp-adapter/1");
  assert.deepEqual(by.get("2")?.result, { loaded: true });
  assert.equal((by.get("3")?.result as JsonObject).outcome, "denied");
  assert.equal((by.get("4")?.error as JsonObject).code, -32601);
  assert.ok(ended);
});

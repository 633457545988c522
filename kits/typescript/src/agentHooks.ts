// What an Agent Hooks host adapter (ctk-harness/1, agent-hooks/adapter/PROTOCOL.md) needs besides
// its own emitter: the handshake and vector lifecycle, the callbacks to the runner's scripted
// interceptors, resolver and redactor, the scenario a vector feeds the agent loop (HOSTS.md
// section 4) and the run record (HOSTS.md section 5). The emitter stays the vendor's.

import { Json, JsonObject, Link, RpcError } from "./link.js";

/** The protocol this kit speaks. */
export const PROTOCOL = "ctk-harness/1";

/** The script cannot go on: HOSTS.md section 4 ends the run with outcome `error`. */
export class ScenarioError extends Error {}

/** An interceptor's answer: its return value (and the copy it changed), or that it raised. */
export type InterceptAnswer =
  | { outcome: "response"; response: Json; context?: Json }
  | { outcome: "raised"; message: string };

/**
 * The runner's side of a vector's interceptors, resolver and redactor (PROTOCOL.md section 3).
 *
 * A host that announces the features `known-answers` and `recorded-contexts` gets, with
 * `vector/run`, what some interceptors answer whatever the context (PROTOCOL.md section 2.2):
 * `intercept` then answers those calls itself, reporting the context with a `callback/record`
 * notification where the runner records it, and calls back for the rest.
 */
export class Callbacks {
  /** `vector/run`'s `known_answers`, by interceptor index; empty outside a run. */
  known: Json[] = [];

  constructor(private readonly link: Link) {}

  /** The answer `vector/run` carried for interceptor `index` on `context`, if any. */
  knownAnswer(index: number, context: Json): JsonObject | null {
    const entry = object(this.known[index]);
    const point = object(context).interception_point;
    if (typeof point !== "string") return null;
    const at = object(entry.at);
    const answer = point in at ? at[point] : entry.elsewhere;
    if (typeof answer !== "object" || answer === null || Array.isArray(answer)) return null;
    if (entry.record === true) {
      // Before the answer leads anywhere: the runner records in line order.
      this.link.write({ jsonrpc: "2.0", method: "callback/record", params: { index, context } });
    }
    return answer;
  }

  /** Interceptor `index` on its own copy `context`, waiting at most `timeoutMs`. */
  async intercept(index: number, context: Json, timeoutMs?: number): Promise<InterceptAnswer> {
    const r = this.knownAnswer(index, context) ?? (await this.link.call("callback/intercept", { index, context }, timeoutMs));
    if (r.outcome === "raised") return { outcome: "raised", message: String(r.message ?? "") };
    return { outcome: "response", response: r.response ?? null, context: r.context };
  }

  /** The approval resolver on `request`: its resolution, or that it raised. */
  async resolveApproval(request: Json, timeoutMs?: number): Promise<{ outcome: "resolution"; resolution: Json } | { outcome: "raised"; message: string }> {
    const r = await this.link.call("callback/resolve_approval", { request }, timeoutMs);
    if (r.outcome === "raised") return { outcome: "raised", message: String(r.message ?? "") };
    return { outcome: "resolution", resolution: r.resolution ?? null };
  }

  /** The redactor on `context`: the context the approver may see, or that it raised. */
  async redact(context: Json, timeoutMs?: number): Promise<{ outcome: "redacted"; context: Json } | { outcome: "raised"; message: string }> {
    const r = await this.link.call("callback/redact", { context }, timeoutMs);
    if (r.outcome === "raised") return { outcome: "raised", message: String(r.message ?? "") };
    return { outcome: "redacted", context: r.context ?? null };
  }
}

function object(v: Json | undefined): JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? v : {};
}

function array(v: Json | undefined): Json[] {
  return Array.isArray(v) ? v : [];
}

/** The scripted model: the n-th model call of the run, across turns, gets the n-th `respond`. */
export class Script {
  private next = 0;
  private readonly entries: Json[];

  constructor(scenario: JsonObject) {
    this.entries = array(scenario.model_script);
  }

  /** The next scripted response; `ScenarioError` when none is left or the call fails (`respond.error`). */
  nextResponse(): JsonObject {
    if (this.next >= this.entries.length) throw new ScenarioError("the model script has no response left");
    const respond = object(object(this.entries[this.next++]).respond);
    if (respond.error !== undefined && respond.error !== null) throw new ScenarioError("the model call failed");
    return respond;
  }
}

/** The model response a `respond` makes: a stream's chunks joined, for a buffered host. */
export function responseOf(respond: JsonObject): JsonObject {
  let content = respond.content ?? null;
  if (Array.isArray(respond.stream) && !respond.stream_truncated) content = respond.stream.map(String).join("");
  return {
    content,
    tool_calls: structuredClone(array(respond.tool_calls)),
    finish_reason: respond.finish_reason ?? null,
  };
}

/** JSON equality, numbers by value. */
export function jsonEqual(a: Json | undefined, b: Json | undefined): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a === "object" && a !== null && typeof b === "object" && b !== null) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    return ka.length === kb.length && ka.every((k, i) => k === kb[i] && jsonEqual(a[k], b[k]));
  }
  return a === b;
}

/** The scenario's mock tools (HOSTS.md section 4.3) and every invocation, in order. */
export class Tools {
  readonly invocations: JsonObject[] = [];
  private readonly byName = new Map<string, JsonObject>();

  constructor(scenario: JsonObject) {
    for (const t of array(scenario.tools)) {
      const tool = object(t);
      if (typeof tool.name === "string") this.byName.set(tool.name, tool);
    }
  }

  /** `agent_init.tools_registered`: the names, sorted by code point. */
  registered(): string[] {
    return [...this.byName.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  }

  /** Run mock tool `name` on `args`: an unknown name is the error result "unknown tool", no invocation. */
  invoke(name: Json, args: Json): { value: Json; isError: boolean } {
    const tool = typeof name === "string" ? this.byName.get(name) : undefined;
    if (!tool) return { value: "unknown tool", isError: true };
    this.invocations.push({ name: name as string, args: structuredClone(args) });
    const clause = array(tool.behavior).map(object).find((c) => !("when_args" in c) || jsonEqual(c.when_args, args));
    if (!clause) throw new ScenarioError(`no behaviour of ${JSON.stringify(name)} matches its arguments`);
    return { value: structuredClone(clause.return ?? null), isError: clause.is_error === true };
  }
}

/** What the model is given instead of a denied tool call or a discarded result (HOSTS.md 4.2). */
export function blocked(reason: string | null | undefined): JsonObject {
  return { role: "tool", content: `blocked: ${reason ?? "denied"}` };
}

/** Each turn's input: `input`, then every `turns[].input` (role `user` by default). */
export function inputs(scenario: JsonObject): JsonObject[] {
  const given = [scenario.input, ...array(scenario.turns).map((t) => object(t).input)];
  return given.map((g) => {
    const o = object(g);
    return { content: o.content ?? null, role: o.role ?? "user" };
  });
}

/** What a host adapter implements; `serve` drives it. */
export interface Host {
  /** `initialize`'s `host`: name, version, spec_versions, optional declaration and features. */
  info(): JsonObject | Promise<JsonObject>;
  /** Register what `vector/setup` asks; throw `RpcError(-32000, ..., "setup")` for what the host cannot run. */
  setup(setup: JsonObject): void | Promise<void>;
  /** Run the set-up vector and return its run record. */
  run(setup: JsonObject, callbacks: Callbacks): JsonObject | Promise<JsonObject>;
  /** Forget the vector. */
  teardown?(): void | Promise<void>;
}

/** Serve `host` on the process's stdio until `shutdown`; resolves to the exit status. */
export async function serve(host: Host, link: Link = new Link()): Promise<number> {
  const callbacks = new Callbacks(link);
  let current: JsonObject | null = null;
  return link.serve(async (method, params) => {
    switch (method) {
      case "initialize":
        if (params.protocol !== PROTOCOL) throw new RpcError(-32001, `this host speaks ${PROTOCOL}`);
        return { protocol: PROTOCOL, host: await host.info() };
      case "vector/setup":
        await host.setup(params);
        current = params;
        return {};
      case "vector/run":
        if (current === null) throw new RpcError(-32000, "vector/run before vector/setup", "run");
        callbacks.known = array(params.known_answers);
        try {
          return await host.run(current, callbacks);
        } finally {
          callbacks.known = [];
        }
      case "vector/teardown":
        current = null;
        await host.teardown?.();
        return {};
      default:
        throw new RpcError(-32601, `no method ${JSON.stringify(method)}`);
    }
  });
}

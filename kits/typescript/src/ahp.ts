// What an AHP harness adapter (ctk-ahp-adapter/1, ahp/adapter/ADAPTER.md) needs besides the
// harness itself: the handshake, the request loop and the shapes of each answer.

import { JsonObject, Link, RpcError, log } from "./link.js";

/** The contract this kit speaks. */
export const CONTRACT = "ctk-ahp-adapter/1";

/** What an adapter implements; `serve` drives it. */
export interface Harness {
  /** `initialize`'s result without `adapter`: name, version, protocolVersions, bindings, lifecycles, profiles, features. */
  info(): JsonObject | Promise<JsonObject>;
  /** Load `registration` into the harness: `loaded()` or `refused([...])`. */
  load(registration: JsonObject | null, env: JsonObject, cwd: string | null): JsonObject | Promise<JsonObject>;
  /** Perform one tool call: `executed()`, `denied(...)` or `prompted()`. */
  toolCall(params: JsonObject): JsonObject | Promise<JsonObject>;
  /** The parallel calls of one model turn (feature parallel-tool-calls): one answer per call, in order. */
  toolCalls?(calls: JsonObject[]): JsonObject[] | Promise<JsonObject[]>;
  /** Emit `session.start` or `session.end` to observers, or nothing. */
  session?(event: string): void | Promise<void>;
  /** End the harness's backends before the process exits. */
  shutdown?(): void | Promise<void>;
}

/** `harness/load`'s answer for a registration the harness took. */
export const loaded = (): JsonObject => ({ loaded: true });

/** `harness/load`'s answer for a refused registration: `[pointer, reason]` pairs. */
export const refused = (problems: [string, string][]): JsonObject => ({
  loaded: false,
  refused: problems.map(([pointer, reason]) => ({ pointer, reason })),
});

/** The tool ran. */
export const executed = (): JsonObject => ({ outcome: "executed" });

/** No deny, and the host's permission was `prompt`: the user was asked. */
export const prompted = (): JsonObject => ({ outcome: "prompted" });

/** A backend's deny (`synthetic` false) or a fail-closed failure (`synthetic` true) stopped the tool. */
export const denied = (reason: string, code: string | null = null, synthetic = false): JsonObject => ({
  outcome: "denied",
  synthetic,
  reason,
  code,
});

/** Serve `harness` on the process's stdio until `shutdown`; resolves to the exit status. */
export async function serve(harness: Harness, link: Link = new Link()): Promise<number> {
  const status = await link.serve(async (method, params) => {
    switch (method) {
      case "initialize":
        if (params.adapter !== CONTRACT) throw new RpcError(-32001, `this adapter speaks ${CONTRACT}`);
        return { ...(await harness.info()), adapter: CONTRACT };
      case "harness/load":
        return harness.load(
          (params.registration ?? null) as JsonObject | null,
          (params.env ?? {}) as JsonObject,
          typeof params.cwd === "string" ? params.cwd : null,
        );
      case "harness/tool_call":
        return harness.toolCall(params);
      case "harness/tool_calls":
        if (!harness.toolCalls) throw new RpcError(-32601, "harness/tool_calls: this adapter does not offer parallel-tool-calls");
        return { results: await harness.toolCalls((Array.isArray(params.calls) ? params.calls : []) as JsonObject[]) };
      case "harness/session":
        await harness.session?.(String(params.event));
        return {};
      default:
        throw new RpcError(-32601, `no method ${JSON.stringify(method)}`);
    }
  });
  try {
    await harness.shutdown?.();
  } catch (e) {
    log("shutdown:", String(e));
  }
  return status;
}

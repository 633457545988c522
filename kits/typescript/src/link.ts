// The stdio link both adapter contracts share: JSON-RPC 2.0, one message a line.
//
// The runner (ctk) is the client of the adapter's main requests and the server of its
// callbacks. Requests are answered one at a time, in order; while one is handled, the
// adapter may call the runner back and await the answer, which the reader delivers as
// soon as it arrives. A late answer to a callback the adapter gave up on is dropped.
// stdout carries protocol lines only: log to stderr with `log`.

import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export type JsonObject = { [key: string]: Json };

/** One line on stderr: the adapter's log, which the runner keeps and never parses. */
export function log(...parts: unknown[]): void {
  process.stderr.write(parts.map(String).join(" ") + "\n");
}

/** An error answer to the runner's request (PROTOCOL.md section 4); `phase` for a host error. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly phase?: string,
  ) {
    super(message);
  }
}

/** The runner answered a callback with an error, or the link closed first. */
export class CallbackError extends Error {}

/** The callback's own timeout passed first; the callback is abandoned. */
export class CallbackTimeout extends Error {}

type Pending = { resolve: (msg: JsonObject) => void; reject: (e: Error) => void };

/** What a request handler returns for `method` and its `params`. */
export type Handler = (method: string, params: JsonObject) => Promise<JsonObject> | JsonObject;

/** Both directions of the line link. */
export class Link {
  private readonly pending = new Map<string, Pending>();
  private nextId = 1;
  private readonly queue: (JsonObject | null)[] = [];
  private wake: (() => void) | null = null;

  constructor(
    input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {
    const lines = createInterface({ input, crlfDelay: Infinity });
    lines.on("line", (line) => this.read(line));
    lines.on("close", () => this.closed());
  }

  /** Write one message as one line. */
  write(message: JsonObject): void {
    this.output.write(JSON.stringify(message) + "\n");
  }

  private read(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      this.write({ jsonrpc: "2.0", id: null, error: { code: -32700, message: String(e) } });
      return;
    }
    if (typeof msg !== "object" || msg === null || Array.isArray(msg) || (msg as JsonObject).jsonrpc !== "2.0") {
      this.write({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "not a JSON-RPC 2.0 message" } });
      return;
    }
    const m = msg as JsonObject;
    if ("method" in m) {
      this.push(m);
      return;
    }
    const key = JSON.stringify(m.id ?? null);
    const waiting = this.pending.get(key);
    if (waiting) {
      this.pending.delete(key);
      waiting.resolve(m);
    }
  }

  private closed(): void {
    for (const waiting of this.pending.values()) {
      waiting.reject(new CallbackError("the link closed before the runner answered"));
    }
    this.pending.clear();
    this.push(null);
  }

  private push(item: JsonObject | null): void {
    this.queue.push(item);
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private async next(): Promise<JsonObject | null> {
    while (this.queue.length === 0) {
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.queue.shift() ?? null;
  }

  /**
   * A callback: its result object. Rejects with `CallbackTimeout` when `timeoutMs` passes first
   * (the callback is then abandoned, as PROTOCOL.md section 3 asks) and with `CallbackError` on
   * an error answer or a closed link.
   */
  call(method: string, params: JsonObject, timeoutMs?: number): Promise<JsonObject> {
    const id = this.nextId++;
    const key = JSON.stringify(id);
    return new Promise<JsonObject>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settle = (f: () => void) => {
        if (timer) clearTimeout(timer);
        this.pending.delete(key);
        f();
      };
      this.pending.set(key, {
        resolve: (msg) =>
          settle(() => {
            const result = msg.result;
            if (typeof result !== "object" || result === null || Array.isArray(result)) {
              reject(new CallbackError(`${method}: the runner answered with an error: ${JSON.stringify(msg.error)}`));
            } else {
              resolve(result);
            }
          }),
        reject: (e) => settle(() => reject(e)),
      });
      if (timeoutMs !== undefined) {
        timer = setTimeout(
          () => settle(() => reject(new CallbackTimeout(`${method}: no answer within ${timeoutMs} ms`))),
          timeoutMs,
        );
      }
      this.write({ jsonrpc: "2.0", id, method, params });
    });
  }

  /**
   * Answer the runner's requests in order until `shutdown` or end of input: `handle` returns the
   * result object or throws `RpcError`; any other error is the adapter's own failure, logged and
   * answered as an internal error (-32603). Resolves to the exit status (0).
   */
  async serve(handle: Handler): Promise<number> {
    for (;;) {
      const msg = await this.next();
      if (msg === null) return 0;
      const id = msg.id;
      if (id === undefined || id === null) continue; // notifications: none are defined
      const method = String(msg.method);
      if (method === "shutdown") {
        this.write({ jsonrpc: "2.0", id, result: {} });
        return 0;
      }
      const params = (typeof msg.params === "object" && msg.params !== null && !Array.isArray(msg.params)
        ? msg.params
        : {}) as JsonObject;
      try {
        this.write({ jsonrpc: "2.0", id, result: await handle(method, params) });
      } catch (e) {
        if (e instanceof RpcError) {
          const error: JsonObject = { code: e.code, message: e.message };
          if (e.phase) error.data = { phase: e.phase };
          this.write({ jsonrpc: "2.0", id, error });
        } else {
          log(`${method} failed:`, e instanceof Error ? (e.stack ?? e.message) : String(e));
          this.write({ jsonrpc: "2.0", id, error: { code: -32603, message: String(e) } });
        }
      }
    }
  }
}

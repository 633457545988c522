// A small Agent Hooks host for Node on the TypeScript adapter kit: the floor points and the
// model points, one profile (sequential/first_deny, on_approval stop), the jcs-sha256 identity
// provider and the approval seam. Everything below is the host's own: its emitter (contexts,
// the §5 gate, the §7.4 fold, the §9 seam, §10 identities and records) and its agent loop; the
// link, the handshake, the callbacks and the scenario model are the kit's.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Json, JsonObject, Link, RpcError, CallbackTimeout } from "@agent-hooks-ctk/adapter-kit/link";
import { Callbacks, ScenarioError, Script, inputs, responseOf, serve } from "@agent-hooks-ctk/adapter-kit/agent-hooks";

const SPEC = "agent-hooks/0.1";
const HERE = dirname(fileURLToPath(import.meta.url));
// The compiled host runs from dist/; its declaration sits beside host.ts.
const DECLARATION = JSON.parse(readFileSync(join(HERE, "..", "host.json"), "utf8")) as JsonObject;
// The ctk-harness/1 features this host implements (agent-hooks/adapter/PROTOCOL.md §7); the
// declaration features (load-detail, declaration-path-classes) are for hosts that load documents.
const FEATURES = ["generated-values", "persisted-state", "released-output-absent", "deep-lines",
  "context-sized-fills", "known-answers", "recorded-contexts"];
const POINTS = ["agent_startup", "input", "pre_model_call", "post_model_call", "pre_tool_call",
  "post_tool_call", "output", "agent_shutdown"];
// The conditional members of each point and their sub-members (null: the member itself).
const CONDITIONAL: Record<string, Record<string, string[] | null>> = {
  agent_startup: { agent_init: ["tools_registered"] },
  input: { input: ["content", "role"] },
  pre_model_call: { model: ["id"], messages: null },
  post_model_call: { model: ["id"], response: ["content", "tool_calls", "finish_reason"] },
  pre_tool_call: { tool_call: ["id", "name", "args"] },
  post_tool_call: { tool_call: ["id", "name", "args"], tool_result: ["value", "is_error"] },
  output: { output: ["content"] },
  agent_shutdown: { summary: ["reason"] },
};
// Where a point's target lives, for write-back (null: not transformable).
const WRITE_BACK: Record<string, string[] | null> = {
  agent_startup: null, input: ["input"], pre_model_call: ["messages"], post_model_call: ["response"],
  pre_tool_call: ["tool_call", "args"], post_tool_call: ["tool_result", "value"], output: ["output"],
  agent_shutdown: null,
};
const MAX_SAFE = 2 ** 53 - 1;
const MAX_CONTEXT_BYTES = 5 * 1024 * 1024;
const EVIDENCE_MAX_BYTES = 10240;
const DEFAULT_TIMEOUT_MS = 5000;

type Verdict = JsonObject;

class DomainError extends Error {}

class GateError extends Error {
  constructor(readonly reason: string, message: string) {
    super(message);
  }
}

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const clone = <T>(v: T): T => structuredClone(v);

/** RFC 8785: JavaScript's own number spelling and UTF-16 key order are the canonical ones. */
function jcs(value: Json): string {
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new DomainError("non-finite number");
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return "[" + value.map(jcs).join(",") + "]";
  const keys = Object.keys(value).sort();
  return "{" + keys.map((k) => JSON.stringify(k) + ":" + jcs(value[k])).join(",") + "}";
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The I-JSON domain over the identity projection (§10.2). */
function checkDomain(value: Json): void {
  if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) > MAX_SAFE) {
    throw new DomainError("integer exceeds 2^53; string-encode 64-bit identifiers, see spec §4.4");
  }
  if (typeof value === "string" && /[\uD800-\uDFFF]/.test(value.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g, ""))) {
    throw new DomainError("lone surrogate in a string");
  }
  if (Array.isArray(value)) value.forEach(checkDomain);
  else if (isObject(value)) Object.values(value).forEach(checkDomain);
}

/** The §12.3 bounds, whatever the provider: depth (a scalar is a level, D-13), then canonical size. */
function checkBounds(ctx: JsonObject): void {
  const depth = (value: Json, level: number): void => {
    if (level > 128) throw new DomainError("context nesting deeper than 128 levels");
    const children = Array.isArray(value) ? value : isObject(value) ? Object.values(value) : [];
    for (const child of children) depth(child, level + 1);
  };
  depth(ctx, 1);
  if (utf8Length(jcs(ctx)) > MAX_CONTEXT_BYTES) throw new DomainError("context larger than 5 MiB in canonical form");
}

/** The §4 envelope, with the §4.2 types of the conditional members. */
function validateEnvelope(ctx: Json): void {
  const need = (cond: boolean, what: string) => {
    if (!cond) throw new DomainError(`context envelope invalid: ${what}`);
  };
  need(isObject(ctx), "not an object");
  const c = ctx as JsonObject;
  need(typeof c.spec === "string" && /^agent-hooks\/\d+\.\d+$/.test(c.spec), "spec");
  const point = c.interception_point;
  need(typeof point === "string" && POINTS.includes(point), "interception_point");
  need(typeof c.timestamp === "string", "timestamp");
  need(typeof c.sequence === "number" && Number.isInteger(c.sequence) && c.sequence >= 0, "sequence");
  const agent = c.agent;
  need(isObject(agent) && typeof agent.id === "string" && agent.id !== "", "agent.id");
  need(isObject(agent) && typeof agent.framework === "string" && /^[a-z0-9_-]+$/.test(agent.framework), "agent.framework");
  need(isObject(c.session) && typeof c.session.id === "string" && c.session.id !== "", "session.id");
  need("target" in c, "target");
  for (const [key, subs] of Object.entries(CONDITIONAL[point as string])) {
    need(key in c, key);
    if (subs !== null) need(isObject(c[key]) && subs.every((s) => s in (c[key] as JsonObject)), key);
    need(typesHold(key, c[key]), `${key} (§4.2 types)`);
  }
}

function typesHold(key: string, member: Json): boolean {
  const field = (name: string) => (isObject(member) ? member[name] : undefined);
  switch (key) {
    case "agent_init": {
      const tools = field("tools_registered");
      return Array.isArray(tools) && tools.every((t) => typeof t === "string");
    }
    case "input":
      return ["user", "system", "external"].includes(field("role") as string) &&
        (typeof field("content") === "string" || isObject(field("content")));
    case "model":
      return typeof field("id") === "string";
    case "messages":
      return Array.isArray(member) && member.every(isObject);
    case "response":
      return Array.isArray(field("tool_calls")) && typeof field("finish_reason") === "string";
    case "output":
      return true;
    case "summary":
      return ["completed", "error", "cancelled"].includes(field("reason") as string);
    default:
      return true;
  }
}

/** The closed whitelist the jcs-sha256 identity is computed over. */
function projection(ctx: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const k of ["spec", "interception_point", "timestamp", "sequence", "target"]) out[k] = ctx[k];
  const agent = ctx.agent as JsonObject;
  out.agent = { id: agent.id, framework: agent.framework };
  out.session = { id: (ctx.session as JsonObject).id };
  for (const [key, subs] of Object.entries(CONDITIONAL[ctx.interception_point as string])) {
    const member = ctx[key];
    out[key] = subs === null ? member : Object.fromEntries(subs.map((s) => [s, (member as JsonObject)[s]]));
  }
  return out;
}

function identity(provider: string | null, ctx: Json): string | null {
  if (provider === null) return null;
  if (provider !== "jcs-sha256") throw new DomainError(`identity provider ${JSON.stringify(provider)} failed`);
  validateEnvelope(ctx);
  const proj = projection(ctx as JsonObject);
  checkDomain(proj);
  return "sha256:" + createHash("sha256").update(jcs(proj), "utf8").digest("hex");
}

const PATH_SEGMENT = /^(?:\.([A-Za-z0-9_-]+)|\[(\d+)\]|\["([A-Za-z0-9_-]+)"\])/;

/** §5.2's path grammar: `$target` (or `$policy_target`) then segments. */
function parsePath(path: Json): (string | number)[] {
  if (typeof path !== "string") throw new GateError("host_error:verdict_invalid", "transform path is not a string");
  const root = /^\$(policy_target|target)(?![A-Za-z0-9_-])/.exec(path);
  if (!root) throw new GateError("host_error:transform_target_forbidden", "transform path is not rooted at $target");
  const segments: (string | number)[] = [];
  let rest = path.slice(root[0].length);
  while (rest.length > 0) {
    const seg = PATH_SEGMENT.exec(rest);
    if (!seg) throw new GateError("host_error:transform_invalid", "transform path does not parse");
    segments.push(seg[2] !== undefined ? Number(seg[2]) : (seg[1] ?? seg[3]));
    rest = rest.slice(seg[0].length);
  }
  return segments;
}

function applyTransform(target: Json, transform: JsonObject): Json {
  const segments = parsePath(transform.path ?? null);
  const value = clone(transform.value ?? null);
  if (segments.length === 0) return value;
  let node: Json = target;
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i];
    const ok = typeof seg === "number" ? Array.isArray(node) && seg < node.length : isObject(node) && seg in node;
    if (!ok) throw new GateError("host_error:transform_invalid", "transform path does not resolve in the target");
    if (i === segments.length - 1) {
      (node as Record<string | number, Json>)[seg] = value;
    } else {
      node = (node as Record<string | number, Json>)[seg];
    }
  }
  return target;
}

const VERDICT_MEMBERS = ["decision", "reason", "message", "warnings", "approval", "transform", "evidence", "result_labels"];

/** The §5 gate: the verdict (null members dropped), or GateError; accepts the response envelope. */
function gate(answer: Json | undefined): Verdict {
  const bad = () => new GateError("host_error:verdict_invalid", "the verdict is invalid");
  if (!isObject(answer)) throw bad();
  let v: JsonObject = answer;
  if ("verdict" in v && !("decision" in v)) {
    for (const [key, value] of Object.entries(v)) {
      if (!(key === "verdict" || (key === "extensions" && isObject(value)))) {
        throw new GateError("host_error:verdict_invalid", "the response envelope has an unknown or mistyped member");
      }
    }
    if (!isObject(v.verdict)) throw new GateError("host_error:verdict_invalid", "the response envelope's verdict is not an object");
    v = v.verdict;
  }
  if (!Object.keys(v).every((k) => VERDICT_MEMBERS.includes(k))) {
    throw new GateError("host_error:verdict_invalid", "the verdict has an unknown member");
  }
  v = Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null));
  const decision = v.decision;
  if (decision !== "allow" && decision !== "deny" && decision !== "transform") throw bad();
  const textOk = (o: JsonObject, key: string, reason = false) => {
    const x = o[key];
    return x === undefined || (typeof x === "string" && !(reason && x.startsWith("host_error:")));
  };
  if (!textOk(v, "reason", true) || !textOk(v, "message")) throw bad();
  if (v.warnings !== undefined) {
    if (!Array.isArray(v.warnings)) throw bad();
    for (const w of v.warnings) {
      if (!isObject(w) || !Object.keys(w).every((k) => k === "reason" || k === "message")) throw bad();
      if (!textOk(w, "reason", true) || !textOk(w, "message")) throw bad();
    }
  }
  if (v.approval !== undefined && (!isObject(v.approval) || decision !== "deny")) throw bad();
  if ((v.transform !== undefined) !== (decision === "transform")) throw bad();
  if (v.transform !== undefined) {
    const t = v.transform;
    if (!isObject(t) || !Object.keys(t).every((k) => k === "path" || k === "value") || !("path" in t)) throw bad();
    parsePath(t.path);
  }
  if (v.evidence !== undefined) {
    const e = v.evidence;
    if (!isObject(e)) throw bad();
    for (const [key, x] of Object.entries(e)) {
      const ok = key === "artefact" ? x === null || typeof x === "string"
        : key === "verification_pointers" ? isObject(x) && Object.values(x).every((u) => typeof u === "string")
        : false;
      if (!ok) throw bad();
    }
    if (utf8Length(jcs(e)) > EVIDENCE_MAX_BYTES) throw bad();
  }
  if (v.result_labels !== undefined && !(Array.isArray(v.result_labels) && v.result_labels.every((x) => typeof x === "string"))) {
    throw bad();
  }
  return v;
}

const hostDeny = (reason: string, message: string): Verdict => ({ decision: "deny", reason, message });
const isHostError = (v: Verdict) => typeof v.reason === "string" && v.reason.startsWith("host_error:");

function truncate(text: string, limit = 256): string {
  if (utf8Length(text) <= limit) return text;
  let cut = text;
  while (utf8Length(cut) > limit - utf8Length("…")) cut = cut.slice(0, -1);
  return cut + "…";
}

/** The payload-free projection a record carries (§10.3). */
function projectVerdict(v: Verdict): JsonObject {
  const out: JsonObject = { decision: v.decision };
  if (typeof v.reason === "string") out.reason = v.reason;
  if (typeof v.message === "string") out.message = truncate(v.message);
  if (Array.isArray(v.warnings) && v.warnings.length > 0) {
    out.warnings = v.warnings.map((w) => {
      const pw: JsonObject = {};
      const ww = w as JsonObject;
      if (typeof ww.reason === "string") pw.reason = ww.reason;
      if (typeof ww.message === "string") pw.message = truncate(ww.message);
      return pw;
    });
  }
  if (v.approval !== undefined) out.approval = {};
  if (isObject(v.transform)) out.transform = { path: v.transform.path ?? null };
  if (v.evidence !== undefined) out.evidence = v.evidence;
  if (Array.isArray(v.result_labels) && v.result_labels.length > 0) out.result_labels = v.result_labels;
  return out;
}

/** What a vector registered: see `setup` below. */
interface Config {
  mode: string;
  provider: string | null;
  composition: JsonObject;
  interceptors: number;
  timeoutMs: number;
  approvalTimeoutMs: number;
  resolver: boolean;
  redactor: boolean;
}

class Emitter {
  records: JsonObject[] = [];
  labels: JsonObject[] = [];
  lastReason: string | null = null;
  private sequence = 0;

  constructor(private readonly callbacks: Callbacks, private readonly config: Config, private readonly session: string) {}

  private context(point: string, conditional: JsonObject, target: Json): JsonObject {
    return {
      spec: SPEC,
      interception_point: point,
      timestamp: new Date().toISOString(),
      sequence: this.sequence++,
      agent: { id: "node-agent", framework: "node-floor-example" },
      session: { id: this.session },
      target,
      ...conditional,
    };
  }

  private async intercept(index: number, ctx: JsonObject): Promise<Verdict> {
    try {
      const answer = await this.callbacks.intercept(index, clone(ctx), this.config.timeoutMs);
      if (answer.outcome === "raised") return hostDeny("host_error:interceptor_failed", "the interceptor raised");
      // A changed copy belonged to the interceptor alone: the live context is never shared.
      return gate(answer.response);
    } catch (e) {
      if (e instanceof CallbackTimeout) return hostDeny("host_error:interceptor_timeout", "the interceptor did not answer in time");
      if (e instanceof GateError) return hostDeny(e.reason, e.message);
      throw e;
    }
  }

  private writeTarget(ctx: JsonObject, point: string, target: Json): void {
    const path = WRITE_BACK[point];
    if (path === null) throw new GateError("host_error:transform_target_forbidden", `${point} does not allow transforms`);
    ctx.target = target;
    let holder = ctx;
    for (const key of path.slice(0, -1)) holder = holder[key] as JsonObject;
    holder[path[path.length - 1]] = target;
  }

  /** Apply a permit's transform to the live context (enforce) or check it on a copy (evaluate_only). */
  private fold(ctx: JsonObject, point: string, v: Verdict): void {
    if (v.decision !== "transform") return;
    if (WRITE_BACK[point] === null) throw new GateError("host_error:transform_target_forbidden", `${point} does not allow transforms`);
    const applied = applyTransform(clone(ctx.target ?? null), v.transform as JsonObject);
    if (this.config.mode !== "evaluate_only") this.writeTarget(ctx, point, applied);
  }

  private canConsult(point: string): boolean {
    return this.config.resolver && this.config.mode === "enforce" && point !== "agent_shutdown";
  }

  /** The approval seam (§9), in D-02's order: ["approval", permit] or ["rejection", deny]. */
  private async consult(ctx: JsonObject, point: string, deny: Verdict): Promise<["approval" | "rejection", Verdict]> {
    let requestCtx: Json = clone(ctx);
    const t = this.config.approvalTimeoutMs;
    if (this.config.redactor) {
      try {
        const r = await this.callbacks.redact(requestCtx, t);
        if (r.outcome !== "redacted") return ["rejection", hostDeny("host_error:approval_resolver_failed", "the redactor failed")];
        requestCtx = r.context;
      } catch (e) {
        if (e instanceof CallbackTimeout) return ["rejection", hostDeny("host_error:approval_resolver_failed", "the redactor failed")];
        throw e;
      }
    }
    let requestIdentity: string | null;
    try {
      requestIdentity = isObject(requestCtx) ? identity(this.config.provider, requestCtx) : null;
    } catch {
      return ["rejection", hostDeny("host_error:context_invalid", "the approval context cannot be identified")];
    }
    let reply;
    try {
      reply = await this.callbacks.resolveApproval({ context_identity: requestIdentity, interception_point: point, verdict: deny, context: requestCtx }, t);
    } catch (e) {
      if (e instanceof CallbackTimeout) return ["rejection", hostDeny("host_error:approval_resolver_failed", "the approval resolver failed")];
      throw e;
    }
    if (reply.outcome !== "resolution") return ["rejection", hostDeny("host_error:approval_resolver_failed", "the approval resolver failed")];
    const res = reply.resolution;
    if (!isObject(res)) return ["rejection", hostDeny("host_error:approval_resolver_failed", "the resolution is not an object")];
    if (!("context_identity" in res) || res.context_identity !== requestIdentity) {
      return ["rejection", hostDeny("host_error:approval_identity_mismatch", "the resolution does not echo the request identity")];
    }
    const outcome = res.outcome;
    const hasVerdict = res.verdict !== undefined && res.verdict !== null;
    if (!Object.keys(res).every((k) => ["outcome", "context_identity", "verdict"].includes(k)) ||
      !["approve", "reject", "unresolved"].includes(outcome as string) || hasVerdict === (outcome === "unresolved")) {
      return ["rejection", hostDeny("host_error:approval_resolver_failed", "the resolution is malformed")];
    }
    if (outcome === "unresolved") return ["rejection", hostDeny("host_error:approval_unresolved", "the approval is unresolved")];
    let verdict: Verdict;
    try {
      verdict = gate(res.verdict);
    } catch (e) {
      if (e instanceof GateError) return ["rejection", hostDeny(e.reason, "the resolution's verdict: " + e.message)];
      throw e;
    }
    const permit = verdict.decision === "allow" || verdict.decision === "transform";
    if ((outcome === "approve") !== permit) {
      return ["rejection", hostDeny("host_error:verdict_invalid", "the resolution's verdict contradicts its outcome")];
    }
    return [permit ? "approval" : "rejection", verdict];
  }

  /** §7.4 sequential/first_deny, on_approval stop: [combined, decided_by, truncated, resolved_by, verdicts, seen]. */
  private async firstDeny(ctx: JsonObject, point: string): Promise<[Verdict, number | null, boolean, string | null, JsonObject[], Verdict[]]> {
    const n = this.config.interceptors;
    const verdicts: JsonObject[] = [];
    const seen: Verdict[] = [];
    const permits: Verdict[] = [];
    let lastTransform: [number, Verdict] | null = null;
    for (let slot = 0; slot < n; slot++) {
      const v = await this.intercept(slot, ctx);
      seen.push(v);
      const entry: JsonObject = { index: slot, decision: v.decision };
      if (typeof v.reason === "string") entry.reason = v.reason;
      verdicts.push(entry);
      const rest = slot < n - 1;
      if (v.decision === "deny") {
        const liftable = v.approval !== undefined && !isHostError(v);
        if (!(liftable && this.canConsult(point))) return [v, slot, rest, null, verdicts, seen];
        const [resolvedBy, resolution] = await this.consult(ctx, point, v);
        seen.push(resolution);
        if (resolvedBy === "rejection") return [resolution, isHostError(resolution) ? null : slot, rest, resolvedBy, verdicts, seen];
        try {
          this.fold(ctx, point, resolution);
        } catch (e) {
          if (e instanceof GateError) return [hostDeny(e.reason, e.message), null, rest, resolvedBy, verdicts, seen];
          throw e;
        }
        return [resolution, slot, rest, resolvedBy, verdicts, seen];
      }
      if (v.decision === "transform") {
        try {
          this.fold(ctx, point, v);
        } catch (e) {
          if (e instanceof GateError) return [hostDeny(e.reason, e.message), null, rest, null, verdicts, seen];
          throw e;
        }
        lastTransform = [slot, v];
      }
      permits.push(v);
    }
    if (lastTransform !== null) return [lastTransform[1], lastTransform[0], false, null, verdicts, seen];
    return [{ ...permits[0] }, null, false, null, verdicts, seen];
  }

  /** Warnings: a first-seen union over every verdict; labels: over permits, kept only when the combined permits. */
  private static unions(combined: Verdict, seen: Verdict[]): Verdict {
    const out: Verdict = { ...combined };
    const warnings: JsonObject[] = [];
    for (const v of seen) {
      for (const w of (Array.isArray(v.warnings) ? v.warnings : []) as JsonObject[]) {
        if (!warnings.some((x) => x.reason === w.reason && x.message === w.message)) warnings.push(w);
      }
    }
    if (warnings.length > 0) out.warnings = warnings;
    if (combined.decision === "deny") {
      delete out.result_labels;
    } else {
      const labels: string[] = [];
      for (const v of seen) {
        if (v.decision === "deny") continue;
        for (const label of (Array.isArray(v.result_labels) ? v.result_labels : []) as string[]) {
          if (!labels.includes(label)) labels.push(label);
        }
      }
      if (labels.length > 0) out.result_labels = labels;
    }
    return out;
  }

  private permitted(combined: Verdict): boolean {
    this.lastReason = typeof combined.reason === "string" ? combined.reason : null;
    return this.config.mode === "evaluate_only" || combined.decision !== "deny";
  }

  /** One emission: [permitted, the context as enforced]. */
  async emit(point: string, conditional: JsonObject, target: Json): Promise<[boolean, JsonObject]> {
    const ctx = this.context(point, conditional, target);
    const record: JsonObject = {
      interception_point: point,
      mode: this.config.mode,
      identity_provider: this.config.provider,
      session_id: this.session,
      sequence: ctx.sequence,
      timestamp: ctx.timestamp,
      composition: { ...this.config.composition },
      interceptors_registered: this.config.interceptors,
    };
    let inputIdentity: string | null;
    try {
      validateEnvelope(ctx);
      checkBounds(ctx);
      inputIdentity = identity(this.config.provider, ctx);
    } catch (e) {
      if (!(e instanceof DomainError)) throw e;
      const combined = hostDeny("host_error:context_invalid", e.message);
      Object.assign(record, { verdict: projectVerdict(combined), input_identity: null, enforced_identity: null, decided_by: null });
      this.records.push(record);
      return [this.permitted(combined), ctx];
    }
    let combined: Verdict;
    let decidedBy: number | null = null;
    let truncated = false;
    let resolvedBy: string | null = null;
    let verdicts: JsonObject[] = [];
    let seen: Verdict[] = [];
    if (this.config.interceptors === 0) {
      combined = hostDeny("host_error:no_interceptor", "no interceptor is bound at this point");
    } else {
      [combined, decidedBy, truncated, resolvedBy, verdicts, seen] = await this.firstDeny(ctx, point);
    }
    combined = Emitter.unions(combined, seen);
    let enforcedIdentity: string | null;
    if (this.config.mode === "evaluate_only") {
      enforcedIdentity = inputIdentity;
    } else if (combined.decision === "deny") {
      try {
        enforcedIdentity = identity(this.config.provider, ctx);
      } catch {
        enforcedIdentity = null;
      }
    } else {
      try {
        validateEnvelope(ctx);
        checkBounds(ctx);
        enforcedIdentity = identity(this.config.provider, ctx);
      } catch (e) {
        if (!(e instanceof DomainError)) throw e;
        combined = hostDeny("host_error:context_invalid", e.message);
        enforcedIdentity = null;
        decidedBy = null;
      }
    }
    Object.assign(record, {
      verdict: projectVerdict(combined), input_identity: inputIdentity, enforced_identity: enforcedIdentity,
      decided_by: decidedBy, fold_truncated: truncated,
    });
    if (verdicts.length > 0) record.verdicts = verdicts;
    if (resolvedBy !== null) record.resolved_by = resolvedBy;
    this.records.push(record);
    const ok = this.permitted(combined);
    if (ok && Array.isArray(combined.result_labels) && combined.result_labels.length > 0) {
      this.labels.push({ interception_point: point, sequence: ctx.sequence, labels: combined.result_labels });
    }
    return [ok, ctx];
  }
}

/** The agent loop of HOSTS.md section 4 on the floor and model points: no tools, one turn. */
async function runAgent(emitter: Emitter, scenario: JsonObject): Promise<JsonObject> {
  const script = new Script(scenario);
  const messages: JsonObject[] = [];
  const finish = async (outcome: string, final: Json = null, error?: string): Promise<JsonObject> => {
    const summary = { reason: outcome === "completed" ? "completed" : "error" };
    await emitter.emit("agent_shutdown", { summary }, summary);
    const run: JsonObject = {
      outcome, final_output: final, tool_invocations: [], records: emitter.records,
      persisted: { messages, labels: emitter.labels },
    };
    if (error !== undefined) run.error = error;
    return run;
  };
  const agentInit = { tools_registered: [] };
  let [ok] = await emitter.emit("agent_startup", { agent_init: agentInit }, agentInit);
  if (!ok) return finish("blocked");
  const given = inputs(scenario)[0];
  try {
    let ctx: JsonObject;
    [ok, ctx] = await emitter.emit("input", { input: given }, given);
    if (!ok) return finish("blocked");
    const input = ctx.input as JsonObject;
    messages.push({ role: input.role, content: input.content });
    [ok, ctx] = await emitter.emit("pre_model_call", { model: { id: "mock" }, messages }, messages);
    if (!ok) return finish("blocked");
    messages.splice(0, messages.length, ...(ctx.messages as JsonObject[]));
    const response = responseOf(script.nextResponse());
    [ok, ctx] = await emitter.emit("post_model_call", { model: { id: "mock" }, response }, response);
    if (!ok) return finish("blocked");
    const final = (ctx.response as JsonObject).content ?? null;
    if (final === null) return finish("completed");
    const output = { content: final };
    [ok, ctx] = await emitter.emit("output", { output }, output);
    if (!ok) return finish("blocked");
    const released = (ctx.output as JsonObject).content ?? null;
    messages.push({ role: "assistant", content: released });
    return finish("completed", released);
  } catch (e) {
    if (e instanceof ScenarioError) return finish("error", null, e.message);
    throw e;
  }
}

let sessions = 0;

const host = {
  info: () => ({ name: "node-floor-host", version: "0.2.0", spec_versions: [SPEC], declaration: DECLARATION, features: FEATURES }),
  setup: (setup: JsonObject) => {
    if (setup.spec !== SPEC) throw new RpcError(-32000, `this host emits ${SPEC} only`, "setup");
    const comp = isObject(setup.composition) ? setup.composition : { profile: "sequential/first_deny" };
    if (comp.profile !== "sequential/first_deny" || (comp.on_approval ?? "stop") !== "stop") {
      throw new RpcError(-32000, `composition ${JSON.stringify(comp)} is not one this host can configure`, "setup");
    }
  },
  run: async (setup: JsonObject, callbacks: Callbacks) => {
    const timeoutMs = typeof setup.interceptor_timeout_ms === "number" ? setup.interceptor_timeout_ms : DEFAULT_TIMEOUT_MS;
    const config: Config = {
      mode: typeof setup.mode === "string" ? setup.mode : "enforce",
      provider: (setup.identity_provider ?? null) as string | null,
      composition: { profile: "sequential/first_deny", on_approval: "stop" },
      interceptors: Array.isArray(setup.interceptors) ? setup.interceptors.length : 0,
      timeoutMs,
      approvalTimeoutMs: typeof setup.approval_timeout_ms === "number" ? setup.approval_timeout_ms : timeoutMs,
      resolver: setup.approval_resolver === true,
      redactor: setup.redactor === true,
    };
    const emitter = new Emitter(callbacks, config, `sess-${++sessions}`);
    return runAgent(emitter, setup.scenario as JsonObject);
  },
};

serve(host, new Link()).then((status) => process.exit(status));

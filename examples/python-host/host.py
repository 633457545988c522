#!/usr/bin/env python3
"""A small Agent Hooks host in Python 3.11, standard library only, speaking the
ctk stdio harness protocol (ctk-harness/1, see agent-hooks/adapter/PROTOCOL.md).

The agent loop is genuine: a scripted model and mock tools (the only mocked
I/O) driven through the host's own emitter, which builds each context,
validates its envelope (with the §4.2 types of the point's members) and
bounds, computes jcs-sha256 identities (RFC 8785), dispatches to the
interceptors (scripted in the runner and reached through callbacks), gates
their verdicts (closed at every level; bare or in a response envelope),
composes them with the configured profile (all four of §7, with their
knobs), consults the approval seam, applies transforms with write-back,
checks the composed context again before a permitted action proceeds, and
writes one payload-free interception record per emission. Declaration
vectors build the emitter from a document through declaration.py.

Written from agent-hooks/adapter/PROTOCOL.md and agent-hooks/adapter/HOSTS.md.
What every host adapter needs and is not the host's own (the line link, the
request loop, the callbacks, the scripted model, the mock tools and the run
record) comes from the Python adapter kit, kits/python/ctk_kit; this file is
the host's emitter and its agent loop. stdout carries only protocol messages;
stderr is this host's log.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import hashlib
import itertools
import json
import math
import os
import re
import sys
import tempfile
import threading

import declaration

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "kits", "python"))
from ctk_kit import agent_hooks as kit  # noqa: E402
from ctk_kit.link import CallbackError, RpcError  # noqa: E402

SPEC = "agent-hooks/0.1"
# The ctk-harness/1 adapter features this host implements, announced in initialize
# (agent-hooks/adapter/PROTOCOL.md section 7). `--features LIST` announces LIST instead
# (comma-separated; empty: a base adapter, as CI's compatibility gate runs it).
FEATURES = ["generated-values", "persisted-state", "load-detail", "released-output-absent",
            "deep-lines", "context-sized-fills", "declaration-path-classes", "agent-steps",
            "known-answers", "recorded-contexts"]
POINTS = [
    "agent_startup", "input", "pre_model_call", "post_model_call",
    "pre_tool_call", "post_tool_call", "output", "agent_shutdown",
]
CONDITIONAL = {
    "agent_startup": {"agent_init": ["tools_registered"]},
    "input": {"input": ["content", "role"]},
    "pre_model_call": {"model": ["id"], "messages": None},
    "post_model_call": {"model": ["id"], "response": ["content", "tool_calls", "finish_reason"]},
    "pre_tool_call": {"tool_call": ["id", "name", "args"]},
    "post_tool_call": {"tool_call": ["id", "name", "args"], "tool_result": ["value", "is_error"]},
    "output": {"output": ["content"]},
    "agent_shutdown": {"summary": ["reason"]},
}
# Where a point's target lives, for write-back (None: not transformable).
WRITE_BACK = {
    "agent_startup": None, "input": ("input",), "pre_model_call": ("messages",),
    "post_model_call": ("response",), "pre_tool_call": ("tool_call", "args"),
    "post_tool_call": ("tool_result", "value"), "output": ("output",),
    "agent_shutdown": None,
}
MAX_SAFE_INTEGER = 2**53 - 1
EVIDENCE_MAX_BYTES = 10240
MAX_CONTEXT_BYTES = 5 * 1024 * 1024
DEFAULT_TIMEOUT_MS = 5000
HOST_DECLARATION = os.path.join(HERE, "host.json")


def log(*parts):
    print("python-host:", *parts, file=sys.stderr, flush=True)


# ---------------------------------------------------------------- identity

class DomainError(Exception):
    """The context cannot be identified (§10.2): fail closed, context_invalid."""


def es_number(f: float) -> str:
    """ECMA-262 Number::toString, as RFC 8785 requires."""
    if not math.isfinite(f):
        raise DomainError("non-finite number")
    if f == 0:
        return "0"
    sign = "-" if f < 0 else ""
    d = decimal.Decimal(repr(abs(f)))
    digits = "".join(map(str, d.as_tuple().digits)).rstrip("0") or "0"
    exponent = d.as_tuple().exponent + len("".join(map(str, d.as_tuple().digits)))
    k, n = len(digits), exponent
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mant = digits[0] + ("." + digits[1:] if k > 1 else "")
        body = f"{mant}e{'+' if e >= 0 else '-'}{abs(e)}"
    return sign + body


def jcs(value) -> str:
    """RFC 8785 canonical JSON text."""
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return es_number(value)
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError as e:
            raise DomainError("lone surrogate in a string") from e
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ",".join(jcs(v) for v in value) + "]"
    if isinstance(value, dict):
        items = sorted(value.items(), key=lambda kv: kv[0].encode("utf-16-be"))
        return "{" + ",".join(jcs(k) + ":" + jcs(v) for k, v in items) + "}"
    raise DomainError(f"not a JSON value: {type(value).__name__}")


def check_domain(value, depth=0):
    """I-JSON domain (§4.4, §10.2) and the depth bound (§12.3)."""
    if depth > 128:
        raise DomainError("context nesting deeper than 128 levels")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int):
        if abs(value) > MAX_SAFE_INTEGER:
            raise DomainError("integer exceeds 2^53; string-encode 64-bit identifiers, see spec §4.4")
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise DomainError("non-finite number")
        return
    children = value.values() if isinstance(value, dict) else value
    for child in children:
        check_domain(child, depth + 1)


def validate_envelope(ctx):
    """The §4 envelope checks every emission passes before dispatch."""
    def need(cond, what):
        if not cond:
            raise DomainError(f"context envelope invalid: {what}")
    need(isinstance(ctx, dict), "not an object")
    need(isinstance(ctx.get("spec"), str) and re.fullmatch(r"agent-hooks/\d+\.\d+", ctx["spec"]), "spec")
    point = ctx.get("interception_point")
    need(point in POINTS, "interception_point")
    need(isinstance(ctx.get("timestamp"), str), "timestamp")
    seq = ctx.get("sequence")
    need(isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0, "sequence")
    agent = ctx.get("agent")
    need(isinstance(agent, dict) and isinstance(agent.get("id"), str) and agent["id"], "agent.id")
    need(isinstance(agent.get("framework"), str) and re.fullmatch(r"[a-z0-9_-]+", agent["framework"]), "agent.framework")
    session = ctx.get("session")
    need(isinstance(session, dict) and isinstance(session.get("id"), str) and session["id"], "session.id")
    need("target" in ctx, "target")
    for key, subfields in CONDITIONAL[point].items():
        need(key in ctx, key)
        if subfields is not None:
            need(isinstance(ctx[key], dict) and all(s in ctx[key] for s in subfields), key)
        need(conditional_types_hold(key, ctx[key]), f"{key} (§4.2 types)")


def conditional_types_hold(key, member):
    """The §4.2 JSON types of a conditional member (D-35): checked before
    dispatch and again on the composed context, so that a transform can never
    hand the next step of the loop a value of the wrong shape."""
    def field(name):
        return member.get(name) if isinstance(member, dict) else None

    def string(x):
        return isinstance(x, str)

    if key == "agent_init":
        tools = field("tools_registered")
        return isinstance(tools, list) and all(map(string, tools))
    if key == "input":
        return field("role") in ("user", "system", "external") and isinstance(field("content"), (str, dict))
    if key == "model":
        return string(field("id"))
    if key == "messages":
        return isinstance(member, list) and all(isinstance(m, dict) for m in member)
    if key == "response":
        return isinstance(field("tool_calls"), list) and string(field("finish_reason"))
    if key == "tool_call":
        return string(field("id")) and string(field("name")) and isinstance(field("args"), dict)
    if key == "tool_result":
        return isinstance(field("is_error"), bool)
    if key == "summary":
        return field("reason") in ("completed", "error", "cancelled")
    return True


def check_bounds(ctx):
    """The §12.3 bounds, whatever the provider: nesting depth, then the
    canonical size."""
    def depth(value, level):
        if level > 128:
            raise DomainError("context nesting deeper than 128 levels")
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        for child in children:
            depth(child, level + 1)

    depth(ctx, 1)
    if len(jcs(ctx).encode("utf-8")) > MAX_CONTEXT_BYTES:
        raise DomainError("context larger than 5 MiB in canonical form")


def projection(ctx):
    """The closed whitelist the jcs-sha256 identity is computed over."""
    out = {k: ctx[k] for k in ("spec", "interception_point", "timestamp", "sequence", "target")}
    out["agent"] = {"id": ctx["agent"]["id"], "framework": ctx["agent"]["framework"]}
    out["session"] = {"id": ctx["session"]["id"]}
    for key, subfields in CONDITIONAL[ctx["interception_point"]].items():
        out[key] = ctx[key] if subfields is None else {s: ctx[key][s] for s in subfields}
    return out


def identity(provider, ctx):
    """The context identity under `provider`; DomainError fails closed."""
    if provider is None:
        return None
    if provider != "jcs-sha256":
        # This host registers no custom provider: the kit's `ctk-fault` (and
        # any other name) fails every compute, and must fail closed.
        raise DomainError(f"identity provider {provider!r} failed")
    validate_envelope(ctx)
    proj = projection(ctx)
    check_domain(proj)
    return "sha256:" + hashlib.sha256(jcs(proj).encode("utf-8")).hexdigest()


# ---------------------------------------------------------------- verdicts

class GateError(Exception):
    """A verdict or transform failed; `reason` is the host_error to deny with."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason
        self.message = message


PATH_SEGMENT = re.compile(r'\.([A-Za-z0-9_-]+)|\[(\d+)\]|\["([A-Za-z0-9_-]+)"\]')


def parse_path(path):
    """§5.2 path grammar: $target (or $policy_target) then segments."""
    if not isinstance(path, str):
        raise GateError("host_error:verdict_invalid", "transform path is not a string")
    m = re.match(r"\$(policy_target|target)(?![A-Za-z0-9_-])", path)
    if not m:
        raise GateError("host_error:transform_target_forbidden", "transform path is not rooted at $target")
    segments, pos = [], m.end()
    while pos < len(path):
        seg = PATH_SEGMENT.match(path, pos)
        if not seg:
            raise GateError("host_error:transform_invalid", "transform path does not parse")
        name, index, quoted = seg.groups()
        segments.append(int(index) if index is not None else (name if name is not None else quoted))
        pos = seg.end()
    return segments


def apply_transform(target, transform):
    """Replace the value at the path inside `target`; returns the new target."""
    segments = parse_path(transform.get("path"))
    value = copy.deepcopy(transform.get("value"))
    if not segments:
        return value
    node = target
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if isinstance(seg, int):
            ok = isinstance(node, list) and seg < len(node)
        else:
            ok = isinstance(node, dict) and seg in node
        if not ok:
            raise GateError("host_error:transform_invalid", "transform path does not resolve in the target")
        if last:
            node[seg] = value
        else:
            node = node[seg]
    return target


VERDICT_MEMBERS = {"decision", "reason", "message", "warnings", "approval", "transform", "evidence", "result_labels"}


def gate(answer):
    """The §5 verdict gate: the verdict (null members dropped), or GateError.
    Accepts a bare verdict or the response envelope {"verdict": {...},
    "extensions": {...}} (an object with `verdict` and no `decision`); only
    the nested verdict is judged and enforced, `extensions` is dropped."""
    bad = GateError("host_error:verdict_invalid", "the verdict is invalid")
    if not isinstance(answer, dict):
        raise bad
    if "verdict" in answer and "decision" not in answer:
        for key, value in answer.items():
            if not (key == "verdict" or (key == "extensions" and isinstance(value, dict))):
                raise GateError("host_error:verdict_invalid", "the response envelope has an unknown or mistyped member")
        answer = answer["verdict"]
        if not isinstance(answer, dict):
            raise GateError("host_error:verdict_invalid", "the response envelope's verdict is not an object")
    # The verdict is closed at every level; a null member counts as absent.
    if not set(answer) <= VERDICT_MEMBERS:
        raise GateError("host_error:verdict_invalid", "the verdict has an unknown member")
    v = {k: x for k, x in answer.items() if x is not None}
    decision = v.get("decision")
    if decision not in ("allow", "deny", "transform"):
        raise bad

    def text_ok(obj, key, reason=False):
        x = obj.get(key)
        return x is None or (isinstance(x, str) and not (reason and x.startswith("host_error:")))

    if not text_ok(v, "reason", True) or not text_ok(v, "message"):
        raise bad
    warnings = v.get("warnings")
    if warnings is not None:
        if not isinstance(warnings, list):
            raise bad
        for w in warnings:
            if not isinstance(w, dict) or not set(w) <= {"reason", "message"}:
                raise bad
            if not text_ok(w, "reason", True) or not text_ok(w, "message"):
                raise bad
    approval = v.get("approval")
    if approval is not None and (not isinstance(approval, dict) or decision != "deny"):
        raise bad
    transform = v.get("transform")
    if (transform is not None) != (decision == "transform"):
        raise bad
    if transform is not None:
        if not isinstance(transform, dict) or not set(transform) <= {"path", "value"} or "path" not in transform:
            raise bad
        parse_path(transform["path"])  # a non-string path is verdict_invalid (P-8)
    evidence = v.get("evidence")
    if evidence is not None:
        if not isinstance(evidence, dict):
            raise bad
        for key, x in evidence.items():
            if key == "artefact":
                ok = x is None or isinstance(x, str)
            elif key == "verification_pointers":
                ok = isinstance(x, dict) and all(isinstance(u, str) for u in x.values())
            else:
                ok = False
            if not ok:
                raise bad
        try:
            if len(jcs(evidence).encode("utf-8")) > EVIDENCE_MAX_BYTES:
                raise bad
        except DomainError as e:
            raise bad from e
    labels = v.get("result_labels")
    if labels is not None and (not isinstance(labels, list) or not all(isinstance(x, str) for x in labels)):
        raise bad
    return v


def host_deny(reason, message):
    return {"decision": "deny", "reason": reason, "message": message}


def is_host_error(v):
    return isinstance(v.get("reason"), str) and v["reason"].startswith("host_error:")


def truncate(text, limit=256):
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    cut = raw[: limit - len("…".encode("utf-8"))].decode("utf-8", errors="ignore")
    return cut + "…"


def project_verdict(v):
    """The payload-free projection a record carries (§10.3)."""
    out = {"decision": v["decision"]}
    if v.get("reason") is not None:
        out["reason"] = v["reason"]
    if v.get("message") is not None:
        out["message"] = truncate(v["message"])
    if v.get("warnings"):
        ws = []
        for w in v["warnings"]:
            pw = {}
            if w.get("reason") is not None:
                pw["reason"] = w["reason"]
            if w.get("message") is not None:
                pw["message"] = truncate(w["message"])
            ws.append(pw)
        out["warnings"] = ws
    if v.get("approval") is not None:
        out["approval"] = {}
    if v.get("transform") is not None:
        out["transform"] = {"path": v["transform"]["path"]}
    if v.get("evidence") is not None:
        out["evidence"] = v["evidence"]
    if v.get("result_labels"):
        out["result_labels"] = v["result_labels"]
    return out


def timeout_s(ms):
    """A timeout in milliseconds as the kit's seconds; None (unbounded) stays None."""
    return None if ms is None else ms / 1000


# ---------------------------------------------------------------- emitter

class Emitter:
    """Builds contexts, dispatches, composes (the four §7 profiles), consults
    the approval seam and records one record per emission.

    `config` says what is registered: `spec`, `mode`, `provider`,
    `composition` (profile and its consulted knob), `bindings` (each
    `{index, name, at, timeout_ms}`: callback index, binding id or None,
    points or None for every point, timeout or None for unbounded),
    `resolver` and `redactor` (bools), `approval_timeout_ms`, and
    `declaration` (the document's version when built from one, else None)."""

    def __init__(self, callbacks, config, session_n):
        self.callbacks = callbacks
        self.config = config
        self.mode = config["mode"]
        self.provider = config["provider"]
        self.bindings = config["bindings"]
        self.composition = config["composition"]
        self.profile = self.composition["profile"]
        self.approval_timeout_ms = config["approval_timeout_ms"]
        self.sequence = 0
        self.session = f"sess-{session_n}"
        self.records = []
        self.labels = []
        self.seq_lock = threading.Lock()

    def context(self, point, conditional, target):
        now = datetime.datetime.now(datetime.timezone.utc)
        ctx = {
            "spec": self.config["spec"],
            "interception_point": point,
            "timestamp": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
            "sequence": self.sequence,
            "agent": {"id": "py-agent", "framework": "python-example"},
            "session": {"id": self.session},
            "target": target,
        }
        ctx.update(conditional)
        with self.seq_lock:
            ctx["sequence"] = self.sequence
            self.sequence += 1
        return ctx

    def bound(self, point):
        """The bindings at `point`, in registration (document) order."""
        return [b for b in self.bindings if b["at"] is None or point in b["at"]]

    def intercept(self, binding, ctx):
        """A binding's interceptor on its own copy: the verdict after the gate."""
        try:
            # A changed copy (the third member) belonged to the interceptor
            # alone: the live context is never shared, so it changes nothing here.
            outcome, answer, _ = self.callbacks.intercept(binding["index"], copy.deepcopy(ctx),
                                                          timeout_s(binding["timeout_ms"]))
        except TimeoutError:
            return host_deny("host_error:interceptor_timeout", "the interceptor did not answer in time")
        except CallbackError:
            return host_deny("host_error:interceptor_failed", "the interceptor could not be called")
        if outcome == "raised":
            return host_deny("host_error:interceptor_failed", "the interceptor raised")
        try:
            return gate(answer)
        except GateError as e:
            return host_deny(e.reason, e.message)

    def write_target(self, ctx, point, target):
        if WRITE_BACK[point] is None:
            raise GateError("host_error:transform_target_forbidden", f"{point} does not allow transforms")
        ctx["target"] = target
        path = WRITE_BACK[point]
        holder = ctx
        for key in path[:-1]:
            holder = holder[key]
        holder[path[-1]] = target

    def fold(self, ctx, point, verdict):
        """Apply a permit's transform to the live context (enforce) or only
        check it on a copy (evaluate_only)."""
        if verdict["decision"] != "transform":
            return
        if WRITE_BACK[point] is None:
            raise GateError("host_error:transform_target_forbidden", f"{point} does not allow transforms")
        if self.mode == "evaluate_only":
            apply_transform(copy.deepcopy(ctx["target"]), verdict["transform"])
            return
        self.write_target(ctx, point, apply_transform(copy.deepcopy(ctx["target"]), verdict["transform"]))

    def consult(self, ctx, point, deny):
        """The approval seam (§9): ('approval', permit) or ('rejection', deny)."""
        request_ctx = copy.deepcopy(ctx)
        wait = timeout_s(self.approval_timeout_ms)
        if self.config["redactor"]:
            try:
                outcome, redacted = self.callbacks.redact(request_ctx, wait)
            except (TimeoutError, CallbackError):
                outcome = "failed"
            if outcome != "redacted":
                return "rejection", host_deny("host_error:approval_resolver_failed", "the redactor failed")
            request_ctx = redacted
        try:
            request_identity = identity(self.provider, request_ctx) if isinstance(request_ctx, dict) else None
        except DomainError:
            return "rejection", host_deny("host_error:context_invalid", "the approval context cannot be identified")
        request = {"context_identity": request_identity, "interception_point": point,
                   "verdict": deny, "context": request_ctx}
        try:
            outcome, res = self.callbacks.resolve_approval(request, wait)
        except (TimeoutError, CallbackError):
            outcome = "failed"
        if outcome != "resolution":
            return "rejection", host_deny("host_error:approval_resolver_failed", "the approval resolver failed")
        if not isinstance(res, dict):
            return "rejection", host_deny("host_error:approval_resolver_failed", "the resolution is not an object")
        if "context_identity" not in res or res["context_identity"] != request_identity:
            return "rejection", host_deny("host_error:approval_identity_mismatch", "the resolution does not echo the request identity")
        outcome = res.get("outcome")
        has_verdict = res.get("verdict") is not None
        if (not set(res) <= {"outcome", "context_identity", "verdict"}
                or outcome not in ("approve", "reject", "unresolved") or has_verdict == (outcome == "unresolved")):
            return "rejection", host_deny("host_error:approval_resolver_failed", "the resolution is malformed")
        if outcome == "unresolved":
            return "rejection", host_deny("host_error:approval_unresolved", "the approval is unresolved")
        try:
            verdict = gate(res["verdict"])
        except GateError as e:
            return "rejection", host_deny(e.reason, "the resolution's verdict: " + e.message)
        permit = verdict["decision"] in ("allow", "transform")
        if (outcome == "approve") != permit:
            return "rejection", host_deny("host_error:verdict_invalid", "the resolution's verdict contradicts its outcome")
        return ("approval", verdict) if permit else ("rejection", verdict)

    def emit(self, point, conditional, target):
        """One emission: returns (permitted, ctx) with the ctx as enforced."""
        ctx = self.context(point, conditional, target)
        bound = self.bound(point)
        record = {
            "interception_point": point,
            "mode": self.mode,
            "identity_provider": self.provider,
            "session_id": ctx["session"]["id"],
            "sequence": ctx["sequence"],
            "timestamp": ctx["timestamp"],
            "composition": dict(self.composition),
            "interceptors_registered": len(bound),
        }
        if self.config["declaration"] is not None:
            record["declaration"] = self.config["declaration"]
        sequential = self.profile.startswith("sequential/")
        try:
            # The §4 envelope (with the §4.2 types) and the §12.3 bounds,
            # whatever the provider; then the provider's own checks.
            validate_envelope(ctx)
            check_bounds(ctx)
            input_identity = identity(self.provider, ctx)
        except DomainError as e:
            combined = host_deny("host_error:context_invalid", str(e))
            record.update(verdict=project_verdict(combined), input_identity=None,
                          enforced_identity=None, decided_by=None)
            if self.profile != "sequential/first_deny":
                record["verdicts"] = []  # the record schema requires it (10.3-h); nothing ran
            self.records.append(record)
            return self.permitted(combined), ctx

        if not bound:
            combined = host_deny("host_error:no_interceptor", "no interceptor is bound at this point")
            decided_by, truncated, resolved_by, verdicts, seen = None, False, None, [], []
        else:
            compose = {
                "sequential/first_deny": self.first_deny,
                "sequential/run_all": self.run_all,
                "parallel/strictest": self.strictest,
                "parallel/unanimous": self.unanimous,
            }[self.profile]
            combined, decided_by, truncated, resolved_by, verdicts, seen = compose(ctx, point, bound)
        combined = self.unions(combined, seen)

        if self.mode == "evaluate_only":
            enforced_identity = input_identity  # nothing was applied
        elif combined["decision"] == "deny":
            # The deny stands; the identity of the composed context is
            # recorded when it can be computed.
            try:
                enforced_identity = identity(self.provider, ctx)
            except DomainError:
                enforced_identity = None
        else:
            # What the next step would use must still be a context of the
            # point (D-35) inside the bounds: otherwise fail closed here.
            try:
                validate_envelope(ctx)
                check_bounds(ctx)
                enforced_identity = identity(self.provider, ctx)
            except DomainError as e:
                combined = host_deny("host_error:context_invalid", str(e))
                enforced_identity, decided_by = None, None
        record.update(verdict=project_verdict(combined), input_identity=input_identity,
                      enforced_identity=enforced_identity, decided_by=decided_by)
        if sequential:
            record["fold_truncated"] = bool(truncated)
        # Required under run_all and the parallel profiles (10.3-h), empty
        # when nothing was invoked; first_deny carries it when non-empty.
        if verdicts or self.profile != "sequential/first_deny":
            record["verdicts"] = verdicts
        if resolved_by is not None:
            record["resolved_by"] = resolved_by
        self.records.append(record)
        permitted = self.permitted(combined)
        if permitted and combined.get("result_labels"):
            # §5.4: the labels persist with the data they describe.
            self.labels.append({"interception_point": point, "sequence": ctx["sequence"],
                                "labels": list(combined["result_labels"])})
        return permitted, ctx

    def emit_self_denied(self, point, conditional, target, reason):
        """An emission the host denies itself, without dispatching, for a
        fact no verdict can change (unevaluated stream residue, §12.1)."""
        ctx = self.context(point, conditional, target)
        bound = self.bound(point)
        record = {"interception_point": point, "mode": self.mode, "identity_provider": self.provider,
                  "session_id": ctx["session"]["id"], "sequence": ctx["sequence"], "timestamp": ctx["timestamp"],
                  "composition": dict(self.composition), "interceptors_registered": len(bound)}
        if self.config["declaration"] is not None:
            record["declaration"] = self.config["declaration"]
        try:
            validate_envelope(ctx)
            check_bounds(ctx)
            ident = identity(self.provider, ctx)
            verdict = host_deny(reason, "the stream ended before a verdict covered it")
        except DomainError as e:
            ident, verdict = None, host_deny("host_error:context_invalid", str(e))
        record.update(verdict=project_verdict(verdict), input_identity=ident, enforced_identity=ident,
                      decided_by=None)
        if self.profile.startswith("sequential/"):
            record["fold_truncated"] = False
        self.records.append(record)
        return False

    # ------------------------------------------------------------ profiles
    # Each returns (combined, decided_by, fold_truncated, resolved_by,
    # verdicts[] entries, every verdict seen, for the unions).

    @staticmethod
    def entry(slot, binding, v):
        e = {"index": slot, "decision": v["decision"]}
        if v.get("reason") is not None:
            e["reason"] = v["reason"]
        if binding["name"] is not None:
            e["name"] = binding["name"]
        return e

    def can_consult(self, point):
        """Whether the approval seam may be consulted at all."""
        return self.config["resolver"] and self.mode == "enforce" and point != "agent_shutdown"

    @staticmethod
    def liftable(v):
        return v["decision"] == "deny" and v.get("approval") is not None and not is_host_error(v)

    def lift(self, ctx, point, deny, slot):
        """Consult the seam for `deny` (at `slot`, None when synthesized) and
        apply a permit: (combined, decided_by, resolved_by, resolution)."""
        resolved_by, resolution = self.consult(ctx, point, deny)
        if resolved_by == "rejection":
            return resolution, (None if is_host_error(resolution) or slot is None else slot), resolved_by, resolution
        try:
            self.fold(ctx, point, resolution)
        except GateError as e:
            return host_deny(e.reason, e.message), None, resolved_by, resolution
        return resolution, slot, resolved_by, resolution

    def first_deny(self, ctx, point, bound):
        """§7.4: registration order, a fold; the first standing deny stops."""
        resume = self.composition.get("on_approval") == "resume"
        verdicts, seen, permits = [], [], []
        resolved_by, last_transform = None, None
        for slot, b in enumerate(bound):
            v = self.intercept(b, ctx)
            seen.append(v)
            verdicts.append(self.entry(slot, b, v))
            rest = slot < len(bound) - 1
            if v["decision"] == "deny":
                if not (self.liftable(v) and self.can_consult(point)):
                    return v, slot, rest, resolved_by, verdicts, seen
                combined, decided_by, resolved_by, resolution = self.lift(ctx, point, v, slot)
                seen.append(resolution)
                if combined["decision"] == "deny" or not resume:
                    return combined, decided_by, rest, resolved_by, verdicts, seen
                # on_approval: resume: the permit substitutes at this slot.
                permits.append(combined)
                if combined["decision"] == "transform":
                    last_transform = (slot, combined)
                continue
            if v["decision"] == "transform":
                try:
                    self.fold(ctx, point, v)
                except GateError as e:
                    return host_deny(e.reason, e.message), None, rest, resolved_by, verdicts, seen
                last_transform = (slot, v)
            permits.append(v)
        if last_transform is not None:
            return last_transform[1], last_transform[0], False, resolved_by, verdicts, seen
        # Every verdict allowed: the lowest-index allow is the winner, so its
        # reason, message and evidence reach the record (D-29).
        return dict(permits[0]), None, False, resolved_by, verdicts, seen

    def run_all(self, ctx, point, bound):
        """§7.4: every interceptor runs in order, transforms fold; the
        severity-max verdict combines. The seam is consulted at most once,
        when every deny is liftable."""
        verdicts, seen = [], []
        for slot, b in enumerate(bound):
            v = self.intercept(b, ctx)
            seen.append(v)
            verdicts.append(self.entry(slot, b, v))
            if v["decision"] == "transform":
                try:
                    self.fold(ctx, point, v)
                except GateError as e:
                    return host_deny(e.reason, e.message), None, slot < len(bound) - 1, None, verdicts, seen
        return self.by_severity(ctx, point, seen[:len(bound)], verdicts, seen, False, apply_transform=False)

    def by_severity(self, ctx, point, slots, verdicts, seen, truncated, apply_transform):
        """The severity-max winner over `slots` (plain deny, liftable deny,
        transform, allow; block ties to the lowest index), with at most one
        consultation when every deny is liftable."""
        denies = [(i, v) for i, v in enumerate(slots) if v["decision"] == "deny"]
        if denies:
            plain = [(i, v) for i, v in denies if not self.liftable(v)]
            slot, v = plain[0] if plain else denies[0]
            if plain or not self.can_consult(point):
                return v, slot, truncated, None, verdicts, seen
            combined, decided_by, resolved_by, resolution = self.lift(ctx, point, v, slot)
            seen.append(resolution)
            return combined, decided_by, truncated, resolved_by, verdicts, seen
        transforms = [(i, v) for i, v in enumerate(slots) if v["decision"] == "transform"]
        if transforms:
            slot, v = transforms[-1]
            if apply_transform:
                try:
                    self.fold(ctx, point, v)
                except GateError as e:
                    return host_deny(e.reason, e.message), None, truncated, None, verdicts, seen
            return v, slot, truncated, None, verdicts, seen
        return dict(slots[0]), None, truncated, None, verdicts, seen

    def parallel(self, ctx, bound):
        """Every bound interceptor on its own copy of one untransformed
        snapshot, dispatched concurrently; verdicts in registration order."""
        out = [None] * len(bound)

        def one(i, b):
            out[i] = self.intercept(b, ctx)

        threads = [threading.Thread(target=one, args=(i, b), daemon=True) for i, b in enumerate(bound)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return out

    def synthesized(self, ctx, point, reason, knob):
        """A profile-synthesized failure: denied with `reason`, or, with the
        knob at `approval`, a liftable deny the seam is consulted for."""
        if self.composition.get(knob) != "approval":
            return host_deny(reason, "the interceptors disagree"), None, None, []
        deny = {"decision": "deny", "reason": reason, "message": "the interceptors disagree", "approval": {}}
        if self.can_consult(point):
            combined, _, resolved_by, resolution = self.lift(ctx, point, deny, None)
            return combined, None, resolved_by, [resolution]
        # Nothing can lift it, but it stays the liftable deny the knob asks for.
        return deny, None, None, []

    def strictest(self, ctx, point, bound):
        """§7.5: the strictest verdict wins; two or more transforms conflict."""
        slots = self.parallel(ctx, bound)
        verdicts = [self.entry(i, b, v) for i, (b, v) in enumerate(zip(bound, slots))]
        seen = list(slots)
        transforms = [v for v in slots if v["decision"] == "transform"]
        if not any(v["decision"] == "deny" for v in slots) and len(transforms) >= 2:
            combined, decided_by, resolved_by, extra = self.synthesized(
                ctx, point, "host_error:transform_conflict", "on_transform_conflict")
            return combined, decided_by, None, resolved_by, verdicts, seen + extra
        return self.by_severity(ctx, point, slots, verdicts, seen, None, apply_transform=True)

    def unanimous(self, ctx, point, bound):
        """§7.5: allow only when every verdict allows; any deny (an
        interceptor failure included) or transform is a disagreement."""
        slots = self.parallel(ctx, bound)
        verdicts = [self.entry(i, b, v) for i, (b, v) in enumerate(zip(bound, slots))]
        seen = list(slots)
        if all(v["decision"] == "allow" for v in slots):
            return dict(slots[0]), None, None, None, verdicts, seen
        combined, decided_by, resolved_by, extra = self.synthesized(
            ctx, point, "host_error:composition_disagreement", "on_disagreement")
        return combined, decided_by, None, resolved_by, verdicts, seen + extra

    @staticmethod
    def unions(combined, seen):
        """Warnings: first-seen union over every verdict; result labels:
        union over permit verdicts, kept only when the combined permits."""
        out = dict(combined)
        warnings = []
        for v in seen:
            for w in v.get("warnings") or []:
                if not any(x.get("reason") == w.get("reason") and x.get("message") == w.get("message") for x in warnings):
                    warnings.append(w)
        if warnings:
            out["warnings"] = warnings
        if combined["decision"] == "deny":
            out.pop("result_labels", None)
        else:
            labels = []
            for v in seen:
                if v["decision"] != "deny":
                    for label in v.get("result_labels") or []:
                        if label not in labels:
                            labels.append(label)
            if labels:
                out["result_labels"] = labels
        return out

    def permitted(self, combined):
        self.last_reason = combined.get("reason")
        return self.mode == "evaluate_only" or combined["decision"] != "deny"


# ---------------------------------------------------------------- agent loop

def run_agent(emitter, scenario):
    """The agent loop (HOSTS.md §4) over the kit's scripted model and mock
    tools; returns the run record."""
    tools = kit.Tools(scenario)
    script = kit.Script(scenario)
    messages = []

    def finish(outcome, final=None, error=None):
        summary = {"reason": "completed" if outcome == "completed" else "error"}
        emitter.emit("agent_shutdown", {"summary": summary}, summary)
        # What the session made durable: its history and the labels kept
        # with permitted data.
        return kit.run_record(outcome, final, tools, records=emitter.records,
                              persisted={"messages": messages, "labels": emitter.labels}, error=error)

    agent_init = {"tools_registered": tools.registered()}
    ok, _ = emitter.emit("agent_startup", {"agent_init": agent_init}, agent_init)
    if not ok:
        return finish("blocked")
    final = None
    try:
        for user_input in kit.inputs(scenario):
            ok, ctx = emitter.emit("input", {"input": user_input}, user_input)
            if not ok:
                return finish("blocked")
            user_input = ctx["input"]
            messages.append({"role": user_input["role"], "content": user_input["content"]})
            while True:
                ok, ctx = emitter.emit("pre_model_call", {"model": {"id": "mock"}, "messages": messages}, messages)
                if not ok:
                    return finish("blocked")
                messages[:] = ctx["messages"]
                # A failed model call (respond.error) ends the run unmediated (§12.1).
                scripted = script.next_response()
                if scripted.get("stream") and scripted.get("stream_truncated"):
                    # This host buffers: a stream that died cannot be
                    # assembled, and its residue was covered by no verdict.
                    residue = {"content": "".join(scripted["stream"]), "tool_calls": [],
                               "finish_reason": "stream_incomplete"}
                    emitter.emit_self_denied("post_model_call", {"model": {"id": "mock"}, "response": residue},
                                             residue, "host_error:streaming_unsupported")
                    return finish("blocked")
                response = kit.response_of(scripted)
                ok, ctx = emitter.emit("post_model_call", {"model": {"id": "mock"}, "response": response}, response)
                if not ok:
                    return finish("blocked")
                response = ctx["response"]
                if not response.get("tool_calls"):
                    final = response.get("content")
                    break
                if scripted.get("parallel"):
                    messages.extend(parallel_tools(emitter, tools, response["tool_calls"]))
                else:
                    for call in response["tool_calls"]:
                        messages.append(tool_turn(emitter, tools, call))
                content = response.get("content")
                messages.append({"role": "assistant", "content": "" if content is None else content})
            if final is not None:
                output = {"content": final}
                ok, ctx = emitter.emit("output", {"output": output}, output)
                if not ok:
                    return finish("blocked")
                final = ctx["output"]["content"]
                messages.append({"role": "assistant", "content": final})
    except kit.ScenarioError as e:
        return finish("error", error=str(e))
    return finish("completed", final)


def parallel_tools(emitter, tools, calls):
    """`respond.parallel`: each call's pre_tool_call / tool / post_tool_call
    pair in its own thread; the messages come back in the order of the calls."""
    out = [None] * len(calls)

    def one(i, call):
        try:
            out[i] = tool_turn(emitter, tools, call)
        except kit.ScenarioError as e:
            out[i] = e

    threads = [threading.Thread(target=one, args=(i, c), daemon=True) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for m in out:
        if isinstance(m, kit.ScenarioError):
            raise m
    return out


def tool_turn(emitter, tools, call):
    """One tool call through pre_tool_call, the mock, post_tool_call; the
    message it contributes to the conversation."""
    # Read defensively: a permitted transform of the response only guarantees
    # that `tool_calls` is an array; a malformed call then fails the
    # pre_tool_call envelope (context_invalid) instead of crashing the loop.
    call = call if isinstance(call, dict) else {}
    tool_call = {"id": call.get("id"), "name": call.get("name"), "args": copy.deepcopy(call.get("args", {}))}
    ok, ctx = emitter.emit("pre_tool_call", {"tool_call": tool_call}, tool_call["args"])
    if not ok:
        return kit.blocked(emitter.last_reason)
    tool_call = ctx["tool_call"]
    value, is_error = tools.invoke(tool_call["name"], tool_call["args"])
    result = {"value": value, "is_error": is_error}
    ok, ctx = emitter.emit("post_tool_call", {"tool_call": copy.deepcopy(tool_call), "tool_result": result}, result["value"])
    if not ok:
        return kit.blocked(emitter.last_reason)
    return {"role": "tool", "content": ctx["tool_result"]["value"]}


# ---------------------------------------------------------------- serving

def configured(params):
    """The setup as this host runs it, its composition completed with the
    default of the knob its profile consults; RpcError in phase setup for one
    this host cannot run."""
    if params.get("spec") != SPEC:
        raise RpcError(-32000, f"this host emits {SPEC} only", "setup")
    comp = dict(params.get("composition") or {"profile": "sequential/first_deny"})
    profile = comp.get("profile", "sequential/first_deny")
    knob = declaration.PROFILES.get(profile, (None,))[0]
    if profile not in declaration.PROFILES or any(k in comp for k in declaration.KNOBS - {knob}):
        raise RpcError(-32000, f"composition {comp} is not one this host can configure", "setup")
    if knob is not None:
        comp[knob] = comp.get(knob, declaration.PROFILES[profile][2])
    return dict(params, composition=comp)


class Host(kit.Host):
    """This host as the kit serves it: its identity and features, and each
    vector's emitter."""

    def __init__(self, features):
        self.sessions = itertools.count(1)
        self.features = features

    def info(self):
        with open(HOST_DECLARATION, encoding="utf-8") as f:
            declaration = json.load(f)
        return {"name": "python-example-host", "version": "0.1.0", "spec_versions": [SPEC],
                "declaration": declaration, "features": self.features}

    def setup(self, params):
        configured(params)

    def run(self, setup, callbacks):
        """Build the emitter (from the setup, or from its declaration
        document), run the scenario, report the run record."""
        setup = configured(setup)
        load = None
        if any(k in setup for k in ("declaration", "declaration_text", "declaration_file")):
            loaded, load = load_declared(setup, scripts=len(setup["interceptors"]))
            if loaded is None:
                return kit.run_record("error", records=[], error=load["detail"], load=load)
            config = declared_config(setup, loaded)
        else:
            timeout_ms = setup.get("interceptor_timeout_ms", DEFAULT_TIMEOUT_MS)
            config = {
                "spec": setup["spec"], "mode": setup.get("mode", "enforce"),
                "provider": setup.get("identity_provider"), "composition": setup["composition"],
                "bindings": [{"index": i, "name": None, "at": None, "timeout_ms": timeout_ms}
                             for i in range(len(setup["interceptors"]))],
                "resolver": bool(setup.get("approval_resolver")), "redactor": bool(setup.get("redactor")),
                # The approval timeout inherits the interceptor timeout (HOSTS.md §6).
                "approval_timeout_ms": setup.get("approval_timeout_ms", timeout_ms),
                "declaration": None,
            }
        emitter = Emitter(callbacks, config, next(self.sessions))
        run = run_agent(emitter, setup["scenario"])
        if load is not None:
            run["load"] = load
        return run


# ---------------------------------------------------------------- declarations

def kit_registry(scripts):
    """The conformance registry of a declaration vector (HOSTS.md §3.1): this
    host's code, plus the kit's `ctk.scripted` kind over `scripts`
    interceptor scripts, its resolver, redactor and fault provider."""
    def scripted(config, binding):
        script = config.get("script") if isinstance(config, dict) else None
        if not declaration.is_int(script) or not 0 <= script < scripts:
            raise ValueError("config.script names no interceptor script of this vector")
        return script  # the callback index of the binding's interceptor

    return declaration.Registry(kinds={"ctk.scripted": scripted}, providers={"ctk-fault"},
                                resolvers={"ctk-scripted"}, redactors={"ctk-redact"})


def fault_bytes(fault, text):
    """The bytes of a `bom`, `invalid_utf8` or `oversized` file (PROTOCOL.md §2.2)."""
    raw = text.encode("utf-8")
    if fault == "bom":
        return b"\xef\xbb\xbf" + raw
    if fault == "invalid_utf8":
        at = raw.index(b'"') + 1 if b'"' in raw else 0
        return raw[:at] + b"\xff" + raw[at:]
    return raw + b" " * max(0, 1024 * 1024 + 1 - len(raw))


def load_file(loader, fault=None, text=None):
    """Load through the file path, from a file in a fresh temporary directory."""
    with tempfile.TemporaryDirectory(prefix="python-host-") as tmp:
        path = os.path.join(tmp, "declaration.json")
        if fault == "directory":
            os.mkdir(path)
        elif fault != "missing":
            if text is None:
                raise declaration.Refusal("unreadable", [("", "the file fault has no document text to build the file from")])
            with open(path, "wb") as f:
                f.write(text.encode("utf-8") if fault is None else fault_bytes(fault, text))
        return loader.load_path(path)


def load_declared(setup, scripts):
    """Load the setup's document through every construction path that
    applies and compare them: (Declaration or None, the load record)."""
    loader = declaration.Loader(kit_registry(scripts), setup["spec"])
    paths = []

    def attempt(name, thunk):
        try:
            paths.append((name, thunk()))
        except declaration.Refusal as e:
            paths.append((name, e))

    def value_paths(doc):
        attempt("value", lambda: loader.load_value(doc))
        if isinstance(doc, dict):
            attempt("builder", lambda: loader.load_builder(declaration.Builder.from_document(doc)))

    text = setup.get("declaration_text")
    if "declaration_file" in setup:
        if text is None and "declaration" in setup:
            text = json.dumps(setup["declaration"], ensure_ascii=False)
        attempt("file", lambda: load_file(loader, setup["declaration_file"], text))
    elif text is not None:
        attempt("text", lambda: loader.load_text(text))
        attempt("file", lambda: load_file(loader, None, text))
        exact, doc = declaration.parse_exact(text)
        if exact:
            value_paths(doc)
    else:
        doc = setup["declaration"]
        value_paths(doc)
        serialized = json.dumps(doc, ensure_ascii=False)
        attempt("text", lambda: loader.load_text(serialized))
        attempt("file", lambda: load_file(loader, None, serialized))

    def summary(name, outcome):
        if isinstance(outcome, declaration.Refusal):
            # D-78: step 1 runs on the file path only, so its unreadable is the text path's malformed.
            if name == "file" and outcome.cls == "declaration_error:unreadable":
                return "refused declaration_error:malformed"
            return "refused " + outcome.cls
        return "accepted " + jcs(outcome.resolved)

    first_name, first = paths[0]
    reference = summary(first_name, first)
    detail = None
    for name, outcome in paths[1:]:
        other = summary(name, outcome)
        if other != reference:
            detail = f"the {name} path differs from the {first_name} path: {reference[:200]}; {other[:200]}"
            break
    if isinstance(first, declaration.Refusal):
        load = {"outcome": "refused", "class": first.cls, "paths_equivalent": detail is None,
                "detail": detail or first.detail()}
        return None, load
    load = {"outcome": "accepted", "paths_equivalent": detail is None}
    if detail:
        load["detail"] = detail
    return first, load


def declared_config(setup, loaded):
    """The emitter configuration an accepted declaration selects; the setup
    contributes only its spec (HOSTS.md §3)."""
    resolved = loaded.resolved
    c = resolved["configuration"]
    approval = c["approval"]
    return {
        "spec": setup["spec"], "mode": c["mode"], "provider": c["identity_provider"],
        "composition": c["composition"],
        "bindings": [{"index": index, "name": b["id"], "at": b["at"], "timeout_ms": b["timeout_ms"]}
                     for b, index in zip(resolved["bindings"], loaded.interceptors)],
        "resolver": approval["resolver"] is not None, "redactor": approval["redactor"] is not None,
        "approval_timeout_ms": c["timeouts"]["approval_resolver_ms"],
        "declaration": resolved["declaration"],
    }


def features_from(argv):
    """The features to announce: FEATURES, or `--features LIST`'s (comma-separated; empty: a
    base adapter). Anything else on the command line is a usage error, exit 2."""
    if argv[:1] == ["--features"] and len(argv) == 2:
        return [f for f in argv[1].split(",") if f]
    if argv:
        log("usage: host.py [--features NAME,NAME,...]")
        sys.exit(2)
    return FEATURES


def main(features):
    return kit.serve(Host(features))


if __name__ == "__main__":
    sys.exit(main(features_from(sys.argv[1:])))

#!/usr/bin/env python3
"""A small executable model of the B2 reference loop and a section 5-12 emitter, used only to
cross-check the expectations written into vectors/0.1 for internal consistency. It encodes the
same reading of the contract the vectors were written from, so agreement is evidence of no
clerical slips, not of correctness against the specification. Standard library only.

    python3 vectors/gen/sim.py [CTK-0001 ...]
"""
import copy
import hashlib
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MAX_SAFE = 2 ** 53 - 1
SEV = {"allow": 0, "transform": 1, "liftable": 2, "deny": 3}
KNOB = {"sequential/first_deny": ("on_approval", "stop"), "parallel/strictest": ("on_transform_conflict", "deny"),
        "parallel/unanimous": ("on_disagreement", "deny"), "sequential/run_all": None}
ALIAS = {"agent_startup": "agent_init", "input": "input", "pre_model_call": "messages", "post_model_call": "response",
         "pre_tool_call": ("tool_call", "args"), "post_tool_call": ("tool_result", "value"), "output": "output",
         "agent_shutdown": "summary"}
COND = {"agent_startup": {"agent_init": ["tools_registered"]}, "input": {"input": ["content", "role"]},
        "pre_model_call": {"model": ["id"], "messages": None},
        "post_model_call": {"model": ["id"], "response": ["content", "tool_calls", "finish_reason"]},
        "pre_tool_call": {"tool_call": ["id", "name", "args"]},
        "post_tool_call": {"tool_call": ["id", "name", "args"], "tool_result": ["value", "is_error"]},
        "output": {"output": ["content"]}, "agent_shutdown": {"summary": ["reason"]}}


class Fail(Exception):
    pass


# ---------------------------------------------------------------- identity
def num(x):
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, int):
        return str(x)
    if x == 0:
        return "0"
    if x.is_integer() and abs(x) < 1e21:
        return str(int(x))
    r = repr(x)
    if "e" in r:
        m, e = r.split("e")
        e = int(e)
        if -7 < e < 21:
            return format(x, "f").rstrip("0").rstrip(".")
        return "%se%s%d" % (m.rstrip("0").rstrip(".") if "." in m else m, "+" if e > 0 else "-", abs(e))
    return r


def canon(v):
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canon(v[k])
                              for k in sorted(v, key=lambda s: s.encode("utf-16-be"))) + "}"
    if isinstance(v, list):
        return "[" + ",".join(canon(x) for x in v) + "]"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return num(v)
    return json.dumps(v, ensure_ascii=False)


def in_domain(v, depth=0):
    if depth > 128:
        return False
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return True
    if isinstance(v, int):
        return abs(v) <= MAX_SAFE
    if isinstance(v, float):  # float syntax is never judged as an integer (golden G-03 accepts 1e+21)
        return math.isfinite(v)
    if isinstance(v, dict):
        return all(in_domain(x, depth + 1) for x in v.values())
    return all(in_domain(x, depth + 1) for x in v)


def projection(ctx):
    p = {k: ctx[k] for k in ("spec", "interception_point", "timestamp", "sequence", "target")}
    p["agent"] = {k: ctx["agent"][k] for k in ("id", "framework")}
    p["session"] = {"id": ctx["session"]["id"]}
    for k, sub in COND[ctx["interception_point"]].items():
        p[k] = ctx[k] if sub is None else {s: ctx[k][s] for s in sub}
    return p


def identity(ctx, provider):
    """-> (identity or None, error flag)"""
    if provider is None:
        return None, False
    if provider == "ctk-fault":
        return None, True
    pr = projection(ctx)
    if not in_domain(pr):
        return None, True
    return "sha256:" + hashlib.sha256(canon(pr).encode("utf-8")).hexdigest(), False


# ---------------------------------------------------------------- paths
SEG = re.compile(r'\.([A-Za-z0-9_-]+)|\[(\d+)\]|\["([A-Za-z0-9_-]+)"\]')


def parse_path(path):
    """-> list of segments or raise ('forbidden'|'invalid')"""
    if not isinstance(path, str):
        raise ValueError("invalid")
    m = re.match(r"^\$(target|policy_target)", path)
    if not m:
        raise ValueError("forbidden")
    rest, segs, pos = path[m.end():], [], 0
    while pos < len(rest):
        s = SEG.match(rest, pos)
        if not s:
            raise ValueError("invalid")
        segs.append(int(s.group(2)) if s.group(2) is not None else (s.group(1) or s.group(3)))
        pos = s.end()
    return segs


def set_path(target, segs, value):
    """returns the new target or raises KeyError"""
    if not segs:
        return copy.deepcopy(value)
    cur = target
    for s in segs[:-1]:
        cur = step(cur, s)
    last = segs[-1]
    if isinstance(last, int):
        if not isinstance(cur, list) or last >= len(cur):
            raise KeyError
    elif not isinstance(cur, dict) or last not in cur:
        raise KeyError
    cur[last] = copy.deepcopy(value)
    return target


def step(cur, s):
    if isinstance(s, int):
        if isinstance(cur, list) and s < len(cur):
            return cur[s]
        raise KeyError
    if isinstance(cur, dict) and s in cur:
        return cur[s]
    raise KeyError


def lookup(obj, path):
    toks = re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    cur = obj
    for name, idx in toks:
        cur = step(cur, int(idx) if idx else name)
    return cur


def resolves(obj, path):
    try:
        lookup(obj, path)
        return True
    except (KeyError, TypeError):
        return False


def eq(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(eq(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(eq(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def typed_ok(ctx):
    """Section 4.2 JSON types of the conditional fields a transform can reach (clause 4.3-e)."""
    p = ctx["interception_point"]
    try:
        if p == "input":
            return isinstance(ctx["input"], dict) and isinstance(ctx["input"]["role"], str) and "content" in ctx["input"]
        if p == "pre_model_call":
            return isinstance(ctx["messages"], list)
        if p == "post_model_call":
            r = ctx["response"]
            return isinstance(r, dict) and isinstance(r["tool_calls"], list) and isinstance(r["finish_reason"], str) and "content" in r
        if p in ("pre_tool_call", "post_tool_call"):
            return isinstance(ctx["tool_call"]["args"], dict)
        if p == "output":
            return isinstance(ctx["output"], dict) and "content" in ctx["output"]
    except (KeyError, TypeError):
        return False
    return True


def write_target(ctx, target):
    ctx["target"] = target
    al = ALIAS[ctx["interception_point"]]
    if isinstance(al, tuple):
        ctx[al[0]][al[1]] = copy.deepcopy(target)
    else:
        ctx[al] = copy.deepcopy(target)


# ---------------------------------------------------------------- verdict gate
VERDICT_KEYS = {"decision", "reason", "message", "warnings", "approval", "transform", "evidence", "result_labels"}


def gate(v):
    if isinstance(v, dict) and set(v) <= {"verdict", "extensions"} and "verdict" in v:
        v = v["verdict"]
    if not isinstance(v, dict) or set(v) - VERDICT_KEYS:
        return None
    d = v.get("decision")
    if d not in ("allow", "deny", "transform"):
        return None
    r = v.get("reason")
    if r is not None and (not isinstance(r, str) or r.startswith("host_error:")):
        return None
    m = v.get("message")
    if m is not None and not isinstance(m, str):
        return None
    if ("transform" in v) != (d == "transform") or ("approval" in v and d != "deny"):
        return None
    if d == "transform" and (not isinstance(v["transform"], dict) or not isinstance(v["transform"].get("path"), str)):
        return None  # a missing or non-string path is a structural fault (D-10 / P-8)
    if d == "transform" and set(v["transform"]) - {"path", "value"}:
        return None
    w = v.get("warnings")
    if w is not None and (not isinstance(w, list) or not all(isinstance(x, dict) for x in w)):
        return None
    for x in w or []:
        if x.get("reason") is not None and (not isinstance(x["reason"], str) or x["reason"].startswith("host_error:")):
            return None
        if x.get("message") is not None and not isinstance(x["message"], str):
            return None
    if "approval" in v and not isinstance(v["approval"], dict):
        return None
    if "evidence" in v and (not isinstance(v["evidence"], dict) or len(canon(v["evidence"]).encode()) > 10240):
        return None
    rl = v.get("result_labels")
    if rl is not None and (not isinstance(rl, list) or not all(isinstance(x, str) for x in rl)):
        return None
    return v


def hd(reason):
    return {"decision": "deny", "reason": "host_error:" + reason}


def sev(v):
    if v["decision"] == "deny":
        return SEV["liftable"] if "approval" in v else SEV["deny"]
    return SEV[v["decision"]]


# ---------------------------------------------------------------- emitter
class Emitter:
    def __init__(self, vec, interceptors, names=None, ats=None, composition=None, mode="enforce", provider="jcs-sha256",
                 resolver=None, redact=None, declaration=None):
        self.vec, self.ints, self.names, self.ats = vec, interceptors, names, ats
        comp = dict(composition or {"profile": "sequential/first_deny"})
        k = KNOB[comp["profile"]]
        self.comp = {"profile": comp["profile"]}
        if k:
            self.comp[k[0]] = comp.get(k[0], k[1])
        self.mode, self.provider, self.resolver, self.redact, self.declaration = mode, provider, resolver, redact, declaration
        self.records, self.recorded, self.identities = [], [], []

    def call(self, i, ctx):
        rules = self.ints[i]
        mine = copy.deepcopy(ctx)
        if i == 0:
            self.recorded.append(copy.deepcopy(ctx))
        for r in rules:
            if r["at"] != mine["interception_point"]:
                continue
            if all(resolves(mine, p) and eq(lookup(mine, p), x) for p, x in r.get("match", {}).items()):
                f = r.get("fault")
                if f == "raise":
                    return hd("interceptor_failed")
                if f == "timeout":
                    return hd("interceptor_timeout")
                if f == "malformed_verdict":
                    return hd("verdict_invalid")
                if f == "mutate":
                    mine["target"] = "TAMPERED"
                    if "tool_call" in mine:
                        mine["tool_call"]["args"] = {"tampered": True}
                    return {"decision": "allow", "reason": "ctk:mutated"}
                raw = r["return_raw"] if "return_raw" in r else r.get("return", {"decision": "allow"})
                v = gate(copy.deepcopy(raw))
                return v if v is not None else hd("verdict_invalid")
        return {"decision": "allow"}

    def apply(self, ctx, v):
        """apply transform v to ctx in place; returns None or host_error deny"""
        try:
            segs = parse_path(v["transform"]["path"])
        except ValueError as e:
            return hd("transform_target_forbidden" if str(e) == "forbidden" else "transform_invalid")
        if ctx["interception_point"] in ("agent_startup", "agent_shutdown"):
            return hd("transform_target_forbidden")
        try:
            t = set_path(copy.deepcopy(ctx["target"]), segs, v["transform"].get("value"))
        except (KeyError, TypeError):
            return hd("transform_invalid")
        trial = copy.deepcopy(ctx)
        write_target(trial, t)
        if not typed_ok(trial):
            return hd("context_invalid")  # clause 4.3-e: the composed context fails the envelope check (D-35 / P-3)
        write_target(ctx, t)
        return None

    def consult(self, ctx, trigger):
        """-> (outcome 'approval'|'rejection', verdict)"""
        req = copy.deepcopy(ctx)
        for p in self.redact or []:
            try:
                write_target(req, set_path(copy.deepcopy(req["target"]), parse_path(p), "[redacted]"))
            except (KeyError, ValueError, TypeError):
                pass
        rid, err = identity(req, self.provider)
        if err:
            return "rejection", hd("context_invalid")
        rule = None
        for r in self.resolver:
            if all(resolves(req, p) and eq(lookup(req, p), x) for p, x in r.get("match", {}).items()):
                rule = r["resolve"]
                break
        if rule is None:
            rule = {"outcome": "unresolved"}
            echo = rid
        elif rule.get("fault") == "raise":
            return "rejection", hd("approval_resolver_failed")
        elif rule.get("echo_recomputed"):
            echo = identity(req, "jcs-sha256")[0] or ""
            if rid is None:
                echo = rid
        elif "identity_override" in rule:
            echo = rule["identity_override"]
        else:
            echo = rid
        if echo != rid:
            return "rejection", hd("approval_identity_mismatch")
        oc = rule.get("outcome")
        if "verdict_raw" in rule:
            rule = dict(rule, verdict=rule["verdict_raw"])
        if oc not in ("approve", "reject", "unresolved") or (("verdict" in rule) != (oc != "unresolved")):
            return "rejection", hd("approval_resolver_failed")
        if oc == "unresolved":
            return "rejection", hd("approval_unresolved")
        v = gate(copy.deepcopy(rule["verdict"]))
        if v is None:
            return "rejection", hd("verdict_invalid")
        if (oc == "approve") != (v["decision"] != "deny"):
            return "rejection", hd("verdict_invalid")
        return ("approval" if oc == "approve" else "rejection"), v

    def emit(self, ctx):
        point = ctx["interception_point"]
        bound = [i for i in range(len(self.ints)) if self.ats is None or self.ats[i] is None or point in self.ats[i]]
        rec = {"interception_point": point, "mode": self.mode, "identity_provider": self.provider,
               "session_id": ctx["session"]["id"], "sequence": ctx["sequence"], "timestamp": ctx["timestamp"],
               "composition": dict(self.comp), "interceptors_registered": len(bound)}
        if self.declaration:
            rec["declaration"] = self.declaration
        iid, err = identity(ctx, self.provider)
        if err:
            rec.update(verdict=hd("context_invalid"), input_identity=None, enforced_identity=None, decided_by=None)
            self.records.append(rec)
            self.identities.append((None, None))
            return rec["verdict"], ctx
        if not bound:
            v = hd("no_interceptor")
            rec.update(verdict=v, input_identity=iid, enforced_identity=iid, decided_by=None)
            self.records.append(rec)
            self.identities.append((iid, iid))
            return (v if self.mode == "enforce" else {"decision": "allow"}), ctx
        prof = self.comp["profile"]
        work = copy.deepcopy(ctx)
        enforce = self.mode == "enforce"
        seam = enforce and self.resolver and point != "agent_shutdown"
        verdicts, results, decided, combined, resolved, truncated = [], [], None, None, None, None
        seq = prof.startswith("sequential")
        snapshot = copy.deepcopy(ctx)
        if seq:
            truncated = False
            last_t = None
            for pos, i in enumerate(bound):
                v = self.call(i, work)
                verdicts.append({"index": pos, "decision": v["decision"], "reason": v.get("reason"),
                                 "name": self.names[i] if self.names else None})
                results.append(v)
                if v["decision"] == "transform":
                    if enforce:
                        f = self.apply(work, v)
                    else:
                        f = self.apply(copy.deepcopy(work), v)
                    if f and (enforce or True):
                        if enforce:
                            combined, decided = f, None
                            truncated = pos < len(bound) - 1
                            break
                        results[-1] = f
                    last_t = pos
                    continue
                if v["decision"] == "deny" and prof == "sequential/first_deny":
                    if "approval" in v and seam and not v.get("reason", "").startswith("host_error:"):
                        oc, rv = self.consult(work, v)
                        if oc == "rejection":
                            combined, decided, resolved = rv, None if rv["reason"].startswith("host_error:") else pos, "rejection"
                            truncated = pos < len(bound) - 1
                            break
                        resolved = "approval"
                        if rv["decision"] == "transform":
                            f = self.apply(work, rv)
                            if f:
                                combined, decided = f, None
                                truncated = pos < len(bound) - 1
                                break
                        results[-1] = rv
                        if self.comp["on_approval"] == "stop":
                            combined, decided = rv, pos
                            truncated = pos < len(bound) - 1
                            break
                        if rv["decision"] == "transform":
                            last_t = pos
                        continue
                    combined, decided = v, pos
                    truncated = pos < len(bound) - 1
                    break
            else:
                if prof == "sequential/first_deny":
                    if combined is None:
                        if last_t is not None:
                            combined, decided = results[last_t], last_t
                        else:
                            # D-29 / P-2: an all-allow emission's combined verdict is the lowest-index allow
                            combined = results[0] if (len(results) == 1 or not resolved) and results else {"decision": "allow"}
                else:  # run_all
                    win = max(range(len(results)), key=lambda k: (sev(results[k]), k if sev(results[k]) == 1 else -k))
                    combined, decided = results[win], win
                    if combined["decision"] == "allow":
                        decided = None
                    denies = [r for r in results if r["decision"] == "deny"]
                    if combined["decision"] == "deny" and "approval" in combined and all("approval" in r for r in denies) and seam:
                        oc, rv = self.consult(work, combined)
                        resolved = oc
                        if oc == "approval" and rv["decision"] == "transform":
                            f = self.apply(work, rv)
                            rv = f or rv
                        combined = rv
            if combined is None:
                combined = {"decision": "allow"}
        else:
            for pos, i in enumerate(bound):
                v = self.call(i, copy.deepcopy(snapshot))
                if v["decision"] == "transform":
                    f = self.apply(copy.deepcopy(snapshot), v)
                    if f:
                        v = f
                verdicts.append({"index": pos, "decision": v["decision"], "reason": v.get("reason"),
                                 "name": self.names[i] if self.names else None})
                results.append(v)
            top = max(sev(r) for r in results)
            if prof == "parallel/unanimous":
                if top == 0:
                    combined = results[0]  # D-29 / P-2
                else:
                    combined = hd("composition_disagreement")
                    if self.comp["on_disagreement"] == "approval" and seam:
                        oc, rv = self.consult(work, dict(combined, approval={}))
                        resolved, combined = oc, rv
                        if oc == "approval" and rv["decision"] == "transform":
                            combined = self.apply(work, rv) or rv
            else:
                winners = [k for k, r in enumerate(results) if sev(r) == top]
                if top == 1 and len(winners) > 1:
                    combined = hd("transform_conflict")
                    if self.comp["on_transform_conflict"] == "approval" and seam:
                        oc, rv = self.consult(work, dict(combined, approval={}))
                        resolved, combined = oc, rv
                        if oc == "approval" and rv["decision"] == "transform":
                            combined = self.apply(work, rv) or rv
                else:
                    decided = winners[0] if top > 0 else None
                    combined = results[winners[0]]
                    if top == 1 and enforce:
                        f = self.apply(work, combined)
                        if f:
                            combined, decided = f, None
                    if top == 2 and seam:
                        oc, rv = self.consult(work, combined)
                        resolved = oc
                        if oc == "rejection" and rv["reason"].startswith("host_error:"):
                            decided = None
                        if oc == "approval" and rv["decision"] == "transform":
                            rv = self.apply(work, rv) or rv
                        combined = rv
        # warnings / labels
        pool = results + ([combined] if resolved else [])
        warns = []
        for r in pool:
            for w in r.get("warnings") or []:
                if not any(x.get("reason") == w.get("reason") and x.get("message") == w.get("message") for x in warns):
                    warns.append(w)
        combined = dict(combined)
        if warns:
            combined["warnings"] = warns
        if combined["decision"] != "deny":
            labels = []
            for r in pool:
                if r["decision"] != "deny":
                    for lb in r.get("result_labels") or []:
                        if lb not in labels:
                            labels.append(lb)
            if labels:
                combined["result_labels"] = labels
        else:
            combined.pop("result_labels", None)
        # enforced identity
        if not enforce:
            eid = iid
            final_ctx = ctx
        else:
            final_ctx = work
            eid, err = identity(work, self.provider)
            if err:
                combined, decided, eid = hd("context_invalid"), None, None
        proj = copy.deepcopy(combined)
        if "approval" in proj:
            proj["approval"] = {}
        if "transform" in proj:
            proj["transform"] = {"path": proj["transform"]["path"]}
        rec.update(verdict=proj, input_identity=iid, enforced_identity=eid, decided_by=decided,
                   verdicts=[{k: x for k, x in d.items() if x is not None} for d in verdicts])
        if seq:
            rec["fold_truncated"] = bool(truncated)
        if resolved:
            rec["resolved_by"] = resolved
        self.records.append(rec)
        self.identities.append((iid, eid))
        if not enforce:
            return {"decision": "allow"}, ctx
        return combined, final_ctx


def expand(v):
    """The value with its generated forms `nest`, `repeat` and `keys` ($ctk.generate) expanded, as the
    vector loader expands them; other forms are left as written."""
    if isinstance(v, list):
        return [expand(x) for x in v]
    if not isinstance(v, dict):
        return v
    g = v.get("$ctk.generate") if len(v) == 1 else None
    if isinstance(g, dict) and "nest" in g:
        out = expand(g["leaf"])
        for _ in range(g["depth"]):
            out = [out] if g["nest"] == "array" else {g["key"]: out}
        return out
    if isinstance(g, dict) and "repeat" in g:
        return g["repeat"] * g["count"]
    if isinstance(g, dict) and "keys" in g:
        return {"%s%d" % (g["keys"], i): expand(g["value"]) for i in range(g["count"])}
    return {k: expand(x) for k, x in v.items()}


# ---------------------------------------------------------------- reference loop (B2)
class Run:
    def __init__(self, vec, model=True, tools=True):
        # model / tools: whether the simulated host emits the model / tool points (section 3.2); a host
        # without a model takes each model_script entry as its own step (HOSTS.md section 4.6).
        self.model_points, self.tool_points = model, tools
        vec = dict(vec, **{k: expand(vec[k]) for k in ("interceptor_script", "interceptor_scripts") if k in vec})
        self.vec = vec
        sc = json.loads(json.dumps(vec["scenario"]))
        self.sc = sc
        self.seq = 0
        self.invocations, self.released, self.persisted = [], "", []
        self.streamed = False
        self.tools = {t["name"]: t for t in sc.get("tools", [])}
        self.model = list(sc.get("model_script", []))
        hdcl = vec.get("host_declaration")
        res = vec.get("approval_script") or None
        if hdcl:
            cfg = hdcl.get("configuration", {})
            scripts = vec["interceptor_scripts"]
            ints, names, ats = [], [], []
            for b in hdcl["bindings"]:
                ints.append(scripts[b["config"]["script"]])
                names.append(b["id"])
                ats.append(b.get("at"))
            # only script 0 records: remap so index 0 of ints is script 0
            self.em = Emitter(vec, ints, names, ats, cfg.get("composition"), cfg.get("mode", "enforce"),
                              cfg.get("identity_provider", "jcs-sha256"),
                              res if cfg.get("approval", {}).get("resolver") else None,
                              vec.get("redact_for_approval") if cfg.get("approval", {}).get("redactor") else None,
                              hdcl["declaration"])
            self.em.script0 = [k for k, b in enumerate(hdcl["bindings"]) if b["config"]["script"] == 0]
        else:
            ints = [vec["interceptor_script"]] if "interceptor_script" in vec else vec["interceptor_scripts"]
            self.em = Emitter(vec, ints, None, None, vec.get("composition"), vec.get("mode", "enforce"),
                              vec.get("identity_provider", "jcs-sha256"), res, vec.get("redact_for_approval"))

    def ctx(self, point, **kw):
        c = {"spec": "agent-hooks/0.1", "interception_point": point, "timestamp": "2026-01-01T00:00:%02d.000Z" % self.seq,
             "sequence": self.seq, "agent": {"id": "ref-agent", "framework": "reference-agent"}, "session": {"id": "sess-1"}}
        self.seq += 1
        c.update(copy.deepcopy(kw))
        al = ALIAS[point]
        c["target"] = copy.deepcopy(c[al[0]][al[1]] if isinstance(al, tuple) else c[al])
        return c

    def emit(self, c):
        v, out = self.em.emit(c)
        return v["decision"] != "deny", out, v

    def run(self):
        outcome, final = "completed", None
        ok, _, _ = self.emit(self.ctx("agent_startup", agent_init={"tools_registered": sorted(self.tools)}))
        if not ok:
            self.emit(self.ctx("agent_shutdown", summary={"reason": "error"}))
            return "blocked", None
        inputs = [self.sc["input"]] + [t["input"] for t in self.sc.get("turns", [])]
        for inp in inputs:
            outcome, final = self.turn(inp)
            if outcome != "completed":
                break
        self.emit(self.ctx("agent_shutdown", summary={"reason": "completed" if outcome == "completed" else "error"}))
        return outcome, final

    def turn(self, inp):
        ok, c, _ = self.emit(self.ctx("input", input=inp))
        if not ok:
            return "blocked", None
        messages = getattr(self, "history", []) + [{"role": c["input"]["role"], "content": c["input"]["content"]}]
        final = None
        while True:
            if not self.model_points:
                if not self.model:
                    return "error", None
                resp = self.model.pop(0)["respond"]
                r = {"content": resp["content"], "tool_calls": resp["tool_calls"], "finish_reason": resp["finish_reason"]}
                if r["tool_calls"] and not self.tool_points:
                    return "error", None
            else:
                ok, c, _ = self.emit(self.ctx("pre_model_call", model={"id": "mock"}, messages=messages))
                if not ok:
                    return "blocked", None
                messages = c["messages"]
                if not self.model:
                    return "error", None
                resp = self.model.pop(0)["respond"]
                r = {"content": resp["content"], "tool_calls": resp["tool_calls"], "finish_reason": resp["finish_reason"]}
            if not self.model_points:
                pass
            elif "stream" in resp:
                ok, r = self.stream(resp)
                if not ok:
                    return "blocked", None
            else:
                ok, c, _ = self.emit(self.ctx("post_model_call", model={"id": "mock"}, response=r))
                if not ok:
                    return "blocked", None
                r = c["response"]
            if not r["tool_calls"]:
                final = r["content"]
                break
            for tc in r["tool_calls"]:
                ok, c, v = self.emit(self.ctx("pre_tool_call", tool_call=tc))
                if not ok:
                    messages.append({"role": "tool", "content": "blocked: %s" % v.get("reason")})
                    continue
                args = c["tool_call"]["args"]
                if tc["name"] in self.tools:
                    self.invocations.append({"name": tc["name"], "args": copy.deepcopy(args)})
                    beh = next((b for b in self.tools[tc["name"]]["behavior"] if "when_args" not in b or eq(b["when_args"], args)), None)
                    if beh is None:
                        return "error", None
                    result = {"value": beh["return"], "is_error": beh.get("is_error", False)}
                else:
                    result = {"value": "unknown tool", "is_error": True}
                ok, c2, v = self.emit(self.ctx("post_tool_call", tool_call=dict(tc, args=args), tool_result=result))
                if not ok:
                    messages.append({"role": "tool", "content": "blocked: %s" % v.get("reason")})
                    continue
                messages.append({"role": "tool", "content": c2["tool_result"]["value"]})
            messages.append({"role": "assistant", "content": r["content"] or ""})
        if final is None:
            self.history = messages
            return "completed", None
        ok, c, _ = self.emit(self.ctx("output", output={"content": final}))
        if not ok:
            return "blocked", None
        self.released = c["output"]["content"] if not self.released else self.released
        self.history = messages + [{"role": "assistant", "content": c["output"]["content"]}]
        return "completed", c["output"]["content"]

    def stream(self, resp):
        chunks, trunc = resp["stream"], resp.get("stream_truncated")
        evald = chunks[:-1] if trunc else chunks
        prefix = ""
        for k, ch in enumerate(evald):
            prefix += ch
            last = k == len(chunks) - 1
            r = {"content": prefix, "tool_calls": resp["tool_calls"] if last else [],
                 "finish_reason": resp["finish_reason"] if last else "incremental"}
            ok, c, _ = self.emit(self.ctx("post_model_call", model={"id": "mock"}, response=r))
            if not ok:
                return False, None
            self.released += ch
            self.streamed = True
        if trunc:
            c = self.ctx("post_model_call", model={"id": "mock"},
                         response={"content": "".join(chunks), "tool_calls": [], "finish_reason": "stream_incomplete"})
            self.em.records.append({"interception_point": "post_model_call", "verdict": hd("streaming_unsupported")})
            return False, None
        return True, {"content": prefix, "tool_calls": resp["tool_calls"], "finish_reason": resp["finish_reason"]}


# ---------------------------------------------------------------- assertions
def surfaces(vec):
    """The (model, tools) point sets a vector must hold on: every host its capabilities allow, the
    smallest included (section 3.2: a vector needing neither capability applies to a floor host and to
    every larger one)."""
    caps = set(vec.get("capabilities", []))
    out = [(True, True)]
    if "model_calls" not in caps and not vec.get("host_declaration"):
        out.append((False, "tool_calls" in caps))
    return out


def check(vec, model=True, tools=True):
    e = vec["expect"]
    if e.get("load", {}).get("outcome") == "refused":
        return []
    run = Run(vec, model, tools)
    outcome, final = run.run()
    recorded = run.em.recorded
    if vec.get("host_declaration") and 0 not in getattr(run.em, "script0", [0]):
        recorded = []
    f = []
    exp = e.get("interceptions", [])
    if e.get("sequence_strict", True):
        got = [c["interception_point"] for c in recorded]
        want = [x["interception_point"] for x in exp]
        if got != want:
            f.append("points %s != %s" % (got, want))
            pairs = []
        else:
            pairs = list(zip(exp, recorded))
    else:
        pairs, pos = [], 0
        for x in exp:
            while pos < len(recorded) and recorded[pos]["interception_point"] != x["interception_point"]:
                pos += 1
            if pos == len(recorded):
                f.append("subsequence: %s not found" % x["interception_point"])
                break
            pairs.append((x, recorded[pos]))
            pos += 1
    for x, c in pairs:
        for p, val in x.get("context", {}).items():
            if not resolves(c, p) or not eq(lookup(c, p), val):
                f.append("%s context %s: %r" % (x["interception_point"], p, lookup(c, p) if resolves(c, p) else "<none>"))
        txt = json.dumps(c, separators=(",", ":"), ensure_ascii=False)
        for s in x.get("context_must_contain", []):
            if s not in txt:
                f.append("%s must contain %s" % (x["interception_point"], s))
        for s in x.get("context_must_not_contain", []):
            if s in txt:
                f.append("%s must not contain %s" % (x["interception_point"], s))
    pts = {c["interception_point"] for c in recorded}
    for p in e.get("interceptions_absent", []):
        if p in pts:
            f.append("absent point %s recorded" % p)
    if e["run_outcome"] != outcome:
        f.append("outcome %s != %s" % (outcome, e["run_outcome"]))
    if "final_output" in e and not eq(e["final_output"], final):
        f.append("final %r != %r" % (final, e["final_output"]))
    if "tool_invocations" in e and not eq(e["tool_invocations"], run.invocations):
        f.append("invocations %s" % run.invocations)
    for t in e.get("tool_not_invoked", []):
        if any(i["name"] == t for i in run.invocations):
            f.append("tool %s invoked" % t)
    recs, pos = run.em.records, 0
    for r in e.get("records", []):
        while pos < len(recs) and recs[pos]["interception_point"] != r["interception_point"]:
            pos += 1
        if pos == len(recs):
            f.append("record %s not found" % r["interception_point"])
            break
        rec = recs[pos]
        pos += 1
        for p, val in r.get("assert", {}).items():
            if not resolves(rec, p) or not eq(lookup(rec, p), val):
                f.append("record %s %s: %r want %r" % (r["interception_point"], p,
                                                       lookup(rec, p) if resolves(rec, p) else "<none>", val))
        for p in r.get("absent", []):
            if resolves(rec, p):
                f.append("record %s %s present" % (r["interception_point"], p))
    if "identities_equal" in e:
        eqs = all(a == b for a, b in run.em.identities)
        if eqs != e["identities_equal"]:
            f.append("identities_equal %s" % eqs)
    # D-19: released_output is reported only when a segment was released incrementally.
    if "released_output" in e and e["released_output"] != (run.released if run.streamed else None):
        f.append("released %r" % run.released)
    return f


def main():
    d = os.path.join(ROOT, "vectors", "0.1")
    want = sys.argv[1:]
    bad = 0
    for name in sorted(os.listdir(d)):
        if not name.endswith(".json") or (want and not any(name.startswith(w) for w in want)):
            continue
        vec = json.load(open(os.path.join(d, name), encoding="utf-8"))
        f = []
        for model, tools in surfaces(vec):
            try:
                got = check(vec, model, tools)
            except Exception as ex:  # noqa
                got = ["simulator error: %r" % ex]
            label = "" if model else ("(tool router) " if tools else "(floor host) ")
            f += [label + x for x in got]
        if f:
            bad += 1
            print(name)
            for x in f:
                print("   ", x)
    print("disagreements: %d" % bad)


if __name__ == "__main__":
    main()

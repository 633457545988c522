#!/usr/bin/env python3
"""A smoke check of host.py against the upstream vectors, standard library
only: a minimal driver speaking ctk-harness/1 with the vectors' scripted
interceptors, resolver and redactor, and the main `expect` checks. It is no
substitute for `ctk run`; it exists so the example can be exercised alone.

    python3 selftest.py /path/to/conformance/vectors
"""

import copy
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import host as hostlib  # noqa: E402  (only for jcs-sha256 in echo_recomputed)

with open(os.path.join(HERE, "host.json"), encoding="utf-8") as _f:
    SURFACE = json.load(_f)["surface"]
CAPABILITIES = set(SURFACE["capabilities"])
KNOB_DEFAULTS = {"on_approval": "stop", "on_disagreement": "deny", "on_transform_conflict": "deny"}
MISSING = object()


def lookup(value, path):
    for part in path.replace("[", ".[").split("."):
        if not part:
            continue
        if part.startswith("["):
            i = int(part[1:-1])
            if not isinstance(value, list) or i >= len(value):
                return MISSING
            value = value[i]
        else:
            if not isinstance(value, dict) or part not in value:
                return MISSING
            value = value[part]
    return value


def matches(rule, ctx):
    return all(lookup(ctx, p) == v for p, v in (rule.get("match") or {}).items())


class Driver:
    def __init__(self, vector):
        self.v = vector
        scripts = vector.get("interceptor_scripts")
        self.scripts = scripts if scripts is not None else [vector.get("interceptor_script", [])]
        self.recorded = []
        self.proc = subprocess.Popen([sys.executable, os.path.join(HERE, "host.py")], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.next_id = 1

    def call(self, method, params):
        rid = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the host exited")
            msg = json.loads(line)
            if "method" in msg:
                result = getattr(self, "on_" + msg["method"].split("/")[1])(msg["params"])
                self.send({"jsonrpc": "2.0", "id": msg["id"], "result": result})
                continue
            if msg.get("id") != rid:
                raise RuntimeError(f"wrong id {msg.get('id')}")
            if "error" in msg:
                raise RuntimeError(f"{method}: {msg['error']}")
            return msg["result"]

    def send(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def on_intercept(self, p):
        index, ctx = p["index"], p["context"]
        if index == 0:
            self.recorded.append(copy.deepcopy(ctx))
        for rule in self.scripts[index]:
            if rule["at"] != ctx["interception_point"] or not matches(rule, ctx):
                continue
            fault = rule.get("fault")
            if fault == "raise":
                return {"outcome": "raised", "message": "scripted raise"}
            if fault == "malformed_verdict":
                return {"outcome": "response", "response": {"decision": "transform"}}
            if fault == "mutate":
                ctx["target"] = "TAMPERED"
                if "tool_call" in ctx:
                    ctx["tool_call"]["args"] = {"tampered": True}
                return {"outcome": "response", "response": {"decision": "allow", "reason": "ctk:mutated"}, "context": ctx}
            return {"outcome": "response", "response": rule.get("return", {"decision": "allow"})}
        return {"outcome": "response", "response": {"decision": "allow"}}

    def on_resolve_approval(self, p):
        request = p["request"]
        for rule in self.v.get("approval_script", []):
            if not matches(rule, request["context"]):
                continue
            r = rule["resolve"]
            if r.get("fault") == "raise":
                return {"outcome": "raised", "message": "scripted raise"}
            ident = request["context_identity"]
            if r.get("echo_recomputed"):
                try:
                    ident = hostlib.identity("jcs-sha256", request["context"])
                except Exception:
                    ident = ""
            elif "identity_override" in r:
                ident = r["identity_override"]
            res = {"outcome": r.get("outcome"), "context_identity": ident}
            if "verdict" in r:
                res["verdict"] = r["verdict"]
            return {"outcome": "resolution", "resolution": res}
        return {"outcome": "resolution", "resolution": {"outcome": "unresolved", "context_identity": request["context_identity"]}}

    def on_redact(self, p):
        ctx = copy.deepcopy(p["context"])
        point = ctx["interception_point"]
        for path in self.v.get("redact_for_approval", []):
            try:
                target = hostlib.apply_transform(copy.deepcopy(ctx["target"]), {"path": path, "value": "[redacted]"})
            except hostlib.GateError:
                continue
            ctx["target"] = target
            wb = hostlib.WRITE_BACK[point]
            if wb:
                holder = ctx
                for k in wb[:-1]:
                    holder = holder[k]
                holder[wb[-1]] = target
        return {"outcome": "redacted", "context": ctx}


def check(vector, run, recorded):
    e, fails = vector["expect"], []
    if run["outcome"] != e.get("run_outcome"):
        fails.append(f"run_outcome {run['outcome']} != {e.get('run_outcome')}")
    if "final_output" in e and run["final_output"] != e["final_output"]:
        fails.append(f"final_output {run['final_output']!r} != {e['final_output']!r}")
    if "tool_invocations" in e and run["tool_invocations"] != e["tool_invocations"]:
        fails.append(f"tool_invocations {run['tool_invocations']} != {e['tool_invocations']}")
    for name in e.get("tool_not_invoked", []):
        if any(t["name"] == name for t in run["tool_invocations"]):
            fails.append(f"{name} was invoked")
    points = [c["interception_point"] for c in recorded]
    expected = e.get("interceptions", [])
    if e.get("sequence_strict", True) and points != [x["interception_point"] for x in expected]:
        fails.append(f"points {points}")
    pos = 0
    for x in expected:
        while pos < len(recorded) and recorded[pos]["interception_point"] != x["interception_point"]:
            pos += 1
        if pos == len(recorded):
            fails.append(f"interception {x['interception_point']} not found")
            break
        ctx = recorded[pos]
        for path, want in (x.get("context") or {}).items():
            if lookup(ctx, path) != want:
                fails.append(f"{x['interception_point']}.{path} = {lookup(ctx, path)!r} != {want!r}")
        text = json.dumps(ctx, separators=(",", ":"))
        fails += [f"{x['interception_point']} lacks {n!r}" for n in x.get("context_must_contain", []) if n not in text]
        fails += [f"{x['interception_point']} has {n!r}" for n in x.get("context_must_not_contain", []) if n in text]
        pos += 1
    fails += [f"{p} recorded" for p in e.get("interceptions_absent", []) if p in points]
    pos = 0
    for x in e.get("records", []):
        while pos < len(run["records"]) and run["records"][pos]["interception_point"] != x["interception_point"]:
            pos += 1
        if pos == len(run["records"]):
            fails.append(f"record {x['interception_point']} not found")
            break
        rec = run["records"][pos]
        for path, want in (x.get("assert") or {}).items():
            if lookup(rec, path) != want:
                fails.append(f"record {x['interception_point']}.{path} = {lookup(rec, path)!r} != {want!r}")
        fails += [f"record has {p}" for p in x.get("absent", []) if lookup(rec, p) is not MISSING]
        fails += [f"record lacks {p}" for p in x.get("present", []) if lookup(rec, p) is MISSING]
        pos += 1
    if "identities_equal" in e:
        pairs = [(r["input_identity"], r["enforced_identity"]) for r in run["records"]]
        same = all(a == b for a, b in pairs)
        if same != e["identities_equal"]:
            fails.append(f"identities_equal is {same}")
    seqs = [c.get("sequence") for c in recorded]
    if any(not isinstance(s, int) for s in seqs) or any(a >= b for a, b in zip(seqs, seqs[1:])):
        fails.append(f"sequence {seqs}")
    return fails


def applies(vector):
    """The vector's capabilities and composition are within host.json's surface."""
    comp = vector.get("composition") or {}
    knobs = SURFACE["profiles"].get(comp.get("profile", "sequential/first_deny"))
    if knobs is None:
        return False
    for knob, values in knobs.items():
        if comp.get(knob, KNOB_DEFAULTS[knob]) not in values:
            return False
    return (set(vector.get("capabilities", [])) <= CAPABILITIES
            and "host_declaration" not in vector)


def main(folder):
    passed = failed = skipped = 0
    for name in sorted(os.listdir(folder)):
        if not name.startswith("AH-CTK-") or not name.endswith(".json"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            vector = json.load(f)
        if not applies(vector):
            skipped += 1
            continue
        d = Driver(vector)
        try:
            d.call("initialize", {"protocol": "ctk-harness/1"})
            setup = {
                "vector_id": vector["id"], "spec": "agent-hooks/0.1", "scenario": vector["scenario"],
                "interceptors": [{} for _ in d.scripts],
                "approval_resolver": bool(vector.get("approval_script")),
                "redactor": bool(vector.get("redact_for_approval")),
                "mode": vector.get("mode", "enforce"),
                "composition": vector.get("composition") or {"profile": "sequential/first_deny"},
                "identity_provider": vector.get("identity_provider", "jcs-sha256"),
            }
            d.call("vector/setup", setup)
            run = d.call("vector/run", {})
            d.call("vector/teardown", {})
            d.call("shutdown", {})
            fails = check(vector, run, d.recorded)
        except Exception as exc:  # a harness error
            fails = [f"harness error: {exc}"]
        finally:
            d.proc.stdin.close()
            d.proc.wait(timeout=10)
        if fails:
            failed += 1
            print(f"FAIL {vector['id']}: " + "; ".join(fails))
        else:
            passed += 1
            print(f"pass {vector['id']}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "conformance/vectors"))

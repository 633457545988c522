#!/usr/bin/env python3
"""A minimal AHP *draft-line* harness behind the ctk-ahp-adapter/1 contract,
for the kit's own tests of the draft harness vectors (AHP-DH-*). Stdio
persistent backends only (it declares nothing else, so every other vector is
skipped). `--mode correct` follows the draft as the kit reads it; the other
modes each break one draft rule, so that the suite must fail the vectors
that check it:

  released-shape   sends the 0.1 tool.before shape (tool.callId, no harness,
                   call, path, tool.origin or params.state)
  missing-effects  treats a result without effects as a failure (0.1's rule)
  closed-deny      ignores unknown members in a deny (0.1's rule)

Stdlib only. One JSON-RPC message per line on stdin/stdout; diagnostics on
stderr.
"""

import json
import os
import queue
import re
import subprocess
import sys
import threading
import time
import uuid
from datetime import datetime, timezone

MODE = sys.argv[sys.argv.index("--mode") + 1] if "--mode" in sys.argv else "correct"
RDNS = re.compile(r"^(?:[A-Za-z][A-Za-z0-9_-]*\.)+[A-Za-z][A-Za-z0-9_-]*$")
SOURCE = "urn:uuid:8c5d1e2f-0a1b-4c3d-9e8f-7a6b5c4d3e2f"
HARNESS = {"name": "ctk-test-draft-harness", "version": "0.0.1"}
DENY_MEMBERS = {"type", "reason", "code", "extensions"}
BASE_ENV = ("PATH", "HOME", "LANG", "TMPDIR")


def log(*a):
    print("draft-adapter:", *a, file=sys.stderr, flush=True)


class Backend:
    """One persistent stdio backend: started on first use, lines read by a thread."""

    def __init__(self, transport):
        self.t = transport
        self.proc = None
        self.lines = queue.Queue()

    def start(self):
        if self.proc is not None and self.proc.poll() is None:
            return
        env = {k: os.environ[k] for k in BASE_ENV if k in os.environ}
        self.proc = subprocess.Popen([self.t["command"]] + self.t.get("args", []), cwd=self.t.get("cwd"),
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
        q, out = self.lines, self.proc.stdout
        self.lines = q

        def pump():
            for line in iter(out.readline, b""):
                q.put(line)
            q.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def send(self, msg):
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def ask(self, msg, deadline):
        """The response with msg's id before `deadline`, or why not."""
        try:
            self.start()
            self.send(msg)
        except OSError as e:
            return None, "transport: %s" % e
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None, "deadline exceeded"
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None, "deadline exceeded"
            if line is None:
                return None, "connection lost"
            try:
                r = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                return None, "malformed"
            if isinstance(r, dict) and r.get("id") == msg["id"]:
                return r, None
            return None, "mismatched id"

    def stop(self):
        if self.proc is not None:
            try:
                self.proc.kill()
            except OSError:
                pass


def ext_ok(x):
    """Extension keys are reverse-DNS names (the draft's base/events.md)."""
    return x is None or (isinstance(x, dict) and all(RDNS.match(k) for k in x))


def judge(resp, advertised):
    """'deny' (with reason, code), 'none', or a failure string."""
    if resp.get("jsonrpc") != "2.0" or ("result" in resp) == ("error" in resp):
        return "failure", "not JSON-RPC", None
    if "error" in resp:
        return "failure", "JSON-RPC error", None
    res = resp["result"]
    if not isinstance(res, dict) or res.get("protocolVersion") != "draft":
        return "failure", "bad version", None
    if not ext_ok(res.get("extensions")):
        return "failure", "extension key", None
    if "effects" not in res:
        if MODE == "missing-effects":
            return "failure", "missing effects", None
        return "none", None, None
    effects = res["effects"]
    if not isinstance(effects, list):
        return "failure", "effects not an array", None
    deny = None
    for e in effects:
        if not isinstance(e, dict) or e.get("type") not in advertised:
            return "failure", "unadvertised effect", None
        if e["type"] == "deny":
            if not isinstance(e.get("reason"), str) or not e["reason"]:
                return "failure", "empty reason", None
            if "code" in e and not (isinstance(e["code"], str) and RDNS.match(e["code"])):
                return "failure", "bad code", None
            if not ext_ok(e.get("extensions")):
                return "failure", "extension key", None
            if MODE != "closed-deny" and set(e) - DENY_MEMBERS:
                return "failure", "unknown member in deny", None
            deny = deny or e
    if deny is not None:
        return "deny", deny["reason"], deny.get("code")
    return "none", None, None


class Harness:
    def __init__(self):
        self.hooks = []
        self.backends = {}

    def load(self, doc):
        bad = []
        if not isinstance(doc, dict) or doc.get("protocolVersion") != "draft" or not doc.get("hooks"):
            return [{"pointer": "", "reason": "not a draft registration"}]
        ids = set()
        for i, h in enumerate(doc["hooks"]):
            if h.get("id") in ids:
                bad.append({"pointer": "/hooks/%d/id" % i, "reason": "duplicate id"})
            ids.add(h.get("id"))
            for j, s in enumerate(h.get("subscriptions", [])):
                p = "/hooks/%d/subscriptions/%d" % (i, j)
                if not isinstance(s.get("content"), dict) or "default" not in s["content"]:
                    bad.append({"pointer": p + "/content", "reason": "content.default is required"})
                if s.get("mode") == "intercept":
                    if s.get("failurePolicy") not in ("fail-open", "fail-closed"):
                        bad.append({"pointer": p + "/failurePolicy", "reason": "required"})
                    t = s.get("timeoutMs")
                    if not isinstance(t, int) or isinstance(t, bool) or t < 1:
                        bad.append({"pointer": p + "/timeoutMs", "reason": "positive integer"})
                elif "timeoutMs" in s or "failurePolicy" in s:
                    bad.append({"pointer": p, "reason": "observe takes no timeoutMs or failurePolicy"})
            auth = h.get("authentication")
            if auth and ("tokenEnv" in auth) == ("tokenRef" in auth):
                bad.append({"pointer": "/hooks/%d/authentication" % i, "reason": "exactly one of tokenEnv, tokenRef"})
        if not bad:
            self.hooks = doc["hooks"]
            self.backends = {h["id"]: Backend(h["transport"]) for h in self.hooks}
        return bad

    def event(self, tool, call_id):
        e = {"id": str(uuid.uuid4()), "source": SOURCE, "type": "tool.before",
             "time": datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")}
        if MODE == "released-shape":
            e.update(session={"id": "s1"}, tool={"name": tool["name"], "kind": tool["kind"], "input": tool["input"], "callId": call_id})
        else:
            e.update(harness=dict(HARNESS), call={"id": call_id}, path="native",
                     tool={"name": tool["name"], "kind": tool["kind"], "input": tool["input"], "origin": "native"})
        return e

    def tool_call(self, p):
        ev = self.event(p["tool"], p.get("callId") or "call-" + uuid.uuid4().hex)
        params = {"protocolVersion": "draft", "event": ev, "capabilities": {"effects": ["deny"]}}
        if MODE != "released-shape":
            params["state"] = {"candidate": None, "permission": "none"}
        uncalled, denied = [], None
        for h in self.hooks:
            for s in h.get("subscriptions", []):
                if s.get("mode") != "intercept" or "tool.before" not in s.get("events", []):
                    continue
                if denied is not None:
                    uncalled.append(h)
                    continue
                msg = {"jsonrpc": "2.0", "id": ev["id"], "method": "hooks/intercept", "params": params}
                resp, why = self.backends[h["id"]].ask(msg, time.monotonic() + s["timeoutMs"] / 1000)
                kind, reason, code = judge(resp, ["deny"]) if resp is not None else ("failure", why, None)
                if kind == "deny":
                    denied = {"outcome": "denied", "synthetic": False, "reason": reason, "code": code}
                elif kind == "failure":
                    log("backend", h["id"], "failed:", reason)
                    if s["failurePolicy"] == "fail-closed":
                        denied = {"outcome": "denied", "synthetic": True, "reason": "Required policy backend unavailable.", "code": None}
        note = {"jsonrpc": "2.0", "method": "hooks/observe", "params": {"protocolVersion": "draft", "event": ev}}
        for h in uncalled:
            try:
                self.backends[h["id"]].start()
                self.backends[h["id"]].send(note)
            except OSError:
                pass
        if denied is not None:
            return denied
        return {"outcome": "prompted"} if p.get("hostPermission") == "prompt" else {"outcome": "executed"}


def main():
    h = Harness()
    for line in sys.stdin:
        msg = json.loads(line)
        mid, method, params = msg.get("id"), msg.get("method"), msg.get("params") or {}
        if method == "initialize":
            res = {"adapter": "ctk-ahp-adapter/1", "name": "ctk-test-draft-harness", "version": "0.0.1",
                   "protocolVersions": ["draft"], "bindings": ["stdio"], "lifecycles": ["persistent"],
                   "profiles": ["base", "tool-interception", "stdio"]}
        elif method == "harness/load":
            bad = h.load(params.get("registration"))
            res = {"loaded": True} if not bad else {"loaded": False, "refused": bad}
        elif method == "harness/tool_call":
            res = h.tool_call(params)
        elif method == "harness/session":
            res = {}
        elif method == "shutdown":
            for b in h.backends.values():
                b.stop()
            print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": {}}), flush=True)
            return
        else:
            res = None
        print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": res}), flush=True)


if __name__ == "__main__":
    main()

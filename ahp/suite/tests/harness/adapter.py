#!/usr/bin/env python3
"""A small AHP 0.1 harness in Python behind the ctk-ahp-adapter/1 contract,
for the kit's own tests. `--mode correct` does what the 0.1 text requires
(and the project's preferred readings); the other modes each break one rule
so that the suite must fail the vectors that check it:

  ignore-fail-closed   treats every fail-closed failure as fail-open
  parallel             asks all interceptors at once
  follow-redirects     re-POSTs to an HTTP redirect's Location
  leak-token           puts the bearer token into the event's source
  wait-late            waits 4 x timeoutMs, so it takes late replies
  own-call-ids         ignores the callId the kit gives (an adapter gap: the kit must
                       call parallel vectors an error, not a failure)
  fifo-replies         in parallel tool calls, gives a persistent backend's k-th reply
                       line to the k-th call, whatever its id (no correlation by id)

`--mode other-readings` breaks nothing: it takes choices the text leaves open the
other way (issue 26: `kind: "other"`, the Bearer scheme in lower case, a blank line
after every stdio message, every integer written with a fraction: `420.0`), and must
pass every gating vector, as `correct` does.

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
import urllib.error
import urllib.parse
import urllib.request
import uuid
from datetime import datetime, timezone

MODE = "correct"
if "--mode" in sys.argv:
    MODE = sys.argv[sys.argv.index("--mode") + 1]

RDNS = re.compile(r"^(?:[A-Za-z][A-Za-z0-9_-]*\.)+[A-Za-z][A-Za-z0-9_-]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
EVENTS = {"tool.before", "tool.after", "tool.error", "session.start", "session.end"}
KINDS = {"shell", "file_read", "file_write", "file_edit", "search", "fetch", "task", "mcp", "other"}
SOURCE = "urn:uuid:0b6a3f52-3c1e-4f43-9d59-5c7a0d1e2f30"
GENERIC = "Required policy backend unavailable."



def spelled(message):
    """other-readings: every integer written with a fraction (JSON has one number type)."""
    if MODE != "other-readings":
        return message
    if isinstance(message, bool):
        return message
    if isinstance(message, int):
        return float(message)
    if isinstance(message, list):
        return [spelled(x) for x in message]
    if isinstance(message, dict):
        return {k: spelled(v) for k, v in message.items()}
    return message


def stdio_frame(message):
    """One stdio frame; other-readings adds a blank line after it (left open, D-24)."""
    frame = (json.dumps(spelled(message), separators=(",", ":")) + "\n").encode()
    if MODE == "other-readings":
        frame += b"\n"
    return frame

def log(*a):
    print("adapter:", *a, file=sys.stderr, flush=True)


def now():
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


# --- registration ---------------------------------------------------------------


def validate(doc):
    bad = []

    def no(ptr, why):
        bad.append({"pointer": ptr, "reason": why})

    if not isinstance(doc, dict):
        no("", "not an object")
        return bad
    if doc.get("protocolVersion") != "0.1":
        no("/protocolVersion", "must be 0.1")
    hooks = doc.get("hooks")
    if not isinstance(hooks, list) or not hooks:
        no("/hooks", "must be a non-empty array")
        return bad
    ids = set()
    for i, h in enumerate(hooks):
        p = "/hooks/%d" % i
        if not isinstance(h, dict):
            no(p, "not an object")
            continue
        bid = h.get("id")
        if not isinstance(bid, str) or not RDNS.match(bid):
            no(p + "/id", "not reverse-DNS")
        elif bid in ids:
            no(p + "/id", "duplicate id")
        ids.add(bid)
        t = h.get("transport")
        kind = t.get("type") if isinstance(t, dict) else None
        if kind == "stdio":
            if not isinstance(t.get("command"), str) or not t.get("command"):
                no(p + "/transport/command", "missing")
            if "args" in t and not (isinstance(t["args"], list) and all(isinstance(a, str) for a in t["args"])):
                no(p + "/transport/args", "not strings")
            if t.get("lifecycle") not in ("persistent", "per_event"):
                no(p + "/transport/lifecycle", "bad lifecycle")
            if "cwd" in t and not isinstance(t["cwd"], str):
                no(p + "/transport/cwd", "not a string")
        elif kind == "http":
            url = t.get("url")
            if not isinstance(url, str) or not re.match(r"^https?://", url):
                no(p + "/transport/url", "not an http(s) URL")
            elif url.startswith("http://"):
                host = urllib.parse.urlsplit(url).hostname or ""
                if host not in ("127.0.0.1", "localhost", "::1"):
                    no(p + "/transport/url", "plain http off loopback")
        else:
            no(p + "/transport", "unknown transport")
        auth = h.get("authentication")
        if auth is not None:
            if kind != "http":
                no(p + "/authentication", "only for http")
            elif not isinstance(auth, dict) or auth.get("type") != "bearer" or not isinstance(auth.get("tokenEnv"), str) or not ENV_NAME.match(auth.get("tokenEnv", "")):
                no(p + "/authentication", "bad bearer")
            elif any(k in auth for k in ("token", "bearerToken", "value")):
                no(p + "/authentication", "literal token")
        subs = h.get("subscriptions")
        if not isinstance(subs, list) or not subs:
            no(p + "/subscriptions", "must be a non-empty array")
            continue
        seen = {"intercept": set(), "observe": set()}
        for j, s in enumerate(subs):
            q = "%s/subscriptions/%d" % (p, j)
            if not isinstance(s, dict):
                no(q, "not an object")
                continue
            mode = s.get("mode")
            ev = s.get("events")
            if mode not in seen:
                no(q + "/mode", "bad mode")
                continue
            if not isinstance(ev, list) or not ev or len(set(map(str, ev))) != len(ev) or not all(e in EVENTS for e in ev):
                no(q + "/events", "bad events")
                continue
            if "includeNative" in s and not isinstance(s["includeNative"], bool):
                no(q + "/includeNative", "not a boolean")
            if mode == "intercept":
                if ev != ["tool.before"]:
                    no(q + "/events", "intercept is tool.before only")
                if not is_int(s.get("timeoutMs")) or s["timeoutMs"] < 1:
                    no(q + "/timeoutMs", "positive integer required")
                if s.get("failurePolicy") not in ("fail-open", "fail-closed"):
                    no(q + "/failurePolicy", "fail-open or fail-closed required")
            else:
                if "timeoutMs" in s or "failurePolicy" in s:
                    no(q, "observe takes no timeoutMs/failurePolicy")
            if seen[mode] & set(ev):
                no(q, "duplicate subscription")
            seen[mode] |= set(ev)
    return bad


# --- backends -------------------------------------------------------------------------


class Failure(Exception):
    pass


# The place of the current thread's call in a harness/tool_calls batch.
CALL = threading.local()


class Stdio:
    def __init__(self, t, env):
        self.argv = [t["command"]] + list(t.get("args", []))
        self.cwd = t.get("cwd")
        self.lifecycle = t["lifecycle"]
        self.env = env
        self.proc = None
        self.lines = None
        self.lock = threading.Lock()
        # One outstanding intercept per persistent backend, across the
        # events of parallel tool calls (D-17).
        self.turn = threading.Lock()
        self.fifo = threading.Lock()
        self.got = []
        self.expired = set()

    def _start(self):
        if self.proc is not None and self.proc.poll() is None:
            return
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self.lines), daemon=True).start()

    @staticmethod
    def _read(proc, q):
        for line in proc.stdout:
            q.put(line)
        q.put(None)

    def write(self, frame):
        with self.lock:
            self.proc.stdin.write(frame)
            self.proc.stdin.flush()

    def intercept(self, req, deadline):
        frame = stdio_frame(req)
        if self.lifecycle == "per_event":
            return self._per_event(frame, req["id"], deadline)
        slot = getattr(CALL, "slot", None)
        if MODE == "fifo-replies" and slot is not None:
            return self._fifo(frame, deadline, slot)
        with self.turn:
            return self._persistent(req, frame, deadline)

    def _fifo(self, frame, deadline, slot):
        # fifo-replies (broken on purpose): no turn, no ids: the slot-th
        # line read answers the slot-th parallel call.
        try:
            self._start()
            self.write(frame)
        except OSError as e:
            raise Failure("launch or write: %s" % e)
        with self.fifo:
            while len(self.got) <= slot:
                left = deadline - time.monotonic()
                try:
                    line = self.lines.get(timeout=max(left, 0))
                except queue.Empty:
                    raise Failure("deadline")
                if line is None:
                    raise Failure("stdout closed")
                self.got.append(line)
            line = self.got[slot]
        reply = parse(line.rstrip(b"\n"))
        return check_reply(reply, reply.get("id"))

    def _persistent(self, req, frame, deadline):
        try:
            self._start()
        except OSError as e:
            raise Failure("launch: %s" % e)
        try:
            self.write(frame)
        except OSError as e:
            raise Failure("write: %s" % e)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self.expired.add(req["id"])
                raise Failure("deadline")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                self.expired.add(req["id"])
                raise Failure("deadline")
            if line is None:
                raise Failure("stdout closed")
            reply = parse(line.rstrip(b"\n"))
            rid = reply.get("id")
            if isinstance(rid, str) and rid in self.expired and rid != req["id"]:
                continue  # a late reply to an earlier request: never applied
            return check_reply(reply, req["id"])

    def _per_event(self, frame, rid, deadline):
        try:
            p = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError as e:
            raise Failure("launch: %s" % e)
        try:
            out, _ = p.communicate(frame, timeout=max(0.001, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise Failure("deadline")
        lines = out.split(b"\n")
        if lines and lines[-1] == b"":
            lines.pop()
        if len(lines) != 1:
            raise Failure("per_event: %d lines" % len(lines))
        decision = check_reply(parse(lines[0]), rid)
        if p.returncode != 0 and decision[0] != "deny":
            raise Failure("exit %s" % p.returncode)
        return decision

    def observe(self, note):
        frame = stdio_frame(note)

        def go():
            try:
                if self.lifecycle == "per_event":
                    p = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdin=subprocess.PIPE,
                                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                    p.communicate(frame, timeout=60)
                else:
                    self._start()
                    self.write(frame)
            except Exception as e:  # observer failures change nothing
                log("observer:", e)

        threading.Thread(target=go, daemon=True).start()

    def close(self):
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.proc.kill()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *a, **k):
        return None


class Http:
    def __init__(self, t, auth, env):
        self.url = t["url"]
        self.token_env = auth.get("tokenEnv") if auth else None
        self.env = env

    def _post(self, body, timeout, url=None):
        headers = {"Content-Type": "application/json"}
        if self.token_env:
            token = self.env.get(self.token_env)
            if token is None:
                raise Failure("tokenEnv not set")  # never unauthenticated (D-23)
            # other-readings: HTTP auth schemes are case-insensitive (RFC 9110 §11.1).
            headers["Authorization"] = ("bearer " if MODE == "other-readings" else "Bearer ") + token
        req = urllib.request.Request(url or self.url, data=body, headers=headers, method="POST")
        opener = urllib.request.build_opener(NoRedirect)
        try:
            r = opener.open(req, timeout=max(0.001, timeout))
            return r.status, r.headers.get("Content-Type", ""), r.read()
        except urllib.error.HTTPError as e:
            if MODE == "follow-redirects" and e.code in (301, 302, 303, 307, 308) and e.headers.get("Location"):
                return self._post(body, timeout, url=e.headers["Location"])
            return e.code, e.headers.get("Content-Type", ""), e.read()
        except Exception as e:
            raise Failure("http: %s" % e)

    def intercept(self, req, deadline):
        body = json.dumps(spelled(req)).encode()
        status, ctype, data = self._post(body, deadline - time.monotonic())
        if time.monotonic() > deadline:
            raise Failure("deadline")
        if status != 200:
            raise Failure("status %d" % status)
        if ctype.split(";")[0].strip().lower() != "application/json":
            raise Failure("content type %r" % ctype)
        return check_reply(parse(data), req["id"])

    def observe(self, note):
        body = json.dumps(spelled(note)).encode()

        def go():
            try:
                self._post(body, 30)
            except Exception as e:
                log("observer:", e)

        threading.Thread(target=go, daemon=True).start()

    def close(self):
        pass


def parse(data):
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Failure("not UTF-8")

    def pairs(kv):
        d = {}
        for k, v in kv:
            if k in d:
                raise Failure("duplicate member %s" % k)
            d[k] = v
        return d

    try:
        v = json.loads(text, object_pairs_hook=pairs)
    except ValueError:
        raise Failure("not JSON")
    if not isinstance(v, dict):
        raise Failure("not an object")
    return v


def ext_ok(x):
    return x is None or (isinstance(x, dict) and all(RDNS.match(k) for k in x))


def check_reply(v, rid):
    if v.get("jsonrpc") != "2.0":
        raise Failure("jsonrpc")
    if v.get("id") != rid or not isinstance(v.get("id"), str):
        raise Failure("id mismatch")
    if ("result" in v) == ("error" in v):
        raise Failure("result xor error")
    if "error" in v:
        raise Failure("error %s" % v["error"])
    r = v["result"]
    if not isinstance(r, dict) or r.get("protocolVersion") != "0.1":
        raise Failure("protocolVersion")
    eff = r.get("effects")
    if not isinstance(eff, list) or not ext_ok(r.get("extensions")):
        raise Failure("effects")
    if not eff:
        return ("none", None, None)
    if len(eff) != 1:
        raise Failure("more than one effect")
    e = eff[0]
    if not isinstance(e, dict) or e.get("type") != "deny":
        raise Failure("unadvertised effect")
    reason = e.get("reason")
    if not isinstance(reason, str) or not reason:
        raise Failure("reason")
    code = e.get("code")
    if code is not None and not (isinstance(code, str) and RDNS.match(code)):
        raise Failure("code")
    if not ext_ok(e.get("extensions")):
        raise Failure("extensions")
    return ("deny", reason, code)


# --- the harness ----------------------------------------------------------------------


class Harness:
    def __init__(self, doc, env):
        self.env = dict(env)
        self.session = "sess_" + uuid.uuid4().hex
        self.interceptors = []
        self.observers = []
        base_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        base_env.update(env)
        for h in doc["hooks"]:
            t = h["transport"]
            b = Stdio(t, base_env) if t["type"] == "stdio" else Http(t, h.get("authentication"), self.env)
            for s in h["subscriptions"]:
                if s["mode"] == "intercept":
                    self.interceptors.append((b, s))
                else:
                    self.observers.append((b, s))
        self.all = list({id(b): b for b, _ in self.interceptors + self.observers}.values())

    def event(self, typ, **more):
        e = {"id": "evt_" + uuid.uuid4().hex, "source": SOURCE, "type": typ, "time": now(), "session": {"id": self.session}}
        if MODE == "leak-token":
            tok = next(iter(self.env.values()), "")
            e["source"] = "urn:ctk:" + urllib.parse.quote(tok, safe="")
        e.update(more)
        return e

    def notify(self, event):
        for b, s in self.observers:
            if event["type"] in s["events"]:
                ev = dict(event)
                if s.get("includeNative"):
                    ev["native"] = {"provider": "ctk-python", "eventName": event["type"], "payload": {}}
                b.observe({"jsonrpc": "2.0", "method": "hooks/observe", "params": {"protocolVersion": "0.1", "event": ev}})

    def tool_call(self, p):
        tool = p["tool"]
        call_id = p.get("callId") or "call_" + uuid.uuid4().hex
        if MODE == "own-call-ids":
            call_id = "call_" + uuid.uuid4().hex
        # other-readings: §22 "Assign a v0.1 `kind` or use `other`."
        kind = "other" if MODE == "other-readings" else tool["kind"]
        ev = self.event("tool.before", tool={"callId": call_id, "name": tool["name"], "kind": kind, "input": tool["input"]})
        self.notify(ev)

        def ask(b, s):
            e = dict(ev)
            if s.get("includeNative"):
                e["native"] = {"provider": "ctk-python", "eventName": "PreToolUse", "payload": {}}
            req = {"jsonrpc": "2.0", "id": ev["id"], "method": "hooks/intercept",
                   "params": {"protocolVersion": "0.1", "event": e, "capabilities": {"effects": ["deny"]}}}
            try:
                # wait-late: the deadline is not enforced as configured.
                scale = 4 if MODE == "wait-late" else 1
                return b.intercept(req, time.monotonic() + scale * s["timeoutMs"] / 1000.0)
            except Failure as f:
                log("failure:", f)
                return ("failure", str(f), None)

        if MODE == "parallel":
            results = [None] * len(self.interceptors)
            threads = []
            for i, (b, s) in enumerate(self.interceptors):
                def run(i=i, b=b, s=s):
                    results[i] = ask(b, s)
                th = threading.Thread(target=run)
                th.start()
                threads.append(th)
            for th in threads:
                th.join()
            answers = iter(results)
            get = lambda b, s: next(answers)
        else:
            get = ask
        for b, s in self.interceptors:
            kind, reason, code = get(b, s)
            if kind == "deny":
                return {"outcome": "denied", "synthetic": False, "reason": reason, "code": code}
            if kind == "failure" and s["failurePolicy"] == "fail-closed" and MODE != "ignore-fail-closed":
                return {"outcome": "denied", "synthetic": True, "reason": GENERIC, "code": None}
        if p.get("hostPermission") == "prompt":
            return {"outcome": "prompted"}
        self.notify(self.event("tool.after", tool={"callId": call_id, "name": tool["name"], "kind": kind, "input": tool["input"], "output": "ok"}))
        return {"outcome": "executed"}

    def tool_calls(self, p):
        """The parallel tool calls of one model turn: each on a thread of its own."""
        calls = p["calls"]
        results = [None] * len(calls)

        def run(i, c):
            CALL.slot = i
            try:
                results[i] = self.tool_call(c)
            except Exception as e:  # reported as the whole batch's error
                results[i] = e

        threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        for r in results:
            if isinstance(r, Exception):
                raise r
        return {"results": results}

    def close(self):
        for b in self.all:
            b.close()


def main():
    harness = None
    for line in sys.stdin:
        msg = json.loads(line)
        mid, method, p = msg.get("id"), msg.get("method"), msg.get("params") or {}
        try:
            if method == "initialize":
                res = {"adapter": "ctk-ahp-adapter/1", "name": "ctk-python-harness", "version": "0.1.0-" + MODE,
                       "protocolVersions": ["0.1"], "bindings": ["stdio", "http"], "lifecycles": ["persistent", "per_event"],
                       "profiles": ["base", "tool-interception", "lifecycle-observation", "stdio", "http"],
                       "features": ["parallel-tool-calls"]}
            elif method == "harness/load":
                bad = validate(p.get("registration"))
                if bad:
                    res = {"loaded": False, "refused": bad}
                else:
                    harness = Harness(p["registration"], p.get("env") or {})
                    res = {"loaded": True}
            elif method == "harness/tool_call":
                res = harness.tool_call(p)
            elif method == "harness/tool_calls":
                res = harness.tool_calls(p)
            elif method == "harness/session":
                harness.notify(harness.event(p["event"]))
                res = {}
            elif method == "shutdown":
                if harness:
                    harness.close()
                print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": {}}), flush=True)
                return 0
            else:
                print(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "unknown method"}}), flush=True)
                continue
        except Exception as e:
            log("internal:", repr(e))
            print(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32603, "message": repr(e)}}), flush=True)
            continue
        print(json.dumps({"jsonrpc": "2.0", "id": mid, "result": res}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

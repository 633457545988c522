#!/usr/bin/env python3
"""A scripted AHP stdio backend for ctk-ahp-harness tests.

usage: backend.py LOG MODE [ARG...]
Every received frame, and every reply sent, is logged to LOG as one JSON
line with a monotonic time, so tests see what the harness sent and when.
MODE decides how each hooks/intercept request is answered; notifications
are never answered unless MODE is reply-to-notes.
"""
import json, os, sys, time

LOG = sys.argv[1]
MODE = sys.argv[2]
PARAM = sys.argv[3] if len(sys.argv) > 3 else None


def log(entry):
    entry["t"] = time.monotonic()
    entry["pid"] = os.getpid()
    with open(LOG, "a") as f:
        f.write(json.dumps(entry) + "\n")


def send(raw):
    log({"sent": raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw})
    out = sys.stdout.buffer
    out.write(raw if isinstance(raw, bytes) else raw.encode())
    out.flush()


def result(rid, res):
    return json.dumps({"jsonrpc": "2.0", "id": rid, "result": res}) + "\n"


def ok(rid):
    return result(rid, {"protocolVersion": "0.1", "effects": []})


def deny(rid, reason="denied by test backend"):
    return result(rid, {"protocolVersion": "0.1", "effects": [
        {"type": "deny", "reason": reason, "code": "com.example.test.deny"}]})


log({"start": True, "argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ)})
count = 0
for line in sys.stdin.buffer:
    text = line.decode("utf-8", "replace")
    log({"recv": text})
    msg = json.loads(text)
    if "id" not in msg:
        if MODE == "reply-to-notes":
            send(deny(None))
        if MODE == "sleep-notes":
            time.sleep(float(PARAM))
        continue
    rid = msg["id"]
    count += 1
    m = MODE
    if m == "ok" or m == "reply-to-notes" or m == "sleep-notes":
        send(ok(rid))
    elif m == "deny":
        send(deny(rid, PARAM or "denied by test backend"))
    elif m == "deny-ws":
        send(deny(rid, "   "))
    elif m == "deny-empty":
        send(deny(rid, ""))
    elif m == "two-deny":
        send(result(rid, {"protocolVersion": "0.1", "effects": [
            {"type": "deny", "reason": "a"}, {"type": "deny", "reason": "b"}]}))
    elif m == "allow":
        send(result(rid, {"protocolVersion": "0.1", "effects": [{"type": "allow"}]}))
    elif m == "ext-effect":
        send(result(rid, {"protocolVersion": "0.1", "effects": [{"type": "com.example.x"}]}))
    elif m == "bad-code":
        send(result(rid, {"protocolVersion": "0.1", "effects": [
            {"type": "deny", "reason": "r", "code": "nodots"}]}))
    elif m == "wrong-id":
        send(ok(rid + "-other"))
    elif m == "null-id":
        send(ok(None))
    elif m == "rpc-error":
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "error": {
            "code": int(PARAM or -32003), "message": "unavailable"}}) + "\n")
    elif m == "both":
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "0.1", "effects": []},
                         "error": {"code": -32003, "message": "x"}}) + "\n")
    elif m == "wrong-version":
        send(result(rid, {"protocolVersion": "0.2", "effects": []}))
    elif m == "no-version":
        send(result(rid, {"effects": []}))
    elif m == "no-effects":
        send(result(rid, {"protocolVersion": "0.1"}))
    elif m == "not-json":
        send("CANARY-MALFORMED this is not json\n")
    elif m == "not-utf8":
        send(b'{"jsonrpc":"2.0","id":"\xff\xfe"}\n')
    elif m == "batch":
        send("[" + ok(rid).strip() + "]\n")
    elif m == "no-jsonrpc":
        send(json.dumps({"id": rid, "result": {"protocolVersion": "0.1", "effects": []}}) + "\n")
    elif m == "banner":
        send("backend starting up\n")
        send(ok(rid))
    elif m == "pretty":
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "0.1", "effects": []}},
                        indent=2) + "\n")
    elif m == "extra-fields":
        send(json.dumps({"jsonrpc": "2.0", "id": rid, "x-extra": 1, "result": {
            "protocolVersion": "0.1", "effects": [], "x-more": {"a": 1}}}) + "\n")
    elif m == "deny-extra":
        send(result(rid, {"protocolVersion": "0.1", "effects": [
            {"type": "deny", "reason": "extra", "x-unknown": True}]}))
    elif m == "delay":
        time.sleep(float(PARAM))
        send(ok(rid))
    elif m == "delay-deny":
        time.sleep(float(PARAM))
        send(deny(rid, "late deny"))
    elif m == "first-late-deny":
        if count == 1:
            time.sleep(float(PARAM))
            send(deny(rid, "late deny"))
        else:
            send(ok(rid))
    elif m == "close":
        log({"closing": True})
        sys.exit(0)
    elif m == "exit":
        sys.exit(int(PARAM))
    elif m == "deny-exit":
        send(deny(rid))
        sys.stdout.flush()
        sys.exit(int(PARAM))
    elif m == "ok-exit":
        send(ok(rid))
        sys.stdout.flush()
        sys.exit(int(PARAM))
    elif m == "silent":
        pass
    else:
        sys.stderr.write("unknown mode " + m + "\n")
        sys.exit(9)
log({"eof": True})

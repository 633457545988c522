#!/usr/bin/env python3
"""A per-event AHP stdio backend for the --freedoms tests: appends the exact
bytes it read on stdin to OUT, then answers a request.

usage: raw_backend.py OUT MODE [REASON]
MODE: ok (no effect), deny (a deny with REASON, default "secret reason") or
noop (the no-op extension effect the extension-effect freedoms advertise);
ok-exit3 and deny-exit3 answer so and then exit with status 3 (D-02).
The reply's protocolVersion is the request's ("0.1" or "draft").
"""
import json, sys

OUT, MODE = sys.argv[1], sys.argv[2]
EXIT = 3 if MODE.endswith("-exit3") else 0
MODE = MODE.removesuffix("-exit3")
REASON = sys.argv[3] if len(sys.argv) > 3 else "secret reason"
data = sys.stdin.buffer.read()
with open(OUT, "ab") as f:
    f.write(data)
line = next((l for l in data.split(b"\n") if l.strip()), b"{}")
msg = json.loads(line)
if "id" in msg:
    effects = {
        "ok": [],
        "deny": [{"type": "deny", "reason": REASON}],
        "noop": [{"type": "dev.agent-hooks-ctk.freedom.noop"}],
    }[MODE]
    version = msg.get("params", {}).get("protocolVersion", "0.1")
    reply = {"jsonrpc": "2.0", "id": msg["id"], "result": {"protocolVersion": version, "effects": effects}}
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
sys.exit(EXIT)

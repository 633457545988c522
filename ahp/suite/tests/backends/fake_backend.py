#!/usr/bin/env python3
"""A small AHP 0.1 backend for the suite's own tests: correct by default,
broken in one named way with --mode. Written from the 0.1 text only.

    fake_backend.py [--mode MODE] [--per-event] [--http]

stdio: persistent by default (one JSON-RPC message per line until EOF);
--per-event handles one message and exits. --http serves POSTs on a
loopback port and prints `PORT <n>` as its first stdout line.
Policy: denies a shell call whose input.command contains
`git push --force`; no effect otherwise (so it states both
ctk.deny-force-push and ctk.no-effect-file-read).
"""

import json
import os
import sys
import time

MODE = "correct"
args = sys.argv[1:]
if "--mode" in args:
    MODE = args[args.index("--mode") + 1]
PER_EVENT = "--per-event" in args
HTTP = "--http" in args
TOKEN = os.environ.get("CTK_AHP_TOKEN", "")
OBSERVATION_EVENTS = {"tool.after", "tool.error", "session.start", "session.end"}


def error(rid, code, message, data=None):
    err = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    if MODE == "echo_token":
        err["data"] = {"token": TOKEN, "auth": HEADER_TOKEN[0]}
    return {"jsonrpc": "2.0", "id": rid, "error": err}


HEADER_TOKEN = [""]


def decide(msg):
    """The response to one parsed message, or None (notification)."""
    if not isinstance(msg, dict):
        return error(None, -32600, "Invalid Request")
    is_request = "id" in msg
    rid = msg.get("id")
    if not is_request:
        return None
    if msg.get("jsonrpc") != "2.0" or not isinstance(msg.get("method"), str):
        return error(rid, -32600, "Invalid Request")
    if msg["method"] != "hooks/intercept":
        return error(rid, -32601, "Method not found")
    params = msg.get("params")
    if not isinstance(params, dict):
        return error(rid, -32602, "Invalid params")
    if "protocolVersion" not in params:
        return error(rid, -32602, "Invalid params: protocolVersion is missing")
    version = params.get("protocolVersion")
    if version != "0.1":
        return error(rid, -32001, "Unsupported AHP protocol version", {"supported": ["0.1"]})
    event = params.get("event")
    if not isinstance(event, dict):
        return error(rid, -32602, "Invalid params: event")
    if event.get("type") != "tool.before":
        return error(rid, -32002, "Unsupported event", {"type": str(event.get("type"))})
    if event.get("id") != rid:
        return error(rid, -32602, "Invalid params: the request id is not params.event.id")
    tool = event.get("tool") if isinstance(event.get("tool"), dict) else {}
    inp = tool.get("input") if isinstance(tool.get("input"), dict) else {}
    command = inp.get("command") if isinstance(inp.get("command"), str) else ""
    effects = []
    if tool.get("kind") == "shell" and "git push --force" in command:
        effects = [{"type": "deny", "reason": "Force pushes are prohibited by policy.", "code": "org.example.ctk.force_push"}]
    if MODE == "two_effects":
        effects = [{"type": "deny", "reason": "one"}, {"type": "deny", "reason": "two"}]
    if MODE == "empty_reason":
        effects = [{"type": "deny", "reason": ""}]
    if MODE == "echo_token" and effects:
        effects[0]["reason"] = "denied for " + (TOKEN or HEADER_TOKEN[0])
    result = {"protocolVersion": "0.1", "effects": effects}
    if MODE == "wrong_version":
        result["protocolVersion"] = "0.2"
    out_id = rid
    if MODE == "wrong_id":
        out_id = "not-" + str(rid)
    return {"jsonrpc": "2.0", "id": out_id, "result": result}


def handle_line(line):
    """The text to write for one input line, or None."""
    try:
        msg = json.loads(line)
    except ValueError:
        if MODE == "garbage_silent":
            return None
        if MODE == "garbage_text":
            return "that line was too long"
        return json.dumps(error(None, -32700, "Parse error"))
    if MODE == "answer_notifications" and isinstance(msg, dict) and "id" not in msg:
        return json.dumps(error(None, -32600, "notifications get no answer, but here is one"))
    resp = decide(msg)
    if resp is None:
        return None
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "pretty":
        return json.dumps(resp, indent=2)
    return json.dumps(resp, ensure_ascii=False, separators=(",", ":"))


def write(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def stdio():
    if os.environ.get("FAKE_PIDFILE"):
        with open(os.environ["FAKE_PIDFILE"], "w") as f:
            f.write(str(os.getpid()))
    if MODE == "banner":
        write("fake backend ready")
    if MODE == "fork":
        pid = os.fork()
        if pid == 0:
            os.setsid()
            with open(os.environ["FAKE_CHILD_PIDFILE"], "w") as f:
                f.write(str(os.getpid()))
            time.sleep(3600)
            os._exit(0)
    if MODE == "flood":
        chunk = "x" * 65536
        while True:
            sys.stdout.write(chunk)
    if MODE == "huge_line":
        sys.stdout.write("{" + " " * (4 << 20))
        sys.stdout.flush()
    if MODE == "stop_reading_long":
        # Takes the first MiB of a line; past that it stops reading and
        # exits without an answer (a bound of its own).
        head = sys.stdin.buffer.readline(1 << 20)
        if not head.endswith(b"\n"):
            sys.exit(0)
        out = handle_line(head.decode("utf-8").rstrip("\n"))
        if out is not None:
            write(out)
        sys.exit(0)
    if MODE == "read_chunk":
        # Broken framing: every read is taken as one message.
        while True:
            chunk = os.read(0, 65536)
            if not chunk:
                sys.exit(0)
            out = handle_line(chunk.decode("utf-8", "replace").strip())
            if out is not None:
                write(out)
            if PER_EVENT:
                sys.exit(0)
    for line in sys.stdin:
        line = line.rstrip("\n")
        if MODE == "crash_on_unknown" and "ctkUnknownMember" in line:
            sys.exit(3)
        out = handle_line(line)
        if out is not None:
            write(out)
        if PER_EVENT:
            break
    if PER_EVENT and MODE == "exit1":
        sys.exit(1)
    if MODE == "linger":
        time.sleep(3600)
    sys.exit(0)


def http():
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class H(BaseHTTPRequestHandler):
        def log_message(self, *a):
            sys.stderr.write("http: " + (a[0] % a[1:]) + "\n")

        def do_POST(self):
            n = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(n).decode("utf-8", "replace")
            auth = self.headers.get("Authorization", "")
            HEADER_TOKEN[0] = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
            if MODE == "redirect" and self.path != "/elsewhere":
                # A correct answer is served at /elsewhere: a client that
                # followed the redirect would see it.
                self.send_response(307)
                self.send_header("Location", "/elsewhere")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            out = handle_line(body)
            if out is None:
                self.send_response(204)
                self.end_headers()
                return
            data = out.encode("utf-8")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain" if MODE == "wrong_content_type" else "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    srv = HTTPServer(("127.0.0.1", 0), H)
    write("PORT %d" % srv.server_address[1])
    srv.serve_forever()


if __name__ == "__main__":
    http() if HTTP else stdio()

#!/usr/bin/env python3
"""An AHP stdio backend for the parallel tool-call tests of ctk-ahp-harness.

usage: parallel_backend.py LOG MODE SECONDS
A reader thread logs every frame the moment it arrives, so the log shows
whether a second request came in before the first was answered. Every
log line is one JSON object, appended in order under a lock: {"start": true},
{"recv": frame}, {"sent": reply, "to": request id} or {"eof": true}, with a
monotonic time and the pid.

Each request is answered by the tool's name: a name starting with "deny"
gets a deny whose reason is "deny <name> <call id>", any other no effect.
The reply's protocolVersion is the request's ("0.1" or "draft").

MODE:
  delay  answer each request SECONDS after reading it, one at a time, in
         arrival order (per_event or persistent);
  pair   wait for a request, then up to SECONDS for a second one, and answer
         those in REVERSE arrival order (persistent).
The process ends at EOF once every request is answered.
"""
import json, os, queue, sys, threading, time

LOG, MODE, SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])
lock = threading.Lock()
requests = queue.Queue()
EOF = object()


def log(entry):
    entry["t"] = time.monotonic()
    entry["pid"] = os.getpid()
    with lock:
        with open(LOG, "a") as f:
            f.write(json.dumps(entry) + "\n")


def read():
    for line in sys.stdin.buffer:
        text = line.decode("utf-8", "replace")
        if not text.strip():
            continue
        log({"recv": text})
        msg = json.loads(text)
        if "id" in msg:
            requests.put(msg)
    requests.put(EOF)


def answer(msg):
    params = msg.get("params", {})
    event = params.get("event", {})
    name = event.get("tool", {}).get("name", "")
    call_id = event.get("tool", {}).get("callId") or event.get("call", {}).get("id")
    effects = []
    if name.startswith("deny"):
        effects = [{"type": "deny", "reason": "deny %s %s" % (name, call_id)}]
    reply = {"jsonrpc": "2.0", "id": msg["id"],
             "result": {"protocolVersion": params.get("protocolVersion", "0.1"), "effects": effects}}
    text = json.dumps(reply) + "\n"
    log({"sent": text, "to": msg["id"]})
    sys.stdout.write(text)
    sys.stdout.flush()


log({"start": True})
threading.Thread(target=read, daemon=True).start()
while True:
    first = requests.get()
    if first is EOF:
        break
    if MODE == "delay":
        time.sleep(SECONDS)
        answer(first)
        continue
    batch = [first]
    try:
        second = requests.get(timeout=SECONDS)
        if second is EOF:
            requests.put(EOF)
        else:
            batch.append(second)
    except queue.Empty:
        pass
    for msg in reversed(batch):
        answer(msg)
log({"eof": True})

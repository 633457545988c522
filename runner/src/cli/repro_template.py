#!/usr/bin/env python3
# Written by `ctk repro`: a replay of one conformance vector's stdio exchange
# (agent-hooks-ctk, harness protocol ctk-harness/1). Python 3.8+, standard
# library only; the transcript is inline, so this one file is the whole bug
# report.
#
#     python3 THIS_FILE -- <host command>
#
# __CTK_SUMMARY__
#
# What it does. It starts the host command as ctk would (stdin/stdout carry
# one JSON-RPC message a line, stderr is the host's log), then plays the
# runner's side of the recorded exchange: the same initialize, vector/setup,
# vector/run and vector/teardown lines, byte for byte. While vector/run is
# open it answers each callback the host makes with the answer the runner
# recorded, after the same delay (a scripted slow or silent interceptor stays
# slow or silent; an unanswered callback stays unanswered). A callback, or a
# callback/record notification (never answered), is matched to the recording
# by method and, for callback/intercept and callback/record, by interceptor
# index, in order; the host's own callback ids may differ, and
# each answer carries the id the host used now.
#
# What it checks. Every message the host sends is compared with the recorded
# one: the first difference is printed with the message's number in the
# transcript, a JSON pointer into it, and the recorded and actual values;
# then the script exits 1. Exit 0: the host behaved as recorded (so the
# verdict ctk gave on the recorded exchange, above, stands for this host as
# well). Exit 2: the host could not be started, or a bad option.
#
# What is compared only for presence and JSON type, never for value (pass
# --strict to compare them too):
#   - members named in VARYING_NAMES below (timestamps, session ids) and
#     members whose names end in "_identity" or "_at": a host stamps them
#     with the clock, and identities are hashes over contexts that hold a
#     timestamp, so they differ on every run;
#   - the host's identity in the initialize answer (/result/host), so that a
#     transcript recorded against one host replays against another;
#   - the id of a callback request (the host chooses it);
#   - members at the JSON pointers given with --ignore (for a transcript of
#     another host: its agent id, say).
# When the recorded host never answered a request (it crashed, hung or broke
# the protocol, and ctk ended it), the replay ends there: the host must not
# answer it within 2 s either (exiting and hanging count alike; the recorded
# verdict says which it was).
# Callbacks made concurrently may arrive in any order; answers are matched by
# id, as in ctk. The replay runs this one vector on a fresh host process, as
# `ctk run --isolate` would: a persistent host that served earlier vectors
# first may have behaved differently because of them (that is a finding too).
# The runner's answers are sent as recorded, but a varying value the host
# sent (a context_identity, a timestamp) that an answer echoes is replaced by
# the value the host sent this time, as the runner's scripted resolver and
# interceptors would have echoed it.

import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time

DATA = json.loads(__CTK_REPRO_DATA__)

VARYING_NAMES = {"timestamp", "time", "session_id", "started_at", "finished_at"}
VARYING_SUFFIXES = ("_identity", "_at")
MAX_LINE_BYTES = 16 * 1024 * 1024
ABSENT = object()


class Diverged(Exception):
    """The host did something the recording does not hold."""


def pointer(parts):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts) or "(the whole message)"


def show(value):
    if value is ABSENT:
        return "(absent)"
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 400 else text[:400] + "... (%d characters)" % len(text)


def kind(value):
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return "number"
    return {str: "string", list: "array", dict: "object"}[type(value)]


IGNORED = set()


def varying(parts, loose):
    if not parts:
        return False
    if pointer(parts) in IGNORED:
        return True
    name = parts[-1]
    if tuple(parts[:2]) in loose:
        return True
    if not isinstance(name, str):
        return False
    if name == "id" and len(parts) >= 2 and parts[-2] == "session":
        return True
    return name in VARYING_NAMES or name.endswith(VARYING_SUFFIXES)


def difference(expected, actual, parts, strict, loose, aliases):
    """The first place `actual` differs from `expected`: (path, expected, actual).

    A varying string that differs is remembered in `aliases` (recorded value
    to actual value), so that answers echoing it (a resolver echoes the
    request's context_identity) carry this run's value."""
    if not strict and varying(parts, loose):
        if expected is ABSENT or actual is ABSENT or kind(expected) != kind(actual):
            return parts, expected, actual
        if isinstance(expected, str) and expected != actual and parts != ["id"]:
            aliases[expected] = actual
        return None
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected:
            found = difference(expected[key], actual.get(key, ABSENT), parts + [key], strict, loose, aliases)
            if found:
                return found
        for key in actual:
            if key not in expected:
                return parts + [key], ABSENT, actual[key]
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        for i in range(max(len(expected), len(actual))):
            e = expected[i] if i < len(expected) else ABSENT
            a = actual[i] if i < len(actual) else ABSENT
            found = difference(e, a, parts + [i], strict, loose, aliases)
            if found:
                return found
        return None
    if expected is ABSENT or actual is ABSENT or kind(expected) != kind(actual) or expected != actual:
        return parts, expected, actual
    return None


class Host:
    """The host process: stdout read by a thread, stderr's last lines kept."""

    def __init__(self, command):
        env = dict(os.environ, CTK_HOST_INSTANCE="ctk-repro")
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, env=env, start_new_session=True)
        except OSError as e:
            print("error: cannot start the host %s: %s" % (command, e), file=sys.stderr)
            sys.exit(2)
        self.lines = queue.Queue()
        self.stderr = []
        self.write_lock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _read(self):
        while True:
            line = self.proc.stdout.readline(MAX_LINE_BYTES + 2)
            if not line:
                self.lines.put(("eof", None))
                return
            if len(line.rstrip(b"\r\n")) > MAX_LINE_BYTES:
                self.lines.put(("unreadable", "a line longer than %d bytes" % MAX_LINE_BYTES))
                return
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                self.lines.put(("unreadable", "a line that is not UTF-8"))
                return
            self.lines.put(("line", text.rstrip("\n").rstrip("\r")))

    def _drain(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace").rstrip("\n"))
            del self.stderr[:-50]

    def send(self, text):
        with self.write_lock:
            try:
                self.proc.stdin.write(text.encode("utf-8") + b"\n")
                self.proc.stdin.flush()
            except (BrokenPipeError, OSError):
                pass  # the host is gone; reading says so

    def next(self, timeout):
        try:
            return self.lines.get(timeout=timeout)
        except queue.Empty:
            return ("timeout", None)

    def status(self):
        try:
            return "exit status %s" % self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "still running"

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            pass


def describe(entry):
    msg = entry.get("msg")
    if entry.get("raw") is not None:
        what = "a line that is not JSON: " + show(entry["raw"])
    elif entry.get("unreadable") is not None:
        what = "unreadable output (%s)" % entry["unreadable"]
    elif isinstance(msg, dict) and "method" in msg:
        what = ("request %s" if "id" in msg else "notification %s") % msg["method"]
        if msg["method"] in ("callback/intercept", "callback/record"):
            what += " (interceptor %s)" % msg.get("params", {}).get("index")
    else:
        what = "the answer to id %s" % show(msg.get("id") if isinstance(msg, dict) else None)
    return "transcript message #%d (%s, %s)" % (entry["seq"], entry["direction"], what)


def plan(entries):
    """Runner requests in order, each with the host lines recorded while it was open."""
    for e in entries:
        e["msg"] = json.loads(e["wire"]) if e.get("wire") is not None else None
    open_callbacks = {}
    steps = []
    for e in entries:
        msg = e["msg"]
        if e["direction"] == "to_host":
            if isinstance(msg, dict) and "method" in msg:
                steps.append({"request": e, "host": []})
            elif isinstance(msg, dict):
                cb = open_callbacks.pop(json.dumps(msg.get("id")), None)
                if cb is not None:
                    cb["answer"] = e
            continue
        if not steps:
            steps.append({"request": None, "host": []})
        steps[-1]["host"].append(e)
        if isinstance(msg, dict) and "method" in msg and "id" in msg:
            open_callbacks[json.dumps(msg["id"])] = e
    return steps


def substitute(value, aliases):
    if isinstance(value, str):
        return aliases.get(value, value)
    if isinstance(value, list):
        return [substitute(v, aliases) for v in value]
    if isinstance(value, dict):
        return {k: substitute(v, aliases) for k, v in value.items()}
    return value


def with_id(answer_wire, recorded_id, new_id, aliases):
    """The recorded answer under the host's id now; byte for byte as recorded
    unless it echoes a varying value the host has since changed."""
    msg = json.loads(answer_wire)
    if substitute(msg, aliases) != msg:
        msg = substitute(msg, aliases)
        msg["id"] = new_id
        return json.dumps(msg, ensure_ascii=False, separators=(",", ":"))
    prefix = '{"jsonrpc":"2.0","id":'
    old = prefix + json.dumps(recorded_id, ensure_ascii=False, separators=(",", ":"))
    if answer_wire.startswith(old):
        return prefix + json.dumps(new_id, ensure_ascii=False, separators=(",", ":")) + answer_wire[len(old):]
    msg = json.loads(answer_wire)
    msg["id"] = new_id
    return json.dumps(msg, ensure_ascii=False, separators=(",", ":"))


def replay(host, steps, args):
    checked = 0
    aliases = {}
    for step in steps:
        request = step["request"]
        timers = []
        if request is not None:
            host.send(request["wire"])
        rid = request["msg"].get("id") if request is not None else None
        method = request["msg"].get("method") if request is not None else None
        loose = {("result", "host")} if method == "initialize" else set()
        expected = step["host"]
        done = set()
        while True:
            pending = [e for e in expected if e["seq"] not in done]
            if not pending:
                break
            got, line = host.next(args.timeout)
            if got == "timeout":
                raise Diverged("the host sent nothing for %ss; the recording has %s next"
                               % (args.timeout, describe(pending[0])))
            if got == "eof":
                raise Diverged("the host closed its stdout (%s); the recording has %s next"
                               % (host.status(), describe(pending[0])))
            if got == "unreadable":
                want = pending[0]
                if want.get("unreadable") is None:
                    raise Diverged("the host wrote %s; the recording has %s" % (line, describe(want)))
                done.add(want["seq"])
                checked += 1
                continue
            try:
                msg = json.loads(line)
            except ValueError:
                want = pending[0]
                if want.get("raw") != line:
                    raise Diverged("the host wrote a line that is not JSON: %s; the recording has %s"
                                   % (show(line), describe(want)))
                done.add(want["seq"])
                checked += 1
                continue
            # A callback request, or a callback/record notification (no id,
            # never answered), is matched by method and interceptor index.
            if (isinstance(msg, dict) and isinstance(msg.get("method"), str)
                    and msg["method"].startswith("callback/")):
                index = msg.get("params", {}).get("index") if isinstance(msg.get("params"), dict) else None
                candidates = [e for e in pending if isinstance(e["msg"], dict)
                              and e["msg"].get("method") == msg["method"]
                              and ("id" in e["msg"]) == ("id" in msg)
                              and (msg["method"] not in ("callback/intercept", "callback/record")
                                   or e["msg"].get("params", {}).get("index") == index)]
                # Concurrent callbacks (parallel tool calls) may come in
                # another order: the first recorded one that matches exactly,
                # else the first, whose difference is reported.
                want = next((e for e in candidates
                             if difference(e["msg"], msg, [], args.strict, {("id",)}, {}) is None),
                            candidates[0] if candidates else None)
                if want is None:
                    raise Diverged("the host sent %s%s, which the recording does not hold at this point; "
                                   "the recording has %s next" % (
                                       msg["method"], "" if index is None else " (interceptor %s)" % index,
                                       describe(pending[0])))
                found = difference(want["msg"], msg, [], args.strict, {("id",)}, aliases)
                if found:
                    raise Diverged(divergence(want, found))
                done.add(want["seq"])
                checked += 1
                answer = want.get("answer")
                if answer is not None and "id" in msg:
                    text = with_id(answer["wire"], want["msg"]["id"], msg["id"], aliases)
                    delay = 0.0
                    if answer.get("t_ms") is not None and want.get("t_ms") is not None:
                        delay = max(0.0, (answer["t_ms"] - want["t_ms"]) / 1000.0)
                    timer = threading.Timer(delay, host.send, [text])
                    timer.daemon = True
                    timer.start()
                    timers.append(timer)
                continue
            want = next((e for e in pending if isinstance(e["msg"], dict) and "method" not in e["msg"]), None)
            if want is None:
                raise Diverged("the host sent %s; the recording has %s next"
                               % (show(msg), describe(pending[0])))
            earlier = [e for e in pending if e["seq"] < want["seq"]]
            if earlier:
                raise Diverged("the host sent %s before %s" % (show(msg), describe(earlier[0])))
            found = difference(want["msg"], msg, [], args.strict, loose, aliases)
            if found:
                raise Diverged(divergence(want, found))
            done.add(want["seq"])
            checked += 1
        if rid is not None and not any(isinstance(e["msg"], dict) and "method" not in e["msg"]
                                       and e["msg"].get("id") == rid for e in expected):
            # The recorded host never answered this request (it crashed, hung
            # or broke the protocol, and ctk ended it): the recording ends
            # here, and so does the replay.
            wait = min(args.timeout, 2.0)
            got, line = host.next(wait)
            if got == "line":
                raise Diverged("after %s the recorded host sent nothing more (ctk ended it), this "
                               "host sent %s" % (describe(request), show(line)))
            for t in timers:
                t.cancel()
            print("the recorded host never answered %s (ctk ended it: see its verdict below); "
                  "this host did not answer it within %ss either (%s)"
                  % (describe(request), wait, "it closed its stdout" if got == "eof" else "it is still running"))
            return checked
        for t in timers:
            t.cancel()
    return checked


def concurrent(entries):
    """Whether the vector runs tool calls concurrently."""
    for e in entries:
        msg = e.get("msg")
        if isinstance(msg, dict) and msg.get("method") == "vector/setup":
            script = (msg.get("params") or {}).get("scenario", {}).get("model_script") or []
            return any(isinstance(t, dict) and isinstance(t.get("respond"), dict)
                       and t["respond"].get("parallel") for t in script)
    return False


CONCURRENT = [False]


def divergence(want, found):
    parts, expected, actual = found
    text = "in %s\n  at %s\n  recorded: %s\n  actual:   %s" % (
        describe(want), pointer(parts), show(expected), show(actual))
    if CONCURRENT[0]:
        text += ("\n  note: this vector runs tool calls concurrently, so the order of callbacks and "
                 "records (and their sequence numbers) may differ between two runs of one correct "
                 "host; run the script again to tell an ordering race from a real difference")
    return text


def main():
    parser = argparse.ArgumentParser(
        description="Replay vector %s against a host: python3 %s -- <host command>"
                    % (DATA["vector_id"], os.path.basename(sys.argv[0])))
    parser.add_argument("--timeout", type=float, default=30.0,
                        help="seconds to wait for each message of the host (default 30)")
    parser.add_argument("--strict", action="store_true",
                        help="compare timestamps, identities and session ids by value too")
    parser.add_argument("--ignore", action="append", default=[], metavar="POINTER",
                        help="compare the member at this JSON pointer (in every message, e.g. "
                             "/params/context/agent/id) for presence and type only; repeatable")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the host command")
    args = parser.parse_args()
    IGNORED.update(args.ignore)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        recorded = DATA.get("recorded_command")
        parser.error("give the host command after --" + (
            " (recorded against: %s)" % " ".join(recorded) if recorded else ""))
    verdict = DATA.get("recorded_verdict")
    print("replaying %s: %d recorded messages, against: %s"
          % (DATA["vector_id"], len(DATA["entries"]), " ".join(command)))
    steps = plan(DATA["entries"])
    CONCURRENT[0] = concurrent(DATA["entries"])
    host = Host(command)
    try:
        checked = replay(host, steps, args)
    except Diverged as e:
        time.sleep(0.2)
        print("DIVERGED: the host did not behave as recorded")
        print("  " + str(e))
        if host.stderr:
            print("host stderr (last %d lines):" % len(host.stderr))
            for line in host.stderr:
                print("  " + line)
        host.close()
        return 1
    host.close()
    print("AS RECORDED: the host sent the %d messages the recording holds, with the same content"
          % checked)
    if verdict:
        print("ctk's verdict on the recorded exchange: %s%s" % (
            verdict["status"], (": " + verdict["reason"]) if verdict.get("reason") else ""))
        if verdict["status"] != "pass":
            print("so the %s reproduces on this host" % verdict["status"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

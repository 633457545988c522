"""The stdio link both adapter contracts share: JSON-RPC 2.0, one message a line.

The runner (ctk) is the client of the adapter's main requests and the server of its callbacks.
`Link` reads stdin on a thread of its own, so that the adapter's code can wait for a callback's
answer while the runner's next line is already being read; requests go to a queue that `serve`
drains on the calling thread, answers complete the callback that asked for them, and a late answer
to a callback the adapter gave up on is dropped. Every line written is flushed at once, and stdout
carries nothing else (log to stderr with `log`).
"""

import asyncio
import concurrent.futures
import itertools
import json
import queue
import sys
import threading
import traceback


def log(*parts):
    """One line on stderr: the adapter's log, which the runner keeps and never parses."""
    print(*parts, file=sys.stderr, flush=True)


class RpcError(Exception):
    """An error answer to the runner's request: `code` (PROTOCOL.md section 4), `message`, and for
    a host error (-32000) the `phase` it happened in."""

    def __init__(self, code, message, phase=None):
        super().__init__(message)
        self.code, self.message, self.phase = code, message, phase


class CallbackError(Exception):
    """The runner answered a callback with an error response, or the link closed first."""


class Link:
    """Both directions of the line link, over `stdin` and `stdout` (the process's by default)."""

    def __init__(self, stdin=None, stdout=None):
        self._in = stdin if stdin is not None else sys.stdin
        self._out = stdout if stdout is not None else sys.stdout
        self._out_lock = threading.Lock()
        self._pending = {}
        self._pending_lock = threading.Lock()
        self._ids = itertools.count(1)
        self.requests = queue.Queue()
        self._reader = threading.Thread(target=self._read, name="ctk-kit-stdin", daemon=True)
        self._reader.start()

    def write(self, message):
        """Write one message as one line and flush it. ASCII escapes keep a lone surrogate, which
        Python's strings can hold, writable."""
        line = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        with self._out_lock:
            self._out.write(line + "\n")
            self._out.flush()

    def _read(self):
        for line in self._in:
            try:
                msg = json.loads(line)
            except ValueError as e:
                self.write({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": str(e)}})
                continue
            if not isinstance(msg, dict) or msg.get("jsonrpc") != "2.0":
                self.write({"jsonrpc": "2.0", "id": None,
                            "error": {"code": -32600, "message": "not a JSON-RPC 2.0 message"}})
                continue
            if "method" in msg:
                self.requests.put(msg)
                continue
            with self._pending_lock:
                future = self._pending.pop(_id_key(msg.get("id")), None)
            if future is not None and not future.done():
                future.set_result(msg)
        # End of input: the runner is gone. Wake whoever waits.
        self.requests.put(None)
        with self._pending_lock:
            waiting, self._pending = list(self._pending.values()), {}
        for future in waiting:
            if not future.done():
                future.set_exception(CallbackError("the link closed before the runner answered"))

    def send(self, method, params):
        """Send a callback request; returns its id and the future its answer completes."""
        rid = next(self._ids)
        future = concurrent.futures.Future()
        with self._pending_lock:
            self._pending[_id_key(rid)] = future
        self.write({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        return rid, future

    def forget(self, rid):
        """Give up on callback `rid`: its answer, if it ever comes, is dropped."""
        with self._pending_lock:
            self._pending.pop(_id_key(rid), None)

    def call(self, method, params, timeout_s=None):
        """A callback, waited for on this thread: its result object. Raises `TimeoutError` when
        `timeout_s` passes first (the callback is then abandoned, as PROTOCOL.md section 3 asks)
        and `CallbackError` on an error answer."""
        rid, future = self.send(method, params)
        try:
            msg = future.result(timeout=timeout_s)
        except concurrent.futures.TimeoutError:
            raise TimeoutError(f"{method}: no answer within {timeout_s} s") from None
        finally:
            self.forget(rid)
        return result_of(method, msg)

    async def call_async(self, method, params):
        """A callback awaited on the running asyncio loop: its result object. It has no timeout of
        its own (bound it with `asyncio.wait_for`; a cancelled call is abandoned like a timed-out
        one). Raises `CallbackError` on an error answer."""
        rid, future = self.send(method, params)
        try:
            msg = await asyncio.wrap_future(future)
        finally:
            self.forget(rid)
        return result_of(method, msg)

    def serve(self, handle):
        """Answer the runner's requests in order until `shutdown` or end of input: `handle(method,
        params)` returns the result object or raises `RpcError`; any other exception is the
        adapter's own failure, logged and answered as an internal error (-32603). Returns the exit
        status (0)."""
        while True:
            msg = self.requests.get()
            if msg is None:
                return 0
            rid, method = msg.get("id"), msg.get("method")
            if rid is None:
                continue  # notifications: none are defined
            if method == "shutdown":
                self.write({"jsonrpc": "2.0", "id": rid, "result": {}})
                return 0
            try:
                result = handle(method, msg.get("params") or {})
                self.write({"jsonrpc": "2.0", "id": rid, "result": result})
            except RpcError as e:
                error = {"code": e.code, "message": e.message}
                if e.phase:
                    error["data"] = {"phase": e.phase}
                self.write({"jsonrpc": "2.0", "id": rid, "error": error})
            except Exception as e:  # noqa: BLE001 - the adapter itself failed: say so, stay up
                log(f"{method} failed:", "".join(traceback.format_exception(e)))
                self.write({"jsonrpc": "2.0", "id": rid,
                            "error": {"code": -32603, "message": f"{type(e).__name__}: {e}"}})


def result_of(method, msg):
    """The result object of a callback's answer, or `CallbackError`."""
    if "result" not in msg or not isinstance(msg["result"], dict):
        raise CallbackError(f"{method}: the runner answered with an error: {msg.get('error')}")
    return msg["result"]


def _id_key(rid):
    # Ids are integers or strings; 1 and "1" are different ids.
    return json.dumps(rid)

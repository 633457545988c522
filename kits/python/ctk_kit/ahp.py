"""What an AHP harness adapter (`ctk-ahp-adapter/1`, ahp/adapter/ADAPTER.md) needs besides the
harness itself: the handshake, the request loop, and the shapes of each answer.

A harness implements `Harness` and calls `serve(harness)`. Its methods may be plain functions or
coroutine functions: the kit runs coroutines on an asyncio loop of its own, on one thread for the
whole process, so a harness built on asyncio (or anyio over asyncio) keeps its clients and
background tasks across calls.
"""

import asyncio
import inspect
import threading

from .link import Link, RpcError, log

CONTRACT = "ctk-ahp-adapter/1"


class Harness:
    """What an adapter implements; `serve` drives it."""

    def info(self):
        """`initialize`'s result without `adapter`: `name`, `version`, `protocolVersions`,
        `bindings`, `lifecycles`, `profiles`, and optionally `features` (ADAPTER.md)."""
        raise NotImplementedError

    def load(self, registration, env, cwd):
        """Load `registration` into the harness: `loaded()` or `refused([(pointer, reason)])`."""
        raise NotImplementedError

    def tool_call(self, params):
        """Perform one tool call (`harness/tool_call`): `executed()`, `denied(...)` or `prompted()`."""
        raise NotImplementedError

    def tool_calls(self, calls):
        """The parallel calls of one model turn (feature `parallel-tool-calls`): one answer per
        call, in order. Only an adapter that announces the feature is asked."""
        raise RpcError(-32601, "harness/tool_calls: this adapter does not offer parallel-tool-calls")

    def session(self, event):
        """Emit `session.start` or `session.end` to observers, or nothing."""

    def shutdown(self):
        """End the harness's backends before the process exits."""


def loaded():
    """`harness/load`'s answer for a registration the harness took."""
    return {"loaded": True}


def refused(problems):
    """`harness/load`'s answer for a refused registration: `problems` is `(pointer, reason)` pairs."""
    return {"loaded": False, "refused": [{"pointer": p, "reason": r} for p, r in problems]}


def executed():
    """The tool ran."""
    return {"outcome": "executed"}


def prompted():
    """No deny, and the host's permission was `prompt`: the user was asked."""
    return {"outcome": "prompted"}


def denied(reason, code=None, synthetic=False):
    """A backend's deny (`synthetic` false) or a fail-closed failure (`synthetic` true) stopped
    the tool (ADAPTER.md: the kit reads spec 14.3's distinction here)."""
    return {"outcome": "denied", "synthetic": bool(synthetic), "reason": reason, "code": code}


class _Loop:
    """One asyncio loop on a thread of its own, started on first use."""

    def __init__(self):
        self._loop = None

    def run(self, awaitable):
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            threading.Thread(target=self._loop.run_forever, name="ctk-kit-asyncio", daemon=True).start()
        return asyncio.run_coroutine_threadsafe(_awaited(awaitable), self._loop).result()


async def _awaited(awaitable):
    return await awaitable


def serve(harness, link=None):
    """Serve `harness` on the process's stdio until `shutdown`; returns the exit status."""
    link = link if link is not None else Link()
    loop = _Loop()

    def done(value):
        return loop.run(value) if inspect.isawaitable(value) else value

    def handle(method, params):
        if method == "initialize":
            if params.get("adapter") != CONTRACT:
                raise RpcError(-32001, f"this adapter speaks {CONTRACT}")
            return dict(done(harness.info()), adapter=CONTRACT)
        if method == "harness/load":
            return done(harness.load(params.get("registration"), params.get("env") or {}, params.get("cwd")))
        if method == "harness/tool_call":
            return done(harness.tool_call(params))
        if method == "harness/tool_calls":
            return {"results": list(done(harness.tool_calls(params.get("calls") or [])))}
        if method == "harness/session":
            done(harness.session(params.get("event")))
            return {}
        raise RpcError(-32601, f"no method {method!r}")

    status = link.serve(handle)
    try:
        done(harness.shutdown())
    except Exception as e:  # noqa: BLE001 - ending the backends failed; the process ends anyway
        log("shutdown:", type(e).__name__, e)
    return status


__all__ = ["CONTRACT", "Harness", "RpcError", "denied", "executed", "loaded", "log", "prompted",
           "refused", "serve"]

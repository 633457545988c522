#!/usr/bin/env python3
"""A ctk-ahp-adapter/1 adapter around the harness of the PyPI SDK
`agenthooksprotocol` 0.10.1 (draft wire line): its `Hooks` class is the
harness under test.

Every protocol decision is the SDK's: `Hooks(...)` validates and loads the
registration the kit wrote (the draft registration schema, backend ids,
subscriptions against the declared capabilities), starts the stdio backends
(`transports.StdioTransport`, minimal environment, no shell, `cwd`) and the
HTTP client (`auth.AuthenticatedHTTPTransport`, bearer `tokenEnv`), builds
the `tool.before` request, asks the interceptors in registration order under
their deadlines, applies fail-open / fail-closed, validates each response,
and notifies observers (`Hooks.dispatch`). This file only:

  - speaks the adapter contract on stdin/stdout (ahp/adapter/ADAPTER.md);
  - declares what the host supports: `tool.before` intercept (the `deny`
    effect) and observe, `tool.after` observe;
  - turns `harness/tool_call` into `Hooks.dispatch("tool.before", ...)` and
    reads the settlement back: the permission the SDK settled, the deny
    effect it accepted (explicit) or the fail-closed diagnostic it recorded
    (synthetic); a call not denied runs the probe tool and is reported on
    `tool.after` to observers, as the SDK's host would.

Without the SDK it prints one line naming the install command and exits 3.
Diagnostics go to stderr; stdout carries adapter frames only.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from datetime import datetime, timezone

# The kit (kits/python/ctk_kit): the adapter contract's link, request loop and answers.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "kits", "python"))
from ctk_kit import ahp as kit  # noqa: E402

INSTALL = (
    "python3 -m venv target/ahp-venv && target/ahp-venv/bin/pip install -r "
    "examples/ahp-python-harness/requirements.txt"
)
SOURCE = "urn:uuid:6f1c2b7e-8d4a-4e55-a0c3-1b2d3e4f5a60"
NAME = "agenthooksprotocol-python-hooks"
SESSION = "ctk-session-" + uuid.uuid4().hex[:12]


def log(*parts: object) -> None:
    print("ahp-python-harness:", *parts, file=sys.stderr, flush=True)


def missing_sdk(e: ImportError) -> "NoReturn":  # type: ignore[name-defined]
    sys.stderr.write(
        "ahp-python-harness: the PyPI package agenthooksprotocol is not importable "
        f"({e.name or e}); install it: pip install -r examples/ahp-python-harness/requirements.txt "
        f"(for example: {INSTALL})\n"
    )
    sys.stderr.flush()
    raise SystemExit(3)


try:
    import anyio
    import agenthooksprotocol as ahp
    from agenthooksprotocol import _grants as grants
    from importlib.metadata import version as _dist_version

    # Loaded up front, as a host's own modules are: the SDK imports its HTTP
    # client lazily, inside the first request's deadline.
    import agenthooksprotocol.auth  # noqa: F401
    import agenthooksprotocol.transports.http  # noqa: F401
    import agenthooksprotocol.transports.stdio  # noqa: F401
    import httpx  # noqa: F401
except ImportError as _e:  # pragma: no cover - exercised by CI without the SDK
    missing_sdk(_e)

SDK_VERSION = _dist_version("agenthooksprotocol")


def now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


def capabilities():
    """What this host declares: deny on tool.before, observation of tool.before
    and tool.after (the SDK refuses subscriptions to anything undeclared)."""
    return grants.HostCapabilities(
        tool_before=grants.ToolBeforeCapabilities(
            intercept=grants.ToolBeforeIntercept(deny=True), observe=True
        ),
        tool_after=grants.ToolAfterCapabilities(observe=True),
    )


class Adapter(kit.Harness):
    """The SDK's `Hooks` behind ctk-ahp-adapter/1; the kit serves it, running its coroutines on
    one asyncio loop for the whole process."""

    def __init__(self) -> None:
        self.hooks = None
        self.set_env: list[str] = []
        # tool.after goes out after the answer (the tool has run by then),
        # so a slow observer of it delays nothing the kit measures.
        self.tasks: set = set()

    def info(self) -> dict:
        return {
            "name": NAME, "version": SDK_VERSION,
            "protocolVersions": ["draft"], "bindings": ["stdio", "http"],
            "lifecycles": ["persistent", "per_event"],
            "profiles": ["base", "tool-interception", "lifecycle-observation", "stdio", "http"],
        }

    def session(self, event) -> None:
        """This host emits no session events (see README)."""

    async def shutdown(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        await self.close_hooks()

    def start_soon(self, coro) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def close_hooks(self) -> None:
        if self.hooks is not None:
            hooks, self.hooks = self.hooks, None
            try:
                with anyio.move_on_after(5):
                    await hooks.aclose()
            except Exception as e:  # the SDK's close failing is not the kit's business
                log("closing Hooks:", type(e).__name__, e)

    async def load(self, registration, env, cwd) -> dict:
        await self.close_hooks()
        for name, value in (env or {}).items():
            os.environ[name] = value
            self.set_env.append(name)
        doc = registration
        try:
            hooks = ahp.Hooks(
                doc,
                source=SOURCE,
                harness=ahp.Harness(name=NAME, version=SDK_VERSION),
                capabilities=capabilities(),
            )
            await hooks.__aenter__()
        except Exception as e:
            # The SDK's refusal (schema ValidationError, ProtocolError, ...).
            pointer = ""
            path = getattr(e, "absolute_path", None)
            if path is not None:
                pointer = "".join("/" + str(p) for p in path)
            reason = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
            log("registration refused:", reason)
            return kit.refused([(pointer, reason[:500])])
        self.hooks = hooks
        return kit.loaded()

    async def tool_call(self, params: dict) -> dict:
        if self.hooks is None:
            raise RuntimeError("harness/tool_call before a loaded registration")
        tool = params["tool"]
        call_id = params.get("callId") or "call-" + uuid.uuid4().hex
        event_tool = {"name": tool["name"], "input": tool["input"], "origin": "native"}
        if tool.get("kind"):
            event_tool["kind"] = tool["kind"]
        event = {
            "session": {"id": SESSION},
            "call": {"id": call_id},
            "tool": event_tool,
            "path": "native",
        }
        result = await self.hooks.dispatch("tool.before", event)
        denied = str(result.permission.value if hasattr(result.permission, "value") else result.permission) == "deny" \
            or result._state.get("decision") == "deny"
        if denied:
            reason, code = None, None
            for resp in result.accepted_responses:
                for effect in _effects(resp):
                    if _get(effect, "type") == "deny":
                        reason, code = _get(effect, "reason"), _get(effect, "code")
            synthetic = reason is None and any(d.get("synthetic_denial") for d in result.diagnostics)
            if synthetic:
                d = next(d for d in result.diagnostics if d.get("synthetic_denial"))
                reason = "fail-closed: backend %s failed (%s, %s)" % (d.get("backend"), d.get("code"), d.get("error"))
            self.start_soon(self.after(event, "denied"))
            return kit.denied(reason or "denied", code=code, synthetic=bool(synthetic))
        for d in result.diagnostics:
            log("diagnostic:", json.dumps(d, default=str))
        self.start_soon(self.after(event, "ok"))
        if params.get("hostPermission") == "prompt" and str(getattr(result.permission, "value", result.permission)) != "allow":
            return kit.prompted()
        return kit.executed()

    async def after(self, before: dict, outcome: str) -> None:
        """tool.after to observers (denials too, in the draft), when any subscribes."""
        if not self.hooks.subscribes("tool.after"):
            return
        ev = {
            "session": before["session"],
            "call": before["call"],
            "tool": before["tool"],
            "path": before["path"],
            "items": [],
            "outcome": outcome,
            "execution": {"status": "skipped", "reason": "policy"} if outcome == "denied" else {"status": "completed"},
        }
        try:
            await self.hooks.dispatch("tool.after", ev)
        except Exception as e:
            log("tool.after:", type(e).__name__, e)


def _effects(resp):
    r = _get(resp, "result")
    e = _get(r, "effects") if r is not None else None
    return e or []


def _get(obj, key):
    if obj is None:
        return None
    if isinstance(obj, dict):
        return obj.get(key)
    try:
        return obj[key]
    except Exception:
        return getattr(obj, key, None)


if __name__ == "__main__":
    sys.exit(kit.serve(Adapter()))

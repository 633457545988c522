#!/usr/bin/env python3
"""An AHP backend on the PyPI SDK `agenthooksprotocol` 0.10.1 (draft wire line).

Every protocol decision (framing, JSON-RPC envelope, version check, schema
validation of the request, correlation, error codes, response validation) is
the SDK's: `agenthooksprotocol.server.hooks.Handlers` dispatches, and
`agenthooksprotocol.server.stdio.serve` / `agenthooksprotocol.server.asgi.App`
carry it. This file owns only the policy and the process:

  policy  ctk.deny-force-push: deny a `tool.before` whose `tool.kind` is
          `shell` and whose `tool.input.command` contains `git push --force`;
          every other `tool.before` gets no effect. Observations are accepted
          and ignored.

  modes   backend.py stdio
          backend.py http [--listen 127.0.0.1:0]

The HTTP mode prints its URL (`http://127.0.0.1:PORT/`) as its only stdout
line, like `ctk-ahp-backend http`, and serves until SIGTERM/SIGINT or EOF on
stdin. Diagnostics go to stderr; stdout carries protocol frames only.
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
import threading

INSTALL = (
    "python3 -m venv /tmp/ahp-venv && /tmp/ahp-venv/bin/pip install -r "
    "examples/ahp-python-backend/requirements.txt"
)

FORCE_PUSH = "git push --force"
DENY_CODE = "org.agenthooksctk.policy.force_push"
DENY_REASON = "force-pushing is not allowed by the ctk.deny-force-push policy"


def fail(message: str, code: int = 2) -> "NoReturn":  # type: ignore[name-defined]
    """One line on stderr, no traceback, then exit."""
    sys.stderr.write(f"ahp-python-backend: {message}\n")
    sys.stderr.flush()
    raise SystemExit(code)


def _import_sdk():
    try:
        import anyio  # noqa: F401
        from agenthooksprotocol import _models as models
        from agenthooksprotocol.server import hooks
    except ImportError as e:
        fail(f"the PyPI package agenthooksprotocol is not importable ({e.name or e}); install it: {INSTALL}")
    return models, hooks


def build_handlers():
    """The SDK's Handlers with the ctk.deny-force-push policy on tool.before."""
    models, hooks = _import_sdk()

    def tool_before(ctx):
        # The raw request is the SDK's validated, detached copy of the wire message.
        tool = ctx.raw.get("params", {}).get("event", {}).get("tool", {})
        command = tool.get("input", {}).get("command")
        if tool.get("kind") == "shell" and isinstance(command, str) and FORCE_PUSH in command:
            return hooks.ToolBeforeReply(
                effects=(models.DenyEffect(reason=DENY_REASON, code=DENY_CODE),)
            )
        return hooks.ToolBeforeReply()

    def observe_any(ctx):
        return None

    return hooks.Handlers(
        intercept=hooks.InterceptHandlers(tool_before=tool_before),
        observe=hooks.ObserveHandlers(any=observe_any),
    )


def run_stdio() -> int:
    handlers = build_handlers()
    import anyio
    from agenthooksprotocol.server.stdio import serve

    try:
        anyio.run(serve, handlers)
    except ValueError as e:  # framing errors the SDK raises (unterminated/oversized record)
        fail(f"stdio: {e}", 1)
    except KeyboardInterrupt:
        return 130
    return 0


def parse_listen(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep:
        fail(f"--listen {text}: expected HOST:PORT, e.g. 127.0.0.1:0")
    host = host.strip("[]")
    try:
        if not ipaddress.ip_address(host).is_loopback:
            fail(f"--listen {text}: plain HTTP is for loopback only (use 127.0.0.1 or [::1])")
        return host, int(port)
    except ValueError:
        fail(f"--listen {text}: expected a loopback IP address and a port number")


def run_http(listen: str) -> int:
    handlers = build_handlers()
    try:
        import uvicorn
    except ImportError:
        fail(f"the PyPI package uvicorn is not importable; install it: {INSTALL}")
    from agenthooksprotocol.server.asgi import App

    host, port = parse_listen(listen)
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        fail(f"cannot listen on {listen}: {e}", 1)
    sock.listen(128)
    bound = sock.getsockname()
    url = f"http://[{bound[0]}]:{bound[1]}/" if family == socket.AF_INET6 else f"http://{bound[0]}:{bound[1]}/"
    config = uvicorn.Config(
        App(handlers),
        log_level="warning",
        access_log=False,
        lifespan="off",
        # Keep-alive connections of the kit's client are closed promptly.
        timeout_keep_alive=5,
    )
    server = uvicorn.Server(config)

    def stop_on_eof():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except (OSError, ValueError):
            return
        server.should_exit = True

    threading.Thread(target=stop_on_eof, daemon=True).start()
    sys.stdout.write(url + "\n")
    sys.stdout.flush()
    sys.stderr.write(f"ahp-python-backend: http: serving {url}\n")
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        return 130
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="backend.py",
        description="AHP backend on the PyPI agenthooksprotocol 0.10.1 SDK (draft wire line), "
        "policy ctk.deny-force-push.",
    )
    sub = parser.add_subparsers(dest="mode", required=True)
    sub.add_parser("stdio", help="newline-delimited JSON-RPC on stdin/stdout (persistent)")
    http = sub.add_parser("http", help="HTTP POST through the SDK's ASGI app on uvicorn")
    http.add_argument("--listen", default="127.0.0.1:0", help="loopback HOST:PORT (default 127.0.0.1:0)")
    args = parser.parse_args(argv)
    if args.mode == "stdio":
        return run_stdio()
    return run_http(args.listen)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

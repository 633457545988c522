#!/usr/bin/env python3
"""A ctk stdio host (ctk-harness/1) on the published upstream Python binding,
PyPI `agent-hooks-sdk` 0.1.0b3 (import name `agent_hooks`).

Every contract decision is the SDK's: context building (AgentContextBuilder),
the §4 envelope and identity checks, the §5 verdict gate, the four §7
composition profiles, the approval seam (§9), the records (§10.3) and the
declaration loader (§7.7) all run inside `agent_hooks.InterceptionEmitter`
and its Rust core. This file owns only what a host owns:

- the transport: the runner's scripted interceptors, approval resolver and
  redactor are reached through `callback/*` requests, wrapped as the SDK's
  `Interceptor`, `ApprovalResolver` and redactor callables;
- the agent loop of agent-hooks/adapter/HOSTS.md §4, written here (the SDK's
  own `ReferenceHarness` loop is not used: it does not write transformed
  values back into the loop, §4.3). The loop consumes the effective target
  each emission returns (`EmitOutcome.target`);
- the run record (PROTOCOL.md §2.2) and the construction paths a
  declaration vector asks for, each one an SDK entry point.

Its surface (host.json) is derived from the SDK's `HostSurface` and written
with the SDK's `DeclarationBuilder`: `python host.py --print-declaration`.

stdout carries only protocol messages; stderr is this host's log.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import os
import sys
import tempfile
import traceback

PROTOCOL = "ctk-harness/1"
NAME = "upstream-python-sdk-host"
VERSION = "0.1.0"
SDK_DISTRIBUTION = "agent-hooks-sdk"
SDK_PINNED = "0.1.0b3"
HERE = os.path.dirname(os.path.abspath(__file__))
INSTALL = (
    "python3 -m venv /tmp/ahsdk-venv && /tmp/ahsdk-venv/bin/pip install -r "
    + os.path.relpath(os.path.join(HERE, "requirements.txt"))
)
EXIT_NO_SDK = 3


def log(*parts):
    print(f"{NAME}:", *parts, file=sys.stderr, flush=True)


try:
    import agent_hooks
    from agent_hooks import (
        DECLARATION_VERSION,
        JCS_SHA256,
        SPEC_VERSION,
        SUPPORTED_DECLARATION_VERSIONS,
        AgentContextBuilder,
        ApprovalOutcome,
        ApprovalResolution,
        CompositionConfig,
        CompositionProfile,
        DeclarationError,
        EnforcementMode,
        HostDeclaration,
        HostRegistry,
        HostSurface,
        IdentityProvider,
        InterceptionBlocked,
        InterceptionEmitter,
        InterceptionPoint,
        InterceptorResponse,
        KnobSupport,
    )
    from agent_hooks.ctk.runner import builder_from_value
    from agent_hooks.emitter import DEFAULT_TIMEOUT
except ImportError as e:  # the one-line message the runner shows (PROTOCOL.md §5)
    print(
        f"{NAME}: the upstream Python SDK ({SDK_DISTRIBUTION}=={SDK_PINNED}, import name agent_hooks) "
        f"is not importable from {sys.executable} ({e}); install it with: {INSTALL}",
        file=sys.stderr,
        flush=True,
    )
    sys.exit(EXIT_NO_SDK)


def sdk_version():
    try:
        from importlib.metadata import version

        return version(SDK_DISTRIBUTION)
    except Exception:  # noqa: BLE001 - an unknown version is reported, not fatal
        return "unknown"


# ---------------------------------------------------------------- surface

# What this host's code does, beyond the SDK's default surface (the §3.2
# floor, host_declaration, every profile with every knob value, posture
# `continue`, buffered output): the loop below emits the model and tool
# points, runs several turns (`turns`) and parallel tool calls (asyncio
# tasks, which the SDK's emitter supports: §12.2 in its docstring), and
# Python's json keeps integer literals of any size exactly (the SDK's own
# reference harness claims int64_json and bigint_json for the same reason).
# Not claimed: `streaming` (no vector asks for it; a scripted stream is
# assembled, buffered) and `incremental_output` (the loop buffers, and
# HostSurface.streams_unbuffered stays False).
LOOP_CAPABILITIES = ["model_calls", "tool_calls", "parallel_tool_calls", "multi_turn", "int64_json", "bigint_json"]


def code_surface():
    """The code surface every declaration is resolved against (§7.7.4)."""
    return HostSurface.sdk_default().with_points(list(InterceptionPoint)).with_capabilities(LOOP_CAPABILITIES)


def own_declaration():
    """This host's declaration document, written with the SDK's builder from
    the code surface, and checked by resolving it with the SDK's loader."""
    surface = code_surface()
    b = (
        HostDeclaration.builder()
        .version(DECLARATION_VERSION)
        .spec(SPEC_VERSION)
        .id(NAME)
        .host(NAME, VERSION)
        .mode(EnforcementMode.ENFORCE)
        .composition(CompositionConfig.default())
        .identity_provider(JCS_SHA256)
        .tool_seam_host_error(surface.tool_seam_host_error)
        .interceptor_timeout_ms(int(DEFAULT_TIMEOUT * 1000))
        .approval_resolver_timeout_ms(int(DEFAULT_TIMEOUT * 1000))
        .surface_points(surface.interception_points)
        .surface_capabilities(surface.capabilities)
        .buffered_output(not surface.streams_unbuffered)
        .surface_declaration_versions(surface.declaration_versions)
    )
    for profile, knobs in sorted(surface.profiles.items()):
        b.surface_profile(profile, knobs)
    doc = b.to_value()
    # The SDK must accept its own surface statement; a refusal here is a
    # defect of this file, never something to send.
    HostRegistry(surface).resolve(HostDeclaration.from_value(doc))
    return doc


# ---------------------------------------------------------------- the link
# The kit's (kits/python/ctk_kit): the line link, its callbacks and the request loop.

sys.path.insert(0, os.path.join(HERE, "..", "..", "kits", "python"))
from ctk_kit.agent_hooks import ScenarioError, Script, Tools, blocked  # noqa: E402
from ctk_kit.link import Link, RpcError  # noqa: E402


# ---------------------------------------------------------------- the seams


def nested_for_gate(response):
    """What a `callback/intercept` response hands the emitter's §5 gate.

    A bare verdict goes to the gate as it is. A response envelope
    (`{"verdict": ..., "extensions": ...}`, §5.5) is a cross-process
    response: the SDK's interceptor-response parser (InterceptorResponse)
    judges it, and only its nested verdict reaches enforcement. The
    emitter's own entry point takes bare verdicts only, so the nested
    verdict is handed over raw (the gate then judges it exactly, a null
    transform value included) when the SDK's parser accepts the envelope's
    root; an envelope whose root the parser refuses is handed over whole, so
    the gate refuses it."""
    if not (isinstance(response, dict) and "verdict" in response and "decision" not in response):
        return response
    try:
        InterceptorResponse.parse(response)
        return response["verdict"]
    except Exception:  # noqa: BLE001 - the parser refused: find out whether the root is why
        probe = dict(response, verdict={"decision": "allow"})
        try:
            InterceptorResponse.parse(probe)
        except Exception:  # noqa: BLE001 - the root itself is refused
            return response
        return response["verdict"]


class CallbackInterceptor:
    """Interceptor *i* of the vector: the runner's scripted interceptor,
    reached through `callback/intercept` with `index` *i*."""

    def __init__(self, link, index):
        self.link = link
        self.index = index

    async def intercept(self, context):
        # `context` is already the SDK's own deep copy for this interceptor.
        result = await self.link.call_async("callback/intercept", {"index": self.index, "context": context})
        if result.get("outcome") == "raised":
            raise RuntimeError("the scripted interceptor raised")
        if "context" in result:
            # The interceptor changed its copy: write it into the copy it
            # was handed, as an in-process interceptor's mutation would.
            context.clear()
            context.update(result["context"])
        return nested_for_gate(result.get("response"))


class RemoteVerdict:
    """A resolver's verdict as the runner sent it. The SDK gates
    `resolution.verdict.to_wire()` with its §5 gate, so this hands it the
    exact wire value rather than a value the adapter had to judge first."""

    def __init__(self, wire):
        self.wire = wire

    def to_wire(self):
        return copy.deepcopy(self.wire)


class CallbackResolver:
    """The approval resolver (§9): `callback/resolve_approval`. The
    resolution's members become ApprovalResolution's fields one for one; a
    resolution the SDK's type cannot hold (unknown or missing member, an
    outcome outside the enum, a verdict where none may be) makes the
    resolver raise, which the SDK maps."""

    def __init__(self, link):
        self.link = link

    async def resolve(self, request):
        result = await self.link.call_async("callback/resolve_approval", {"request": {
            "context_identity": request.context_identity,
            "interception_point": request.interception_point.value,
            "verdict": request.verdict.to_wire(),
            "context": request.context,
        }})
        if result.get("outcome") != "resolution":
            raise RuntimeError("the scripted approval resolver raised")
        res = result.get("resolution")
        if not isinstance(res, dict):
            raise TypeError("the resolution is not an object")
        fields = dict(res)
        if "outcome" in fields:
            fields["outcome"] = ApprovalOutcome(fields["outcome"])
        if fields.get("verdict") is not None:
            fields["verdict"] = RemoteVerdict(fields["verdict"])
        return ApprovalResolution(**fields)


class CallbackRedactor:
    """The approval redactor (§9): `callback/redact`, bounded by the
    approval timeout (the SDK calls redactors synchronously, unbounded)."""

    def __init__(self, link, timeout_s):
        self.link = link
        self.timeout_s = timeout_s

    def __call__(self, context):
        result = self.link.call("callback/redact", {"context": context}, self.timeout_s)
        if result.get("outcome") != "redacted":
            raise RuntimeError("the scripted redactor raised")
        return result.get("context")


def fault_provider():
    """The kit's `ctk-fault` identity provider: every computation fails."""

    def fail(_ctx):
        raise RuntimeError("ctk-fault: this identity provider fails every computation")

    return IdentityProvider("ctk-fault", fail)


# ---------------------------------------------------------------- the loop


class Run:
    """One vector's agent loop (HOSTS.md §4) over an SDK emitter."""

    def __init__(self, emitter, scenario, session):
        self.em = emitter
        self.scenario = scenario
        self.b = AgentContextBuilder(agent_id="sdk-agent", framework="upstream-python-sdk", session_id=session)
        # The kit's scenario model: the mock tools (and every invocation) and the scripted model.
        self.tools = Tools(scenario)
        self.script = Script(scenario)
        self.messages = []

    async def permitted(self, ctx):
        """Emit through the SDK: (True, the effective target the action
        consumes) or (False, the combined deny's reason)."""
        try:
            out = await self.em.emit(ctx)
        except InterceptionBlocked as e:
            return False, e.result.verdict.reason
        return True, out.target

    async def main(self):
        outcome, final, error = "completed", None, None
        try:
            outcome, final = await self.turns()
        except ScenarioError as e:
            outcome, final, error = "error", None, str(e)
        await self.em.emit_unchecked(self.b.agent_shutdown(reason="completed" if outcome == "completed" else "error"))
        run = {"outcome": outcome, "final_output": final, "tool_invocations": self.tools.invocations,
               "records": [r.to_wire() for r in self.em.results], "persisted": self.persisted()}
        if error is not None:
            run["error"] = error
        return run

    def persisted(self):
        """What the session made durable: the history, and the result labels
        kept with the permitted data they describe (§5.4)."""
        labels = [{"interception_point": r.interception_point.value, "sequence": r.sequence,
                   "labels": list(r.verdict.result_labels)}
                  for r in self.em.results if r.proceeds and r.verdict.result_labels]
        return {"messages": self.messages, "labels": labels}

    async def turns(self):
        ok, _ = await self.permitted(self.b.agent_startup(tools_registered=self.tools.registered()))
        if not ok:
            return "blocked", None
        inputs = [self.scenario["input"]] + [t.get("input") for t in self.scenario.get("turns", [])]
        final = None
        for given in inputs:
            given = given if isinstance(given, dict) else {}
            ok, target = await self.permitted(self.b.input(content=given.get("content"), role=given.get("role")))
            if not ok:
                return "blocked", None
            if not isinstance(target, dict):
                raise ScenarioError("the permitted input is not an object")
            self.messages.append({"role": target.get("role"), "content": target.get("content")})
            blocked, final = await self.model_steps()
            if blocked:
                return "blocked", None
        return "completed", final

    async def model_steps(self):
        """Model steps until a response without tool calls, then `output`:
        (blocked, the turn's output)."""
        while True:
            ok, target = await self.permitted(
                self.b.pre_model_call(model_id="mock", messages=copy.deepcopy(self.messages)))
            if not ok:
                return True, None
            if not isinstance(target, list):
                raise ScenarioError("the permitted messages are not an array")
            self.messages[:] = target
            # No response left, or a failing call (not mediated, §12.1): ScenarioError.
            scripted = self.script.next_response()
            content = scripted.get("content")
            if scripted.get("stream") is not None:
                if scripted.get("stream_truncated"):
                    # A buffered host denies the residue itself; the SDK has
                    # no public call for a host-synthesized streaming deny.
                    raise ScenarioError("the stream was truncated: this host cannot record the residue deny")
                content = "".join(scripted["stream"])
            ok, response = await self.permitted(self.b.post_model_call(
                model_id="mock", content=content, tool_calls=copy.deepcopy(scripted.get("tool_calls", [])),
                finish_reason=scripted.get("finish_reason")))
            if not ok:
                return True, None
            if not isinstance(response, dict) or not isinstance(response.get("tool_calls"), list):
                raise ScenarioError("the permitted response has no tool_calls array")
            calls = response["tool_calls"]
            if not calls:
                break
            if scripted.get("parallel"):
                results = await asyncio.gather(*(self.tool_turn(c) for c in calls), return_exceptions=True)
                for r in results:
                    if isinstance(r, BaseException):
                        raise r
                self.messages.extend(results)
            else:
                for call in calls:
                    self.messages.append(await self.tool_turn(call))
            said = response.get("content")
            self.messages.append({"role": "assistant", "content": "" if said is None else said})
        said = response.get("content")
        if said is None:
            return False, None
        ok, target = await self.permitted(self.b.output(content=said))
        if not ok:
            return True, None
        if not isinstance(target, dict) or "content" not in target:
            raise ScenarioError("the permitted output is not an object with content")
        self.messages.append({"role": "assistant", "content": target["content"]})
        return False, target["content"]

    async def tool_turn(self, call):
        """pre_tool_call, the mock tool, post_tool_call: the message the call
        contributes."""
        call = call if isinstance(call, dict) else {}
        cid, name = call.get("id"), call.get("name")
        ok, args = await self.permitted(self.b.pre_tool_call(call_id=cid, name=name, args=copy.deepcopy(call.get("args"))))
        if not ok:
            return blocked(args)
        # An unknown tool is an error result and no invocation; no matching clause ends the run.
        value, is_error = self.tools.invoke(name, args)
        ok, value = await self.permitted(self.b.post_tool_call(
            call_id=cid, name=name, args=copy.deepcopy(args), value=value, is_error=is_error))
        if not ok:
            return blocked(value)
        return {"role": "tool", "content": value}



# ---------------------------------------------------------------- emitters


def field_emitter(link, setup):
    """An emitter configured in code (constructor and setters, no
    declaration), from a setup without a document (HOSTS.md §2)."""
    try:
        mode = EnforcementMode(setup.get("mode", "enforce"))
        wire = dict(setup.get("composition") or {"profile": CompositionProfile.SEQUENTIAL_FIRST_DENY.value})
        # A consulted knob the setup leaves out takes its §7.2 default.
        profile = CompositionProfile(wire["profile"])
        for knob, values in KnobSupport.defaults_only(profile).to_wire().items():
            wire.setdefault(knob, values[0])
        composition = CompositionConfig.from_wire(wire)
    except (KeyError, ValueError) as e:
        raise RpcError(-32000, f"this host cannot configure mode/composition {setup.get('mode')}/{setup.get('composition')}: {e}", "setup") from None
    provider = setup.get("identity_provider")
    if provider == "ctk-fault":
        provider = fault_provider()
    elif provider not in (None, JCS_SHA256):
        raise RpcError(-32000, f"this host registers no identity provider named {provider!r}", "setup")
    ms = setup.get("interceptor_timeout_ms")
    timeout = DEFAULT_TIMEOUT if ms is None else ms / 1000
    approval_ms = setup.get("approval_timeout_ms")
    if approval_ms is not None and approval_ms / 1000 != timeout:
        # The SDK's constructor bounds interceptors and the resolver with one
        # timeout; a separate approval timeout needs a declaration.
        raise RpcError(-32000, "the SDK's constructor path cannot set an approval timeout apart from the interceptor timeout", "setup")

    def build():
        em = InterceptionEmitter(
            mode=mode,
            resolver=CallbackResolver(link) if setup.get("approval_resolver") else None,
            timeout=timeout,
            composition=composition,
            identity_provider=provider,
        )
        for i in range(len(setup.get("interceptors", []))):
            em.register(CallbackInterceptor(link, i))
        if setup.get("redactor"):
            em.set_approval_redactor(CallbackRedactor(link, timeout))
        return em

    return build


def kit_registry(link, scripts, redactor):
    """The conformance registry of a declaration vector (HOSTS.md §3.1): this
    host's code surface plus the kit's four names."""

    def scripted(config, _binding):
        script = config.get("script") if isinstance(config, dict) else None
        if not isinstance(script, int) or isinstance(script, bool) or not 0 <= script < scripts:
            raise ValueError("config.script names no interceptor script of this vector")
        return CallbackInterceptor(link, script)

    return (
        HostRegistry.for_conformance(code_surface())
        .kind("ctk.scripted", scripted)
        .identity_provider("ctk-fault", fault_provider().fn)
        .approval_resolver("ctk-scripted", CallbackResolver(link))
        # The redactor's bound is set once the document is resolved.
        .approval_redactor("ctk-redact", redactor)
    )


class DeclaredRedactor(CallbackRedactor):
    """`ctk-redact`: bounded by the document's approval timeout, which is
    known only once the document resolves."""

    def __init__(self, link):
        super().__init__(link, None)


def compact(value):
    """The document's text, as the SDK's value path serializes it (compact,
    UTF-8), so every path measures the same bytes."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False, separators=(",", ":"))
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return json.dumps(value, allow_nan=False, separators=(",", ":"))


def parse_exact(text):
    """(True, value) when `text` is one JSON value with no member name
    repeated within an object (and no NaN/Infinity literal)."""

    class Inexact(Exception):
        pass

    def pairs(items):
        keys = [k for k, _ in items]
        if len(keys) != len(set(keys)):
            raise Inexact()
        return dict(items)

    def constant(_name):
        raise Inexact()

    try:
        return True, json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except (Inexact, ValueError, RecursionError):
        return False, None


def fault_bytes(fault, text):
    """The bytes of a `bom`, `invalid_utf8` or `oversized` file (PROTOCOL.md §2.2)."""
    raw = text.encode("utf-8")
    if fault == "bom":
        return b"\xef\xbb\xbf" + raw
    if fault == "invalid_utf8":
        at = raw.index(b'"') + 1 if b'"' in raw else 0
        return raw[:at] + b"\xff" + raw[at:]
    return raw + b" " * max(0, 1024 * 1024 + 1 - len(raw))


def from_file(fault, text):
    """The file path (HostDeclaration.from_path), from a fresh temporary directory."""

    def load():
        with tempfile.TemporaryDirectory(prefix="ahsdk-host-") as tmp:
            path = os.path.join(tmp, "declaration.json")
            if fault == "directory":
                os.mkdir(path)
            elif fault != "missing":
                with open(path, "wb") as f:
                    f.write(text.encode("utf-8") if fault is None else fault_bytes(fault, text))
            return HostDeclaration.from_path(path)

    return load


def declared_emitter(link, setup):
    """Load the setup's document through every construction path that
    applies (PROTOCOL.md §2.2), each an SDK entry point, and compare them by
    the canonical JSON of the resolved declaration or the refusal class:
    (emitter or None, the load record)."""
    redactor = DeclaredRedactor(link)
    registry = kit_registry(link, len(setup.get("interceptors", [])), redactor)
    paths = []
    text = setup.get("declaration_text")
    if "declaration_file" in setup:
        if text is None and "declaration" in setup:
            text = compact(setup["declaration"])
        paths.append(("file", from_file(setup["declaration_file"], text or "")))
    elif text is not None:
        paths += [("text", lambda: HostDeclaration.from_json(text)), ("file", from_file(None, text))]
        exact, doc = parse_exact(text)
        if exact:
            paths.append(("value", lambda: HostDeclaration.from_value(doc)))
            if isinstance(doc, dict):
                paths.append(("builder", lambda: builder_from_value(doc).build()))
    else:
        doc = setup["declaration"]
        serialized = compact(doc)
        paths.append(("value", lambda: HostDeclaration.from_value(doc)))
        if isinstance(doc, dict):
            paths.append(("builder", lambda: builder_from_value(doc).build()))
        paths += [("text", lambda: HostDeclaration.from_json(serialized)), ("file", from_file(None, serialized))]

    outcomes = []
    for name, make in paths:
        try:
            em = InterceptionEmitter.from_declaration(make(), registry)
            outcomes.append((name, em, "accepted " + em.declaration.canonical_json()))
        except DeclarationError as e:
            # D-78: step 1 runs on the file path only, so its unreadable is the text path's malformed.
            code = "declaration_error:malformed" if (name, e.code) == ("file", "declaration_error:unreadable") else e.code
            outcomes.append((name, e, "refused " + code))
    first_name, first, first_key = outcomes[0]
    detail = None
    for name, _, key in outcomes[1:]:
        if key != first_key:
            detail = f"the {name} path differs from the {first_name} path: {first_key[:200]}; {key[:200]}"
            break
    if isinstance(first, DeclarationError):
        load = {"outcome": "refused", "class": first.code, "paths_equivalent": detail is None,
                "detail": detail or str(first)}
        return None, load
    load = {"outcome": "accepted", "paths_equivalent": detail is None}
    if detail:
        load["detail"] = detail
    ms = first.declaration.configuration["timeouts"]["approval_resolver_ms"]
    redactor.timeout_s = None if ms is None else ms / 1000
    return first, load


# ---------------------------------------------------------------- serving


class Host:
    def __init__(self, link):
        self.link = link
        self.setup = None
        self.sessions = itertools.count(1)
        self.declaration = own_declaration()

    def handle(self, method, params):
        if method == "initialize":
            if params.get("protocol") != PROTOCOL:
                raise RpcError(-32001, f"this host speaks {PROTOCOL}")
            return {"protocol": PROTOCOL, "host": {
                "name": NAME, "version": f"{VERSION} ({SDK_DISTRIBUTION} {sdk_version()})",
                "spec_versions": [SPEC_VERSION], "declaration": self.declaration,
                # Every ctk-harness/1 feature of ctk 0.2.0 (PROTOCOL.md section 7): this adapter
                # was written against that contract.
                "features": ["generated-values", "persisted-state", "load-detail",
                             "released-output-absent", "deep-lines", "context-sized-fills",
                             "declaration-path-classes", "agent-steps"]}}
        if method == "vector/setup":
            if params.get("spec") != SPEC_VERSION:
                raise RpcError(-32000, f"the SDK emits {SPEC_VERSION} only", "setup")
            declared = any(k in params for k in ("declaration", "declaration_text", "declaration_file"))
            build = None if declared else field_emitter(self.link, params)
            self.setup = (params, build)
            return {}
        if method == "vector/run":
            if self.setup is None:
                raise RpcError(-32000, "vector/run before vector/setup", "run")
            return asyncio.run(self.run(*self.setup))
        if method == "vector/teardown":
            self.setup = None
            return {}
        raise RpcError(-32601, f"no method {method!r}")

    async def run(self, setup, build):
        load = None
        if build is None:
            emitter, load = declared_emitter(self.link, setup)
            if emitter is None:
                return {"outcome": "error", "final_output": None, "tool_invocations": [], "records": [],
                        "error": load["detail"], "load": load}
        else:
            emitter = build()
        run = Run(emitter, setup["scenario"], f"sess-{next(self.sessions)}")
        try:
            record = await run.main()
        except Exception as e:  # noqa: BLE001 - the host itself failed; say so in the record
            log("the run failed:", "".join(traceback.format_exception(e)))
            record = {"outcome": "error", "final_output": None, "tool_invocations": run.tools.invocations,
                      "records": [r.to_wire() for r in emitter.results], "persisted": run.persisted(),
                      "error": f"{type(e).__name__}: {e}"}
        if load is not None:
            record["load"] = load
        trace = os.environ.get("AHSDK_HOST_TRACE")
        if trace:  # a debugging aid: every run record, one JSON line each
            with open(trace, "a", encoding="utf-8") as f:
                f.write(json.dumps({"vector_id": setup.get("vector_id"), "run": record}) + "\n")
        return record


def main():
    if "--print-declaration" in sys.argv[1:]:
        print(json.dumps(own_declaration(), indent=2))
        return 0
    if "--check-declaration" in sys.argv[1:]:
        with open(os.path.join(HERE, "host.json"), encoding="utf-8") as f:
            shipped = json.load(f)
        if shipped != own_declaration():
            log("host.json is not the declaration the SDK's surface gives; rewrite it with: "
                f"{sys.executable} {os.path.relpath(__file__)} --print-declaration > {os.path.relpath(os.path.join(HERE, 'host.json'))}")
            return 1
        log("host.json states the surface the SDK's HostSurface gives")
        return 0
    if sdk_version() != SDK_PINNED:
        log(f"warning: {SDK_DISTRIBUTION} {sdk_version()} is installed; this host was checked against {SDK_PINNED}")
    link = Link()
    return link.serve(Host(link).handle)


if __name__ == "__main__":
    sys.exit(main())

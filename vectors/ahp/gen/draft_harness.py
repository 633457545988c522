#!/usr/bin/env python3
"""Generate the AHP draft-line harness-role vectors (vectors/ahp/draft/AHP-DH-*.json).

Deterministic and stdlib-only, like harness.py (the 0.1 harness generator)
and draft.py (the draft backend-role generator, which owns AHP-DB-* in the
same folder):

    python3 vectors/ahp/gen/draft_harness.py            # write the vectors
    python3 vectors/ahp/gen/draft_harness.py --check    # exit 1 if any differs

The draft line (wire `protocolVersion` "draft") is mutable and NEVER
claimable: `ctk run --protocol ahp --role harness --spec draft -- ADAPTER`
runs these for information. Which draft: the revision the PyPI package
`agenthooksprotocol` 0.10.1 bundles (repository commit 1d98c19), as recorded
in spec/ahp/draft/DIFFERENCES.md; every vector says so in `notes`.

What differs from the 0.1 harness vectors (fact sheet 11, DIFFERENCES.md):
- registrations say "draft" and every subscription carries
  `content: {"default": "body"}` (DIFF-22);
- scripted replies say "draft" (the engine also answers "no effect" in
  the vector's line when a plan names no result);
- the request is held to the draft `tool.before` shape (harness, call.id,
  path, tool.origin, params.state; tool, call and harness closed:
  ahp/suite/src/draft.rs), the call id is `event.call.id`;
- validity: a missing `effects` is no effect (DIFF-13), two denies deny
  (DIFF-14), an unknown member in a deny is a failure (DIFF-15), an
  extension effect on tool.before is a failure (DIFF-16), one unadvertised
  effect rejects the whole response (DIFF-17);
- after a deny the uncalled interceptors are told through hooks/observe
  (DIFF-30; advisory DD-04: observation is best effort).

Rules, as for 0.1 (spec/ahp/0.1/DECISIONS.md D-01 timing: a reply is late
only at >= 2 x timeoutMs, bounds are 10 x timeoutMs + 5000 ms for each
interceptor a call may ask, summed (d01_bound), orderings never tight
windows): a gating vector asserts only what the draft text requires of a
harness (spec/draft/base/failure.md, composition.md,
transports/stdio.md, transports/http.md and the bundled schemas); a
preferred reading names its decision: DD-nn (spec/ahp/draft/DECISIONS.md)
or a 0.1 D-nn carried over unchanged. `covers` names the 0.1 clauses
(spec/ahp/0.1/clauses.json) the draft rule restates; `sections` names the
draft documents.
"""

import json
import os
import sys
from vector_files import d01_bound, observe_missing, observer_plan, write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "draft"))
SCHEMA = "../../../schemas/ahp/harness-vector.schema.json"
LINE = "draft"  # the vector's `ahp` member
WIRE = "draft"  # the wire protocolVersion of the line (DIFF-2: a parameter)
REVISION_NOTE = (
    "Draft line as bundled by PyPI agenthooksprotocol 0.10.1 (repository commit 1d98c19); "
    "a later draft may change this."
)

VECTORS = []

TOOL = {"name": "ctk_probe", "kind": "shell", "input": {"command": "echo ctk-probe"}}
DENY_REASON = "ctk scripted policy denies this call"
MALFORMED_CANARY = "CTK-MALFORMED-CANARY-7f3a"
CONTENT = {"default": "body"}
LO = ("base", "tool-interception", "lifecycle-observation")
BOTH = ("stdio", "http")

# Draft documents (sections).
FAILURE = "base/failure"
COMPOSITION = "base/composition"
STDIO = "base/transports/stdio"
HTTP = "base/transports/http"
EVENTS = "base/events"
REGISTRATION = "base/registration"
DISPOSITION = "observation-disposition"

# --- registration -------------------------------------------------------------


def icpt(policy, timeout=5000, native=None):
    s = {"events": ["tool.before"], "mode": "intercept", "timeoutMs": timeout, "failurePolicy": policy, "content": dict(CONTENT)}
    if native is not None:
        s["includeNative"] = native
    return s


def obs(events):
    return {"events": list(events), "mode": "observe", "content": dict(CONTENT)}


def hook(name, *subs, auth=None):
    h = {"id": "org.ctk.backend.%s" % name.lower(), "transport": "{{backend:%s}}" % name}
    if auth:
        h["authentication"] = {"type": "bearer", "tokenEnv": auth}
    h["subscriptions"] = list(subs)
    return h


def reg(*hooks):
    return {"protocolVersion": WIRE, "hooks": list(hooks)}


# --- scripts --------------------------------------------------------------------


def result(effects, version=WIRE, **extra):
    r = {"effects": effects} if effects is not None else {}
    if version is not None:
        r = dict({"protocolVersion": version}, **r)
    r.update(extra)
    return r


def deny_effect(reason=DENY_REASON, code=None, ext=None, **extra):
    e = {"type": "deny", "reason": reason}
    if code:
        e["code"] = code
    if ext:
        e["extensions"] = ext
    e.update(extra)
    return e


def reply(res=None, **kw):
    a = {"do": "reply", "result": res if res is not None else result([])}
    a.update(kw)
    return a


NO_EFFECT = [reply()]
DENY = [reply(result([deny_effect()]))]


def script(*plans, observe=None):
    s = {}
    if plans:
        s["intercept"] = [list(p) for p in plans]
    if observe is not None:
        s["observe"] = [list(p) for p in observe]
    return s


def stdio(sc=None, lifecycle="persistent", **kw):
    b = {"binding": "stdio", "lifecycle": lifecycle, "script": sc if sc is not None else script(NO_EFFECT)}
    b.update(kw)
    return b


def http(sc=None, **kw):
    b = {"binding": "http", "script": sc if sc is not None else script(NO_EFFECT)}
    b.update(kw)
    return b


def backend(binding, sc=None, lifecycle="persistent", **kw):
    if binding == "http":
        return http(sc, **kw)
    return stdio(sc, lifecycle, **kw)


def raw(text=None, hex_=None, newline=None):
    a = {"do": "raw"}
    if text is not None:
        a["text"] = text
    if hex_ is not None:
        a["hex"] = hex_
    if newline is not None:
        a["newline"] = newline
    return a


# --- triggers ---------------------------------------------------------------------


def call(outcome, denial=None, calls=None, perm="allow", tool=None, max_ms=None, before=None, excludes=None, call_id=None,
         asked=None, not_asked=None):
    e = {"outcome": outcome if isinstance(outcome, list) else [outcome]}
    if denial:
        e["denial"] = denial
    if calls is not None:
        e["calls"] = list(calls)
    if asked:
        e["asked"] = list(asked)
    if not_asked:
        e["not_asked"] = list(not_asked)
    if max_ms is not None:
        e["max_answer_ms"] = max_ms
    if before:
        e["answered_before_plan_end"] = list(before)
    if excludes:
        e["reason_excludes"] = list(excludes)
    t = {"tool_call": tool or TOOL}
    if call_id is not None:
        t["call_id"] = call_id
    t["host_permission"] = perm
    t["expect"] = e
    return t


def shape_asserts(name):
    """The draft request-shape predicates on backend `name` (DIFF-4..10):
    besides the engine's whole-request check, spelled out per member."""
    m = "hooks/intercept"
    return [
        {"backend": name, "method": m, "ptr": "/id", "eq_ptr": "/params/event/id", "required": True},
        {"backend": name, "method": m, "ptr": "/params/protocolVersion", "eq": WIRE},
        {"backend": name, "method": m, "ptr": "/params/capabilities/effects", "contains": "deny"},
        {"backend": name, "method": m, "ptr": "/params/state", "type": "object"},
        {"backend": name, "method": m, "ptr": "/params/event/type", "eq": "tool.before"},
        {"backend": name, "method": m, "ptr": "/params/event/harness/name", "type": "string"},
        {"backend": name, "method": m, "ptr": "/params/event/harness/version", "type": "string"},
        {"backend": name, "method": m, "ptr": "/params/event/call/id", "type": "string"},
        {"backend": name, "method": m, "ptr": "/params/event/path", "type": "string"},
        {"backend": name, "method": m, "ptr": "/params/event/tool/origin", "type": "string"},
        {"backend": name, "method": m, "ptr": "/params/event/tool/name", "eq": TOOL["name"]},
        {"backend": name, "method": m, "ptr": "/params/event/tool/input", "eq": TOOL["input"]},
        {"backend": name, "method": m, "ptr": "/params/event/tool/callId", "present": False},
        {"backend": name, "method": m, "ptr": "/params/event/native", "present": False},
    ]


# --- the vector ---------------------------------------------------------------------


def vector(title, requirements, covers, sections, registration, backends, triggers,
           binding, lifecycle="any", profiles=("base", "tool-interception"), advisory=None,
           failure_class=None, failure_policy=None, notes=None, expect=None, load_env=None,
           observer_failure=None):
    vid = "AHP-DH-%04d" % (len(VECTORS) + 1)
    profs = list(profiles)
    for b in BOTH:
        if (binding == b or any(x["binding"] == b for x in backends.values())) and b not in profs:
            if expect is None or expect.get("load") != "refused":
                profs.append(b)
    v = {
        "$schema": SCHEMA,
        "id": vid,
        "title": title,
        "ahp": LINE,
        "role": "harness",
        "requirements": list(requirements),
        "covers": list(covers),
        "sections": list(sections),
        "binding": binding,
        "lifecycle": lifecycle,
        "profiles": profs,
    }
    if advisory:
        v["advisory"] = advisory
    if failure_class:
        v["failure_class"] = failure_class
    if failure_policy:
        v["failure_policy"] = failure_policy
    if observer_failure:
        v["observer_failure"] = observer_failure
    v["notes"] = REVISION_NOTE + ((" " + notes) if notes else "")
    v["registration"] = registration
    if load_env:
        v["load_env"] = load_env
    v["backends"] = backends
    v["triggers"] = triggers
    v["expect"] = expect or {}
    VECTORS.append(v)
    return v


# --- 1. every failure class under both policies ------------------------------------
#
# spec/draft/base/failure.md lists the operational failures; composition.md
# says fail-open goes on to the next interceptor and fail-closed stops the
# chain and denies. Under fail-open A's scripted output is, where a reading
# could mistake it for one, a deny (a harness that applies it denies); under
# fail-closed it is no effect (a harness that accepts it runs the tool).

# 1000 ms, not 0.1's 300: the draft counts authentication, connection setup
# and transmission inside the deadline (failure.md, Deadlines), so a harness
# may spend a short one before the request ever reaches A (DD-05).
DEADLINE_MS = 1000
LATE_MS = 3 * DEADLINE_MS  # > 2 x timeoutMs (D-01)


# A backend that "never answers" sleeps past every bound a vector asserts, so
# a harness that waits for it instead of enforcing the deadline fails the
# bound (D-01 rule 5) rather than getting an answer in time.
NEVER_MS = 120000


def payload(policy):
    return [deny_effect()] if policy == "fail-open" else []


def rpc(policy, res=None, **kw):
    return script([reply(res if res is not None else result(payload(policy)), **kw)])


def utf8_plan(policy):
    """One line holding the byte 0xFF inside a string: text, the byte, text."""
    if policy == "fail-open":
        head = '{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"draft","effects":[{"type":"deny","reason":"bad byte '
        tail = '"}]}}'
    else:
        head = '{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"draft","effects":[],"extensions":{"org.ctk.note":"bad byte '
        tail = '"}}}'
    return script([raw(text=head, newline=False), raw(hex_="ff", newline=False), raw(text=tail)])


def multiline(policy):
    body = json.dumps({"jsonrpc": "2.0", "id": "__ID__", "result": result(payload(policy))}, indent=2)
    return script([raw(text=body.replace('"__ID__"', "{{id}}"))])


CLASSES = []


def klass(name, bindings, plan, covers=(), sections=(), notes=None, timeout=5000, requirements=(), redirect=False):
    CLASSES.append({
        "name": name, "bindings": bindings, "plan": plan, "covers": list(covers), "sections": list(sections),
        "notes": notes, "timeout": timeout, "requirements": list(requirements), "redirect": redirect,
    })


# Transport-level classes run over both bindings; reply-content classes,
# which a harness judges the same way whatever carried the bytes, over stdio
# (the 0.1 suite runs them over both; the draft run stays short).
klass("deadline_exceeded", BOTH, lambda b, p: script([{"do": "sleep", "ms": NEVER_MS}]),
      covers=["ahp-14.4-b", "ahp-14.4-e"], requirements=["AHP-FAIL-002"],
      timeout=DEADLINE_MS, notes="A never answers; the outcome comes within 10 x timeoutMs + 5000 ms for A, plus B's bound under fail-open (D-01).")
klass("late_reply", BOTH, lambda b, p: script([{"do": "sleep", "ms": LATE_MS}, reply(result(payload(p)))]),
      covers=["ahp-14.4-b", "ahp-14.4-e"], requirements=["AHP-FAIL-002"], timeout=DEADLINE_MS,
      notes="A answers 3 x timeoutMs late; the harness must ignore the later response (failure.md, Deadlines) and answer before it.")
klass("connection_lost", BOTH, lambda b, p: script([{"do": "close"}]),
      notes="stdio: A closes its stdout; HTTP: the connection is dropped without a response.")
klass("unreachable", BOTH, lambda b, p: {"launch": "missing" if b == "stdio" else "refused"},
      notes="stdio: the command does not exist (launch failure); HTTP: nothing listens (connection refused).")
klass("malformed_json", ("stdio",), lambda b, p: script([raw(text='{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"draft","effects":[')]),
      covers=["ahp-6.1-h", "ahp-7.1-a"])
klass("abnormal_exit", ("stdio",), lambda b, p: script([{"do": "exit", "code": 3}]),
      covers=["ahp-17.1-a"], sections=[STDIO], notes="A exits with status 3 before answering.")
klass("malformed_utf8", ("stdio",), lambda b, p: utf8_plan(p), covers=["ahp-6.1-h", "ahp-7.1-a"],
      notes="A reply that would be valid but holds the byte 0xFF inside a string: not UTF-8.")
klass("wrong_id", ("stdio",), lambda b, p: rpc(p, id="ctk-some-other-id"),
      covers=["ahp-17.2-a", "ahp-6.1-h"], sections=[STDIO],
      notes="Mismatched ids are a failure class of failure.md; a harness that waits for the right id ends at the deadline, also a failure.")
klass("jsonrpc_error", ("stdio",), lambda b, p: script([{"do": "error", "code": -32003, "message": "scripted error -32003"}]),
      covers=["ahp-6.1-h"], sections=["base/errors"], notes="A answers with JSON-RPC error -32003 (unavailable).")
klass("protocol_version_released", ("stdio",), lambda b, p: rpc(p, res=result(payload(p), version="0.1")),
      covers=["ahp-6.1-h", "ahp-6.1-b"], sections=["base/versioning"], requirements=["AHP-VER-001"],
      notes='result.protocolVersion is "0.1", the released line, not the request\'s "draft" (an unsupported version).')
klass("protocol_version_missing", ("stdio",), lambda b, p: rpc(p, res=result(payload(p), version=None)),
      covers=["ahp-6.1-h", "ahp-6.1-b"], sections=["base/versioning"], requirements=["AHP-VER-001"],
      notes="result has no protocolVersion: a missing required result field.")
klass("extension_effect", ("stdio",), lambda b, p: rpc(p, res=result([{"type": "com.example.ctk.unadvertised"}])),
      covers=["ahp-11-d", "ahp-6.1-h"], sections=["base/capabilities"], requirements=["AHP-CAP-001"],
      notes="A reverse-DNS extension effect on tool.before, which no harness advertised (DIFF-16: the draft rejects extension effects on tool.before).")
klass("deny_and_unadvertised", ("stdio",), lambda b, p: rpc(p, res=result([deny_effect(), {"type": "com.example.ctk.unadvertised"}])),
      covers=["ahp-11-d", "ahp-6.1-h"], requirements=["AHP-DEC-001", "AHP-CAP-001"],
      notes="A deny next to an unadvertised effect: one unsupported member rejects the whole response (DIFF-17), so the deny is not applied either.")
klass("empty_reason", ("stdio",), lambda b, p: rpc(p, res=result([deny_effect("")])),
      covers=["ahp-6.1-h", "ahp-11-d"], requirements=["AHP-DEC-001"], notes='A deny with reason "": malformed (the bundled deny schema).')
klass("deny_unknown_member", ("stdio",), lambda b, p: rpc(p, res=result([deny_effect(severity="high")])),
      covers=["ahp-6.1-h"], requirements=["AHP-DEC-001"],
      notes="A deny holding an unknown member: the draft closes the deny effect (DIFF-15; in 0.1 the member is ignored and the deny stands).")
klass("http_500", ("http",), lambda b, p: script([{"do": "status", "code": 500}, reply(result(payload(p)))]),
      covers=["ahp-18.1-c"], sections=[HTTP], requirements=["AHP-HTTP-001"],
      notes="Status 500 with a JSON-RPC body: any status but 200 is a failure, whatever the body says.")
klass("http_redirect_307", ("http",), lambda b, p: script([{"do": "redirect", "to": "Z", "code": 307}]),
      covers=["ahp-18.1-e", "ahp-18.1-c"], sections=[HTTP], requirements=["AHP-HTTP-001"], redirect=True,
      notes="A redirects to the kit's endpoint Z, which would answer; redirects are not followed unless explicitly enabled (none is), so Z receives nothing.")


def failure_vectors(lifecycle="persistent", extra=None):
    """Every class of CLASSES under both policies over its bindings (stdio
    `lifecycle`); with `extra` (class name -> bindings), only those."""
    for c in CLASSES:
        bindings = c["bindings"] if extra is None else extra.get(c["name"], ())
        for binding in bindings:
            for policy in ("fail-open", "fail-closed"):
                a = c["plan"](binding, policy)
                spec = backend(binding, {}, lifecycle, launch=a["launch"]) if "launch" in a else backend(binding, a, lifecycle)
                backends = {"A": spec, "B": backend(binding, script(NO_EFFECT), lifecycle)}
                exp = {}
                if c["redirect"]:
                    backends["Z"] = http(script([reply(result(payload(policy)))]))
                    exp["silent"] = ["Z"]
                deadline = c["timeout"] < 5000
                before = ["A"] if deadline else None
                # A's failure, then (fail-open) B's exchange: both bounds (D-01).
                max_ms = d01_bound(c["timeout"], 5000) if policy == "fail-open" else d01_bound(c["timeout"])
                asked = [] if "launch" in a else ["A"]
                # A deadline may run out before the request reaches A (DD-05):
                # then only the order-free part of the chain is asserted.
                if deadline and policy == "fail-open":
                    trig = call("executed", asked=["B"], max_ms=max_ms, before=before)
                elif deadline:
                    trig = call("denied", denial="synthetic", not_asked=["B"], max_ms=max_ms, before=before)
                elif policy == "fail-open":
                    trig = call("executed", calls=asked + ["B"], max_ms=max_ms)
                else:
                    trig = call("denied", denial="synthetic", calls=asked, max_ms=max_ms)
                if policy == "fail-open":
                    covers = ["ahp-14.2-a", "ahp-13.1-a", "ahp-6.2-e"]
                    verb = "the harness goes on to B and the tool runs"
                else:
                    covers = ["ahp-14.2-a", "ahp-13.1-a", "ahp-6.2-e", "ahp-6.2-h", "ahp-14.3-c"]
                    verb = "the harness denies with a synthetic denial, B is never asked, and the tool does not run"
                where = "stdio per_event" if binding == "stdio" and lifecycle == "per_event" else binding
                vector(
                    "draft: %s, %s over %s: %s" % (c["name"].replace("_", " "), policy, where, verb),
                    ["AHP-FAIL-001", "AHP-COMP-001"] + c["requirements"],
                    covers + [x for x in c["covers"] if x not in covers],
                    [FAILURE, COMPOSITION] + [s for s in c["sections"] if s not in (FAILURE, COMPOSITION)],
                    reg(hook("A", icpt(policy, c["timeout"])), hook("B", icpt("fail-closed"))),
                    backends, [trig], binding,
                    lifecycle=lifecycle if binding == "stdio" else "any",
                    failure_class=c["name"], failure_policy=policy, notes=c["notes"], expect=exp,
                )


def per_event_failure_vectors():
    for name, sc in (("abnormal_exit", script([{"do": "exit", "code": 3}])),):
        for policy in ("fail-open", "fail-closed"):
            trig = call("executed", calls=["A", "B"], max_ms=d01_bound(5000, 5000)) if policy == "fail-open" else call("denied", denial="synthetic", calls=["A"], max_ms=d01_bound(5000))
            vector(
                "draft: %s, %s, stdio per_event: the failure policy applies" % (name.replace("_", " "), policy),
                ["AHP-FAIL-001", "AHP-COMP-001", "AHP-STDIO-001"], ["ahp-14.2-a", "ahp-13.1-a", "ahp-6.2-e", "ahp-17.1-a"],
                [FAILURE, STDIO],
                reg(hook("A", icpt(policy)), hook("B", icpt("fail-closed"))),
                {"A": stdio(sc, "per_event"), "B": stdio(script(NO_EFFECT), "per_event")},
                [trig], "stdio", lifecycle="per_event", failure_class=name, failure_policy=policy,
            )
    exit3 = {"do": "exit", "code": 3}
    vector(
        "draft: per_event exit status: a valid deny then exit 3, fail-closed: the tool does not run (every reading)",
        ["AHP-FAIL-001", "AHP-STDIO-001", "AHP-DEC-002"], ["ahp-12.2-e", "ahp-14.2-a", "ahp-6.2-h"], [STDIO, FAILURE],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script(DENY + [exit3]), "per_event")},
        [call("denied", calls=["A"], max_ms=d01_bound(5000))], "stdio", lifecycle="per_event",
        failure_class="nonzero_exit_after_reply", failure_policy="fail-closed",
    )
    vector(
        "draft: per_event exit status: no effect then exit 3, fail-closed: the nonzero exit is an operational failure, the tool does not run (D-02)",
        ["AHP-FAIL-001", "AHP-STDIO-001"], ["ahp-14.2-a", "ahp-6.2-h"], [STDIO, FAILURE],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script(NO_EFFECT + [exit3]), "per_event")},
        [call("denied", denial="synthetic", calls=["A"], max_ms=d01_bound(5000))], "stdio", lifecycle="per_event",
        failure_class="nonzero_exit_after_reply", failure_policy="fail-closed",
        notes="stdio.md: the body determines the semantic effect (none here), and any nonzero exit is an operational failure besides; nothing speaks for a no-effect body, so every reading denies under fail-closed (D-02, issue 27). Only a valid deny followed by a nonzero exit is left to the readings.",
    )


# --- 2. validity differences from 0.1 that are decisions, not failures --------------


def difference_vectors():
    for binding in BOTH:
        vector(
            "draft: a result without effects is no effect (DIFF-13; a failure in 0.1): under fail-closed the chain goes on and the tool runs (%s)" % binding,
            ["AHP-DEC-001", "AHP-COMP-001"], ["ahp-12.3-a", "ahp-13.1-a"], ["server/tool-interception", COMPOSITION],
            reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed"))),
            {"A": backend(binding, script([reply(result(None))])), "B": backend(binding)},
            [call("executed", calls=["A", "B"])], binding, lifecycle="persistent" if binding == "stdio" else "any",
            failure_class="effects_missing", failure_policy="fail-closed",
        )
    vector(
        "draft: two deny effects are a deny (DIFF-14; a failure in 0.1): under fail-open the tool does not run and B is never asked",
        ["AHP-DEC-001", "AHP-DEC-002", "AHP-COMP-001"], ["ahp-6.2-h", "ahp-13.1-a"], ["server/tool-interception", COMPOSITION],
        reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-open"))),
        {"A": stdio(script([reply(result([deny_effect(), deny_effect("second reason")]))])), "B": stdio()},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="persistent",
        failure_class="two_denies", failure_policy="fail-open",
    )


# --- 3. decisions and the request shape ---------------------------------------------


def decision_vectors():
    for binding, lifecycle in (("stdio", "persistent"), ("stdio", "per_event"), ("http", "any")):
        lc = lifecycle if binding == "stdio" else "persistent"
        where = binding if binding == "http" else "stdio %s" % lifecycle
        exp = {"request_assert": shape_asserts("A")}
        if lifecycle == "per_event":
            exp["per_event_one_frame"] = ["A"]
        vector(
            "draft: no effect over %s: the request is a draft tool.before (id = event.id, deny advertised, harness, call.id, path, tool.origin, state; no native) and the tool runs" % where,
            ["AHP-RPC-001", "AHP-RPC-002", "AHP-TB-001", "AHP-CAP-001", "AHP-DEC-003"],
            ["ahp-6.2-c", "ahp-6.2-d", "ahp-8.1-a", "ahp-11-a", "ahp-11-b", "ahp-9.4-a", "ahp-7.2-a"],
            [EVENTS, "server/tool-interception", "base/capabilities"],
            reg(hook("A", icpt("fail-closed"))),
            {"A": backend(binding, script(NO_EFFECT), lc)},
            [call("executed", calls=["A"])], binding, lifecycle=lifecycle, expect=exp,
        )
        if lifecycle == "per_event":
            continue
        vector(
            "draft: a deny over %s stops the tool and is reported as an explicit (not synthetic) denial" % where,
            ["AHP-DEC-002", "AHP-FAIL-001"], ["ahp-6.2-h", "ahp-10.1-d", "ahp-14.3-c"], [COMPOSITION, FAILURE],
            reg(hook("A", icpt("fail-closed"))),
            {"A": backend(binding, script(DENY), lc)},
            [call("denied", denial="explicit", calls=["A"])], binding, lifecycle=lifecycle,
            expect={"per_event_one_frame": ["A"]} if lifecycle == "per_event" else None,
        )
    vector(
        "draft: a valid deny denies under fail-open too: an explicit deny is not an operational failure",
        ["AHP-DEC-002", "AHP-FAIL-001"], ["ahp-12.2-e", "ahp-6.2-h"], [FAILURE],
        reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-open"))),
        {"A": stdio(script(DENY)), "B": stdio()},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="persistent",
    )
    vector(
        "draft: a deny with a reverse-DNS code and reverse-DNS extensions denies",
        ["AHP-DEC-002", "AHP-EXT-001"], ["ahp-6.2-h", "ahp-9.5-b"], ["server/tool-interception"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script([reply(result([deny_effect(code="org.ctk.policy.no_probe", ext={"org.ctk.policy": {"rule": 7}})]))]))},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="persistent",
    )
    vector(
        "draft: the call id handed to the harness is event.call.id, and no tool.callId appears (DIFF-5)",
        ["AHP-TB-001"], ["ahp-9.3-a"], [EVENTS],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script(NO_EFFECT))},
        [call("executed", calls=["A"], call_id="ctk-call-draft-1")], "stdio", lifecycle="persistent",
        expect={"request_assert": [
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/call/id", "eq": "ctk-call-draft-1", "required": True},
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/tool/callId", "present": False},
        ]},
    )
    vector(
        "draft: two tool calls get distinct event ids (and distinct JSON-RPC ids)",
        ["AHP-RPC-002", "AHP-CORE-004"], ["ahp-9.1-h", "ahp-6.1-g"], [EVENTS],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script(NO_EFFECT))},
        [call("executed", calls=["A"]), call("executed", calls=["A"], tool={"name": "read_notes", "kind": "file_read", "input": {"path": "README.md"}})],
        "stdio", lifecycle="persistent",
    )
    vector(
        "draft: empty effects grant nothing: with the host set to prompt, a no-effect chain still ends in the host's prompt",
        ["AHP-DEC-003", "AHP-SEC-001"], ["ahp-12.3-a", "ahp-10.1-c", "ahp-6.2-i"], ["server/tool-interception", "base/capabilities"],
        reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed"))),
        {"A": stdio(), "B": stdio()},
        [call("prompted", calls=["A", "B"], perm="prompt")], "stdio", lifecycle="persistent",
    )
    for first, then, outcome, denial, what in ((NO_EFFECT, DENY, "executed", None, "an empty-effect response"),
                                               (DENY, NO_EFFECT, "denied", "explicit", "an explicit denial")):
        vector(
            "draft: no retry after %s: a second request to A would get the opposite decision; the first decides" % what,
            ["AHP-CORE-004"], ["ahp-15-g"], [FAILURE],
            reg(hook("A", icpt("fail-closed"))),
            {"A": stdio(script(first, then))},
            [call(outcome, denial=denial, calls=["A"])], "stdio", lifecycle="persistent",
        )


# --- 4. composition ---------------------------------------------------------------------


def composition_vectors():
    vector(
        "draft: three no-effect interceptors over stdio are asked one after another in registration order, and the tool runs",
        ["AHP-COMP-001"], ["ahp-13.1-a", "ahp-13.1-b", "ahp-6.2-f", "ahp-12.3-a"], [COMPOSITION],
        reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed")), hook("C", icpt("fail-closed"))),
        {n: stdio() for n in "ABC"},
        [call("executed", calls=["A", "B", "C"])], "stdio",
    )
    for binding in BOTH:
        vector(
            "draft: an explicit deny short-circuits the chain over %s: A (no effect) then B (deny); C is never asked to intercept" % binding,
            ["AHP-COMP-001", "AHP-DEC-002", "AHP-DEC-003"], ["ahp-13.1-a", "ahp-12.3-a", "ahp-6.2-h"], [COMPOSITION],
            reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-open")), hook("C", icpt("fail-closed"))),
            {"A": backend(binding), "B": backend(binding, script(DENY)), "C": backend(binding)},
            [call("denied", denial="explicit", calls=["A", "B"])], binding,
            notes="C may receive a hooks/observe for the call (DIFF-30), never a hooks/intercept.",
        )
    vector(
        "draft: interceptors never overlap: A takes a second to answer (deadline 10 s); B is asked only after A answered",
        ["AHP-COMP-001"], ["ahp-13.1-b", "ahp-13.1-a"], [COMPOSITION],
        reg(hook("A", icpt("fail-open", 10000)), hook("B", icpt("fail-closed"))),
        {"A": stdio(script([{"do": "sleep", "ms": 1000}] + NO_EFFECT)), "B": stdio()},
        [call("executed", calls=["A", "B"])], "stdio", lifecycle="persistent",
    )
    vector(
        "draft: a mixed chain (stdio, HTTP, stdio per_event) runs in registration order",
        ["AHP-COMP-001"], ["ahp-13.1-a", "ahp-13.1-b"], [COMPOSITION],
        reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed")), hook("C", icpt("fail-closed"))),
        {"A": stdio(), "B": http(), "C": stdio(None, "per_event")},
        [call("executed", calls=["A", "B", "C"])], "any",
    )
    vector(
        "draft: after A's deny, the uncalled interceptors B and C each receive hooks/observe for the call, never hooks/intercept (DIFF-30, DD-04)",
        ["AHP-COMP-001", "AHP-RPC-002"], ["ahp-13.1-a", "ahp-8.4-a"], [DISPOSITION, COMPOSITION],
        reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed")), hook("C", icpt("fail-open"))),
        {"A": stdio(script(DENY)), "B": stdio(), "C": stdio()},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="persistent", advisory="DD-04",
        expect={"observed": {"B": ["tool.before"], "C": ["tool.before"]},
                "request_assert": [{"backend": b, "method": "hooks/observe", "ptr": "/params/event/call/id", "type": "string", "required": True} for b in "BC"]},
    )


# The observer vectors bound the call by D-01 alone: 10 x A's timeoutMs
# (5000) + 5000 ms, and order it: the outcome comes before the observer's
# 30 s sleep ends (D-01 rule 4), so a harness that waits for the observer
# fails. A tighter absolute bound (an earlier revision asserted 4000 ms, to
# catch a harness that waits out a client timeout of 5 s or more on the
# observer) is a window D-01 forbids: a correct harness on a loaded machine
# could miss it.
OBSERVER_BOUND_MS = d01_bound(5000)
OBSERVER_SLEEP_MS = 30000

# --- 5. observers ---------------------------------------------------------------------------


def observer_vectors():
    for binding in BOTH:
        vector(
            "draft: an observer of tool.before and tool.after over %s gets notifications with no id, protocolVersion draft and no native" % binding,
            ["AHP-RPC-001", "AHP-VER-001"], ["ahp-8.4-a", "ahp-7.2-a", "ahp-9.4-a"], [COMPOSITION, DISPOSITION],
            reg(hook("A", icpt("fail-closed")), hook("O", obs(["tool.before", "tool.after"]))),
            {"A": backend(binding), "O": backend(binding)},
            [call("executed", calls=["A"])], binding, profiles=LO,
            expect={"request_assert": [
                {"backend": "O", "method": "hooks/observe", "ptr": "/id", "present": False},
                {"backend": "O", "method": "hooks/observe", "ptr": "/params/protocolVersion", "eq": WIRE},
                {"backend": "O", "method": "hooks/observe", "ptr": "/params/event/native", "present": False},
            ]},
        )
        vector(
            "draft: an observer that takes %d s per notification (%s) delays neither the chain nor the tool (composition.md, Observers)" % (OBSERVER_SLEEP_MS // 1000, binding),
            ["AHP-RPC-002"], ["ahp-13.2-a", "ahp-13.2-b"], [COMPOSITION],
            reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed"))),
            {"O": backend(binding, script(NO_EFFECT, observe=[[{"do": "sleep", "ms": OBSERVER_SLEEP_MS}]])), "A": backend(binding)},
            [call("executed", calls=["A"], max_ms=OBSERVER_BOUND_MS, before=["O"])], binding, profiles=LO,
            observer_failure="stalls",
            notes="A answers at once; the outcome comes before O's %d s sleep ends (a harness that waits for the observer answers after it) and within 10 x timeoutMs + 5000 = %d ms (D-01)." % (OBSERVER_SLEEP_MS // 1000, OBSERVER_BOUND_MS),
        )
    for binding, what, obs_plan, klass_ in (
            ("stdio", "exits with status 3", [{"do": "exit", "code": 3}], "abnormal_exit"),
            ("http", "answers 500", [{"do": "status", "code": 500}], "http_500")):
        vector(
            "draft: an observer that %s changes nothing (%s): the interceptor's deny decides" % (what, binding),
            ["AHP-RPC-002"], ["ahp-13.2-a"], [COMPOSITION, FAILURE],
            reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed"))),
            {"O": backend(binding, script(NO_EFFECT, observe=[obs_plan])), "A": backend(binding, script(DENY))},
            [call("denied", denial="explicit", calls=["A"])], binding, profiles=LO, observer_failure=klass_,
            notes="Observe subscriptions are always non-blocking and effectively fail open (failure.md).",
        )
    vector(
        "draft: an observe-only subscription on tool.before adds no decision step: a reply-shaped deny it writes back changes nothing",
        ["AHP-COMP-001"], ["ahp-6.2-c", "ahp-13.2-a", "ahp-8.4-a"], [COMPOSITION],
        reg(hook("O", obs(["tool.before"]))),
        {"O": stdio(script(NO_EFFECT, observe=[[raw(text='{"jsonrpc":"2.0","id":{{prev_id}},"result":{"protocolVersion":"draft","effects":[{"type":"deny","reason":"observer says no"}]}}')]]))},
        [call("executed", calls=[])], "stdio", lifecycle="persistent", profiles=LO,
        expect={"request_assert": [{"backend": "O", "ptr": "/method", "eq": "hooks/observe"}]},
    )


# --- 6. stdio process and HTTP --------------------------------------------------------------

META_ARGS = ["$HOME", "a;b", "*", "'quoted'", "two words", "`id`", "|", "&&", "$(echo x)", ">out"]


def process_vectors():
    for lifecycle in ("persistent", "per_event"):
        vector(
            "draft: stdio %s: arguments with shell metacharacters reach the backend verbatim (no shell) and cwd is honoured" % lifecycle,
            ["AHP-STDIO-001"], ["ahp-17.4-a"], [STDIO, REGISTRATION],
            reg(hook("A", icpt("fail-closed"))),
            {"A": stdio(None, lifecycle, args=META_ARGS, cwd=True)},
            [call("executed", calls=["A"])], "stdio", lifecycle=lifecycle,
            expect={"args_verbatim": ["A"], "cwd_honoured": ["A"]},
        )
    vector(
        "draft: stdio per_event: every process gets exactly one message and then end of file (two calls, two processes)",
        ["AHP-STDIO-001"], ["ahp-17.1-a"], [STDIO],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(None, "per_event")},
        [call("executed", calls=["A"]), call("executed", calls=["A"])], "stdio", lifecycle="per_event",
        expect={"per_event_one_frame": ["A"]},
    )
    vector(
        "draft: a stdio backend does not inherit an unrelated credential from the harness's environment (smallest practical environment, D-31)",
        ["AHP-SEC-001"], ["ahp-17.4-b"], [STDIO],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio()},
        [call("executed", calls=["A"])], "stdio", lifecycle="persistent", advisory="D-31",
        expect={"env_absent": {"A": ["{{env_canary}}"]}},
    )
    vector(
        "draft: the value of a credential in the harness's environment appears in no event payload",
        ["AHP-SEC-001"], ["ahp-17.4-c"], [STDIO],
        reg(hook("A", icpt("fail-closed")), hook("O", obs(["tool.before", "tool.after"]))),
        {"A": stdio(), "O": stdio()},
        [call("executed", calls=["A"])], "stdio", lifecycle="persistent", profiles=LO,
        expect={"env_canary_absent": True},
        notes="stdio.md: the harness MUST NOT place bearer tokens or unrelated credentials in event payloads.",
    )
    vector(
        "draft: a synthetic denial does not repeat the malformed backend output (generic local reason, a SHOULD; D-31)",
        ["AHP-FAIL-001"], ["ahp-14.3-b", "ahp-14.3-a"], [FAILURE],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script([raw(text="panic: " + MALFORMED_CANARY + " at /srv/policy.rs:42")]))},
        [call("denied", denial="synthetic", calls=["A"], excludes=[MALFORMED_CANARY])],
        "stdio", lifecycle="persistent", advisory="D-31",
    )


def http_vectors():
    vector(
        "draft: HTTP: every request is a POST of one JSON object with Content-Type application/json and Authorization: Bearer <token from tokenEnv>; the token is in no payload",
        ["AHP-HTTP-001", "AHP-SEC-001"], ["ahp-18.1-a", "ahp-18.1-b", "ahp-18.3-a", "ahp-17.4-c"], [HTTP, "capability-auth"],
        reg(hook("A", icpt("fail-closed"), auth="CTK_AHP_BEARER")),
        {"A": http(bearer=True)},
        [call("executed", calls=["A"])], "http",
        load_env={"CTK_AHP_BEARER": "{{canary}}"},
        expect={"request_assert": [
            # HTTP auth schemes are case-insensitive (RFC 9110 §11.1): `bearer` passes too (issue 26).
            {"backend": "A", "header": "authorization", "bearer": "{{canary}}", "required": True},
            {"backend": "A", "header": "content-type", "present": True},
        ] + shape_asserts("A")},
    )
    vector(
        "draft: HTTP fail-closed: a deny served as text/plain leaves the tool unrun (a failure or a deny, either way)",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.1-a", "ahp-14.2-a"], [HTTP, FAILURE],
        reg(hook("A", icpt("fail-closed"))),
        {"A": http(script([{"do": "content_type", "value": "text/plain"}] + DENY))},
        [call("denied", calls=["A"], max_ms=d01_bound(5000))], "http",
        failure_class="wrong_content_type", failure_policy="fail-closed",
    )
    vector(
        "draft: HTTP fail-open: a deny served as text/plain is a failure (D-20), B is asked and the tool runs",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.1-a", "ahp-14.2-a"], [HTTP, FAILURE],
        reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-closed"))),
        {"A": http(script([{"do": "content_type", "value": "text/plain"}] + DENY)), "B": http()},
        [call("executed", calls=["A", "B"], max_ms=d01_bound(5000, 5000))], "http", advisory="D-20",
        failure_class="wrong_content_type", failure_policy="fail-open",
    )
    vector(
        "draft: HTTP fail-closed, a bearer backend that answers 403: a failure; the synthetic reason does not hold the token",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.3-a", "ahp-14.2-a", "ahp-18.1-c"], [HTTP, FAILURE],
        reg(hook("A", icpt("fail-closed"), auth="CTK_AHP_BEARER")),
        {"A": http(script([{"do": "status", "code": 403}, {"do": "error", "code": -32003, "message": "token {{id}}"}]), bearer=True)},
        [call("denied", denial="synthetic", calls=["A"], excludes=["{{canary}}"])], "http",
        load_env={"CTK_AHP_BEARER": "{{canary}}"}, failure_class="http_403", failure_policy="fail-closed",
        notes="403, not 401: in the draft a 401 may start OAuth discovery (DIFF-33), for which the kit has no fixture.",
    )
    vector(
        "draft: HTTP fail-open, tokenEnv not set: the tool runs and the backend gets no unauthenticated request (no unauthenticated fallback)",
        ["AHP-FAIL-001"], ["ahp-14.2-a", "ahp-18.3-a"], [HTTP, FAILURE],
        reg(hook("A", icpt("fail-open"), auth="CTK_AHP_UNSET_TOKEN")),
        {"A": http(script(DENY), bearer=True)},
        [call("executed")], "http", expect={"load": "either", "silent": ["A"]},
        failure_class="authentication", failure_policy="fail-open",
        notes="failure.md: authentication failures follow the configured policy and fail-open does not permit unauthenticated fallback delivery; http.md: credential failures MUST NOT cause an unauthenticated fallback.",
    )


# --- 7. registration -----------------------------------------------------------------------


def refused(title, registration, covers=("ahp-6.1-e", "ahp-6.1-f"), requirements=("AHP-REG-001",), advisory=None):
    vector(
        "draft: registration refused at load: " + title,
        list(requirements), list(covers), [REGISTRATION],
        registration, {"A": stdio()}, [call("executed")], "any",
        advisory=advisory, expect={"load": "refused", "silent": ["A"]},
    )


def registration_vectors():
    good = icpt("fail-closed")
    nocontent = dict(good)
    del nocontent["content"]
    refused("an intercept subscription without content (DIFF-22)", reg(hook("A", nocontent)))
    refused("an observe subscription with timeoutMs and failurePolicy", reg(hook("A", good, dict(obs(["tool.after"]), timeoutMs=100, failurePolicy="fail-open"))),
            covers=("ahp-6.1-f", "ahp-14.2-b", "ahp-19.3-e"), requirements=("AHP-REG-001", "AHP-FAIL-001"))
    nopol = dict(good)
    del nopol["failurePolicy"]
    refused("an intercept subscription without failurePolicy (no implicit default)", reg(hook("A", nopol)),
            covers=("ahp-6.1-f", "ahp-14.2-a"), requirements=("AHP-REG-001", "AHP-FAIL-001"))
    refused("timeoutMs 0 (a positive integer is required)", reg(hook("A", dict(good, timeoutMs=0))),
            covers=("ahp-6.1-f", "ahp-14.4-a"), requirements=("AHP-REG-001", "AHP-FAIL-002"))
    dup = reg(hook("A", good), hook("B", good))
    dup["hooks"][1]["id"] = dup["hooks"][0]["id"]
    vector(
        "draft: registration refused at load: two backends share an id",
        ["AHP-REG-001"], ["ahp-6.1-e", "ahp-6.1-f", "ahp-19.2-a"], [REGISTRATION],
        dup, {"A": stdio(), "B": stdio()}, [call("executed")], "any",
        expect={"load": "refused", "silent": ["A", "B"]},
    )
    both = reg(hook("A", good))
    both["hooks"][0]["transport"] = "{{backend:H}}"
    both["hooks"][0]["authentication"] = {"type": "bearer", "tokenEnv": "CTK_AHP_BEARER", "tokenRef": "vault:ctk"}
    vector(
        "draft: registration refused at load: bearer authentication with both tokenEnv and tokenRef (DIFF-27)",
        ["AHP-REG-001", "AHP-SEC-001"], ["ahp-6.1-f", "ahp-18.3-a"], [REGISTRATION, "capability-auth"],
        both, {"H": http(bearer=True)}, [call("executed")], "http",
        load_env={"CTK_AHP_BEARER": "{{canary}}"}, expect={"load": "refused", "silent": ["H"]},
    )


# --- issue 27: what the draft keeps of 0.1's rules, checked by its own text ----------
#
# stdio.md keeps 17.1 to 17.3 word for word (per_event: one message, then EOF;
# the harness does not wait on an observe process; no non-protocol stdout; the
# one-outstanding sentence), and http.md keeps "any status other than the
# successes specified above" as an operational failure and the TLS rule for
# remote endpoints.

SLOW_TOOL = {"name": "ctk_probe_slow", "kind": "shell", "input": {"command": "echo ctk-slow"}}
FAST_TOOL = {"name": "ctk_probe_fast", "kind": "file_read", "input": {"path": "README.md"}}


def matrix_vectors():
    """The failure matrix completed (issue 27): every stdio class over
    per_event too (stdio.md keeps the process-per-event lifecycle), and the
    reply-content classes over HTTP too (failure.md's classes do not depend
    on the transport that carried the bytes)."""
    per_event = {c["name"]: ("stdio",) for c in CLASSES if "stdio" in c["bindings"] and c["name"] != "abnormal_exit"}
    failure_vectors("per_event", per_event)
    over_http = {c["name"]: ("http",) for c in CLASSES
                 if c["bindings"] == ("stdio",) and c["name"] not in ("abnormal_exit",)}
    failure_vectors("persistent", over_http)
    banner = raw(text="ctk-scripted-backend v0 ready")
    for policy, plan, outcome in (("fail-closed", DENY, "denied"), ("fail-open", NO_EFFECT, "executed")):
        vector(
            "draft: banner line, %s over stdio per_event: a banner then a valid %s; the tool %s (every reading)" % (
                policy, "deny" if outcome == "denied" else "no-effect reply", "does not run" if outcome == "denied" else "runs"),
            ["AHP-FAIL-001", "AHP-STDIO-001"], ["ahp-14.2-a", "ahp-6.1-h", "ahp-17.1-a"], [STDIO, FAILURE],
            reg(hook("A", icpt(policy))),
            {"A": stdio(script([banner] + plan), "per_event")},
            [call(outcome, calls=["A"], max_ms=d01_bound(5000))],
            "stdio", lifecycle="per_event", failure_class="banner_line", failure_policy=policy,
        )
    exit3 = {"do": "exit", "code": 3}
    vector(
        "draft: per_event exit status: no effect then exit 3, fail-open: the tool runs (every reading)",
        ["AHP-FAIL-001", "AHP-STDIO-001"], ["ahp-14.2-a", "ahp-6.2-e"], [STDIO, FAILURE],
        reg(hook("A", icpt("fail-open"))),
        {"A": stdio(script(NO_EFFECT + [exit3]), "per_event")},
        [call("executed", calls=["A"], max_ms=d01_bound(5000))], "stdio", lifecycle="per_event",
        failure_class="nonzero_exit_after_reply", failure_policy="fail-open",
    )
    vector(
        "draft: per_event exit status: a valid deny then exit 3, fail-open: the deny stands (D-02 reading c)",
        ["AHP-FAIL-001", "AHP-STDIO-001", "AHP-DEC-002"], ["ahp-12.2-e", "ahp-14.2-a", "ahp-6.2-h"], [STDIO, FAILURE],
        reg(hook("A", icpt("fail-open"))),
        {"A": stdio(script(DENY + [exit3]), "per_event")},
        [call("denied", calls=["A"], max_ms=d01_bound(5000))], "stdio", lifecycle="per_event", advisory="D-02",
        failure_class="nonzero_exit_after_reply", failure_policy="fail-open",
        notes="stdio.md: the body determines the semantic effect (a deny), and any nonzero exit is an operational failure: under fail-open the readings part (D-02 carried over).",
    )


PER_EVENT_OBSERVER_SLEEP_MS = 5000


def kept_rule_vectors():
    # per_event observers: never waited for, one message then EOF.
    # 5 s, not the 30 s of the observers above: a harness that waits for
    # each observer process in turn (two notifications a call) must still
    # answer inside the kit's 30 s vector timeout, so that waiting is a
    # failure the report names, not an error. A harness that does not wait
    # answers within milliseconds: 5 s is still a generous multiple.
    vector(
        "draft: a per_event observer that takes %d s per notification delays neither the chain nor the tool, and each observer process gets one message and then end of file" % (PER_EVENT_OBSERVER_SLEEP_MS // 1000),
        ["AHP-RPC-002", "AHP-STDIO-001"], ["ahp-13.2-a", "ahp-17.1-a"], [COMPOSITION, STDIO],
        reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed", 500))),
        {"O": stdio(script(NO_EFFECT, observe=[[{"do": "sleep", "ms": PER_EVENT_OBSERVER_SLEEP_MS}]]), "per_event"), "A": stdio(None, "per_event")},
        # A's 500 ms deadline keeps D-01's bound (10 s) and the kit's call
        # limit (the bound + 15 s) inside the 30 s vector timeout: a harness
        # that never answers fails by name.
        [call("executed", calls=["A"], max_ms=d01_bound(500), before=["O"])], "stdio", lifecycle="per_event", profiles=LO,
        expect={"per_event_one_frame": ["O"]}, observer_failure="stalls",
        notes="stdio.md: a process-per-event backend receives exactly one JSON-RPC message on stdin, followed by EOF; for an observe notification the harness does not wait for a semantic response.",
    )
    vector(
        "draft: a per_event observer that exits 3 changes nothing: the interceptor's deny decides",
        ["AHP-RPC-002", "AHP-STDIO-001"], ["ahp-13.2-a"], [COMPOSITION, STDIO],
        reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed"))),
        {"O": stdio(script(NO_EFFECT, observe=[[{"do": "exit", "code": 3}]]), "per_event"), "A": stdio(script(DENY), "per_event")},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="per_event", profiles=LO,
        observer_failure="abnormal_exit",
        notes="stdio.md: process status may be recorded locally but cannot affect agent execution. (No end-of-file check here: O exits as soon as it has read its message, so it may never read the end of file the harness sends.)",
    )
    # A banner before a valid reply: the pair every reading agrees on.
    banner = raw(text="ctk-scripted-backend v0 ready")
    for policy, plan, outcome in (("fail-closed", DENY, "denied"), ("fail-open", NO_EFFECT, "executed")):
        vector(
            "draft: banner line, %s over stdio: a banner then a valid %s; the tool %s (every reading)" % (
                policy, "deny" if outcome == "denied" else "no-effect reply", "does not run" if outcome == "denied" else "runs"),
            ["AHP-FAIL-001", "AHP-STDIO-001"], ["ahp-14.2-a", "ahp-6.1-h", "ahp-17.1-a"], [STDIO, FAILURE],
            reg(hook("A", icpt(policy))),
            {"A": stdio(script([banner] + plan))},
            [call(outcome, calls=["A"], max_ms=d01_bound(5000))],
            "stdio", lifecycle="persistent", failure_class="banner_line", failure_policy=policy,
            notes="stdio.md: the backend MUST NOT write banners to stdout. Whether the harness then takes the next line as the reply is open, so only the outcomes both choices reach are asserted.",
        )
    # Successes other than 200 on an intercept reply.
    for code in (201, 202, 204, 206):
        for policy in ("fail-open", "fail-closed"):
            if policy == "fail-open":
                a, trig = script([{"do": "status", "code": code}] + DENY), call("executed", calls=["A", "B"], max_ms=d01_bound(5000, 5000))
            else:
                a, trig = script([{"do": "status", "code": code}] + NO_EFFECT), call("denied", denial="synthetic", calls=["A"], max_ms=d01_bound(5000))
            vector(
                "draft: HTTP status %d on an intercept reply, %s: an operational failure (only 200 is the intercept success)" % (code, policy),
                ["AHP-FAIL-001", "AHP-HTTP-001"], ["ahp-14.2-a", "ahp-13.1-a", "ahp-18.1-c"], [HTTP, FAILURE],
                reg(hook("A", icpt(policy)), hook("B", icpt("fail-closed"))),
                {"A": http(a), "B": http()}, [trig], "http",
                failure_class="http_%d" % code, failure_policy=policy,
                notes="http.md: a successful hooks/intercept response MUST use HTTP status 200; any status other than the successes specified is an operational failure.",
            )
    # Remote plain http (http.md keeps the TLS rule): D-07 carried over.
    vector(
        "draft: registration refused at load: a plain http:// URL on a host that is not loopback (D-07)",
        ["AHP-REG-001"], ["ahp-18.2-a", "ahp-6.1-f"], [HTTP, REGISTRATION],
        {"protocolVersion": WIRE, "hooks": [{"id": "org.ctk.backend.remote", "transport": {"type": "http", "url": "http://ahp-ctk.invalid/hook"}, "subscriptions": [icpt("fail-closed")]}]},
        {}, [call("executed")], "any", advisory="D-07", expect={"load": "refused"},
        notes="http.md: remote endpoints MUST use https; plain http MAY be used only for loopback addresses or explicitly controlled local development environments.",
    )
    # Parallel tool calls (adapter feature parallel-tool-calls): stdio.md
    # keeps "MAY have only one outstanding intercept request ... per
    # persistent backend" and the correlation by id.
    by_tool = {"intercept": [NO_EFFECT], "by_tool": {
        SLOW_TOOL["name"]: [{"do": "sleep", "ms": 1000}] + DENY,
        FAST_TOOL["name"]: NO_EFFECT,
    }}
    vector(
        "draft: two parallel tool calls over stdio persistent: each gets the decision A sent for its own request, and each call's chain stays serial",
        ["AHP-COMP-001"], ["ahp-17.2-a", "ahp-13.1-a", "ahp-13.1-b"], [STDIO, COMPOSITION],
        reg(hook("A", icpt("fail-open", 10000)), hook("B", icpt("fail-closed"))),
        {"A": stdio(by_tool), "B": stdio()},
        [{"parallel": [
            call("denied", denial="explicit", calls=["A"], tool=SLOW_TOOL, call_id="ctk-call-slow"),
            call("executed", calls=["A", "B"], tool=FAST_TOOL, call_id="ctk-call-fast"),
        ]}],
        "stdio", lifecycle="persistent",
        notes="A answers by tool name. A harness may keep one intercept outstanding per persistent backend across events or send both and match replies by id (stdio.md); either passes.",
    )
    vector(
        "draft: two parallel tool calls to one persistent stdio backend: it never has two intercept requests outstanding at once (D-17)",
        ["AHP-COMP-001"], ["ahp-17.2-b"], [STDIO],
        reg(hook("A", icpt("fail-open", 10000))),
        {"A": stdio({"intercept": [NO_EFFECT], "by_tool": {
            SLOW_TOOL["name"]: [{"do": "sleep", "ms": 500}] + NO_EFFECT,
            FAST_TOOL["name"]: [{"do": "sleep", "ms": 500}] + NO_EFFECT,
        }})},
        [{"parallel": [
            call("executed", calls=["A"], tool=SLOW_TOOL, call_id="ctk-call-slow"),
            call("executed", calls=["A"], tool=FAST_TOOL, call_id="ctk-call-fast"),
        ]}],
        "stdio", lifecycle="persistent", advisory="D-17", expect={"one_outstanding": ["A"]},
        notes="D-17 carried over: the one-outstanding sentence read as a limit, across events.",
    )


def observer_delivery_vectors():
    """D-38 on the draft line: a healthy observer subscribed to tool.before
    receives it. Delivery stays best effort in the draft, so, as on 0.1,
    only the preferred reading pins it (advisory)."""
    for binding, lifecycle in (("stdio", "persistent"), ("stdio", "per_event"), ("http", "any")):
        exp = {"observed": {"O": ["tool.before"]}}
        if lifecycle == "per_event":
            exp["per_event_one_frame"] = ["O"]
        lc = lifecycle if binding == "stdio" else "persistent"
        vector(
            "draft: a healthy observer subscribed to tool.before over %s receives a hooks/observe for it (D-38)" % (
                binding if binding == "http" else "stdio " + lifecycle),
            ["AHP-RPC-002"], ["ahp-8.4-a"], [COMPOSITION],
            reg(hook("A", icpt("fail-closed", 500)), hook("O", obs(["tool.before", "tool.after"]))),
            {"A": backend(binding, None, lc), "O": backend(binding, None, lc)},
            [call("executed", calls=["A"], max_ms=d01_bound(500))], binding, lifecycle=lifecycle, profiles=LO,
            advisory="D-38", expect=exp,
        )


def reverse_dns_classes():
    """The draft's counterparts of 0.1's deny_code_not_reverse_dns and
    extension_key_not_reverse_dns (issue 27: the reference harness's draft
    checks of both survived every draft vector). The draft keeps both rules:
    a deny `code` is a "Stable machine-readable reverse-DNS identifier"
    (server/tool-interception.md) and extension keys use reverse-DNS names
    (base/events.md, as 0.1 9.5). Each plan tells the readings apart under
    its policy: fail-open gets a deny (taken, the tool would not run),
    fail-closed gets a deny (taken, the denial would be explicit, not
    synthetic) or a no-effect reply (taken, the tool would run). The classes
    join CLASSES only now, so the ids written before stay stable."""
    first = len(CLASSES)
    klass("deny_code_not_reverse_dns", BOTH, lambda b, p: rpc(p, res=result([deny_effect(code="not reverse dns")])),
          covers=["ahp-22-h", "ahp-6.1-h"], sections=["server/tool-interception"], requirements=["AHP-DEC-001", "AHP-EXT-001"],
          notes='A deny whose code "not reverse dns" is no reverse-DNS identifier: a malformed effect.')
    klass("extension_key_not_reverse_dns", BOTH,
          lambda b, p: rpc(p, res=result([deny_effect(ext={"note": True})]) if p == "fail-open"
                           else result([], extensions={"note": True})),
          covers=["ahp-9.5-a", "ahp-6.1-h"], sections=[EVENTS], requirements=["AHP-EXT-001"],
          notes='Extension keys without a namespace: fail-open gets a deny whose effect extensions use the key "note", fail-closed a no-effect result whose extensions do; either is malformed.')
    added = {c["name"]: c["bindings"] for c in CLASSES[first:]}
    failure_vectors("persistent", added)
    failure_vectors("per_event", {name: ("stdio",) for name in added})
    # The edges of the name rule (the bundled deny-effect schema's pattern:
    # two or more dot-separated labels, each a letter then letters, digits,
    # `_` or `-`): one label, a label with a space, and a valid name with `-`.
    for code, valid, what in (
        ("policy", False, "one label, no namespace"),
        ("com.example.bad code", False, "a label holding a space"),
        ("com.example.force-push", True, "a label holding a hyphen, which reverse-DNS names allow"),
    ):
        vector(
            'draft: a deny whose code is "%s" (%s) %s' % (
                code, what, "denies" if valid else "is malformed: fail-closed gives a synthetic denial"),
            ["AHP-DEC-001", "AHP-EXT-001"], ["ahp-22-h", "ahp-6.1-h"] if not valid else ["ahp-6.2-h"],
            ["server/tool-interception"],
            reg(hook("A", icpt("fail-closed"))),
            {"A": stdio(script([reply(result([deny_effect(code=code)]))]))},
            [call("denied", denial="explicit" if valid else "synthetic", calls=["A"])], "stdio", lifecycle="persistent",
            **({} if valid else {"failure_class": "deny_code_not_reverse_dns", "failure_policy": "fail-closed"}),
        )


# The observe half of the failure matrix (issue 27), as on 0.1: failure.md
# keeps observe subscriptions non-blocking and effectively fail-open, and
# composition.md keeps observers from delaying the chain or the tool, so
# whatever an observer does, the interceptor's decision stands. http.md keeps
# 202 or 204 as the acceptance of a notification (a SHOULD, DIFF-32), any
# other status an operational failure, and redirects never followed.
def observer_failure_matrix_vectors():
    """Every cell of the observe half no vector above fills yet."""
    for klass_, binding, lifecycle, decision, outcome, denial in list(observe_missing(VECTORS)):
        plan, what, stalls_ = observer_plan(klass_, binding, PER_EVENT_OBSERVER_SLEEP_MS, raw)
        if isinstance(plan, dict):
            o = backend(binding, None, lifecycle, launch=plan["launch"])
        else:
            o = backend(binding, script(NO_EFFECT, observe=[plan]), lifecycle)
        backends = {"O": o, "A": backend(binding, script(DENY) if decision == "deny" else None, lifecycle)}
        exp = {}
        covers = ["ahp-13.2-a"]
        if klass_.startswith("http_redirect_"):
            backends["Z"] = http()
            exp["silent"] = ["Z"]
            covers.append("ahp-18.1-e")
        # An observer that exits as soon as it has read its message may never
        # read the end of file after it: no end-of-file check for that class.
        if lifecycle == "per_event" and not isinstance(plan, dict) and klass_ != "abnormal_exit":
            exp["per_event_one_frame"] = ["O"]
        where = "stdio " + lifecycle if binding == "stdio" else "http"
        vector(
            "draft: an observer that %s changes nothing (%s): the interceptor's %s decides" % (what, where, decision),
            ["AHP-RPC-002"], covers, [COMPOSITION, FAILURE] + ([HTTP] if binding == "http" else [STDIO]),
            reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed", 500))),
            backends,
            [call(outcome, denial=denial, calls=["A"], max_ms=d01_bound(500), before=["O"] if stalls_ else None)],
            binding, lifecycle=lifecycle if binding == "stdio" else "any", profiles=LO,
            observer_failure=klass_, expect=exp,
            notes="composition.md: observers never delay the chain or the tool; failure.md: observe subscriptions are non-blocking and effectively fail open, so the interceptor's decision stands."
            + (" http.md: redirects are never followed, so Z receives nothing." if klass_.startswith("http_redirect_") else ""),
        )


def persistent_process_vectors():
    """D-39 carried over: transports/stdio.md keeps "A persistent backend
    remains alive for multiple messages." word for word, and still with no
    requirement word, so, as on 0.1, only the preferred reading pins it
    (advisory)."""
    err = [{"do": "error", "code": -32003, "message": "scripted error -32003"}]
    # By tool, not by position: a retry within the deadline (15) gets the
    # same error, and a process started again answers as the first did.
    ERR_TOOL = {"name": "ctk_probe_error", "kind": "shell", "input": {"command": "echo ctk-error"}}
    vector(
        "draft: a persistent backend that answers three calls with a well-formed JSON-RPC error and a fourth with no effect stays one process: three synthetic denials, then the tool runs (D-39)",
        ["AHP-STDIO-001"], ["ahp-17.2-a"], [STDIO, FAILURE],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({"intercept": [NO_EFFECT], "by_tool": {ERR_TOOL["name"]: err}})},
        [call("denied", denial="synthetic", calls=["A"], tool=ERR_TOOL) for _ in range(3)] + [call("executed", calls=["A"])],
        "stdio", lifecycle="persistent", advisory="D-39",
        expect={"one_process": ["A"]},
    )
    vector(
        "draft: a persistent backend that answers four calls in a row with no effect stays one process, and each tool runs (D-39)",
        ["AHP-STDIO-001"], ["ahp-17.2-a"], [STDIO],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio()},
        [call("executed", calls=["A"]) for _ in range(4)],
        "stdio", lifecycle="persistent", advisory="D-39",
        expect={"one_process": ["A"]},
    )
    big = {"name": "ctk_probe_oversize", "kind": "shell", "input": {"command": "echo ctk-oversize"}}
    vector(
        "draft: after a persistent backend writes one line of 2 MiB, fail-closed, its next reply (no effect, in time) decides: the first call is denied, the second tool runs (D-39)",
        ["AHP-STDIO-001", "AHP-FAIL-001"], ["ahp-17.1-a"], [STDIO, FAILURE],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({"intercept": [NO_EFFECT], "by_tool": {
            big["name"]: [{"do": "raw", "text": "x" * 64, "repeat": 2 * 1024 * 1024 // 64 + 1}],
        }})},
        [call("denied", denial="synthetic", calls=["A"], tool=big), call("executed", calls=["A"])],
        "stdio", lifecycle="persistent", advisory="D-39",
        notes="The line is not JSON: an operational failure whatever bound the harness keeps. A answers by tool name, so a new process, if the harness starts one, answers the second call as the first would have.",
    )


def main():
    failure_vectors()
    per_event_failure_vectors()
    difference_vectors()
    decision_vectors()
    composition_vectors()
    observer_vectors()
    process_vectors()
    http_vectors()
    registration_vectors()
    # New vectors go last, so that earlier ids stay stable.
    kept_rule_vectors()
    matrix_vectors()
    observer_delivery_vectors()
    reverse_dns_classes()
    observer_failure_matrix_vectors()
    persistent_process_vectors()
    return write_or_check(OUT, "AHP-DH-", VECTORS, "draft harness vectors", "--check" in sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate the AHP 0.1 harness-role vectors (vectors/ahp/0.1/AHP-H-*.json).

Deterministic and stdlib-only, like generate.py (the backend-role
generator, which owns AHP-B-*; this one owns AHP-H-* in the same folder):

    python3 vectors/ahp/gen/harness.py            # write the vectors
    python3 vectors/ahp/gen/harness.py --check    # exit 1 if any differs

The kit plays the backends. A vector is a registration template whose
"{{backend:X}}" transports the kit expands to its scripted backends (a stdio
process running the kit's scripted backend, or a path of its loopback HTTP
server), the scripts of those backends, the tool calls the adapter makes the
harness perform, and what must be observed (ahp/adapter/ADAPTER.md,
schemas/ahp/harness-vector.schema.json).

Rules every vector follows (spec/ahp/0.1/DECISIONS.md):
- Every vector cites at least one requirement id; where 0.1 attaches none
  to the rule (13.2, 17.4, 10.3), the closest one (fact sheet 7.4).
- D-01 timing: a reply is late only when sent at least 2 x timeoutMs after
  the request arrived; a timely reply is sent at once; non-deadline vectors
  use timeoutMs >= 5000, deadline vectors >= 200; upper bounds are
  10 x timeoutMs + 5000 ms for each interceptor a call may ask, summed
  (d01_bound); orderings, never tight windows. A deadline under 5000 ms may
  run out before the request reaches the backend (14.4, D-01 rule 7): such a
  vector asserts `asked` / `not_asked` for the rest of the chain, never
  `calls` with that backend.
- A harness may retry while the deadline runs (15): every gating vector
  holds whether or not it does (D-18); scripted plans go by request count,
  so a retry takes the next plan.
- Gating vectors assert only what the 0.1 text requires; a SHOULD or a
  preferred reading is `advisory` with its decision id.
- Every failure class of 14.1 runs under fail-open (A fails, B is asked,
  the tool runs) and fail-closed (A fails, B is never asked, the tool does
  not run, the denial is synthetic), over stdio and over HTTP where the
  class exists for that binding.
"""

import json
import os
import sys
from vector_files import d01_bound, observe_missing, observer_plan, write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "0.1"))
SCHEMA = "../../../schemas/ahp/harness-vector.schema.json"
REVISION = "0.1.0-draft.1"

VECTORS = []

TOOL = {"name": "ctk_probe", "kind": "shell", "input": {"command": "echo ctk-probe"}}
DENY_REASON = "ctk scripted policy denies this call"
MALFORMED_CANARY = "CTK-MALFORMED-CANARY-7f3a"

# --- registration -----------------------------------------------------------


def icpt(policy, timeout=5000, native=None):
    s = {"events": ["tool.before"], "mode": "intercept", "timeoutMs": timeout, "failurePolicy": policy}
    if native is not None:
        s["includeNative"] = native
    return s


def obs(events, native=None):
    s = {"events": list(events), "mode": "observe"}
    if native is not None:
        s["includeNative"] = native
    return s


def hook(name, *subs, auth=None):
    h = {"id": "org.ctk.backend.%s" % name.lower(), "transport": "{{backend:%s}}" % name}
    if auth:
        h["authentication"] = {"type": "bearer", "tokenEnv": auth}
    h["subscriptions"] = list(subs)
    return h


def reg(*hooks):
    return {"protocolVersion": "0.1", "hooks": list(hooks)}


# --- scripts ------------------------------------------------------------------


def result(effects, version="0.1", **extra):
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


NO_EFFECT = [{"do": "reply"}]
DENY = [{"do": "reply", "result": result([deny_effect()])}]


def reply(res, **kw):
    a = {"do": "reply", "result": res}
    a.update(kw)
    return a


def script(*plans, observe=None):
    s = {}
    if plans:
        s["intercept"] = [list(p) for p in plans]
    if observe is not None:
        s["observe"] = [list(p) for p in observe]
    return s


def stdio(sc=None, lifecycle="persistent", **kw):
    b = {"binding": "stdio", "lifecycle": lifecycle, "script": sc if sc is not None else {}}
    b.update(kw)
    return b


def http(sc=None, **kw):
    b = {"binding": "http", "script": sc if sc is not None else {}}
    b.update(kw)
    return b


def backend(binding, sc, lifecycle="persistent", **kw):
    if binding == "http":
        return http(sc, **kw)
    return stdio(sc, lifecycle, **kw)


# --- triggers -------------------------------------------------------------------


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


def session(event):
    return {"session": event}


def shape_asserts(name):
    """The request-shape predicates of 8.1 and 11 on backend `name`."""
    return [
        {"backend": name, "method": "hooks/intercept", "ptr": "/id", "eq_ptr": "/params/event/id", "required": True},
        {"backend": name, "method": "hooks/intercept", "ptr": "/id", "type": "string"},
        {"backend": name, "method": "hooks/intercept", "ptr": "/params/capabilities/effects", "contains": "deny"},
        {"backend": name, "method": "hooks/intercept", "ptr": "/params/protocolVersion", "eq": "0.1"},
        {"backend": name, "method": "hooks/intercept", "ptr": "/params/event/type", "eq": "tool.before"},
        {"backend": name, "method": "hooks/intercept", "ptr": "/params/event/tool/input", "type": "object"},
        {"backend": name, "method": "hooks/intercept", "ptr": "/params/event/native", "present": False},
    ]


# --- the vector -------------------------------------------------------------------


def vector(title, requirements, covers, sections, registration, backends, triggers,
           binding, lifecycle="any", profiles=("base", "tool-interception"), advisory=None,
           failure_class=None, failure_policy=None, notes=None, expect=None, load_env=None,
           observer_failure=None):
    vid = "AHP-H-%04d" % (len(VECTORS) + 1)
    profs = list(profiles)
    for b in ("stdio", "http"):
        if (binding == b or any(x["binding"] == b for x in backends.values())) and b not in profs:
            if expect is None or expect.get("load") != "refused":
                profs.append(b)
    v = {
        "$schema": SCHEMA,
        "id": vid,
        "title": title,
        "ahp": REVISION,
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
    if notes:
        v["notes"] = notes
    v["registration"] = registration
    if load_env:
        v["load_env"] = load_env
    v["backends"] = backends
    v["triggers"] = triggers
    v["expect"] = expect or {}
    VECTORS.append(v)
    return v


# --- 1. every failure class under both policies -------------------------------------
#
# A class is (name, bindings, how backend A fails, extra covers, sections,
# notes). `fails(binding, policy)` returns A's backend spec and the timeout of
# its subscription. Under fail-open A's scripted output is, where a reading
# could mistake it for one, a DENY (a harness that applies it denies); under
# fail-closed it is a NO EFFECT (a harness that accepts it runs the tool).

DEADLINE_MS = 300


LATE_MS = 3 * DEADLINE_MS  # > 2 x timeoutMs (D-01)
BOUND_MS = d01_bound(DEADLINE_MS)
# A backend that "never answers" sleeps past every bound a vector asserts, so
# a harness that waits for it instead of enforcing the deadline fails the
# bound (D-01 rule 5) rather than getting an answer in time.
NEVER_MS = 120000
# An observer that sleeps: the outcome must come before its sleep ends, an
# ordering (D-01 rule 4: an observer that sleeps for at least 10 s).
OBSERVER_SLEEP_MS = 10000


def payload(policy, deny_factory=None):
    """What a fail-open A says (a deny) and what a fail-closed A says (nothing)."""
    if policy == "fail-open":
        return [deny_effect()] if deny_factory is None else deny_factory()
    return []


def rpc(binding, policy, res=None, **kw):
    return script([reply(res if res is not None else result(payload(policy)), **kw)])


def raw(text=None, hex_=None):
    a = {"do": "raw"}
    if text is not None:
        a["text"] = text
    if hex_ is not None:
        a["hex"] = hex_
    return a


def utf8_bad(policy):
    """An otherwise valid reply with the byte 0xFF inside a string: text,
    the byte, text (a deny under fail-open, no effect under fail-closed)."""
    if policy == "fail-open":
        head = '{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"0.1","effects":[{"type":"deny","reason":"bad byte '
        tail = '"}]}}'
    else:
        head = '{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"0.1","effects":[],"extensions":{"org.ctk.note":"bad byte '
        tail = '"}}}'
    return [raw(text=head), raw(hex_="ff"), raw(text=tail)]


def utf8_plan(policy):
    # One line written in three pieces: text, the byte, text (no newline
    # between them), so the harness reads one line holding 0xFF.
    head, byte, tail = utf8_bad(policy)
    head["newline"] = False
    byte["newline"] = False
    return [head, byte, tail]


def multiline(policy):
    body = json.dumps({"jsonrpc": "2.0", "id": "__ID__", "result": result(payload(policy))}, indent=2)
    return [raw(text=body.replace('"__ID__"', "{{id}}"))]


CLASSES = []


def klass(name, bindings, plan, covers=(), sections=(), notes=None, timeout=5000, extra=None, requirements=()):
    CLASSES.append({
        "name": name, "bindings": bindings, "plan": plan, "covers": list(covers),
        "sections": list(sections), "notes": notes, "timeout": timeout, "extra": extra or {},
        "requirements": list(requirements),
    })


BOTH = ("stdio", "http")
klass("deadline_exceeded", BOTH, lambda b, p: script([{"do": "sleep", "ms": NEVER_MS}]),
      covers=["ahp-14.4-b", "ahp-14.4-e"], sections=["14.4"], timeout=DEADLINE_MS,
      requirements=["AHP-FAIL-002"],
      notes="A never answers; the outcome comes within 10 x timeoutMs + 5000 ms for A, plus B's bound under fail-open (D-01). The deadline covers connection setup and transmission (14.4), so A's request need not arrive: fail-open asks B, fail-closed never asks B, in any order with A (D-01 rule 7).")
klass("late_reply", BOTH, lambda b, p: script([{"do": "sleep", "ms": LATE_MS}, reply(result(payload(p)))]),
      covers=["ahp-14.4-b", "ahp-14.4-e"], sections=["14.4"], timeout=DEADLINE_MS,
      requirements=["AHP-FAIL-002"],
      notes="A answers 3 x timeoutMs late (a deny under fail-open, no effect under fail-closed); the late reply is never applied and the outcome comes before it (D-01). The deadline covers connection setup and transmission (14.4), so A's request need not arrive: fail-open asks B, fail-closed never asks B, in any order with A (D-01 rule 7).")
klass("connection_lost", BOTH, lambda b, p: script([{"do": "close"}]),
      sections=["14.1"], notes="stdio: A closes its stdout; HTTP: the connection is dropped without a response.")
klass("unreachable", BOTH, lambda b, p: {"launch": "missing" if b == "stdio" else "refused"},
      sections=["14.1"], notes="stdio: the command does not exist (launch failure); HTTP: nothing listens (connection refused).")
klass("abnormal_exit", ("stdio",), lambda b, p: script([{"do": "exit", "code": 3}]),
      covers=["ahp-17.1-a"], sections=["14.1", "17.3"], notes="A exits with status 3 before answering.")
klass("malformed_json", BOTH, lambda b, p: script([raw(text='{"jsonrpc":"2.0","id":{{id}},"result":{"protocolVersion":"0.1","effects":[')]),
      covers=["ahp-6.1-h", "ahp-7.1-a"], sections=["14.1", "7.1"])
klass("malformed_utf8", BOTH, lambda b, p: script(utf8_plan(p)),
      covers=["ahp-6.1-h", "ahp-7.1-a"], sections=["14.1", "7.1"],
      notes="A reply that would be valid but holds the byte 0xFF inside a string: not UTF-8.")
klass("multi_line_frame", ("stdio",), lambda b, p: script(multiline(p)),
      covers=["ahp-17.1-a", "ahp-17.1-b", "ahp-6.1-h"], sections=["14.1", "17.1"],
      requirements=["AHP-STDIO-001"],
      notes="A pretty-prints its reply over several lines: no line is a JSON-RPC message.")
klass("wrong_id", BOTH, lambda b, p: rpc(b, p, id="ctk-some-other-id"),
      covers=["ahp-17.2-a", "ahp-6.1-h"], sections=["14.1", "17.2"],
      notes="The reply's id is not the request's (D-09); a harness that waits for the right id ends at the deadline, also a failure.")
klass("null_id", BOTH, lambda b, p: rpc(b, p, null_id=True),
      covers=["ahp-17.2-a", "ahp-6.1-h"], sections=["14.1", "17.2"], notes="The reply's id is null (D-09).")
for code in (-32001, -32002, -32003, -32004, -32603):
    klass("jsonrpc_error_%d" % -code, BOTH, lambda b, p, c=code: script([{"do": "error", "code": c, "message": "scripted error %d" % c}]),
          covers=["ahp-6.1-h"], sections=["14.1", "16"], notes="A answers with JSON-RPC error %d: every error is an operational failure (16)." % code)
klass("result_and_error", BOTH, lambda b, p: rpc(b, p, extra={"error": {"code": -32004, "message": "both"}}),
      covers=["ahp-6.1-h"], sections=["14.1", "7.1"], notes="The response holds both result and error: not JSON-RPC.")
klass("jsonrpc_version", BOTH, lambda b, p: rpc(b, p, extra={"jsonrpc": "1.0"}),
      covers=["ahp-6.1-h"], sections=["14.1", "7.1"], notes="The response says jsonrpc 1.0.")
klass("protocol_version_wrong", BOTH, lambda b, p: rpc(b, p, res=result(payload(p), version="0.2")),
      covers=["ahp-6.1-h", "ahp-6.1-b"], sections=["14.1", "7.2"], requirements=["AHP-VER-001"],
      notes="result.protocolVersion is 0.2.")
klass("protocol_version_missing", BOTH, lambda b, p: rpc(b, p, res=result(payload(p), version=None)),
      covers=["ahp-6.1-h", "ahp-6.1-b"], sections=["14.1", "7.2"], requirements=["AHP-VER-001"],
      notes="result has no protocolVersion.")
klass("effects_missing", BOTH, lambda b, p: rpc(b, p, res=result(None)),
      covers=["ahp-6.1-h", "ahp-12.3-a"], sections=["14.1", "12.1"], requirements=["AHP-DEC-001"],
      notes="result has no effects (a draft-line reading would take it as no effect; 0.1: missing required result field, D-32).")
klass("result_missing", BOTH, lambda b, p: script([raw(text='{"jsonrpc":"2.0","id":{{id}}}')]),
      covers=["ahp-6.1-h"], sections=["14.1"], notes="The response has neither result nor error.")
klass("effects_not_array", BOTH, lambda b, p: rpc(b, p, res={"protocolVersion": "0.1", "effects": deny_effect() if p == "fail-open" else {}}),
      covers=["ahp-6.1-h"], sections=["14.1", "12.1"], requirements=["AHP-DEC-001"], notes="effects is an object.")
klass("two_denies", BOTH, lambda b, p: rpc(b, p, res=result([deny_effect(), deny_effect("second")])),
      covers=["ahp-6.1-h", "ahp-11-d"], sections=["14.1", "12.1"], requirements=["AHP-DEC-001"],
      notes="Two denies: more than one effect is invalid in 0.1 (a draft-line reading accepts it).")
klass("unadvertised_allow", BOTH, lambda b, p: rpc(b, p, res=result([{"type": "allow"}])),
      covers=["ahp-11-d", "ahp-6.1-h", "ahp-12.3-a"], sections=["14.1", "11", "12.3"], requirements=["AHP-CAP-001", "AHP-SEC-001"],
      notes="An allow effect, which 0.1 does not define and the harness never advertised.")
klass("unadvertised_extension_effect", BOTH, lambda b, p: rpc(b, p, res=result([{"type": "com.example.ctk.unadvertised"}])),
      covers=["ahp-11-d", "ahp-6.1-h"], sections=["14.1", "11"], requirements=["AHP-CAP-001"],
      notes="A reverse-DNS effect the request did not advertise.")
klass("empty_reason", BOTH, lambda b, p: rpc(b, p, res=result([deny_effect("")])),
      covers=["ahp-6.1-h", "ahp-11-d"], sections=["14.1", "12.2"], requirements=["AHP-DEC-001"],
      notes='A deny with reason "": malformed in every reading (D-05).')
klass("deny_without_reason", BOTH, lambda b, p: rpc(b, p, res=result([{"type": "deny"}])),
      covers=["ahp-6.1-h"], sections=["14.1", "12.2"], requirements=["AHP-DEC-001"], notes="A deny without reason.")
klass("deny_code_not_reverse_dns", BOTH, lambda b, p: rpc(b, p, res=result([deny_effect(code="not reverse dns")])),
      covers=["ahp-6.1-h"], sections=["14.1", "12.2", "9.5"], requirements=["AHP-DEC-001", "AHP-EXT-001"],
      notes="A deny whose code is not a reverse-DNS name: a malformed effect.")
klass("http_500", ("http",), lambda b, p: {"script": script([{"do": "status", "code": 500}, reply(result(payload(p)))])},
      covers=["ahp-18.1-c"], sections=["14.1", "18.1"], requirements=["AHP-HTTP-001"],
      notes="Status 500 with a JSON-RPC body: any status but 200 is a failure, whatever the body says.")
klass("http_404", ("http",), lambda b, p: {"script": script([{"do": "status", "code": 404}, reply(result(payload(p)))])},
      covers=["ahp-18.1-c"], sections=["14.1", "18.1"], requirements=["AHP-HTTP-001"])
klass("http_401", ("http",), lambda b, p: {"script": script([{"do": "status", "code": 401}, reply(result(payload(p)))])},
      covers=["ahp-18.1-c"], sections=["14.1", "18.1", "18.3"], requirements=["AHP-HTTP-001"])
klass("http_redirect_302", ("http",), lambda b, p: {"script": script([{"do": "redirect", "to": "Z", "code": 302}])},
      covers=["ahp-18.1-e", "ahp-18.1-c"], sections=["14.1", "18.1"], requirements=["AHP-HTTP-001"],
      notes="A redirects to the kit's endpoint Z, which would answer (fail-open: deny; fail-closed: no effect); redirects are never followed, so Z receives nothing.",
      extra={"redirect": True})
klass("http_redirect_307", ("http",), lambda b, p: {"script": script([{"do": "redirect", "to": "Z", "code": 307}])},
      covers=["ahp-18.1-e", "ahp-18.1-c"], sections=["14.1", "18.1"], requirements=["AHP-HTTP-001"],
      notes="As 302, with 307 (which a client following redirects would re-POST).", extra={"redirect": True})


def failure_vectors(lifecycle="persistent", only=None):
    """Every class of CLASSES under both policies: over stdio `lifecycle`
    and HTTP, or (with `only`) over the bindings `only` names."""
    for c in CLASSES:
        for binding in c["bindings"]:
            if only is not None and (binding not in only or c["name"] in only[binding]):
                continue
            for policy in ("fail-open", "fail-closed"):
                a = c["plan"](binding, policy)
                if "launch" in a:
                    spec = backend(binding, {}, lifecycle, launch=a["launch"])
                elif "script" in a and binding == "http" and set(a) == {"script"}:
                    spec = http(a["script"])
                else:
                    spec = backend(binding, a, lifecycle)
                backends = {"A": spec, "B": backend(binding, {"intercept": [NO_EFFECT]}, lifecycle)}
                exp = {}
                if c["extra"].get("redirect"):
                    z = payload(policy)
                    backends["Z"] = http(script([reply(result(z))]))
                    exp["silent"] = ["Z"]
                deadline = c["timeout"] < 5000
                before = ["A"] if deadline else None
                # An unreachable A never receives the request.
                asked = [] if "launch" in a else ["A"]
                # A deadline vector's deadline covers connection setup and
                # transmission (14.4), so it may run out before the request
                # reaches A (D-01 rule 7): then only the order-free part of
                # the chain is asserted (asked / not_asked, as DD-05 does).
                if policy == "fail-open":
                    # A's failure, then B's exchange (D-01: both bounds).
                    max_ms = d01_bound(c["timeout"], 5000)
                    if deadline:
                        trig = call("executed", asked=["B"], max_ms=max_ms, before=before)
                    else:
                        trig = call("executed", calls=asked + ["B"], max_ms=max_ms, before=before)
                    covers = ["ahp-14.2-a", "ahp-13.1-a", "ahp-6.2-e", "ahp-22-h"]
                    verb = "the harness records it and asks B, and the tool runs"
                else:
                    max_ms = d01_bound(c["timeout"])
                    if deadline:
                        trig = call("denied", denial="synthetic", not_asked=["B"], max_ms=max_ms, before=before)
                    else:
                        trig = call("denied", denial="synthetic", calls=asked, max_ms=max_ms, before=before)
                    covers = ["ahp-14.2-a", "ahp-13.1-a", "ahp-6.2-e", "ahp-6.2-h", "ahp-14.3-c", "ahp-22-h"]
                    # An unadvertised effect that ends in a synthetic denial
                    # was not silently dropped (a dropped one would run the tool).
                    if c["name"].startswith("unadvertised_"):
                        covers.append("ahp-22-k")
                    verb = "the harness denies with a synthetic denial, B is never asked, and the tool does not run"
                if c["name"] in ("late_reply",) and policy == "fail-open":
                    verb += " (the late deny is ignored)"
                where = "stdio per_event" if binding == "stdio" and lifecycle == "per_event" else binding
                vector(
                    "%s, %s over %s: %s" % (c["name"].replace("_", " "), policy, where, verb),
                    ["AHP-FAIL-001", "AHP-COMP-001"] + c["requirements"],
                    covers + [x for x in c["covers"] if x not in covers],
                    ["13.1", "14.1", "14.2"] + [s for s in c["sections"] if s not in ("13.1", "14.1", "14.2")],
                    reg(hook("A", icpt(policy, c["timeout"])), hook("B", icpt("fail-closed"))),
                    backends,
                    [trig],
                    binding,
                    lifecycle=lifecycle if binding == "stdio" else "any",
                    failure_class=c["name"],
                    failure_policy=policy,
                    notes=c["notes"],
                    expect=exp,
                )


# per_event: the classes a process-per-event backend adds or changes.
def per_event_failure_vectors():
    cases = [
        ("malformed_json", script([raw(text="not json at all")]), ["ahp-6.1-h", "ahp-17.1-a"]),
        ("abnormal_exit", script([{"do": "exit", "code": 3}]), ["ahp-17.1-a"]),
        ("connection_lost", script([{"do": "close"}]), ["ahp-17.1-a"]),
        ("deadline_exceeded", script([{"do": "sleep", "ms": NEVER_MS}]), ["ahp-14.4-b", "ahp-14.4-e"]),
    ]
    for name, sc, extra in cases:
        for policy in ("fail-open", "fail-closed"):
            timeout = DEADLINE_MS if name == "deadline_exceeded" else 5000
            # A short deadline may run out while A's process is being
            # launched, before the request reaches it (14.4, D-01 rule 7):
            # then only the order-free part of the chain is asserted.
            short = timeout < 5000
            if policy == "fail-open" and short:
                trig = call("executed", asked=["B"], max_ms=d01_bound(timeout, 5000))
            elif policy == "fail-open":
                trig = call("executed", calls=["A", "B"], max_ms=d01_bound(timeout, 5000))
            elif short:
                trig = call("denied", denial="synthetic", not_asked=["B"], max_ms=d01_bound(timeout))
            else:
                trig = call("denied", denial="synthetic", calls=["A"], max_ms=d01_bound(timeout))
            vector(
                "%s, %s, stdio per_event: the failure policy applies" % (name.replace("_", " "), policy),
                ["AHP-FAIL-001", "AHP-COMP-001", "AHP-STDIO-001"],
                ["ahp-14.2-a", "ahp-13.1-a", "ahp-6.2-e", "ahp-22-h"] + extra,
                ["13.1", "14.1", "14.2", "17.3"],
                reg(hook("A", icpt(policy, timeout)), hook("B", icpt("fail-closed"))),
                {"A": stdio(sc, "per_event"), "B": stdio({"intercept": [NO_EFFECT]}, "per_event")},
                [trig],
                "stdio",
                lifecycle="per_event",
                failure_class=name,
                failure_policy=policy,
                notes="A never answers. The deadline covers connection setup (here A's process launch) and transmission (14.4), so A's request need not arrive: fail-open asks B, fail-closed never asks B (D-01 rule 7)." if short else None,
            )


# D-02: a per_event backend that answers and then exits nonzero.
def d02_vectors():
    exit3 = {"do": "exit", "code": 3}
    rows = [
        ("fail-closed", DENY[0], "denied", None, None, "a valid deny then exit 3, fail-closed: the tool does not run (every reading)"),
        ("fail-open", NO_EFFECT[0], "executed", None, None, "no effect then exit 3, fail-open: the tool runs (every reading)"),
        ("fail-open", DENY[0], "denied", None, "D-02", "a valid deny then exit 3, fail-open: the deny stands (D-02 reading c)"),
        ("fail-closed", NO_EFFECT[0], "denied", "synthetic", None, "no effect then exit 3, fail-closed: the nonzero exit is an operational failure (17.3), the tool does not run"),
    ]
    for policy, first, outcome, denial, adv, title in rows:
        vector(
            "per_event exit status: " + title,
            ["AHP-FAIL-001", "AHP-STDIO-001", "AHP-DEC-002"],
            ["ahp-12.2-e", "ahp-14.2-a", "ahp-6.2-h"],
            ["12.2", "14.1", "17.3"],
            reg(hook("A", icpt(policy))),
            {"A": stdio(script([first, exit3]), "per_event")},
            [call(outcome, denial=denial, calls=["A"], max_ms=d01_bound(5000))],
            "stdio",
            lifecycle="per_event",
            advisory=adv,
            failure_class="nonzero_exit_after_reply",
            failure_policy=policy,
        )


# A banner line before a valid reply (stdio; 17.1 forbids it). Whether the
# harness then takes the next line as the reply is not settled by the text,
# so only the combinations every reading agrees on are asserted.
def banner_vectors(lifecycle="persistent"):
    banner = raw(text="ctk-scripted-backend v0 ready")
    where = "stdio" if lifecycle == "persistent" else "stdio per_event"
    sections = ["14.1", "17.1"] if lifecycle == "persistent" else ["14.1", "17.1", "17.3"]
    for policy, plan, outcome in (("fail-closed", DENY, "denied"), ("fail-open", NO_EFFECT, "executed")):
        vector(
            "banner line, %s over %s: a banner then a valid %s; the tool %s (every reading)" % (
                policy, where, "deny" if outcome == "denied" else "no-effect reply", "does not run" if outcome == "denied" else "runs"),
            ["AHP-FAIL-001", "AHP-STDIO-001"], ["ahp-14.2-a", "ahp-6.1-h", "ahp-17.1-a"], sections,
            reg(hook("A", icpt(policy))),
            {"A": stdio(script([banner] + plan), lifecycle)},
            [call(outcome, calls=["A"], max_ms=d01_bound(5000))],
            "stdio", lifecycle=lifecycle, failure_class="banner_line", failure_policy=policy,
        )


# Content type of an HTTP reply (D-20).
def content_type_vectors():
    text_plain = {"do": "content_type", "value": "text/plain"}
    vector(
        "HTTP fail-closed: a deny served as text/plain leaves the tool unrun (either reading)",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.1-a", "ahp-14.2-a"], ["14.1", "18.1"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": http(script([text_plain] + DENY))},
        [call("denied", calls=["A"], max_ms=d01_bound(5000))],
        "http", failure_class="wrong_content_type", failure_policy="fail-closed",
    )
    vector(
        "HTTP fail-closed: a no-effect reply served as text/plain is a failure (D-20), the tool does not run",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.1-a", "ahp-14.2-a"], ["14.1", "18.1"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": http(script([text_plain] + NO_EFFECT))},
        [call("denied", denial="synthetic", calls=["A"], max_ms=d01_bound(5000))],
        "http", advisory="D-20", failure_class="wrong_content_type", failure_policy="fail-closed",
    )
    vector(
        "HTTP fail-open: a deny served as text/plain is a failure (D-20), B is asked and the tool runs",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.1-a", "ahp-14.2-a"], ["14.1", "18.1"],
        reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-closed"))),
        {"A": http(script([text_plain] + DENY)), "B": http({})},
        [call("executed", calls=["A", "B"], max_ms=d01_bound(5000, 5000))],
        "http", advisory="D-20", failure_class="wrong_content_type", failure_policy="fail-open",
    )
    vector(
        "HTTP: a reply with Content-Type application/json; charset=utf-8 is accepted (D-20)",
        ["AHP-HTTP-001"], ["ahp-18.1-a"], ["18.1"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": http(script([{"do": "content_type", "value": "application/json; charset=utf-8"}] + DENY))},
        [call("denied", denial="explicit", calls=["A"])],
        "http", advisory="D-20",
    )


# --- 2. decisions ---------------------------------------------------------------------


def decision_vectors():
    for binding, lifecycle in (("stdio", "persistent"), ("stdio", "per_event"), ("http", "any")):
        lc = lifecycle if binding == "stdio" else "persistent"
        where = binding if binding == "http" else "stdio %s" % lifecycle
        exp = {"request_assert": shape_asserts("A")}
        if binding == "stdio" and lifecycle == "per_event":
            exp["per_event_one_frame"] = ["A"]
        vector(
            "No effect over %s: the request is a valid tool.before intercept (id = event.id, deny advertised, no native) and the tool runs" % where,
            ["AHP-RPC-001", "AHP-RPC-002", "AHP-TB-001", "AHP-CAP-001", "AHP-DEC-003"],
            ["ahp-6.2-c", "ahp-6.2-d", "ahp-8.1-a", "ahp-11-a", "ahp-11-b", "ahp-9.4-a", "ahp-7.2-a", "ahp-9.3-d", "ahp-6.2-i",
             # The engine validates every hooks/intercept against the 0.1
             # intercept-request schema (9.1, 9.2, 9.3 members, objects not
             # strings, reverse-DNS extension keys and effect names, one JSON
             # object per message) and checks tool.name and tool.kind against
             # what the harness was given and that native is absent.
             "ahp-9.1-a", "ahp-9.1-b", "ahp-9.1-c", "ahp-9.1-d", "ahp-9.1-e", "ahp-9.2-a",
             "ahp-9.3-a", "ahp-9.3-b", "ahp-9.3-c", "ahp-7.4-a", "ahp-7.1-b", "ahp-9.5-a", "ahp-11-f",
             "ahp-20.1-c", "ahp-22-b", "ahp-22-c", "ahp-22-d"],
            ["6.2", "8.1", "9.4", "11", "12.3"],
            reg(hook("A", icpt("fail-closed"))),
            {"A": backend(binding, {"intercept": [NO_EFFECT]}, lc)},
            [call("executed", calls=["A"])],
            binding, lifecycle=lifecycle if binding == "stdio" else "any", expect=exp,
        )
        vector(
            "A deny over %s stops the tool and is reported as an explicit (not synthetic) denial" % where,
            ["AHP-DEC-002", "AHP-FAIL-001"],
            ["ahp-6.2-h", "ahp-10.1-d", "ahp-14.3-c", "ahp-6.2-b", "ahp-22-g"],
            ["10.1", "12.2", "14.3"],
            reg(hook("A", icpt("fail-closed"))),
            {"A": backend(binding, {"intercept": [DENY]}, lc)},
            [call("denied", denial="explicit", calls=["A"])],
            binding, lifecycle=lifecycle if binding == "stdio" else "any",
            expect={"per_event_one_frame": ["A"]} if lifecycle == "per_event" else None,
        )
    for binding in BOTH:
        vector(
            "A valid deny denies under fail-open too (%s): a deny is a decision, not a failure" % binding,
            ["AHP-DEC-002", "AHP-FAIL-001"], ["ahp-12.2-e", "ahp-6.2-h"], ["12.2", "14.1"],
            reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-open"))),
            {"A": backend(binding, {"intercept": [DENY]}), "B": backend(binding, {})},
            [call("denied", denial="explicit", calls=["A"])], binding,
        )
        vector(
            "A deny with a reverse-DNS code and effect extensions denies (%s)" % binding,
            ["AHP-DEC-002", "AHP-EXT-001"], ["ahp-6.2-h", "ahp-9.5-b"], ["12.2", "9.5"],
            reg(hook("A", icpt("fail-closed"))),
            {"A": backend(binding, script([reply(result([deny_effect(code="org.ctk.policy.no_probe", ext={"org.ctk.policy": {"rule": 7}})]))]))},
            [call("denied", denial="explicit", calls=["A"])], binding,
        )
        vector(
            "Unknown members in a deny, its result and the response are ignored: the deny still denies (%s, D-32)" % binding,
            ["AHP-DEC-002", "AHP-CORE-003"], ["ahp-7.3-a", "ahp-6.2-h"], ["7.3", "12.2"],
            reg(hook("A", icpt("fail-open"))),
            {"A": backend(binding, script([reply(result([deny_effect(ctkExtra=True)], ctkExtra={"x": 1}), extra={"ctkExtra": [1, 2]})]))},
            [call("denied", denial="explicit", calls=["A"])], binding,
        )
        vector(
            "Unknown members in a no-effect result are ignored: the chain goes on and the tool runs (%s, D-32)" % binding,
            ["AHP-CORE-003", "AHP-COMP-001"], ["ahp-7.3-a", "ahp-13.1-a"], ["7.3", "13.1"],
            reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed"))),
            {"A": backend(binding, script([reply(result([], ctkExtra={"x": 1}), extra={"ctkExtra": "y"})])), "B": backend(binding, {})},
            [call("executed", calls=["A", "B"])], binding,
        )
    vector(
        "A whitespace-only reason under fail-closed: the tool does not run (valid deny or failure, either way; D-05)",
        ["AHP-DEC-002", "AHP-FAIL-001"], ["ahp-6.2-h", "ahp-14.2-a"], ["12.2", "14.1"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script([reply(result([deny_effect("   ")]))]))},
        [call("denied", calls=["A"])], "stdio", lifecycle="persistent",
    )
    vector(
        "A whitespace-only reason under fail-open is a valid (unhelpful) deny: the tool does not run (D-05)",
        ["AHP-DEC-002"], ["ahp-12.2-e"], ["12.2"],
        reg(hook("A", icpt("fail-open"))),
        {"A": stdio(script([reply(result([deny_effect("   ")]))]))},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="persistent", advisory="D-05",
    )


# --- 3. composition --------------------------------------------------------------------


def composition_vectors():
    for binding in BOTH:
        vector(
            "Three no-effect interceptors over %s are asked one after another in registration order, and the tool runs" % binding,
            ["AHP-COMP-001"], ["ahp-13.1-a", "ahp-13.1-b", "ahp-6.2-f", "ahp-12.3-a"], ["13.1", "12.3"],
            reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed")), hook("C", icpt("fail-closed"))),
            {n: backend(binding, {}) for n in "ABC"},
            [call("executed", calls=["A", "B", "C"])], binding,
        )
        vector(
            "An explicit deny short-circuits the chain over %s: A (no effect) then B (deny); C is never asked" % binding,
            ["AHP-COMP-001", "AHP-DEC-002", "AHP-DEC-003"], ["ahp-13.1-a", "ahp-12.3-a", "ahp-6.2-h"], ["13.1", "12.3"],
            reg(hook("A", icpt("fail-open")), hook("B", icpt("fail-open")), hook("C", icpt("fail-closed"))),
            {"A": backend(binding, {}), "B": backend(binding, {"intercept": [DENY]}), "C": backend(binding, {})},
            [call("denied", denial="explicit", calls=["A", "B"])], binding, expect={"silent": ["C"]},
        )
        vector(
            "Interceptors never overlap over %s: A takes a second to answer (deadline 10 s); B is asked only after A answered" % binding,
            ["AHP-COMP-001"], ["ahp-13.1-b", "ahp-13.1-a"], ["13.1", "17.2"],
            reg(hook("A", icpt("fail-open", 10000)), hook("B", icpt("fail-closed"))),
            {"A": backend(binding, script([{"do": "sleep", "ms": 1000}, {"do": "reply"}])), "B": backend(binding, {})},
            [call("executed", calls=["A", "B"])], binding,
            notes="A's reply is neither judged timely nor late (D-01): under fail-open either way B is next. The kit fails any request to B that arrives before A answered or A's deadline passed (D-17).",
        )
        vector(
            "Empty effects grant nothing (%s): with the host set to prompt, a no-effect chain still ends in the host's prompt" % binding,
            ["AHP-DEC-003", "AHP-SEC-001"], ["ahp-12.3-a", "ahp-10.1-c", "ahp-6.2-i"], ["12.3", "10.1", "6.2"],
            reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed"))),
            {"A": backend(binding, {}), "B": backend(binding, {})},
            [call("prompted", calls=["A", "B"], perm="prompt")], binding,
        )
    vector(
        "A mixed chain (stdio, HTTP, stdio per_event) runs in registration order",
        ["AHP-COMP-001"], ["ahp-13.1-a", "ahp-13.1-b"], ["13.1"],
        reg(hook("A", icpt("fail-closed")), hook("B", icpt("fail-closed")), hook("C", icpt("fail-closed"))),
        {"A": stdio({}), "B": http({}), "C": stdio({}, "per_event")},
        [call("executed", calls=["A", "B", "C"])], "any",
    )
    vector(
        "No intercept subscription covers tool.before: no hooks/intercept is sent and the tool runs",
        ["AHP-COMP-001", "AHP-SEC-001"], ["ahp-6.2-c"], ["6.2", "13.1"],
        reg(hook("A", obs(["session.start"]))),
        {"A": stdio({})},
        [call("executed", calls=[])], "stdio", lifecycle="persistent",
        profiles=LO,
    )
    for binding in BOTH:
        vector(
            "An observe-only subscription on tool.before (%s) adds no decision step: nothing it writes back, and no %d s delay, changes the tool's outcome (D-11)" % (binding, OBSERVER_SLEEP_MS // 1000),
            ["AHP-COMP-001"], ["ahp-6.2-c", "ahp-13.2-a", "ahp-8.4-a"], ["6.2", "13.2", "8.4"],
            reg(hook("A", obs(["tool.before"]))),
            {"A": backend(binding, script(observe=[[raw(text='{"jsonrpc":"2.0","id":{{prev_id}},"result":{"protocolVersion":"0.1","effects":[{"type":"deny","reason":"observer says no"}]}}'), {"do": "sleep", "ms": OBSERVER_SLEEP_MS}]]))},
            [call("executed", calls=[], max_ms=d01_bound(), before=["A"])], binding,
            profiles=("base", "tool-interception", "lifecycle-observation"),
            expect={"request_assert": [{"backend": "A", "ptr": "/method", "eq": "hooks/observe"}]},
        )
    # Plans go by request count (ahp/adapter/ADAPTER.md), so a retry of a call
    # takes the next plan. A harness MAY retry while the deadline is active
    # (15, D-18): the third plan answers any attempt after call 2's first
    # (a retry of call 2, or call 2 after a retried call 1) with no effect,
    # and call 1 may end denied by its retry, which took plan 2's deny with
    # its own id. Neither call asserts that A got the request: the 300 ms
    # deadline may run out before it arrives (14.4, D-01 rule 7).
    vector(
        "A late reply carrying an earlier request's id is not applied to the current request (persistent stdio, D-17)",
        ["AHP-COMP-001", "AHP-FAIL-002"], ["ahp-17.2-a", "ahp-14.4-e"], ["14.4", "17.2"],
        reg(hook("A", icpt("fail-open", DEADLINE_MS))),
        {"A": stdio(script(
            [{"do": "sleep", "ms": 60000}],
            [raw(text='{"jsonrpc":"2.0","id":{{prev_id}},"result":{"protocolVersion":"0.1","effects":[{"type":"deny","reason":"stale"}]}}'), {"do": "reply"}],
            NO_EFFECT,
        ))},
        # No `denial` on call 1: the loader allows it only with outcome [denied].
        [call(["executed", "denied"], max_ms=BOUND_MS), call("executed", max_ms=BOUND_MS)],
        "stdio", lifecycle="persistent",
        notes="Call 1 times out (fail-open, the tool runs). For call 2, A first writes a deny with call 1's id, then no effect with call 2's id: matched by id, call 2 runs; a harness that takes the stale line for a mismatched-id failure runs it too (fail-open). A harness may retry call 1 while its deadline is active (15): the retry takes the second plan, whose deny carries call 1's own id, so call 1 may also end denied; any later attempt gets no effect (third plan). Whether A's requests arrive at all is not asserted (the deadline covers connection setup, 14.4, D-01 rule 7).",
    )
    vector(
        "Two tool calls get distinct event ids, and each is one request per backend",
        ["AHP-RPC-002", "AHP-CORE-004"], ["ahp-9.1-h", "ahp-6.1-g"], ["9.1", "15"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({})},
        [call("executed", calls=["A"]), call("executed", calls=["A"], tool={"name": "read_notes", "kind": "file_read", "input": {"path": "README.md"}})],
        "stdio", lifecycle="persistent",
    )
    vector(
        "timeoutMs 1000000000 with an immediate deny: the document is refused, or the deny denies (never an overflowed timer, D-10)",
        ["AHP-FAIL-002"], ["ahp-14.4-a", "ahp-14.4-b"], ["14.4"],
        reg(hook("A", icpt("fail-open", 1000000000))),
        {"A": stdio({"intercept": [DENY]})},
        [call("denied", denial="explicit", calls=["A"])], "stdio", lifecycle="persistent",
        expect={"load": "either"},
    )
    vector(
        "timeoutMs 100 and 30000 load and work (D-10, the supported range)",
        ["AHP-FAIL-002"], ["ahp-14.4-c"], ["14.4"],
        reg(hook("A", icpt("fail-closed", 100)), hook("B", icpt("fail-closed", 30000))),
        {"A": stdio({}), "B": stdio({"intercept": [DENY]})},
        [call("denied", denial="explicit", calls=["A", "B"])], "stdio", lifecycle="persistent", advisory="D-10",
    )
    vector(
        "includeNative true: the request stays a valid tool.before (native, when present, is provider/eventName/payload)",
        ["AHP-TB-001"], ["ahp-9.1-f", "ahp-6.2-c"], ["9.4"],
        reg(hook("A", icpt("fail-closed", native=True))),
        {"A": stdio({})},
        [call("executed", calls=["A"])], "stdio", lifecycle="persistent",
    )


# --- 4. observers -------------------------------------------------------------------------

LO = ("base", "tool-interception", "lifecycle-observation")


def observer_vectors():
    for binding, lifecycle in (("stdio", "persistent"), ("stdio", "per_event"), ("http", "any")):
        lc = lifecycle if binding == "stdio" else "persistent"
        # Which events a Lifecycle Observation harness emits is its claim's
        # business (6.3) and delivery is best effort: the shape of what does
        # arrive is judged, not whether tool.before is among it.
        exp = {
            "request_assert": [
                {"backend": "O", "method": "hooks/observe", "ptr": "/id", "present": False},
                {"backend": "O", "method": "hooks/observe", "ptr": "/params/protocolVersion", "eq": "0.1"},
                {"backend": "O", "method": "hooks/observe", "ptr": "/params/event/native", "present": False},
            ],
        }
        if lifecycle == "per_event":
            exp["per_event_one_frame"] = ["O"]
        vector(
            "An observer of tool.before over %s gets hooks/observe notifications with no id, protocolVersion 0.1 and no native" % (binding if binding == "http" else "stdio " + lifecycle),
            ["AHP-RPC-001", "AHP-VER-001"], ["ahp-8.4-a", "ahp-7.2-a", "ahp-7.1-c", "ahp-9.4-a", "ahp-9.3-f", "ahp-10.2-a"], ["8.4", "7.2", "13.2"],
            reg(hook("A", icpt("fail-closed")), hook("O", obs(["tool.before", "tool.after"]))),
            {"A": backend(binding, {}, lc), "O": backend(binding, {}, lc)},
            [call("executed", calls=["A"])], binding, lifecycle=lifecycle if binding == "stdio" else "any",
            profiles=LO, expect=exp,
        )
    for binding in BOTH:
        vector(
            "An observer that takes %d s per notification (%s) delays neither the chain nor the tool" % (OBSERVER_SLEEP_MS // 1000, binding),
            ["AHP-RPC-002"], ["ahp-13.2-a", "ahp-13.2-b"], ["13.2"],
            reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed"))),
            {"O": backend(binding, script(observe=[[{"do": "sleep", "ms": OBSERVER_SLEEP_MS}]])), "A": backend(binding, {})},
            [call("executed", calls=["A"], max_ms=d01_bound(5000), before=["O"])], binding, profiles=LO,
            observer_failure="stalls",
        )
    failing = [
        ("stdio", "exits with status 3", script(observe=[[{"do": "exit", "code": 3}]]), "abnormal_exit"),
        ("stdio", "writes garbage and a reply-shaped line", script(observe=[[raw(text="garbage " + MALFORMED_CANARY), raw(text='{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}')]]), "malformed_json"),
        ("stdio", "closes its stdout", script(observe=[[{"do": "close"}]]), "connection_lost"),
        ("http", "answers 500", script(observe=[[{"do": "status", "code": 500}]]), "http_500"),
        ("http", "answers 200 with a JSON-RPC error body", script(observe=[[{"do": "status", "code": 200}, {"do": "error", "code": -32603}]]), "jsonrpc_error_32603"),
        # 204 accepts a notification (18.1): no failure, so no matrix row.
        ("http", "answers 204", script(observe=[[{"do": "status", "code": 204}]]), None),
        ("http", "drops the connection", script(observe=[[{"do": "close"}]]), "connection_lost"),
    ]
    for binding, what, sc, klass_ in failing:
        for decision, outcome, denial in (("no effect", "executed", None), ("deny", "denied", "explicit")):
            vector(
                "An observer that %s changes nothing (%s): the interceptor's %s decides" % (what, binding, decision),
                ["AHP-RPC-002"], ["ahp-13.2-a"], ["13.2", "14.2", "18.1"],
                reg(hook("O", obs(["tool.before", "tool.after", "tool.error"])), hook("A", icpt("fail-closed"))),
                {"O": backend(binding, sc), "A": backend(binding, {"intercept": [DENY]} if decision == "deny" else {})},
                [call(outcome, denial=denial, calls=["A"])], binding, profiles=LO, observer_failure=klass_,
                notes="D-03: whatever status the kit answers a notification with, tool execution is unaffected.",
            )
    vector(
        "A per_event observer that exits 3 changes nothing (its status may be logged only, 17.3)",
        ["AHP-RPC-002"], ["ahp-13.2-a"], ["13.2", "17.3"],
        reg(hook("O", obs(["tool.before", "tool.after"])), hook("A", icpt("fail-closed"))),
        {"O": stdio(script(observe=[[{"do": "exit", "code": 3}]]), "per_event"), "A": stdio({}, "per_event")},
        [call("executed", calls=["A"])], "stdio", lifecycle="per_event", profiles=LO,
        observer_failure="abnormal_exit",
    )
    for binding in BOTH:
        vector(
            "A call an interceptor denied (explicitly or fail-closed) produces no tool.error (%s, D-30)" % binding,
            ["AHP-DEC-002"], ["ahp-10.3-a"], ["10.3"],
            reg(hook("O", obs(["tool.error", "tool.after"])), hook("A", icpt("fail-closed")), ),
            {"O": backend(binding, {}), "A": backend(binding, {"intercept": [DENY, [{"do": "error", "code": -32003}]]})},
            [call("denied", denial="explicit", calls=["A"]), call("denied", denial="synthetic", calls=["A"])],
            binding, profiles=LO,
        )
    vector(
        "Session events, when the harness emits them, reach an observer as notifications without an id",
        ["AHP-RPC-002", "AHP-VER-001"], ["ahp-8.4-a", "ahp-6.3-b"], ["8.4", "10.4", "10.5"],
        reg(hook("O", obs(["session.start", "session.end"]))),
        {"O": stdio({})},
        [session("session.start"), call("executed", calls=[]), session("session.end")],
        "stdio", lifecycle="persistent", profiles=LO,
        expect={"request_assert": [{"backend": "O", "method": "hooks/observe", "ptr": "/id", "present": False}]},
    )
    vector(
        "session.start is the first message an observer subscribed to everything receives (D-27)",
        ["AHP-RPC-002"], ["ahp-10.4-a"], ["10.4"],
        reg(hook("O", obs(["session.start", "tool.before", "tool.after", "session.end"]))),
        {"O": stdio({})},
        [session("session.start"), call("executed", calls=[]), session("session.end")],
        "stdio", lifecycle="persistent", profiles=LO, advisory="D-27",
        expect={"observed": {"O": ["session.start"]}, "request_assert": [{"backend": "O", "method": "hooks/observe", "ptr": "/params/event/type", "present": True}]},
        notes="The kit checks that session.start is delivered; the ordering itself is in the record for review.",
    )


# --- 5. stdio process -----------------------------------------------------------------------

META_ARGS = ["$HOME", "a;b", "*", "'quoted'", "two words", "`id`", "|", "&&", "$(echo x)", ">out"]


def process_vectors():
    for lifecycle in ("persistent", "per_event"):
        vector(
            "stdio %s: arguments with shell metacharacters reach the backend verbatim (no shell) and cwd is honoured" % lifecycle,
            ["AHP-STDIO-001"], ["ahp-17.4-a"], ["17.4", "19.4"],
            reg(hook("A", icpt("fail-closed"))),
            {"A": stdio({}, lifecycle, args=META_ARGS, cwd=True)},
            [call("executed", calls=["A"])], "stdio", lifecycle=lifecycle,
            expect={"args_verbatim": ["A"], "cwd_honoured": ["A"]},
        )
    vector(
        "stdio per_event: every process gets exactly one message and then end of file (two calls, two processes)",
        ["AHP-STDIO-001"], ["ahp-17.1-a"], ["17.3"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({}, "per_event")},
        [call("executed", calls=["A"]), call("executed", calls=["A"])], "stdio", lifecycle="per_event",
        expect={"per_event_one_frame": ["A"]},
    )
    vector(
        "A stdio backend does not inherit an unrelated credential from the harness's environment (smallest practical environment, D-31)",
        ["AHP-SEC-001"], ["ahp-17.4-b"], ["17.4"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({})},
        [call("executed", calls=["A"])], "stdio", lifecycle="persistent", advisory="D-31",
        expect={"env_absent": {"A": ["{{env_canary}}"]}},
    )
    vector(
        "The value of a credential in the harness's environment appears in no event payload (D-31)",
        ["AHP-SEC-001"], ["ahp-17.4-c"], ["17.4"],
        reg(hook("A", icpt("fail-closed")), hook("O", obs(["tool.before", "tool.after"]))),
        {"A": stdio({}), "O": stdio({})},
        [call("executed", calls=["A"])], "stdio", lifecycle="persistent", advisory="D-31",
        expect={"env_canary_absent": True},
    )
    vector(
        "A synthetic denial does not repeat the malformed backend output (generic local reason, 14.3; D-31)",
        ["AHP-FAIL-001"], ["ahp-14.3-b", "ahp-14.3-a"], ["14.3"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio(script([raw(text="panic: " + MALFORMED_CANARY + " at /srv/policy.rs:42")]))},
        [call("denied", denial="synthetic", calls=["A"], excludes=[MALFORMED_CANARY])],
        "stdio", lifecycle="persistent", advisory="D-31",
    )


# --- 6. HTTP ------------------------------------------------------------------------------------


def http_vectors():
    vector(
        "HTTP: every request is a POST of one JSON object with Content-Type application/json and Authorization: Bearer <token from tokenEnv>; the token is in no payload",
        ["AHP-HTTP-001", "AHP-SEC-001"], ["ahp-18.1-a", "ahp-18.1-b", "ahp-18.3-a", "ahp-17.4-c", "ahp-9.1-j"], ["18.1", "18.3"],
        reg(hook("A", icpt("fail-closed"), obs(["tool.before", "tool.after"]), auth="CTK_AHP_BEARER")),
        {"A": http({}, bearer=True)},
        [call("executed", calls=["A"])], "http",
        load_env={"CTK_AHP_BEARER": "{{canary}}"},
        expect={"request_assert": [
            # HTTP auth schemes are case-insensitive (RFC 9110 §11.1): `bearer` passes too (issue 26).
            {"backend": "A", "header": "authorization", "bearer": "{{canary}}", "required": True},
            {"backend": "A", "header": "content-type", "present": True},
        ] + shape_asserts("A")},
    )
    vector(
        "HTTP fail-closed: a bearer backend that answers 401 is a failure; the synthetic reason does not hold the token",
        ["AHP-HTTP-001", "AHP-FAIL-001"], ["ahp-18.3-a", "ahp-14.2-a", "ahp-18.1-c"], ["18.1", "18.3", "14.3"],
        reg(hook("A", icpt("fail-closed"), auth="CTK_AHP_BEARER")),
        {"A": http(script([{"do": "status", "code": 401}, {"do": "error", "code": -32003, "message": "token {{id}}"}]), bearer=True)},
        [call("denied", denial="synthetic", calls=["A"], excludes=["{{canary}}"])], "http",
        load_env={"CTK_AHP_BEARER": "{{canary}}"},
    )
    vector(
        "HTTP fail-closed, tokenEnv not set: the document is refused, or the interceptor fails and the tool does not run (D-23)",
        ["AHP-FAIL-001"], ["ahp-14.2-a", "ahp-18.3-a"], ["18.3", "14.2"],
        reg(hook("A", icpt("fail-closed"), auth="CTK_AHP_UNSET_TOKEN")),
        {"A": http({"intercept": [NO_EFFECT]}, bearer=True)},
        [call("denied")], "http",
        expect={"load": "either"},
    )
    vector(
        "HTTP fail-open, tokenEnv not set: the document loads, the tool runs and the backend gets no unauthenticated request (D-23)",
        ["AHP-FAIL-001"], ["ahp-14.2-a", "ahp-18.3-a"], ["18.3", "14.2"],
        reg(hook("A", icpt("fail-open"), auth="CTK_AHP_UNSET_TOKEN")),
        {"A": http({"intercept": [DENY]}, bearer=True)},
        [call("executed")], "http", advisory="D-23",
        expect={"silent": ["A"]},
    )


# --- 7. registration validation ------------------------------------------------------------------


def refused(title, registration, covers=("ahp-6.1-e", "ahp-6.1-f"), requirements=("AHP-REG-001",), sections=("6.1", "19"), advisory=None, names=("A",)):
    vector(
        "Registration refused at load: " + title,
        list(requirements), list(covers), list(sections),
        registration,
        {n: stdio({}) for n in names},
        [call("executed")], "any", profiles=("base", "tool-interception"),
        advisory=advisory, expect={"load": "refused", "silent": list(names)},
    )


def registration_vectors():
    good = icpt("fail-closed")
    a = lambda *subs: hook("A", *subs)
    refused("two intercept subscriptions for tool.before on one backend (13.3, D-06)", reg(a(good, icpt("fail-open"))),
            covers=("ahp-13.3-b", "ahp-6.1-f"), sections=("13.3", "6.1"))
    refused("two identical observe subscriptions on one backend (13.3, D-06)", reg(a(good, obs(["tool.after"]), obs(["tool.after"]))),
            covers=("ahp-13.3-b", "ahp-6.1-f"), sections=("13.3", "6.1"))
    refused("overlapping observe subscriptions on one backend (D-06 reading a)", reg(a(good, obs(["tool.after"]), obs(["tool.after", "tool.error"]))),
            covers=("ahp-13.3-b",), sections=("13.3",), advisory="D-06")
    dup = reg(a(good), hook("B", good))
    dup["hooks"][1]["id"] = dup["hooks"][0]["id"]
    refused("two backends share an id (R12)", dup, names=("A", "B"), covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.2-a"))
    refused("an observe subscription with timeoutMs and failurePolicy (14.2, 19.3)", reg(a(good, dict(obs(["tool.after"]), timeoutMs=100, failurePolicy="fail-open"))),
            covers=("ahp-6.1-f", "ahp-14.2-b", "ahp-19.3-e"), requirements=("AHP-REG-001", "AHP-FAIL-001"))
    refused("an intercept subscription on tool.after (19.3)", reg(a(dict(good, events=["tool.after"]))), covers=("ahp-6.1-f", "ahp-19.3-d"))
    refused("an intercept subscription naming two events (19.3)", reg(a(dict(good, events=["tool.before", "tool.after"]))), covers=("ahp-6.1-f", "ahp-19.3-d"))
    for bad in (0, -1, 1.5, "500"):
        refused("timeoutMs %s (14.4, D-10)" % json.dumps(bad), reg(a(dict(good, timeoutMs=bad))),
                covers=("ahp-6.1-f", "ahp-14.4-a"), requirements=("AHP-REG-001", "AHP-FAIL-002"))
    nopol = dict(good)
    del nopol["failurePolicy"]
    refused("an intercept subscription without failurePolicy (no default, 14.2)", reg(a(nopol)),
            covers=("ahp-6.1-f", "ahp-14.2-a"), requirements=("AHP-REG-001", "AHP-FAIL-001"))
    refused('failurePolicy "fail-soft" (14.2)', reg(a(dict(good, failurePolicy="fail-soft"))),
            covers=("ahp-6.1-f", "ahp-14.2-a"), requirements=("AHP-REG-001", "AHP-FAIL-001"))
    notimeout = dict(good)
    del notimeout["timeoutMs"]
    refused("an intercept subscription without timeoutMs (14.4)", reg(a(notimeout)),
            covers=("ahp-6.1-f", "ahp-14.4-a"), requirements=("AHP-REG-001", "AHP-FAIL-002"))
    r = reg(a(good))
    r["protocolVersion"] = "0.2"
    refused('protocolVersion "0.2" (19.1)', r, covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.1-a"))
    refused("an empty hooks array (19.1)", {"protocolVersion": "0.1", "hooks": []}, names=(), covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.1-a"))
    r = reg(a(good))
    r["hooks"][0]["id"] = "policy"
    refused('a backend id that is not reverse-DNS ("policy", 19.2)', r, covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.2-a"))
    r = reg(a(good))
    r["hooks"][0]["authentication"] = {"type": "bearer", "tokenEnv": "CTK_AHP_BEARER"}
    refused("bearer authentication on a stdio backend (19.2)", r)
    r = reg(a(good))
    r["hooks"][0]["subscriptions"] = []
    refused("a backend with no subscriptions (19.2)", r, covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.2-c"))
    r = reg(a(good, dict(obs(["tool.after"]), mode="watch")))
    refused('a subscription with mode "watch" (19.3)', r, covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.3-b"))
    r = reg(a(good, obs(["turn.start"])))
    refused("an observe subscription naming an event 0.1 does not define (turn.start, 19.3)", r, covers=("ahp-6.1-e", "ahp-6.1-f", "ahp-19.3-a"))
    vector(
        "Registration refused at load: an HTTP backend with a literal token next to tokenEnv (18.3, R7)",
        ["AHP-REG-001", "AHP-SEC-001"], ["ahp-6.1-f", "ahp-18.3-a"], ["18.3", "19.5"],
        {"protocolVersion": "0.1", "hooks": [{"id": "org.ctk.backend.a", "transport": "{{backend:A}}",
                                               "authentication": {"type": "bearer", "tokenEnv": "CTK_AHP_BEARER", "token": "{{canary}}"},
                                               "subscriptions": [good]}]},
        {"A": http({}, bearer=True)},
        [call("executed")], "http", expect={"load": "refused", "silent": ["A"]},
        load_env={"CTK_AHP_BEARER": "{{canary}}"},
    )
    vector(
        "Registration refused at load: a plain http:// URL on a host that is not loopback (18.2, D-07)",
        ["AHP-REG-001"], ["ahp-18.2-a", "ahp-6.1-f"], ["18.2"],
        {"protocolVersion": "0.1", "hooks": [{"id": "org.ctk.backend.remote", "transport": {"type": "http", "url": "http://ahp-ctk.invalid/hook"}, "subscriptions": [good]}]},
        {}, [call("executed")], "any", advisory="D-07", expect={"load": "refused"},
    )
    vector(
        "An intercept and an observe subscription for tool.before on one backend are different modes: the document loads and both are used (D-06)",
        ["AHP-REG-001", "AHP-COMP-001"], ["ahp-13.3-a", "ahp-6.2-a"], ["13.3"],
        reg(a(good, obs(["tool.before"]))),
        {"A": stdio({})},
        [call("executed", calls=["A"])], "stdio", lifecycle="persistent",
        expect={"request_assert": [{"backend": "A", "method": "hooks/intercept", "ptr": "/id", "eq_ptr": "/params/event/id", "required": True}]},
    )
    vector(
        "A refused document sends nothing to its valid backends and runs no covered tool (D-21 reading a)",
        ["AHP-REG-001"], ["ahp-6.1-f", "ahp-6.1-e"], ["6.1"],
        reg(a(good), hook("B", dict(good, timeoutMs=0))),
        {"A": stdio({"intercept": [DENY]}), "B": stdio({})},
        [call("executed")], "any", advisory="D-21", expect={"load": "refused", "silent": ["A", "B"]},
    )


# --- 9. clause gaps: vectors for 0.1 MUST clauses no earlier vector checked -------------------


def extension_key_vectors(lifecycle):
    """Extension keys without a namespace make a response invalid (9.5),
    over stdio `lifecycle`, under both policies."""
    where = "stdio" if lifecycle == "persistent" else "stdio per_event"
    for policy in ("fail-open", "fail-closed"):
        if policy == "fail-open":
            res = result([deny_effect(ext={"note": "unnamespaced"})])
            trig = call("executed", calls=["A", "B"])
            verb = "a deny whose effect extensions use the key \"note\" is invalid: B is asked and the tool runs"
        else:
            res = result([], extensions={"note": "unnamespaced"})
            trig = call("denied", denial="synthetic", calls=["A"])
            verb = "a no-effect result whose extensions use the key \"note\" is invalid: the tool does not run"
        vector(
            "Extension keys without a namespace are invalid (%s, %s): %s" % (where, policy, verb),
            ["AHP-EXT-001", "AHP-FAIL-001"], ["ahp-9.5-a", "ahp-14.2-a"], ["9.5", "14.1", "14.2"],
            reg(hook("A", icpt(policy)), hook("B", icpt("fail-closed"))),
            {"A": stdio(script([reply(res)]), lifecycle), "B": stdio({}, lifecycle)},
            [trig], "stdio", lifecycle=lifecycle, failure_class="extension_key_not_reverse_dns", failure_policy=policy,
        )


def clause_gap_vectors():
    # Every event the harness emits carries the 9.1 members and a session
    # with an id; tool events carry the 9.3 tool members. The engine
    # schema-checks hooks/intercept requests; these predicates check what
    # arrives as hooks/observe (which events arrive is the claim's business,
    # 6.3: nothing is required to arrive).
    common = lambda b: [
        {"backend": b, "method": "hooks/observe", "ptr": "/params/event/id", "type": "string"},
        {"backend": b, "method": "hooks/observe", "ptr": "/params/event/source", "type": "string"},
        {"backend": b, "method": "hooks/observe", "ptr": "/params/event/type", "type": "string"},
        {"backend": b, "method": "hooks/observe", "ptr": "/params/event/time", "type": "string"},
        {"backend": b, "method": "hooks/observe", "ptr": "/params/event/session", "type": "object"},
        {"backend": b, "method": "hooks/observe", "ptr": "/params/event/session/id", "type": "string"},
    ]
    vector(
        "Every event carries id, source, type, time and a session with an id; tool events carry callId and name as given and a kind (intercepts schema-checked, observations by pointer)",
        ["AHP-TB-001"],
        ["ahp-9.1-a", "ahp-9.1-b", "ahp-9.1-c", "ahp-9.1-d", "ahp-9.1-e", "ahp-9.2-a",
         "ahp-9.3-a", "ahp-9.3-b", "ahp-9.3-c", "ahp-9.3-f", "ahp-10.2-a", "ahp-7.4-a"],
        ["9.1", "9.2", "9.3", "10.2"],
        reg(hook("A", icpt("fail-closed")), hook("O", obs(["tool.before", "tool.after"])), hook("S", obs(["session.start", "session.end"]))),
        {"A": stdio({}), "O": stdio({}), "S": stdio({})},
        [session("session.start"), call("executed", calls=["A"], call_id="ctk-call-shape-1"), session("session.end")],
        "stdio", lifecycle="persistent", profiles=LO,
        expect={"request_assert": common("O") + common("S") + [
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/tool/callId", "eq": "ctk-call-shape-1", "required": True},
            {"backend": "O", "method": "hooks/observe", "ptr": "/params/event/tool/callId", "eq": "ctk-call-shape-1"},
            {"backend": "O", "method": "hooks/observe", "ptr": "/params/event/tool/name", "eq": TOOL["name"]},
            # §22: "Assign a v0.1 `kind` or use `other`": any string, not only the kind given (issue 26).
            {"backend": "O", "method": "hooks/observe", "ptr": "/params/event/tool/kind", "type": "string"},
        ]},
        notes="A non-empty string and the RFC 3339 and URI formats are checked on hooks/intercept (schema); on hooks/observe the pointers check presence and JSON type.",
    )
    # Retries (15, D-18: a retry is a further hooks/intercept with the same
    # event id to the same backend). The engine fails a retry whose content
    # (JSON-RPC id, event, session, call id included) differs, and the call
    # id is pinned on every request. A harness need not retry.
    vector(
        "HTTP: A drops the first request's connection; every retry the harness makes reuses the JSON-RPC id, event id, session id, call id and content, and the tool runs (fail-open)",
        ["AHP-CORE-004"], ["ahp-15-b", "ahp-8.1-b", "ahp-6.2-g"], ["15", "8.1", "6.2"],
        reg(hook("A", icpt("fail-open"))),
        {"A": http(script([{"do": "close"}], NO_EFFECT))},
        [call("executed", calls=["A"], call_id="ctk-call-retry-1")], "http",
        expect={"request_assert": [
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/tool/callId", "eq": "ctk-call-retry-1", "required": True},
            {"backend": "A", "method": "hooks/intercept", "ptr": "/id", "eq_ptr": "/params/event/id"},
        ]},
        notes="A harness that does not retry passes: fail-open runs the tool. A second request to A (a retry) gets no effect.",
    )
    # No retry after a valid decision (15): a second request to A in the
    # same call would get the opposite decision.
    for binding in BOTH:
        for first, then, outcome, denial, what in (
                (NO_EFFECT, DENY, "executed", None, "an empty-effect response"),
                (DENY, NO_EFFECT, "denied", "explicit", "an explicit denial")):
            vector(
                "No retry after %s (%s): a second request to A would get the opposite decision; the first decides" % (what, binding),
                ["AHP-CORE-004"], ["ahp-15-g"], ["15"],
                reg(hook("A", icpt("fail-closed"))),
                {"A": backend(binding, script(first, then))},
                [call(outcome, denial=denial, calls=["A"])], binding,
                lifecycle="persistent" if binding == "stdio" else "any",
            )
    # tool.before is created once name and input are final and before any
    # side effect (10.1): the request carries exactly the name and input the
    # tool runs with, and a deny leaves the tool unrun.
    final = {"name": "write_report", "kind": "file_write", "input": {"path": "out/report.txt", "content": "ctk \u00e9 \u2603", "mode": 420}}
    vector(
        "tool.before carries the final tool name and input exactly as given, and comes before execution: A's deny leaves the tool unrun",
        ["AHP-TB-001", "AHP-DEC-002"], ["ahp-10.1-a", "ahp-22-b", "ahp-22-c", "ahp-22-g"], ["10.1", "22"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({"intercept": [DENY]})},
        [call("denied", denial="explicit", calls=["A"], tool=final)], "stdio", lifecycle="persistent",
        expect={"request_assert": [
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/tool/name", "eq": final["name"], "required": True},
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/tool/input", "eq": final["input"], "required": True},
            # The kind is the harness's to assign (§22: a v0.1 kind or `other`), checked by global.tool.
            {"backend": "A", "method": "hooks/intercept", "ptr": "/params/event/tool/kind", "type": "string", "required": True},
        ]},
    )
    # Backend responses are untrusted even from an authenticated backend
    # (20.2): an allow from a bearer-authenticated backend grants nothing.
    for policy, outcome, denial in (("fail-open", "prompted", None), ("fail-closed", "denied", "synthetic")):
        vector(
            "HTTP, bearer-authenticated backend, %s: its allow effect is invalid and grants nothing; with the host set to prompt the call %s" % (
                policy, "still ends in the host's prompt" if outcome == "prompted" else "is denied synthetically"),
            ["AHP-SEC-001", "AHP-CAP-001"], ["ahp-20.2-a", "ahp-12.3-a"], ["20.2", "12.3", "14.2"],
            reg(hook("A", icpt(policy), auth="CTK_AHP_BEARER")),
            {"A": http(script([reply(result([{"type": "allow"}]))]), bearer=True)},
            [call(outcome, denial=denial, calls=["A"], perm="prompt")], "http",
            load_env={"CTK_AHP_BEARER": "{{canary}}"},
        )
    # An unnamespaced extension key makes a response invalid (9.5).
    extension_key_vectors("persistent")
    # Registration shape (19.1 to 19.3).
    good = icpt("fail-closed")
    r = reg(hook("A", good))
    del r["hooks"][0]["transport"]
    refused("a backend without a transport (19.2)", r, covers=("ahp-6.1-f", "ahp-19.2-b"), names=())
    r = reg(hook("A", good))
    r["hooks"][0]["transport"] = {"type": "websocket", "url": "ws://127.0.0.1:9/hook"}
    refused('a transport of type "websocket", which 0.1 does not define (19.2)', r, covers=("ahp-6.1-f", "ahp-19.2-b"), names=())
    r = reg(hook("A", good))
    del r["hooks"][0]["subscriptions"]
    refused("a backend without a subscriptions member (19.2)", r, covers=("ahp-6.1-f", "ahp-19.2-c"))
    r = reg(hook("A", good, obs([])))
    refused("an observe subscription with an empty events array (19.3)", r, covers=("ahp-6.1-f", "ahp-19.3-a"))
    r = reg(hook("A", good, obs(["tool.*"])))
    refused('an observe subscription naming the pattern "tool.*" (0.1 has no pattern language, 19.3)', r, covers=("ahp-6.1-f", "ahp-19.3-a"))
    nomode = dict(obs(["tool.after"]))
    del nomode["mode"]
    refused("a subscription without mode (19.3)", reg(hook("A", good, nomode)), covers=("ahp-6.1-f", "ahp-19.3-b"))
    r = {"protocolVersion": "0.1"}
    refused("a document without hooks (19.1)", r, covers=("ahp-6.1-f", "ahp-19.1-a"), names=())


# --- parallel tool calls (adapter feature parallel-tool-calls) -----------------------
#
# Two tool calls of one model turn (harness/tool_calls). Backend A answers by
# tool name, not by arrival: the slow tool's request gets a deny after a
# second, the fast tool's no effect at once. Under the limit reading of 17.2
# (D-17) A never has both outstanding and the fast call may wait its turn;
# under the permission reading both are outstanding and the fast reply comes
# first. Either way each call must get its own reply's decision (17.2: replies
# are matched by JSON-RPC id), and each call's chain stays serial (13.1).

SLOW_TOOL = {"name": "ctk_probe_slow", "kind": "shell", "input": {"command": "echo ctk-slow"}}
FAST_TOOL = {"name": "ctk_probe_fast", "kind": "file_read", "input": {"path": "README.md"}}
PARALLEL_WAIT_MS = 1000


def parallel(*calls):
    return {"parallel": list(calls)}


def parallel_vectors():
    by_tool = {"intercept": [NO_EFFECT], "by_tool": {
        SLOW_TOOL["name"]: [{"do": "sleep", "ms": PARALLEL_WAIT_MS}] + DENY,
        FAST_TOOL["name"]: NO_EFFECT,
    }}
    for binding, lifecycle in (("stdio", "persistent"), ("stdio", "per_event"), ("http", "any")):
        lc = lifecycle if binding == "stdio" else "persistent"
        where = "%s %s" % (binding, lifecycle) if binding == "stdio" else binding
        covers = ["ahp-13.1-a", "ahp-13.1-b", "ahp-12.3-a"]
        if lifecycle == "persistent":
            covers = ["ahp-17.2-a"] + covers
        vector(
            "Two parallel tool calls over %s: each gets the decision A sent for its own request (a deny after a second for one, no effect at once for the other), and each call's chain stays serial" % where,
            ["AHP-COMP-001"], covers, ["17.2", "13.1"],
            reg(hook("A", icpt("fail-open", 10000)), hook("B", icpt("fail-closed"))),
            {"A": backend(binding, by_tool, lc), "B": backend(binding, {}, lc)},
            [parallel(
                call("denied", denial="explicit", calls=["A"], tool=SLOW_TOOL, call_id="ctk-call-slow"),
                call("executed", calls=["A", "B"], tool=FAST_TOOL, call_id="ctk-call-fast"),
            )],
            binding, lifecycle=lifecycle,
            # A released vector's notes stay as released: the path is the one the
            # adapter contract had then (ahp/adapter/ADAPTER.md now).
            notes="A answers by tool name, so the order its requests arrive in does not matter. A harness may keep one intercept outstanding per persistent backend, across events (the fast call then waits for the slow one's deny), or send both at once and match the replies by id (17.2); either passes. The kit tells the two calls' requests apart by the call ids it handed over (ahp-suite/ADAPTER.md, harness/tool_calls).",
        )
    vector(
        "Two parallel tool calls to one persistent stdio backend: it never has two intercept requests outstanding at once (the limit reading of 17.2, D-17)",
        ["AHP-COMP-001"], ["ahp-17.2-b"], ["17.2"],
        reg(hook("A", icpt("fail-open", 10000))),
        {"A": stdio({"intercept": [NO_EFFECT], "by_tool": {
            SLOW_TOOL["name"]: [{"do": "sleep", "ms": PARALLEL_WAIT_MS // 2}] + NO_EFFECT,
            FAST_TOOL["name"]: [{"do": "sleep", "ms": PARALLEL_WAIT_MS // 2}] + NO_EFFECT,
        }})},
        [parallel(
            call("executed", calls=["A"], tool=SLOW_TOOL, call_id="ctk-call-slow"),
            call("executed", calls=["A"], tool=FAST_TOOL, call_id="ctk-call-fast"),
        )],
        "stdio", lifecycle="persistent", advisory="D-17",
        expect={"one_outstanding": ["A"]},
        notes="17.2 says a harness MAY have only one outstanding intercept request per persistent backend; D-17 reads it as a limit, counted across events. A harness that sends both calls' requests at once and matches replies by id follows the permission reading, which the gating parallel vectors accept.",
    )


# --- the failure matrix, completed (issue 27) ----------------------------------------
#
# Every class of CLASSES under both policies over stdio per_event too (the
# per_event rows above cover four); every HTTP status an intercept reply may
# come with besides 200 ("Any other HTTP status is an operational failure",
# 18.1); observers that fail or stall over per_event.

PER_EVENT_DONE = {"malformed_json", "abnormal_exit", "connection_lost", "deadline_exceeded"}
# 1xx cannot be scripted as a final status, and 200 is the success.
OTHER_STATUSES = (201, 202, 203, 204, 206, 301, 303, 308, 400, 403, 405, 408, 413, 415, 422, 429, 501, 502, 503, 504)


def failure_matrix_vectors():
    failure_vectors("per_event", only={"stdio": PER_EVENT_DONE})
    for code in OTHER_STATUSES:
        for policy in ("fail-open", "fail-closed"):
            plan = [{"do": "status", "code": code}, reply(result(payload(policy)))]
            if 300 <= code < 400:
                plan = [{"do": "redirect", "to": "Z", "code": code}]
            backends = {"A": http(script(plan)), "B": http({"intercept": [NO_EFFECT]})}
            exp = {}
            if 300 <= code < 400:
                backends["Z"] = http(script([reply(result(payload(policy)))]))
                exp["silent"] = ["Z"]
            if policy == "fail-open":
                trig = call("executed", calls=["A", "B"], max_ms=d01_bound(5000, 5000))
                verb = "an operational failure, B is asked and the tool runs (the body's deny is never applied)"
            else:
                trig = call("denied", denial="synthetic", calls=["A"], max_ms=d01_bound(5000))
                verb = "an operational failure, the harness denies with a synthetic denial and B is never asked"
            vector(
                "HTTP status %d on an intercept reply, %s: %s" % (code, policy, verb),
                ["AHP-FAIL-001", "AHP-COMP-001", "AHP-HTTP-001"],
                ["ahp-14.2-a", "ahp-13.1-a", "ahp-18.1-c"] + (["ahp-18.1-e"] if 300 <= code < 400 else []),
                ["13.1", "14.1", "14.2", "18.1"],
                reg(hook("A", icpt(policy)), hook("B", icpt("fail-closed"))),
                backends, [trig], "http",
                failure_class="http_%d" % code, failure_policy=policy, expect=exp,
                notes="18.1: a successful intercept response MUST use status 200; any other status is an operational failure, whatever the body says%s." % (
                    " (a redirect to the kit's endpoint Z, which must never be followed)" if 300 <= code < 400 else ""),
            )
    # The persistent-only rows above, over per_event too.
    banner_vectors("per_event")
    extension_key_vectors("per_event")
    # Observers over per_event: a process per notification, which the
    # harness never waits for (13.2, 17.3).
    # (what it does, its script, whether it stalls: the answer must then
    # come before its plan ends).
    stalls = [
        ("takes %d s per notification" % (OBSERVER_SLEEP_MS // 1000), script(observe=[[{"do": "sleep", "ms": OBSERVER_SLEEP_MS}]]), True, "stalls"),
        ("writes garbage and a reply-shaped line", script(observe=[[raw(text="garbage " + MALFORMED_CANARY), raw(text='{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}')]]), False, "malformed_json"),
        ("closes its stdout and keeps running", script(observe=[[{"do": "close"}, {"do": "sleep", "ms": OBSERVER_SLEEP_MS}]]), True, "connection_lost"),
    ]
    for what, sc, stalls_, klass_ in stalls:
        for decision, outcome, denial in (("no effect", "executed", None), ("deny", "denied", "explicit")):
            vector(
                "A per_event observer that %s %s nothing: the interceptor's %s decides, and each observer process gets one message and then end of file" % (
                    what, "delays and changes" if stalls_ else "changes", decision),
                ["AHP-RPC-002", "AHP-STDIO-001"], ["ahp-13.2-a", "ahp-17.1-a"], ["13.2", "17.3"],
                reg(hook("O", obs(["tool.before", "tool.after", "tool.error"])), hook("A", icpt("fail-closed"))),
                {"O": stdio(sc, "per_event"), "A": stdio({"intercept": [DENY]} if decision == "deny" else {}, "per_event")},
                [call(outcome, denial=denial, calls=["A"], max_ms=d01_bound(5000), before=["O"] if stalls_ else None)],
                "stdio", lifecycle="per_event", profiles=LO,
                expect={"per_event_one_frame": ["O"]}, observer_failure=klass_,
                notes="17.3: a per_event process receives exactly one message, then EOF; for an observe notification the harness does not wait for a semantic response, and process status cannot affect agent execution (13.2: observer delivery never delays the chain or the tool).",
            )


def observer_delivery_vectors():
    """D-38: a healthy observer subscribed to tool.before receives it. 6.3
    and 15 make delivery best effort, so only the preferred reading pins it
    (advisory); the gating observer vectors judge the shape of what arrives."""
    for binding, lifecycle in (("stdio", "persistent"), ("stdio", "per_event"), ("http", "any")):
        lc = lifecycle if binding == "stdio" else "persistent"
        exp = {"observed": {"O": ["tool.before"]}}
        if lifecycle == "per_event":
            exp["per_event_one_frame"] = ["O"]
        vector(
            "A healthy observer subscribed to tool.before over %s receives a hooks/observe for it (D-38)" % (
                binding if binding == "http" else "stdio " + lifecycle),
            ["AHP-RPC-002"], ["ahp-8.4-a"], ["6.3", "8.4", "15"],
            reg(hook("A", icpt("fail-closed", 500)), hook("O", obs(["tool.before", "tool.after"]))),
            {"A": backend(binding, {}, lc), "O": backend(binding, {}, lc)},
            [call("executed", calls=["A"], max_ms=d01_bound(500))], binding, lifecycle=lifecycle,
            profiles=LO, advisory="D-38", expect=exp,
            notes="6.3: a harness claiming Lifecycle Observation supports hooks/observe; 15: observation is best effort, with no delivery guarantee, so the kit prefers (D-38) that a healthy observer gets the subscribed event a harness emits.",
        )


# A line past any bound a harness keeps on one line (the reference
# harness's is 1 MiB), written by a vector a few bytes long.
OVERSIZE_UNIT = "x" * 64
OVERSIZE_REPEAT = 2 * 1024 * 1024 // 64 + 1


def persistent_process_vectors():
    """D-39: a persistent backend that answers every message in time and
    well-formed stays one process (17.2: "A persistent backend remains alive
    for multiple messages."), and after one line past the harness's bound
    its next valid reply still decides. The text states no rule for either,
    so both are advisory."""
    err = [{"do": "error", "code": -32003, "message": "scripted error -32003"}]
    # By tool, not by position: a retry within the deadline (15) gets the
    # same error, and a process started again answers as the first did.
    ERR_TOOL = {"name": "ctk_probe_error", "kind": "shell", "input": {"command": "echo ctk-error"}}
    vector(
        "A persistent backend that answers three calls with a well-formed JSON-RPC error and a fourth with no effect stays one process: three synthetic denials, then the tool runs (D-39)",
        ["AHP-STDIO-001"], ["ahp-17.2-a"], ["17.2", "14.1", "16"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({"intercept": [NO_EFFECT], "by_tool": {ERR_TOOL["name"]: err}})},
        [call("denied", denial="synthetic", calls=["A"], tool=ERR_TOOL) for _ in range(3)] + [call("executed", calls=["A"])],
        "stdio", lifecycle="persistent", advisory="D-39",
        expect={"one_process": ["A"]},
        notes="A JSON-RPC error is an operational failure (16) but well-formed protocol output: 17.2's SHOULD to terminate a backend concerns malformed output only. A answers by tool name, so a harness that retries within the deadline (15) gets the same answer again.",
    )
    vector(
        "A persistent backend that answers four calls in a row with no effect stays one process, and each tool runs (D-39)",
        ["AHP-STDIO-001"], ["ahp-17.2-a"], ["17.2"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({})},
        [call("executed", calls=["A"]) for _ in range(4)],
        "stdio", lifecycle="persistent", advisory="D-39",
        expect={"one_process": ["A"]},
    )
    big = {"name": "ctk_probe_oversize", "kind": "shell", "input": {"command": "echo ctk-oversize"}}
    vector(
        "After a persistent backend writes one line of 2 MiB, fail-closed, its next reply (no effect, in time) decides: the first call is denied, the second tool runs (D-39)",
        ["AHP-STDIO-001", "AHP-FAIL-001"], ["ahp-17.1-a"], ["17.1", "17.2", "14.1"],
        reg(hook("A", icpt("fail-closed"))),
        {"A": stdio({"intercept": [NO_EFFECT], "by_tool": {
            big["name"]: [{"do": "raw", "text": OVERSIZE_UNIT, "repeat": OVERSIZE_REPEAT}],
        }})},
        [call("denied", denial="synthetic", calls=["A"], tool=big), call("executed", calls=["A"])],
        "stdio", lifecycle="persistent", advisory="D-39",
        notes="The 2 MiB line is not JSON: an operational failure whatever bound the harness keeps, so the first call is denied (fail-closed). The harness may end the backend for it and start another for the next request; A answers by tool name, so a new process answers the second call as the first would have. A harness that keeps the backend but stops reading its output fails the second call.",
    )


# The observe half of the failure matrix (issue 27): what an observer does
# on a notification, per class, and where. The interceptor's decision must
# stand whatever it is (13.2), so each runs beside a no-effect interceptor
# and a denying one.
def observer_failure_matrix_vectors():
    """Every cell of the observe half no vector above fills yet."""
    for klass_, binding, lifecycle, decision, outcome, denial in list(observe_missing(VECTORS)):
        spec, what, stalls_ = observer_plan(klass_, binding, OBSERVER_SLEEP_MS, raw)
        if isinstance(spec, dict):
            o = backend(binding, {}, lifecycle, launch=spec["launch"])
        else:
            o = backend(binding, script(observe=[spec]), lifecycle)
        backends = {"O": o, "A": backend(binding, {"intercept": [DENY]} if decision == "deny" else {}, lifecycle)}
        exp = {}
        covers = ["ahp-13.2-a"]
        if klass_.startswith("http_redirect_"):
            backends["Z"] = http({})
            exp["silent"] = ["Z"]
            covers.append("ahp-18.1-e")
        # An observer that exits as soon as it has read its message may never
        # read the end of file after it: no end-of-file check for that class.
        if lifecycle == "per_event" and not isinstance(spec, dict) and klass_ != "abnormal_exit":
            exp["per_event_one_frame"] = ["O"]
        where = "stdio " + lifecycle if binding == "stdio" else "http"
        vector(
            "An observer that %s changes nothing (%s): the interceptor's %s decides" % (what, where, decision),
            ["AHP-RPC-002"], covers, ["13.2", "14.1"] + (["18.1"] if binding == "http" else ["17.3"] if lifecycle == "per_event" else []),
            reg(hook("O", obs(["tool.before", "tool.after", "tool.error"])), hook("A", icpt("fail-closed"))),
            backends,
            [call(outcome, denial=denial, calls=["A"], max_ms=d01_bound(5000), before=["O"] if stalls_ else None)],
            binding, lifecycle=lifecycle if binding == "stdio" else "any", profiles=LO,
            observer_failure=klass_, expect=exp,
            notes="13.2: observer delivery MUST NOT delay the interceptor chain or tool execution; an observer's operational failure (14.1) has no failure policy, so the interceptor's decision stands."
            + (" 18.1: redirects are never followed, so Z receives nothing." if klass_.startswith("http_redirect_") else ""),
        )


def main():
    failure_vectors()
    per_event_failure_vectors()
    d02_vectors()
    content_type_vectors()
    decision_vectors()
    composition_vectors()
    observer_vectors()
    process_vectors()
    http_vectors()
    registration_vectors()
    # New vectors go last, so that earlier ids stay stable.
    banner_vectors()
    clause_gap_vectors()
    parallel_vectors()
    failure_matrix_vectors()
    observer_delivery_vectors()
    persistent_process_vectors()
    observer_failure_matrix_vectors()
    return write_or_check(OUT, "AHP-H-", VECTORS, "harness vectors", "--check" in sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())

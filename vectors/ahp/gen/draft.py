#!/usr/bin/env python3
"""Generate the AHP draft-line backend-role vectors (vectors/ahp/draft/AHP-DB-*.json).

Deterministic and stdlib-only, like generate.py (the 0.1 generator):

    python3 vectors/ahp/gen/draft.py            # write the vectors
    python3 vectors/ahp/gen/draft.py --check    # exit 1 if any differs

The draft line (wire `protocolVersion` "draft") is mutable and NEVER claimable:
`ctk run --protocol ahp --role backend --spec draft` runs these for information.
Which draft: the revision the PyPI package `agenthooksprotocol` 0.10.1 bundles
(repository commit 1d98c19, 33 draft schemas), as recorded in
spec/ahp/draft/DIFFERENCES.md; every vector says so in `notes`. The item
numbers cited (`DIFF-n`) are the numbered items of DIFFERENCES.md.

Rules, as for 0.1: a gating vector asserts only what the draft text requires
of a backend (the draft schemas are part of that text: a request they reject
is invalid, so the backend answers it with a JSON-RPC error, and a request they
accept gets a valid decision); a preferred reading (which error code, the
`data.supported` example) is an `advisory` vector naming the 0.1 decision it
carries over (spec/ahp/0.1/DECISIONS.md), with "0.1" and "draft" swapped.
Replies are judged by the draft's validity rules (ahp/suite/src/draft.rs).
The wire version is the parameter WIRE below, never a literal in a vector body.
Draft-only readings are the DD-nn entries of spec/ahp/draft/DECISIONS.md.
"""

import copy
import json
import os
import sys
from vector_files import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "draft"))
SCHEMA = "../../../schemas/ahp/vector.schema.json"
LINE = "draft"  # the vector's `ahp` member
WIRE = "draft"  # the wire protocolVersion of the line (DIFF-2: a parameter)
OTHER_WIRE = "0.1"  # the released line's wire version, unsupported here
SOURCE = "urn:uuid:5b7de29e-a9e0-41a8-bf26-d94b05f0656d"
TIME = "2026-08-24T08:51:14Z"
HARNESS = {"name": "agent-hooks-ctk", "version": "0.1.0"}
REVISION_NOTE = (
    "Draft line as bundled by PyPI agenthooksprotocol 0.10.1 (repository commit 1d98c19); "
    "a later draft may change this. "
)

# --- messages ---------------------------------------------------------------


def tool_before(eid, kind="shell", name="Bash", inp=None, call="call_1"):
    """A draft tool.before event as 0.10.1 sends it (DIFF-4..7): harness,
    call.id, path, tool.origin; no session (optional for this event)."""
    tool = {"name": name, "input": inp if inp is not None else {"command": "ls -la"}, "origin": "native"}
    if kind is not None:
        tool["kind"] = kind
    return {
        "id": eid,
        "source": SOURCE,
        "type": "tool.before",
        "time": TIME,
        "harness": dict(HARNESS),
        "call": {"id": call},
        "path": "native",
        "tool": tool,
    }


def intercept(event, version=WIRE, effects=("deny",), state=True, method="hooks/intercept"):
    params = {
        "protocolVersion": version,
        "event": event,
        "capabilities": {"effects": list(effects)},
    }
    if state:
        params["state"] = {"candidate": None, "permission": "none"}
    return {"jsonrpc": "2.0", "id": event["id"], "method": method, "params": params}


def observe(event, version=WIRE):
    return {"jsonrpc": "2.0", "method": "hooks/observe", "params": {"protocolVersion": version, "event": event}}


def plain_event(eid, typ, **extra):
    """A catalogue or lifecycle event with the members every draft event
    carries (id, source, time, harness, type); a notification is never
    answered, whatever else it holds."""
    e = {"id": eid, "source": SOURCE, "type": typ, "time": TIME, "harness": dict(HARNESS)}
    e.update(extra)
    return e


FORCE_PUSH = {"command": "git push --force origin main"}
README = {"path": "README.md"}

# --- steps and expectations -------------------------------------------------

ECHO = {"ptr": "/id", "eq_request": "/id"}


def req(frame, note=None):
    s = {"frame": frame}
    if note:
        s["note"] = note
    return s


def notif(frame, note=None):
    s = {"frame": frame, "notification": True}
    if note:
        s["note"] = note
    return s


def decision(cls="any_valid_decision", same_as=None, http=True, extra=()):
    e = {"reply": "one", "class": cls, "assert": [ECHO] + list(extra)}
    if same_as is not None:
        e["same_decision_as"] = same_as
    if http:
        e["http_status"] = [200]
        e["content_type"] = "application/json"
    return e


def error(code=None, extra=()):
    # D-19: when an error is expected its body is read whatever the status;
    # only the media type of a non-empty body is asserted.
    e = {"reply": "one", "class": "jsonrpc_error", "assert": [ECHO] + list(extra)}
    if code is not None:
        e["error_code"] = code
    e["content_type"] = "application/json"
    return e


def none(http_status=None, empty=False):
    e = {"reply": "none"}
    if http_status:
        e["http_status"] = http_status
    if empty:
        e["http_empty_body"] = True
    return e


def probe(eid):
    """The request that ends a vector: its reply proves the backend read
    everything sent before it (so silence is never a pass by itself)."""
    return req(intercept(tool_before(eid)), "probe: answered only if the backend read every earlier message")


VECTORS = []
TALLY = {}


def vector(
    title,
    diff,
    requirements,
    covers,
    sections,
    steps,
    binding="any",
    lifecycle="any",
    profiles=("base", "tool-interception"),
    advisory=None,
    policy=None,
    notes=None,
    exit_zero=True,
):
    """`diff` names the DIFFERENCES.md item(s) the vector tests ("1", "9", ...)
    or "carried" for a 0.1 rule that holds unchanged on the draft line."""
    vid = "AHP-DB-%04d" % (len(VECTORS) + 1)
    run = {"canary": "error_data"}
    if binding != "http":
        run["stdout_protocol_only"] = True
        if exit_zero:
            run["per_event_exit_zero"] = True
    if binding == "stdio":
        for _, e in steps:
            for k in ("http_status", "content_type", "http_empty_body"):
                e.pop(k, None)
    v = {
        "$schema": SCHEMA,
        "id": vid,
        "title": title,
        "ahp": LINE,
        "role": "backend",
        "requirements": list(requirements),
        "covers": list(covers),
        "sections": list(sections),
        "binding": binding,
        "lifecycle": lifecycle,
        "profiles": list(profiles) + ([binding] if binding != "any" else []),
    }
    if advisory:
        v["advisory"] = advisory
    if policy:
        v["policy"] = policy
    label = "DIFFERENCES.md item %s" % diff if diff != "carried" else "a 0.1 rule the draft keeps"
    v["notes"] = REVISION_NOTE + "Tests " + label + "." + (" " + notes if notes else "")
    v["send"] = [s for s, _ in steps]
    v["expect"] = [e for _, e in steps]
    v["run"] = run
    VECTORS.append(v)
    TALLY[diff] = TALLY.get(diff, 0) + 1
    return v


def n():
    """The number the next vector gets (event ids embed it)."""
    return len(VECTORS) + 1


def ev(suffix=""):
    return "evt_db%04d%s" % (n(), suffix)


def edited(frame, fn):
    f = copy.deepcopy(frame)
    fn(f)
    return f


def invalid(title, diff, fn, requirements, sections, notes=None, covers=("ahp-6.1-j",), advisory=None):
    """A request the draft schemas reject (one edit away from the baseline):
    gating, any JSON-RPC error with the request's id and no result; the probe
    after it proves the backend survived."""
    base = intercept(tool_before(ev("_0")))
    vector(
        title,
        diff,
        requirements,
        covers,
        sections,
        [(req(edited(base, fn)), error()), (probe(ev("_p")), decision())],
        notes=notes,
        advisory=advisory,
    )


SAME_TWINS = []


def accepted(title, diff, fn, requirements, sections, notes=None, covers=("ahp-6.2-j",), same=False):
    """A request the draft schemas accept although 0.1 would not: a valid
    decision, after the unchanged baseline; that is all a gating vector
    asserts. With `same`, the change is one a receiver ignores (an unknown
    member), and an advisory twin, written after every other vector, asserts
    that the decision equals the baseline's (D-37, carried over: the text
    never makes a backend's decision a function of the request alone; issue
    26). Otherwise a backend's policy may read the changed member and decide
    differently."""
    base = intercept(tool_before(ev("_0")))
    changed = edited(intercept(tool_before(ev("_1"))), fn)
    v = vector(
        title,
        diff,
        requirements,
        covers,
        sections,
        [(req(base, "baseline"), decision()), (req(changed), decision())],
        notes=notes,
    )
    if same:
        SAME_TWINS.append((v, title, diff, fn, requirements, sections, covers))
    return v


# --- 1. version ---------------------------------------------------------------

CORE = ["AHP-RPC-001", "AHP-VER-001", "AHP-DEC-001"]

vector(
    "A well-formed draft tool.before gets one valid decision whose result carries protocolVersion \"draft\" and the request's id",
    "1",
    CORE + ["AHP-TB-001", "AHP-CAP-002"],
    ["ahp-6.2-j", "ahp-12.1-c"],
    ["base/versioning", "server/tool-interception"],
    [(req(intercept(tool_before(ev()))), decision(extra=[{"ptr": "/result/protocolVersion", "eq": WIRE}]))],
)

vector(
    "A tool.before whose protocolVersion is the released line's \"0.1\" is refused with -32001 (unsupported protocol version)",
    "1",
    ["AHP-VER-001", "AHP-RPC-001"],
    ["ahp-7.2-b"],
    ["base/versioning", "base/errors"],
    [(req(intercept(tool_before(ev("_0")), version=OTHER_WIRE)), error(-32001)), (probe(ev("_p")), decision())],
    advisory="DD-02",
    notes="Advisory: nothing in the draft forbids a backend to support the released line too (spec/ahp/draft/DECISIONS.md DD-02).",
)

vector(
    "The -32001 answer to a \"0.1\" request lists the supported versions as error.data.supported [\"draft\"]",
    "1",
    ["AHP-VER-001"],
    ["ahp-7.2-b"],
    ["base/versioning", "base/errors"],
    [
        (
            req(intercept(tool_before(ev("_0")), version=OTHER_WIRE)),
            error(-32001, extra=[{"ptr": "/error/data/supported", "eq": [WIRE]}]),
        ),
        (probe(ev("_p")), decision()),
    ],
    advisory="DD-02",
    notes="A draft-only backend's -32001; the draft's error example shows data.supported, no sentence requires it (as D-22 for 0.1).",
)

vector(
    "A tool.before whose protocolVersion is \"0.2\" is refused with -32001",
    "1",
    ["AHP-VER-001", "AHP-RPC-001"],
    ["ahp-7.2-b"],
    ["base/versioning", "base/errors"],
    [(req(intercept(tool_before(ev("_0")), version="0.2")), error(-32001)), (probe(ev("_p")), decision())],
)

invalid(
    "A draft tool.before without params.protocolVersion is refused with a JSON-RPC error",
    "1",
    lambda f: f["params"].pop("protocolVersion"),
    ["AHP-VER-001", "AHP-RPC-001"],
    ["base/versioning", "base/errors"],
)

vector(
    "Three draft requests in a row each get exactly one response with their own id",
    "carried",
    CORE + ["AHP-STDIO-001"],
    ["ahp-6.2-j", "ahp-12.1-c"],
    ["base/transports/stdio", "server/tool-interception"],
    [(req(intercept(tool_before(ev("_%d" % i), call="call_%d" % i))), decision()) for i in range(3)],
)

# --- 2. tool.before request shape ---------------------------------------------

SHAPE = ["AHP-TB-001", "AHP-RPC-001"]

invalid(
    "A draft tool.before without event.harness is refused (harness identity is required)",
    "4",
    lambda f: f["params"]["event"].pop("harness"),
    SHAPE,
    ["base/events", "server/tool-interception"],
)
invalid(
    "A draft tool.before whose harness lacks version is refused",
    "4",
    lambda f: f["params"]["event"]["harness"].pop("version"),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before whose harness holds an unknown member is refused (the harness object is closed)",
    "4",
    lambda f: f["params"]["event"]["harness"].update({"build": "ctk"}),
    SHAPE,
    ["base/events"],
    notes="The draft schema closes harness (additionalProperties false).",
    advisory="DD-01",
)


def as_0_1_shape(f):
    e = f["params"]["event"]
    call = e.pop("call")
    e["tool"]["callId"] = call["id"]


invalid(
    "A draft request shaped like 0.1 (tool.callId, no event.call) is refused",
    "5",
    as_0_1_shape,
    SHAPE,
    ["base/events", "server/tool-interception"],
)
invalid(
    "A draft tool.before whose call has no id is refused",
    "5",
    lambda f: f["params"]["event"]["call"].pop("id"),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before whose call holds an unknown member is refused (the call object is closed)",
    "5",
    lambda f: f["params"]["event"]["call"].update({"turn": "t1"}),
    SHAPE,
    ["base/events"],
    notes="The draft schema closes call (additionalProperties false); synthesized is its only optional member.",
    advisory="DD-01",
)
accepted(
    "A draft tool.before whose call says synthesized: true is answered as the baseline is",
    "5",
    lambda f: f["params"]["event"]["call"].update({"synthesized": True}),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before without event.path is refused",
    "6",
    lambda f: f["params"]["event"].pop("path"),
    SHAPE,
    ["base/events", "server/tool-interception"],
)
invalid(
    "A draft tool.before whose path is the empty string is refused",
    "6",
    lambda f: f["params"]["event"].update({"path": ""}),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before without tool.origin is refused",
    "7",
    lambda f: f["params"]["event"]["tool"].pop("origin"),
    SHAPE,
    ["base/events", "server/tool-interception"],
)
invalid(
    "A draft tool.before whose tool.origin is neither native nor mcp is refused",
    "7",
    lambda f: f["params"]["event"]["tool"].update({"origin": "plugin"}),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before with tool.origin mcp but no tool.mcp is refused",
    "7",
    lambda f: f["params"]["event"]["tool"].update({"origin": "mcp", "name": "github.create_issue", "kind": "mcp"}),
    SHAPE,
    ["base/events"],
)
MCP = {
    "server": {"id": "github"},
    "toolName": "create_issue",
    "provenance": "runtime",
    "connection": {"transport": "stdio", "command": "mcp-github", "args": [], "cwd": "/work"},
}
accepted(
    "A draft tool.before with tool.origin mcp and a complete tool.mcp gets a valid decision",
    "7",
    lambda f: f["params"]["event"]["tool"].update({"origin": "mcp", "name": "github.create_issue", "kind": "mcp", "mcp": copy.deepcopy(MCP), "input": {"title": "ctk"}}),
    SHAPE,
    ["base/events"],
)
accepted(
    "A draft tool.before whose tool.kind is the free-form \"browser\" gets a valid decision (0.1 refuses unknown kinds)",
    "8",
    lambda f: f["params"]["event"]["tool"].update({"kind": "browser"}),
    SHAPE,
    ["base/events"],
)
accepted(
    "A draft tool.before without tool.kind gets a valid decision (kind is optional in the draft)",
    "8",
    lambda f: f["params"]["event"]["tool"].pop("kind"),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before whose tool.kind is the empty string is refused",
    "8",
    lambda f: f["params"]["event"]["tool"].update({"kind": ""}),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before whose tool still holds 0.1's callId (next to event.call) is refused (tool is closed)",
    "9",
    lambda f: f["params"]["event"]["tool"].update({"callId": "call_1"}),
    SHAPE,
    ["base/events"],
    advisory="DD-01",
)
invalid(
    "A draft tool.before whose tool holds an unknown member is refused (tool is closed)",
    "9",
    lambda f: f["params"]["event"]["tool"].update({"x_ctk_unknown": {"nested": [1, 2]}}),
    SHAPE,
    ["base/events"],
    advisory="DD-01",
)
invalid(
    "A draft tool.before whose tool holds output is refused",
    "9",
    lambda f: f["params"]["event"]["tool"].update({"output": {"stdout": ""}}),
    SHAPE,
    ["base/events", "server/tool-interception"],
    covers=("ahp-6.1-j", "ahp-9.3-d"),
    advisory="DD-01",
)
accepted(
    "An unknown member at the event level of a draft tool.before is ignored: the request still gets a valid decision",
    "9",
    lambda f: f["params"]["event"].update({"x_ctk_unknown": {"nested": True}}),
    ["AHP-TB-001", "AHP-DEC-001"],
    ["base/events"],
    covers=("ahp-6.2-j", "ahp-7.3-a"),
    same=True,
)
accepted(
    "An unknown member in params of a draft intercept request is ignored: the request still gets a valid decision",
    "9",
    lambda f: f["params"].update({"x_ctk_unknown": 1}),
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["base/index"],
    covers=("ahp-6.2-j", "ahp-7.3-a"),
    same=True,
)
accepted(
    "An unknown member at the root of a draft intercept request is ignored: the request still gets a valid decision",
    "carried",
    lambda f: f.update({"x_ctk_unknown": "ignored"}),
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["base/index"],
    covers=("ahp-6.2-j", "ahp-7.3-a"),
    same=True,
)
invalid(
    "A draft tool.before that carries an event-level outcome (a tool.after member) is refused",
    "9",
    lambda f: f["params"]["event"].update({"outcome": "success"}),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before whose tool.input is a JSON-encoded string, not an object, is refused",
    "carried",
    lambda f: f["params"]["event"]["tool"].update({"input": "{\"command\": \"ls -la\"}"}),
    SHAPE,
    ["base/events"],
    covers=("ahp-6.1-j", "ahp-7.4-a"),
)
accepted(
    "A draft tool.before without params.state gets a valid decision (state is optional)",
    "10",
    lambda f: f["params"].pop("state"),
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["server/tool-interception"],
)
accepted(
    "A draft tool.before whose state holds permission ask and a candidate value gets a valid decision",
    "10",
    lambda f: f["params"].update({"state": {"permission": "ask", "candidate": {"value": {"command": "ls -la"}}}}),
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["server/tool-interception"],
)
invalid(
    "A draft tool.before whose state.permission is not none, allow, ask or deny is refused",
    "10",
    lambda f: f["params"]["state"].update({"permission": "maybe"}),
    ["AHP-RPC-001"],
    ["server/tool-interception"],
)
invalid(
    "A draft tool.before whose state lacks candidate is refused",
    "10",
    lambda f: f["params"]["state"].pop("candidate"),
    ["AHP-RPC-001"],
    ["server/tool-interception"],
)
accepted(
    "A draft tool.before that carries a session (id, cwd, model) gets a valid decision",
    "11",
    lambda f: f["params"]["event"].update({"session": {"id": "sess_ctk", "cwd": "/work", "model": "ctk-model"}}),
    SHAPE,
    ["base/events"],
)
invalid(
    "A draft tool.before whose session has no id is refused",
    "11",
    lambda f: f["params"]["event"].update({"session": {"cwd": "/work"}}),
    SHAPE,
    ["base/events"],
)
accepted(
    "A draft tool.before whose native is a JSON string gets a valid decision (native is opaque)",
    "12",
    lambda f: f["params"]["event"].update({"native": "PreToolUse"}),
    SHAPE,
    ["base/events"],
)
accepted(
    "A draft tool.before whose native is a JSON array gets a valid decision (native is opaque)",
    "12",
    lambda f: f["params"]["event"].update({"native": [1, "two", {"three": 3}]}),
    SHAPE,
    ["base/events"],
)

# --- 16 and 18: capability advertisements ---------------------------------------

CAP = ["AHP-CAP-001", "AHP-CAP-002"]

invalid(
    "A draft tool.before advertising a reverse-DNS extension effect is refused (no extension effects on tool.before)",
    "16",
    lambda f: f["params"]["capabilities"].update({"effects": ["deny", "com.example.redact"]}),
    CAP,
    ["base/capabilities"],
    advisory="DD-03",
)
accepted(
    "A draft tool.before advertising deny, modify (input) and flow (stop) with their option blocks gets a valid reply",
    "18",
    lambda f: f["params"]["capabilities"].update(
        {
            "effects": ["deny", "modify", "flow"],
            "modify": {"input": {"replace": True, "merge": False}},
            "flow": {"operations": ["stop"]},
        }
    ),
    CAP,
    ["base/capabilities"],
    # The notes keep the path they were published with (ahp/suite/src/draft.rs now),
    # so the draft reports published beside them keep their digests.
    notes="The backend may return any advertised effect; the kit judges deny members only (ahp-suite/src/draft.rs).",
)
invalid(
    "A draft tool.before advertising flow continue is refused (tool.before may not request continue)",
    "18",
    lambda f: f["params"]["capabilities"].update(
        {"effects": ["deny", "flow"], "flow": {"operations": ["continue"], "remainingContinuations": 1, "continuationCount": 0}}
    ),
    CAP,
    ["base/capabilities", "server/tool-interception"],
)
invalid(
    "A draft tool.before advertising a modify block for output is refused (tool.before modifies input only)",
    "18",
    lambda f: f["params"]["capabilities"].update(
        {"effects": ["deny", "modify"], "modify": {"output": {"replace": True, "merge": False}}}
    ),
    CAP,
    ["base/capabilities"],
)
invalid(
    "A draft tool.before without params.capabilities is refused",
    "36",
    lambda f: f["params"].pop("capabilities"),
    CAP,
    ["base/capabilities"],
    covers=("ahp-6.1-j", "ahp-11-a"),
)
invalid(
    "A draft tool.before advertising the same effect twice is refused (effects are unique)",
    "18",
    lambda f: f["params"]["capabilities"].update({"effects": ["deny", "deny"]}),
    CAP,
    ["base/capabilities"],
)

# --- policy: the kit knows the decision (ctk.deny-force-push) -----------------

vector(
    "Policy ctk.deny-force-push: a draft shell tool.before running git push --force is denied with a non-empty reason",
    "carried",
    CORE + ["AHP-DEC-002"],
    ["ahp-12.2-a", "ahp-12.2-b"],
    ["server/tool-interception"],
    [(req(intercept(tool_before(ev(), inp=FORCE_PUSH))), decision("explicit_deny"))],
    policy="ctk.deny-force-push",
)
vector(
    "Policy ctk.deny-force-push: the same force-push frame delivered twice is denied both times",
    "carried",
    CORE + ["AHP-DEC-002"],
    ["ahp-12.2-a", "ahp-15-a"],
    ["server/tool-interception", "base/failure"],
    [
        (req(intercept(tool_before(ev(), inp=FORCE_PUSH)), "first delivery"), decision("explicit_deny")),
        (req(intercept(tool_before(ev(), inp=FORCE_PUSH)), "the same frame again"), decision("explicit_deny", same_as=0)),
    ],
    policy="ctk.deny-force-push",
)
vector(
    "Policy ctk.no-effect-file-read: a draft file_read tool.before of README.md gets no effect",
    "carried",
    CORE,
    ["ahp-12.1-c", "ahp-12.3-a"],
    ["server/tool-interception"],
    [(req(intercept(tool_before(ev(), kind="file_read", name="Read", inp=README))), decision("no_effect"))],
    policy="ctk.no-effect-file-read",
)

# --- 19 and 20: methods, events, ids -------------------------------------------

vector(
    "An unknown method gets a JSON-RPC error with the request's id",
    "20",
    ["AHP-RPC-001"],
    ["ahp-6.1-j"],
    ["base/errors"],
    [
        (req({"jsonrpc": "2.0", "id": ev("_0"), "method": "hooks/teleport", "params": {"protocolVersion": WIRE}}), error()),
        (probe(ev("_p")), decision()),
    ],
)
vector(
    "An unknown method gets -32601 (Method not found)",
    "20",
    ["AHP-RPC-001"],
    ["ahp-6.1-j"],
    ["base/errors"],
    [
        (req({"jsonrpc": "2.0", "id": ev("_0"), "method": "hooks/teleport", "params": {"protocolVersion": WIRE}}), error(-32601)),
        (probe(ev("_p")), decision()),
    ],
    advisory="D-04",
)
vector(
    "An intercept request carrying an event the draft never intercepts (tool.progress) gets a JSON-RPC error",
    "31",
    ["AHP-RPC-002", "AHP-RPC-001"],
    ["ahp-7.3-c"],
    ["base/errors", "base/events"],
    [
        (req(intercept(plain_event(ev("_0"), "tool.progress", call={"id": "call_1"}))), error()),
        (probe(ev("_p")), decision()),
    ],
    notes="The draft's intercept request admits tool.before, tool.after, session.start and some catalogue events; tool.progress is observe-only.",
)
vector(
    "An intercept request carrying an event type no draft defines gets -32002 (unsupported event)",
    "31",
    ["AHP-RPC-002"],
    ["ahp-7.3-c"],
    ["base/errors"],
    [
        (req(intercept(plain_event(ev("_0"), "tool.teleport"))), error(-32002)),
        (probe(ev("_p")), decision()),
    ],
    advisory="D-22",
)
vector(
    "A draft intercept request whose JSON-RPC id differs from event.id gets a JSON-RPC error",
    "carried",
    ["AHP-RPC-001"],
    ["ahp-6.2-j"],
    ["base/index"],
    [
        (req(edited(intercept(tool_before(ev("_0"))), lambda f: f.update({"id": ev("_other")}))), error()),
        (probe(ev("_p")), decision()),
    ],
    advisory="D-09",
)

# --- 29 and 31: observation ---------------------------------------------------

OBS = ["AHP-RPC-002", "AHP-RPC-001"]
TOOL_AFTER = plain_event(
    "evt_obs_after",
    "tool.after",
    call={"id": "call_1"},
    path="native",
    tool={"name": "Bash", "kind": "shell", "input": {"command": "ls -la"}, "origin": "native", "output": {"stdout": "a\n"}},
    outcome="success",
    execution={"status": "completed"},
    items=[],
)
vector(
    "A draft tool.after observe notification gets no reply; the next request is answered",
    "29",
    OBS,
    ["ahp-8.4-a"],
    ["base/events", "server/lifecycle-observation"],
    [(notif(observe(TOOL_AFTER)), none()), (probe(ev("_p")), decision())],
    profiles=("base", "lifecycle-observation", "tool-interception"),
)
vector(
    "A tool.error observe notification (an event the draft no longer has) gets no reply; the next request is answered",
    "29",
    OBS,
    ["ahp-8.4-a"],
    ["server/lifecycle-observation", "observation-disposition"],
    [
        (
            notif(observe(plain_event("evt_obs_error", "tool.error", call={"id": "call_1"}, path="native",
                                      tool={"name": "Bash", "input": {"command": "false"}, "origin": "native"},
                                      error={"message": "exit status 1"}))),
            none(),
        ),
        (probe(ev("_p")), decision()),
    ],
    profiles=("base", "lifecycle-observation", "tool-interception"),
)
CATALOGUE = [
    "config.change.before", "config.change.after", "turn.start", "turn.finish.before", "turn.end",
    "turn.progress", "model.request.before", "model.response.after", "model.error", "model.switch.before",
    "model.switch.after", "tool.permission.request", "tool.permission.resolved", "tool.progress",
    "tool.batch.after", "context.compact.before", "context.compact.after", "task.change.before",
    "task.change.after", "user.attention", "user.elicitation.request", "user.elicitation.result",
    "user.message.inbound", "user.message.outbound", "workspace.change.before", "workspace.change.after",
    "file.changed", "hook.failure",
]
for half, names in (("first", CATALOGUE[:14]), ("second", CATALOGUE[14:])):
    vector(
        "Observe notifications of the %s 14 draft catalogue events, without session, get no reply; the next request is answered" % half,
        "31",
        OBS,
        ["ahp-8.4-a"],
        ["base/events", "server/lifecycle-observation"],
        [(notif(observe(plain_event("evt_cat_%s" % t.replace(".", "_"), t)), t), none()) for t in names]
        + [(probe(ev("_p")), decision())],
        profiles=("base", "lifecycle-observation", "tool-interception"),
        notes="Each catalogue event carries only id, source, time, harness and type; no reply is allowed whether or not a backend finds it complete.",
    )
vector(
    "An observe notification whose protocolVersion is \"0.1\" gets no reply (notifications are never answered)",
    "1",
    OBS + ["AHP-VER-001"],
    ["ahp-8.4-a"],
    ["base/versioning", "server/lifecycle-observation"],
    [(notif(observe(TOOL_AFTER, version=OTHER_WIRE)), none()), (probe(ev("_p")), decision())],
    profiles=("base", "lifecycle-observation", "tool-interception"),
)
vector(
    "HTTP: an accepted draft observe notification is answered 202 or 204 with an empty body",
    "32",
    OBS,
    ["ahp-8.4-a"],
    ["base/transports/http"],
    [(notif(observe(TOOL_AFTER)), none(http_status=[202, 204], empty=True)), (probe(ev("_p")), decision())],
    binding="http",
    profiles=("base", "lifecycle-observation", "tool-interception"),
    advisory="D-03",
)


# --- issue 26: the same-decision pins, advisory (D-37, carried over) ------------
#
# The gating vectors above that change only an ignored member assert a valid
# decision; their twins here pin the preferred reading that the decision is
# the baseline's (0.1 DECISIONS.md D-37, "0.1" and "draft" swapped).

for gating, title, diff, fn, requirements, sections, covers in SAME_TWINS:
    base = intercept(tool_before(ev("_0")))
    changed = edited(intercept(tool_before(ev("_1"))), fn)
    twin = vector(
        title.replace(" is ignored: the request still gets a valid decision", " does not change the decision: the same decision as the baseline's (D-37)"),
        diff,
        requirements,
        covers,
        sections,
        [(req(base, "baseline"), decision()), (req(changed), decision(same_as=0))],
        advisory="D-37",
        notes="The text asks for a valid decision, not the same one (a backend may decide by its own state, "
        "the event id or the time). Gating twin: %s." % gating["id"],
    )
    gating["notes"] += (" The text asks for a valid decision, not the same one; that the decision equals the "
                        "baseline's is the advisory %s (D-37)." % twin["id"])


# Issue 27 (the reference backend's mutation survivor `!tool.contains_key("mcp")`): base/events.md
# "MCP origin requires a self-contained `mcp` descriptor; native origin forbids it." The mcp-origin half is
# the vector above without tool.mcp; this is the native half.
invalid(
    "A draft tool.before with tool.origin native that carries a tool.mcp descriptor is refused",
    "7",
    lambda f: f["params"]["event"]["tool"].update({"mcp": copy.deepcopy(MCP)}),
    SHAPE,
    ["base/events"],
)


# Issue 27: 0.1's AHP-B-0070 carried over. transports/stdio.md keeps the
# framing (one JSON-RPC object per line) and "The backend MUST NOT write
# banners, logs, progress indicators, or other non-protocol content to
# `stdout`." A line of 2,200,000 bytes that is not JSON, past the reference's
# 1 MiB bound: whether a backend answers it is open (D-35 carried over), and
# so is its exit status after it (a per_event process that met garbage), but
# whatever reaches stdout is held to the rule.
vector(
    "stdio: a line of 2.2 MB that is not JSON, past any small bound, gets at most a JSON-RPC error and nothing else on stdout",
    "carried",
    ["AHP-STDIO-001"],
    ["ahp-17.1-d", "ahp-17.1-a"],
    ["base/transports/stdio"],
    [({"raw": "x", "repeat": 2200000, "note": "2,200,000 bytes of x, then the newline"},
      {"reply": "at_most_one", "class": "jsonrpc_error"}),
     (probe(ev("_probe")), decision(http=False))],
    binding="stdio",
    lifecycle="per_event",
    exit_zero=False,
)


# --- output ---------------------------------------------------------------------



def main():
    check = "--check" in sys.argv[1:]
    if "--tally" in sys.argv[1:]:
        for k in sorted(TALLY, key=lambda x: (not x.isdigit(), int(x) if x.isdigit() else 0, x)):
            print("  %-8s %d" % (k, TALLY[k]))
    return write_or_check(OUT, "AHP-DB-", VECTORS, "draft vectors", check)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Generate the AHP 0.1 backend-role vectors (vectors/ahp/0.1/AHP-B-*.json).

Deterministic and stdlib-only: the same checkout always writes the same
bytes, so CI can regenerate and require `git diff --exit-code`.

    python3 vectors/ahp/gen/generate.py            # write the vectors
    python3 vectors/ahp/gen/generate.py --check    # exit 1 if any differs

Every vector asserts only what the released 0.1 text requires of a backend;
a SHOULD or a preferred reading is an `advisory` vector naming its decision
in spec/ahp/0.1/DECISIONS.md. Policy-dependent decisions are structural only, except the
few vectors with a `policy` precondition (ahp/suite/src/policy.rs).
"""

import copy
import json
import os
import sys
from vector_files import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.normpath(os.path.join(HERE, "..", "0.1"))
SCHEMA = "../../../schemas/ahp/vector.schema.json"
REVISION = "0.1.0-draft.1"
SOURCE = "urn:uuid:5b7de29e-a9e0-41a8-bf26-d94b05f0656d"
TIME = "2026-08-24T08:51:14Z"

# --- messages ---------------------------------------------------------------


def tool_before(eid, kind="shell", name="Bash", inp=None, session=None, call="call_1"):
    return {
        "id": eid,
        "source": SOURCE,
        "type": "tool.before",
        "time": TIME,
        "session": session if session is not None else {"id": "sess_ctk"},
        "tool": {
            "callId": call,
            "name": name,
            "kind": kind,
            "input": inp if inp is not None else {"command": "ls -la"},
        },
    }


def intercept(event, version="0.1", effects=("deny",), method="hooks/intercept"):
    return {
        "jsonrpc": "2.0",
        "id": event["id"],
        "method": method,
        "params": {
            "protocolVersion": version,
            "event": event,
            "capabilities": {"effects": list(effects)},
        },
    }


def observe(event, version="0.1"):
    return {
        "jsonrpc": "2.0",
        "method": "hooks/observe",
        "params": {"protocolVersion": version, "event": event},
    }


def tool_after(eid):
    e = tool_before(eid, inp={"command": "git status"})
    e["type"] = "tool.after"
    e["tool"]["output"] = {"exitCode": 0, "stdout": "On branch main\n", "stderr": ""}
    return e


def tool_error(eid):
    e = tool_before(eid, inp={"command": "false"})
    e["type"] = "tool.error"
    e["tool"]["error"] = {"message": "exit status 1"}
    return e


def session_event(eid, typ, outcome=None):
    e = {"id": eid, "source": SOURCE, "type": typ, "time": TIME, "session": {"id": "sess_ctk"}}
    if outcome:
        e["outcome"] = outcome
    return e


FORCE_PUSH = {"command": "git push --force"}
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


def raw(text, note=None, repeat=None):
    s = {"raw": text}
    if repeat is not None:
        s["repeat"] = repeat
    if note:
        s["note"] = note
    return s


def decision(cls="any_valid_decision", same_as=None, http=True):
    e = {"reply": "one", "class": cls, "assert": [ECHO]}
    if same_as is not None:
        e["same_decision_as"] = same_as
    if http:
        e["http_status"] = [200]
        e["content_type"] = "application/json"
    return e


def error(code=None, http=True):
    e = {"reply": "one", "class": "jsonrpc_error", "assert": [ECHO]}
    if code is not None:
        e["error_code"] = code
    if http:
        e["content_type"] = "application/json"
    return e


def none():
    return {"reply": "none"}


def probe(eid):
    """The request that ends a vector: its reply proves the backend read
    everything sent before it (so silence is never a pass by itself)."""
    return req(intercept(tool_before(eid)), "probe: answered only if the backend read every earlier message")


VECTORS = []


def vector(
    title,
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
    run=None,
):
    vid = "AHP-B-%04d" % (len(VECTORS) + 1)
    if run is None:
        run = {"canary": "error_data"}
        if binding != "http":
            run["stdout_protocol_only"] = True
            run["per_event_exit_zero"] = True
    if binding == "stdio":
        for _, e in steps:
            e.pop("http_status", None)
            e.pop("content_type", None)
    v = {
        "$schema": SCHEMA,
        "id": vid,
        "title": title,
        "ahp": REVISION,
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
    if notes:
        v["notes"] = notes
    v["send"] = [s for s, _ in steps]
    v["expect"] = [e for _, e in steps]
    v["run"] = run
    VECTORS.append(v)
    return v


def with_unknown(frame, where):
    """A copy of an intercept frame with an unknown member at `where`."""
    f = copy.deepcopy(frame)
    targets = {
        "root": f,
        "params": f["params"],
        "event": f["params"]["event"],
        "session": f["params"]["event"]["session"],
        "tool": f["params"]["event"]["tool"],
        "capabilities": f["params"]["capabilities"],
    }
    targets[where]["ctkUnknownMember"] = {"nested": [1, "two", None], "flag": True}
    return f


# --- the vectors ------------------------------------------------------------

# 1. valid requests: one reply, id echoed, a valid 0.1 decision
CORE_DECISION = ["AHP-RPC-001", "AHP-RPC-002", "AHP-VER-001", "AHP-DEC-001", "AHP-CAP-001"]
DEC_COVERS = ["ahp-6.2-j", "ahp-7.2-d", "ahp-12.1-a", "ahp-12.1-b", "ahp-12.1-c", "ahp-12.2-a", "ahp-12.2-b", "ahp-12.2-c", "ahp-11-c"]

vector(
    "A minimal valid tool.before intercept gets exactly one response echoing the id, with protocolVersion 0.1 and no effect or one valid deny",
    CORE_DECISION,
    # The decision check also fails a reply that is not one JSON object (a
    # batch, 7.1), a result that is not an object (7.4) and an extension key
    # that is not reverse-DNS (9.5).
    DEC_COVERS + ["ahp-7.1-a", "ahp-7.1-c", "ahp-9.4-b", "ahp-7.1-b", "ahp-7.4-a", "ahp-9.5-a"],
    ["6.2", "7.1", "7.2", "8.1", "11", "12.1", "12.2"],
    [(req(intercept(tool_before("evt_b0001"))), decision())],
)
vector(
    "The spec's own 8.1 request (git push --force, session cwd and workspaceRoots) gets one valid decision",
    CORE_DECISION + ["AHP-TB-001"],
    DEC_COVERS,
    ["6.2", "8.1", "8.2", "8.3", "12.1"],
    [(req(intercept(tool_before("evt_01JQ8Z2Y6YR0H8N7Q2M3X4V5W6", inp=FORCE_PUSH, session={"id": "sess_123", "cwd": "/repo", "workspaceRoots": ["/repo"]}, call="call_456"))), decision())],
    notes="Structural only: the suite does not know the backend's policy; the policy-bound vectors (policy ctk.deny-force-push) expect the deny.",
)
vector(
    "Three requests on one connection or process sequence each get exactly one response with their own id",
    ["AHP-RPC-001", "AHP-DEC-001", "AHP-STDIO-001"],
    ["ahp-6.2-j", "ahp-12.1-c"],
    ["6.2", "8.1", "17.2"],
    [(req(intercept(tool_before("evt_b0003_%d" % i, call="call_%d" % i))), decision()) for i in range(3)],
)
KINDS = ["shell", "file_read", "file_write", "file_edit", "search", "fetch", "task", "mcp", "other"]
kind_steps = []
for k in KINDS:
    ev = tool_before("evt_b0004_" + k, kind=k, name="tool_" + k, inp={"arg": k}, call="call_" + k)
    if k == "mcp":
        ev["tool"]["mcp"] = {"server": "github", "tool": "create_issue"}
    kind_steps.append((req(intercept(ev)), decision()))
vector(
    "Every 0.1 tool kind (shell, file_read, file_write, file_edit, search, fetch, task, mcp with its mcp object, other) gets one valid decision",
    ["AHP-TB-001", "AHP-DEC-001"],
    ["ahp-6.2-j", "ahp-12.1-c"],
    ["6.2", "9.3", "12.1"],
    kind_steps,
)
vector(
    "A session with every optional member (cwd, workspaceRoots, model, agent with id and type) gets one valid decision",
    ["AHP-TB-001", "AHP-DEC-001"],
    ["ahp-6.2-j"],
    ["6.2", "9.2"],
    [(req(intercept(tool_before("evt_b0005", session={"id": "sess_full", "cwd": "/work", "workspaceRoots": ["/work", "/shared"], "model": "example-model-1", "agent": {"id": "sub_1", "type": "reviewer"}}))), decision())],
)
vector(
    "Tool input with Unicode (accents, CJK, emoji, right-to-left text, combining marks) and a non-ASCII event id gets one valid decision echoing the id exactly",
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["ahp-7.1-a", "ahp-6.2-j"],
    ["7.1", "6.2", "8.1"],
    [(req(intercept(tool_before("evt_ünïcødé_日本_🚀", inp={"command": "echo 'héllo wörld — 日本語 🚀 שלום e\u0301'", "path": "/tmp/データ/ファイル.txt"}))), decision())],
)
vector(
    "A request written with \\u escapes (surrogate pairs included) gets one valid decision whose id is the decoded id",
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["ahp-7.1-a", "ahp-6.2-j"],
    ["7.1", "6.2"],
    [(raw('{"jsonrpc":"2.0","id":"evt_b0007_\\u00e9\\ud83d\\ude80","method":"hooks/intercept","params":{"protocolVersion":"0.1","event":{"id":"evt_b0007_\\u00e9\\ud83d\\ude80","source":"' + SOURCE + '","type":"tool.before","time":"' + TIME + '","session":{"id":"sess_ctk"},"tool":{"callId":"call_1","name":"Bash","kind":"shell","input":{"command":"echo \\u65e5\\u672c \\"quoted\\" back\\\\slash\\ttab"}}},"capabilities":{"effects":["deny"]}}}'), decision())],
)
vector(
    "A request whose input holds literal U+2028 and U+2029 (legal in JSON strings, not line ends) gets one valid decision",
    ["AHP-RPC-001", "AHP-STDIO-001", "AHP-DEC-001"],
    ["ahp-7.1-a", "ahp-17.1-a", "ahp-6.2-j"],
    ["7.1", "17.1"],
    [(raw(json.dumps(intercept(tool_before("evt_b0008", inp={"text": "line\u2028separator\u2029paragraph"})), ensure_ascii=False, separators=(",", ":"))), decision())],
)
vector(
    "A request with a 16 KiB tool input gets one valid decision",
    ["AHP-DEC-001", "AHP-TB-001"],
    ["ahp-6.2-j"],
    ["6.2", "9.3"],
    [(req(intercept(tool_before("evt_b0009", kind="file_write", name="write_file", inp={"path": "big.txt", "content": "x" * 16384}))), decision())],
)

# 2. versions
vector(
    "An intercept with protocolVersion \"0.2\" gets the JSON-RPC error -32001 echoing the id",
    ["AHP-VER-001", "AHP-RPC-001"],
    ["ahp-6.1-j", "ahp-7.2-b", "ahp-6.1-b"],
    ["6.1", "7.2", "16"],
    [(req(intercept(tool_before("evt_b0010"), version="0.2")), error(-32001))],
)
vector(
    "An intercept with protocolVersion \"draft\" (the upstream draft line) gets -32001",
    ["AHP-VER-001"],
    ["ahp-6.1-j", "ahp-7.2-b"],
    ["7.2", "16"],
    [(req(intercept(tool_before("evt_b0011"), version="draft")), error(-32001))],
)
vector(
    "Version matching is exact: \"0.1.0\", \"1.0\" and \"0.10\" each get -32001",
    ["AHP-VER-001"],
    ["ahp-6.1-j", "ahp-7.2-b"],
    ["7.2", "16"],
    [(req(intercept(tool_before("evt_b0012_%d" % i), version=v)), error(-32001)) for i, v in enumerate(["0.1.0", "1.0", "0.10"])],
)
vector(
    "After an unsupported-version error the backend still answers a 0.1 request with a valid decision",
    ["AHP-VER-001", "AHP-DEC-001"],
    ["ahp-7.2-b", "ahp-6.2-j"],
    ["7.2", "6.2"],
    [(req(intercept(tool_before("evt_b0013_a"), version="0.2")), error(-32001)), (req(intercept(tool_before("evt_b0013_b"))), decision())],
)
v = vector(
    "The -32001 error names the supported versions as data.supported [\"0.1\"], as the spec's example does",
    ["AHP-VER-001"],
    ["ahp-7.2-b"],
    ["16"],
    [(req(intercept(tool_before("evt_b0014"), version="0.2")), error(-32001))],
    advisory="D-22",
)
v["expect"][0]["assert"].append({"ptr": "/error/data/supported", "eq": ["0.1"]})

# 3. events
vector(
    "An intercept carrying an observation-only event (tool.after, tool.error, session.start, session.end) gets -32002 each time",
    ["AHP-RPC-002", "AHP-TB-001"],
    ["ahp-6.1-j", "ahp-7.3-c"],
    ["6.1", "10.1", "16"],
    [
        (req(intercept(tool_after("evt_b0015_a"))), error(-32002)),
        (req(intercept(tool_error("evt_b0015_b"))), error(-32002)),
        (req(intercept(session_event("evt_b0015_c", "session.start"))), error(-32002)),
        (req(intercept(session_event("evt_b0015_d", "session.end", "completed"))), error(-32002)),
    ],
)
unk = tool_before("evt_b0016")
unk["type"] = "tool.future_event"
vector(
    "An intercept with an event type 0.1 does not define gets a JSON-RPC error echoing the id (unknown event types are unsupported semantics, not ignorable data)",
    ["AHP-RPC-002", "AHP-CORE-003"],
    ["ahp-6.1-j", "ahp-7.3-c"],
    ["7.3", "16"],
    [(req(intercept(unk)), error()), (probe("evt_b%04d_probe" % (len(VECTORS) + 1)), decision())],
)
unk2 = copy.deepcopy(unk)
unk2["id"] = "evt_b%04d" % (len(VECTORS) + 1)
vector(
    "An intercept with an event type 0.1 does not define gets -32002 (unsupported_event)",
    ["AHP-RPC-002", "AHP-CORE-003"],
    ["ahp-6.1-j", "ahp-7.3-c"],
    ["7.3", "16"],
    [(req(intercept(unk2)), error(-32002))],
    advisory="D-22",
)

# 4. methods
vector(
    "A request for an unknown method gets a JSON-RPC error echoing the id",
    ["AHP-RPC-001", "AHP-RPC-002"],
    ["ahp-6.1-j"],
    ["6.1", "16"],
    [(req(intercept(tool_before("evt_b0017"), method="hooks/unknown")), error())],
)
vector(
    "A request for an unknown method gets -32601 (JSON-RPC 2.0 \"Method not found\"; AHP does not restate the code)",
    ["AHP-RPC-001"],
    ["ahp-6.1-j"],
    ["6.1", "16"],
    [(req(intercept(tool_before("evt_b0018"), method="hooks/capabilities")), error(-32601))],
    advisory="D-04",
)
un_notif = observe(session_event("evt_b0019", "session.start"))
un_notif["method"] = "hooks/unknown_notification"
vector(
    "A notification for an unknown method gets no response at all, not even an error",
    ["AHP-RPC-002"],
    ["ahp-6.1-j", "ahp-8.4-a"],
    ["6.1", "8.4"],
    [(notif(un_notif), none()), (probe("evt_b0019_probe"), decision())],
    profiles=("base", "lifecycle-observation"),
)

# 5. notifications
OBS = ["AHP-RPC-002", "AHP-VER-001"]
vector(
    "A hooks/observe tool.after notification gets no response, and the next request is answered with its own id",
    OBS,
    ["ahp-8.4-a", "ahp-7.1-c"],
    ["7.1", "8.4", "10.2"],
    [(notif(observe(tool_after("evt_b0020"))), none()), (probe("evt_b0020_probe"), decision())],
    profiles=("base", "lifecycle-observation"),
)
vector(
    "hooks/observe notifications for tool.before, tool.error, session.start and session.end get no response",
    OBS,
    ["ahp-8.4-a"],
    ["8.4", "10"],
    [
        (notif(observe(tool_before("evt_b0021_a"))), none()),
        (notif(observe(tool_error("evt_b0021_b"))), none()),
        (notif(observe(session_event("evt_b0021_c", "session.start"))), none()),
        (notif(observe(session_event("evt_b0021_d", "session.end", "cancelled"))), none()),
        (probe("evt_b0021_probe"), decision()),
    ],
    profiles=("base", "lifecycle-observation"),
)
vector(
    "A notification with an unsupported protocolVersion gets no error response (notifications never receive error responses)",
    ["AHP-RPC-002", "AHP-VER-001"],
    ["ahp-6.1-j", "ahp-8.4-a"],
    ["6.1", "7.2", "8.4"],
    [(notif(observe(tool_after("evt_b0022"), version="0.2")), none()), (probe("evt_b0022_probe"), decision())],
    profiles=("base", "lifecycle-observation"),
)
odd = tool_after("evt_b0023")
odd["type"] = "tool.future_event"
bad_params = {"jsonrpc": "2.0", "method": "hooks/observe", "params": {"protocolVersion": "0.1"}}
vector(
    "Notifications with an unknown event type or without an event get no response",
    ["AHP-RPC-002"],
    ["ahp-6.1-j", "ahp-8.4-a"],
    ["6.1", "8.4"],
    [(notif(observe(odd)), none()), (notif(bad_params), none()), (probe("evt_b0023_probe"), decision())],
    profiles=("base", "lifecycle-observation"),
)

# 6. unknown members
#
# Gating: a request with unknown members is still a valid request (7.3, 6.1),
# so it gets one valid decision (6.2), never an error. That the decision is
# the one the same request gets without them is D-37, pinned only by the
# advisory twins in section 15 (issue 26: the text never makes a backend's
# decision a function of the request alone).
WHERES = ["root", "params", "event", "session", "tool", "capabilities"]
base = intercept(tool_before("evt_b_unknown_plain"))


def unknown_pair(where):
    """The plain request and the same request with an unknown member at
    `where` (every level when `where` is None), ids from the next vector."""
    n = len(VECTORS) + 1
    plain = copy.deepcopy(base)
    plain["id"] = plain["params"]["event"]["id"] = "evt_b%04d_plain" % n
    extra = copy.deepcopy(plain)
    for w in WHERES if where is None else [where]:
        extra = with_unknown(extra, w)
    extra["id"] = extra["params"]["event"]["id"] = "evt_b%04d_unknown" % n
    return plain, extra


UNKNOWN_GATING = []
for where in WHERES:
    plain, extra = unknown_pair(where)
    UNKNOWN_GATING.append(vector(
        "An unknown member in the request's %s object is ignored: the request still gets one valid decision (no effect or one deny), not an error" % where,
        ["AHP-CORE-003", "AHP-DEC-001"],
        ["ahp-6.1-i", "ahp-7.3-a", "ahp-6.1-b"],
        ["6.1", "7.3"],
        [(req(plain), decision()), (req(extra), decision())],
    ))
plain, everywhere = unknown_pair(None)
UNKNOWN_GATING.append(vector(
    "Unknown members at every level at once (root, params, event, session, tool, capabilities) are ignored: the request still gets one valid decision, not an error",
    ["AHP-CORE-003", "AHP-DEC-001"],
    ["ahp-6.1-i", "ahp-7.3-a"],
    ["6.1", "7.3"],
    [(req(plain), decision()), (req(everywhere), decision())],
))

# 7. native and extensions
def with_native(frame):
    f = copy.deepcopy(frame)
    f["params"]["event"]["native"] = {"provider": "claude-code", "eventName": "PreToolUse", "payload": {"tool_name": "Bash", "tool_input": {"command": "ls -la"}}}
    return f


def with_extensions(frame):
    f = copy.deepcopy(frame)
    f["params"]["event"]["extensions"] = {"org.w3c.trace_context": {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "tracestate": "congo=t61rcWkgMzE"}}
    f["params"]["extensions"] = {"com.example.ctk.unknown": {"any": ["json", 1, True, None]}}
    return f


def renamed(frame, eid):
    f = copy.deepcopy(frame)
    f["id"] = f["params"]["event"]["id"] = eid
    return f


plain = intercept(tool_before("evt_b_native"))
n = len(VECTORS) + 1
vector(
    "An event carrying a native payload gets one valid decision (native data is optional fidelity data)",
    ["AHP-EXT-001", "AHP-DEC-001"],
    # A decision that inferred capabilities from the provider named in
    # native would return an effect the request did not advertise: invalid.
    ["ahp-9.4-c", "ahp-6.2-j", "ahp-11-e"],
    ["9.1", "9.4"],
    [(req(renamed(with_native(plain), "evt_b%04d" % n)), decision())],
)
n = len(VECTORS) + 1
vector(
    "Unknown extensions on the event and on params (reverse-DNS keys, any JSON values) are not interpreted: one valid decision",
    ["AHP-EXT-001", "AHP-DEC-001"],
    ["ahp-9.5-b", "ahp-9.5-d", "ahp-6.2-j"],
    ["9.5", "8.1"],
    [(req(renamed(with_extensions(plain), "evt_b%04d" % n)), decision())],
)
n = len(VECTORS) + 1
vector(
    "With native and extensions present the backend decides as it does without them",
    ["AHP-EXT-001", "AHP-CORE-003"],
    ["ahp-6.1-k", "ahp-9.4-c", "ahp-9.5-d"],
    ["6.1", "9.4", "9.5"],
    [
        (req(renamed(plain, "evt_b%04d_plain" % n)), decision()),
        (req(renamed(with_native(plain), "evt_b%04d_native" % n)), decision(same_as=0)),
        (req(renamed(with_extensions(plain), "evt_b%04d_ext" % n)), decision(same_as=0)),
    ],
    advisory="D-34",
)
n = len(VECTORS) + 1
vector(
    "Capabilities advertising an extension effect next to deny still get a 0.1 result: no effect or one deny",
    ["AHP-CAP-001", "AHP-DEC-001"],
    ["ahp-11-c", "ahp-12.1-c"],
    ["11", "12.1"],
    [(req(intercept(tool_before("evt_b%04d" % n), effects=("deny", "com.example.ctk.annotate"))), decision())],
    advisory="D-16",
)

# 8. duplicate delivery
dup = intercept(tool_before("evt_b_dup"))
n = len(VECTORS) + 1
vector(
    "The same request delivered twice (same ids, same content) gets a valid response each time: duplicates are tolerated",
    ["AHP-CORE-004", "AHP-DEC-001"],
    ["ahp-15-c", "ahp-6.2-j"],
    ["15"],
    [(req(renamed(dup, "evt_b%04d" % n)), decision()), (req(renamed(dup, "evt_b%04d" % n), "a retry: identical bytes"), decision())],
)
n = len(VECTORS) + 1
vector(
    "The same request delivered twice gets the same decision both times",
    ["AHP-CORE-004"],
    ["ahp-15-c"],
    ["15"],
    [(req(renamed(dup, "evt_b%04d" % n)), decision()), (req(renamed(dup, "evt_b%04d" % n)), decision(same_as=0))],
    advisory="D-33",
)

# 9. stdio framing and hygiene
n = len(VECTORS) + 1
vector(
    "stdio persistent: requests and notifications interleaved, then stdin closed; stdout carries only the responses, one object per line",
    ["AHP-STDIO-001", "AHP-RPC-002"],
    ["ahp-17.1-a", "ahp-17.1-b", "ahp-17.1-d", "ahp-8.4-a"],
    ["17.1", "17.2"],
    [
        (req(intercept(tool_before("evt_b%04d_a" % n))), decision(http=False)),
        (notif(observe(tool_after("evt_b%04d_b" % n))), none()),
        (req(intercept(tool_before("evt_b%04d_c" % n))), decision(http=False)),
        ({"close_stdin": True, "note": "end of input: nothing more may appear but what is owed"}, none()),
    ],
    binding="stdio",
    lifecycle="persistent",
)
n = len(VECTORS) + 1
vector(
    "stdio per_event: one request, stdin closed; the process writes one response line and exits with status 0",
    ["AHP-STDIO-001", "AHP-DEC-001"],
    ["ahp-17.1-a", "ahp-17.1-d", "ahp-6.2-j"],
    ["17.3"],
    [(req(intercept(tool_before("evt_b%04d" % n))), decision(http=False))],
    binding="stdio",
    lifecycle="per_event",
)
n = len(VECTORS) + 1
vector(
    "stdio per_event: a notification process writes nothing to stdout; the next process answers its request and exits 0",
    ["AHP-STDIO-001", "AHP-RPC-002"],
    ["ahp-8.4-a", "ahp-17.1-d"],
    ["17.3", "8.4"],
    [(notif(observe(tool_after("evt_b%04d" % n))), none()), (probe("evt_b%04d_probe" % n), decision(http=False))],
    binding="stdio",
    lifecycle="per_event",
    profiles=("base", "lifecycle-observation"),
)
n = len(VECTORS) + 1
vector(
    "stdio: no stdout line holds a carriage return and none is blank (exactly one LF per frame, nothing else)",
    ["AHP-STDIO-001"],
    ["ahp-17.1-a"],
    ["17.1"],
    [(req(intercept(tool_before("evt_b%04d" % n))), decision(http=False))],
    binding="stdio",
    advisory="D-24",
    run={"stdout_protocol_only": True, "stdout_strict_lines": True, "per_event_exit_zero": True, "canary": "error_data"},
)
n = len(VECTORS) + 1
vector(
    "stdio persistent: after a line that is not JSON, the backend still answers the next request",
    ["AHP-STDIO-001"],
    ["ahp-17.1-d"],
    ["17.1", "17.2"],
    [(raw("this is not json {", "garbage in"), {"reply": "one", "class": "any"}), (probe("evt_b%04d_probe" % n), decision(http=False))],
    binding="stdio",
    lifecycle="persistent",
    advisory="D-35",
    notes="JSON-RPC 2.0 answers a parse error with id null; AHP says nothing of garbage input, so both the answer and the recovery are advisory.",
)

# 10. HTTP
n = len(VECTORS) + 1
vector(
    "HTTP: an intercept is answered with status 200 and Content-Type application/json holding the JSON-RPC response",
    ["AHP-HTTP-001", "AHP-DEC-001"],
    ["ahp-18.1-a", "ahp-18.1-b", "ahp-18.1-c", "ahp-6.2-j"],
    ["18.1"],
    [(req(intercept(tool_before("evt_b%04d" % n, kind="file_write", name="write_file", inp={"path": "src/main.rs", "content": "fn main() {}"}, session={"id": "sess_http"}))), decision())],
    binding="http",
)
n = len(VECTORS) + 1
vector(
    "HTTP: a JSON-RPC error response body is application/json",
    ["AHP-HTTP-001", "AHP-VER-001"],
    ["ahp-18.1-a", "ahp-18.1-b", "ahp-7.2-b"],
    ["18.1", "16"],
    [(req(intercept(tool_before("evt_b%04d" % n), version="0.2")), error(-32001)), (probe("evt_b%04d_probe" % n), decision())],
    binding="http",
)
n = len(VECTORS) + 1
v = vector(
    "HTTP: a JSON-RPC error response comes with status 200 (the status carries the exchange, the body the error)",
    ["AHP-HTTP-001"],
    ["ahp-18.1-c"],
    ["18.1"],
    [(req(intercept(tool_before("evt_b%04d" % n), version="0.2")), error(-32001)), (probe("evt_b%04d_probe" % n), decision())],
    binding="http",
    advisory="D-19",
)
v["expect"][0]["http_status"] = [200]
n = len(VECTORS) + 1
v = vector(
    "HTTP: an accepted hooks/observe notification is answered 202 Accepted or 204 No Content with an empty body",
    ["AHP-HTTP-001", "AHP-RPC-002"],
    ["ahp-18.1-d"],
    ["18.1"],
    [(notif(observe(tool_after("evt_b%04d" % n))), none()), (probe("evt_b%04d_probe" % n), decision())],
    binding="http",
    advisory="D-03",
    profiles=("base", "lifecycle-observation"),
)
v["expect"][0]["http_status"] = [202, 204]
v["expect"][0]["http_empty_body"] = True

# 11. secrets
n = len(VECTORS) + 1
SECRET_STEPS = lambda n, http: [
    (req(intercept(tool_before("evt_b%04d_a" % n, inp=FORCE_PUSH))), decision(http=http)),
    (req(intercept(tool_before("evt_b%04d_b" % n), version="0.2")), error(-32001, http=http)),
    (req(intercept(tool_after("evt_b%04d_c" % n))), error(-32002, http=http)),
    (req(intercept(tool_before("evt_b%04d_d" % n), method="hooks/unknown")), error(http=http)),
]
vector(
    "The secret the kit hands the backend (bearer token over HTTP, environment over stdio) never appears in JSON-RPC error data",
    ["AHP-SEC-001"],
    ["ahp-16-a", "ahp-18.3-a"],
    ["16", "18.3"],
    SECRET_STEPS(n, True),
    run={"canary": "error_data", "stdout_protocol_only": True, "per_event_exit_zero": True},
)
n = len(VECTORS) + 1
vector(
    "HTTP: the bearer token never appears in anything the backend answers (denial reasons, error data, any body)",
    ["AHP-SEC-001", "AHP-HTTP-001"],
    ["ahp-18.3-a"],
    ["18.3"],
    SECRET_STEPS(n, True),
    binding="http",
    run={"canary": "anywhere"},
)
n = len(VECTORS) + 1
vector(
    "The secret the kit hands the backend appears nowhere in anything it writes back (stdout, HTTP bodies)",
    ["AHP-SEC-001"],
    ["ahp-12.2-f", "ahp-18.3-a"],
    ["12.2", "16", "18.3"],
    SECRET_STEPS(n, True),
    advisory="D-31",
    run={"canary": "anywhere", "stdout_protocol_only": True, "per_event_exit_zero": True},
)

# 12. requests that are not valid 0.1 requests still get one response
n = len(VECTORS) + 1
nov = intercept(tool_before("evt_b%04d" % n))
del nov["params"]["protocolVersion"]
vector(
    "An intercept request without protocolVersion gets a JSON-RPC error echoing its id",
    ["AHP-RPC-001", "AHP-VER-001"],
    ["ahp-6.1-a", "ahp-6.1-j"],
    ["6.1", "7.1", "7.2"],
    [(req(nov), error()), (probe("evt_b%04d_probe" % n), decision())],
)
n = len(VECTORS) + 1
vector(
    "An intercept request without protocolVersion gets -32602 (invalid params)",
    ["AHP-VER-001"],
    ["ahp-6.1-j"],
    ["6.1", "7.2"],
    [(req(renamed(nov, "evt_b%04d" % n)), error(-32602)), (probe("evt_b%04d_probe" % n), decision())],
    advisory="D-22",
)
n = len(VECTORS) + 1
mis = intercept(tool_before("evt_b%04d_event" % n))
mis["id"] = "evt_b%04d_outer" % n
vector(
    "A request whose JSON-RPC id differs from params.event.id gets exactly one response, and it echoes the request's id",
    ["AHP-RPC-001"],
    ["ahp-6.1-a", "ahp-6.2-j"],
    ["8.1"],
    [(req(mis), {"reply": "one", "class": "any", "assert": [ECHO]}), (probe("evt_b%04d_probe" % n), decision())],
)
n = len(VECTORS) + 1
mis2 = copy.deepcopy(mis)
mis2["id"] = "evt_b%04d_outer" % n
vector(
    "A request whose JSON-RPC id differs from params.event.id gets a JSON-RPC error",
    ["AHP-RPC-001"],
    ["ahp-6.1-j"],
    ["8.1"],
    [(req(mis2), error()), (probe("evt_b%04d_probe" % n), decision())],
    advisory="D-09",
)

# 13. policy-bound vectors (run only when the backend declares the policy)
POL = "ctk.deny-force-push"
n = len(VECTORS) + 1
vector(
    "Policy ctk.deny-force-push: the spec's force-push request is denied with exactly one deny carrying a non-empty reason",
    ["AHP-DEC-001", "AHP-CAP-001"],
    ["ahp-6.2-j", "ahp-12.1-c", "ahp-12.2-a", "ahp-12.2-b", "ahp-12.2-c", "ahp-12.2-d"],
    ["8.3", "12.1", "12.2"],
    [(req(intercept(tool_before("evt_b%04d" % n, inp=FORCE_PUSH))), decision("explicit_deny"))],
    policy=POL,
)
n = len(VECTORS) + 1
vector(
    "Policy ctk.no-effect-file-read: reading README.md gets effects []",
    ["AHP-DEC-001"],
    ["ahp-6.2-j", "ahp-12.1-c"],
    ["8.2", "12.1"],
    [(req(intercept(tool_before("evt_b%04d" % n, kind="file_read", name="Read", inp=README))), decision("no_effect"))],
    policy="ctk.no-effect-file-read",
)
n = len(VECTORS) + 1
fp = intercept(tool_before("evt_b%04d" % n, inp=FORCE_PUSH))
vector(
    "Policy ctk.deny-force-push: unknown members everywhere do not turn the deny into anything else",
    ["AHP-CORE-003", "AHP-DEC-001"],
    ["ahp-6.1-i", "ahp-7.3-a"],
    ["7.3", "12.2"],
    [(req(renamed(fp, "evt_b%04d" % n)), decision("explicit_deny")),
     (req(renamed(with_unknown(with_unknown(with_unknown(fp, "root"), "event"), "tool"), "evt_b%04d_unknown" % n)), decision("explicit_deny"))],
    policy=POL,
)
n = len(VECTORS) + 1
claim = with_native(fp)
claim["params"]["event"]["native"]["payload"] = {"permissionDecision": "allow", "approved": True}
claim["params"]["event"]["extensions"] = {"com.example.ctk.authorization": {"allow": True, "approvedBy": "admin"}}
vector(
    "Policy ctk.deny-force-push: a native payload and an extension claiming approval are not trusted authorization claims; the call is still denied",
    ["AHP-SEC-001", "AHP-EXT-001"],
    ["ahp-20.5-a", "ahp-9.4-c", "ahp-9.5-d", "ahp-11-e"],
    ["9.4", "9.5", "20.5"],
    [(req(renamed(claim, "evt_b%04d" % n)), decision("explicit_deny"))],
    policy=POL,
)
n = len(VECTORS) + 1
vector(
    "Policy ctk.deny-force-push: the same force-push request delivered twice is denied both times",
    ["AHP-CORE-004", "AHP-DEC-001"],
    ["ahp-15-c"],
    ["15"],
    [(req(renamed(fp, "evt_b%04d" % n)), decision("explicit_deny")), (req(renamed(fp, "evt_b%04d" % n)), decision("explicit_deny"))],
    policy=POL,
    advisory="D-33",
)


# 14. added after the first release of the ids (ids are stable: new vectors go last)
n = len(VECTORS) + 1
pieces = req(intercept(tool_before("evt_b%04d_ü" % n, inp={"command": "echo 'ünïcødé 日本語 🚀'"})), "written in 7 pieces, cut inside UTF-8 characters")
pieces["pieces"] = 7
vector(
    "stdio: a request written to stdin in several pieces, 20 ms apart and cut inside UTF-8 characters, is one message ended by its newline: one valid decision",
    ["AHP-STDIO-001", "AHP-RPC-001", "AHP-DEC-001"],
    ["ahp-17.1-a", "ahp-6.1-a", "ahp-6.2-j"],
    ["17.1", "7.1"],
    [
        (req(intercept(tool_before("evt_b%04d_first" % n)), "first a whole frame, so the backend is up and reading"), decision(http=False)),
        (pieces, decision(http=False)),
        (probe("evt_b%04d_probe" % n), decision(http=False)),
    ],
    binding="stdio",
)
n = len(VECTORS) + 1
outstanding = req(intercept(tool_before("evt_b%04d_a" % n)), "its reply is awaited only after the notification is sent")
outstanding["no_wait"] = True
vector(
    "stdio persistent: a notification sent while an intercept is outstanding gets no response, and the intercept gets exactly its one reply",
    ["AHP-RPC-002", "AHP-STDIO-001"],
    ["ahp-8.4-a", "ahp-17.1-d"],
    ["8.4", "13.2", "17.2"],
    [
        (outstanding, decision(http=False)),
        (notif(observe(tool_after("evt_b%04d_b" % n))), none()),
        (probe("evt_b%04d_probe" % n), decision(http=False)),
    ],
    binding="stdio",
    lifecycle="persistent",
    profiles=("base", "lifecycle-observation"),
    notes="DECISIONS.md D-25: gating, no stdout frame after a notification, including when a request is outstanding.",
)
n = len(VECTORS) + 1
vector(
    "An event id holding quotes, backslashes, a slash, a tab and a U+0001 escape is echoed exactly as the response id",
    ["AHP-RPC-001", "AHP-DEC-001"],
    ["ahp-6.1-a", "ahp-6.2-j"],
    ["8.1", "7.1"],
    [(req(intercept(tool_before('evt_b%04d "q" \\back/slash\t\u0001' % n))), decision())],
)

# 15. issue 26: the same-decision pins that AHP-B-0025..0031 used to gate on,
# now advisory (D-37). Same two requests as their gating twins (fresh ids);
# the second must get the decision the first got.
for where, gating in zip(WHERES + [None], UNKNOWN_GATING):
    plain, extra = unknown_pair(where)
    what = "in the request's %s object" % where if where else "at every level at once (root, params, event, session, tool, capabilities)"
    adv = vector(
        "Unknown members %s do not change the decision: the same decision as for the same request without them (D-37)" % what,
        ["AHP-CORE-003", "AHP-DEC-001"],
        ["ahp-6.1-i", "ahp-7.3-a"],
        ["6.1", "7.3"],
        [(req(plain), decision()), (req(extra), decision(same_as=0))],
        advisory="D-37",
    )
    note = (
        "The text requires a valid decision for both requests (7.3, 6.2), not the same one: a backend may "
        "decide by its own state, the event id or the time, and the only sentence that asks for the same result "
        "twice (15) is a SHOULD for a repeated event id. "
    )
    gating["notes"] = note + "That the two decisions are equal is the advisory %s (D-37)." % adv["id"]
    adv["notes"] = note + "The two requests differ only in the event id and the unknown members; a backend that ignores unknown members as D-37 prefers decides both alike. Gating twin: %s." % gating["id"]
    # Keep `notes` where vector() puts it: after advisory, before send.
    for v in (gating, adv):
        for k in ("send", "expect", "run"):
            v[k] = v.pop(k)


# 16. issue 27 (the reference backend's mutation survivor `delete ! in Backend::handle_value`): JSON-RPC 2.0
# allows params by position (an array), so a request whose params is an array is a valid JSON-RPC request
# whose id the backend can read; AHP cannot process it (no event), so it is answered with an error, and
# JSON-RPC 2.0 section 5 gives the response the request's id. The code is D-22's advisory reading (-32602).
vector(
    "An intercept whose params is an array (by-position params, valid JSON-RPC 2.0) gets a JSON-RPC error echoing the id",
    ["AHP-RPC-001", "AHP-RPC-002"],
    ["ahp-6.1-j"],
    ["6.1", "16"],
    [(req({"jsonrpc": "2.0", "id": "evt_b_params_array", "method": "hooks/intercept", "params": []}), error()),
     (probe("evt_b_params_array_probe"), decision())],
)

# 17. issue 27 (the reference backend's mutation survivor `oversize_reply -> "xyzzy"`): a line longer than a backend
# accepts. AHP 0.1 sets no message size, and whether a backend answers input that is not a request, or keeps reading
# it, is advisory (D-35); but whatever it writes to stdout is held to 17.1 ("MUST NOT write banners, logs, progress
# indicators, or other non-protocol content to stdout"). 2,200,000 bytes is past the reference's 1 MiB bound. One
# process a message (per_event), so the process's end tells "no answer" apart from "not yet"; an answer, if any, is
# a JSON-RPC error (JSON-RPC 2.0 section 5: the text is not a request).
n = len(VECTORS) + 1
vector(
    "stdio: a line of 2.2 MB that is not JSON, past any small bound, gets at most a JSON-RPC error and nothing else on stdout",
    ["AHP-STDIO-001"],
    ["ahp-17.1-d", "ahp-17.1-a"],
    ["17.1"],
    [(raw("x", "2,200,000 bytes of x, then the newline", repeat=2200000),
      {"reply": "at_most_one", "class": "jsonrpc_error"}),
     (probe("evt_b%04d_probe" % n), decision(http=False))],
    binding="stdio",
    lifecycle="per_event",
    run={"stdout_protocol_only": True, "canary": "error_data"},
)


def main():
    return write_or_check(OUT, "AHP-B-", VECTORS, "vectors", "--check" in sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())

"""Writes a generator's vectors into their folder, or checks them (--check).

Several generators share a folder (vectors/ahp/0.1 holds AHP-B-* and
AHP-H-*, vectors/ahp/draft holds AHP-DB-* and AHP-DH-*), so each one owns
only the files that carry its id prefix: only those can be stale.
"""
import json
import os
import sys


def adapter_features(vector):
    """The adapter features (ahp/adapter/features.json) a harness vector needs: the kit sends
    parallel tool calls only through harness/tool_calls, feature parallel-tool-calls."""
    if any("parallel" in t for t in vector.get("triggers", [])):
        return ["parallel-tool-calls"]
    return []


def with_features(vector):
    """vector listing the features it needs in adapter_features, before backends (absent when
    it needs none)."""
    needed = adapter_features(vector)
    out = {}
    for key, value in vector.items():
        if key == "adapter_features":
            continue
        if key == "backends" and needed:
            out["adapter_features"] = needed
        out[key] = value
    return out


def render(vector):
    """The one on-disk form of a vector: two-space JSON, UTF-8, final newline."""
    return json.dumps(with_features(vector), indent=2, ensure_ascii=False) + "\n"


def write_or_check(out, prefix, vectors, label, check):
    """Returns the exit status: 1 when --check finds a file out of date."""
    os.makedirs(out, exist_ok=True)
    want = {v["id"] + ".json": render(v) for v in vectors}
    stale = [
        name
        for name in sorted(os.listdir(out))
        if name.startswith(prefix) and name.endswith(".json") and name not in want
    ]
    bad = []
    for name, text in sorted(want.items()):
        path = os.path.join(out, name)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old != text:
            bad.append(name)
            if not check:
                with open(path, "w", encoding="utf-8", newline="\n") as f:
                    f.write(text)
    if not check:
        for name in stale:
            os.remove(os.path.join(out, name))
    if check and (bad or stale):
        print("out of date: " + ", ".join(bad + stale), file=sys.stderr)
        return 1
    print("%d %s %s" % (len(vectors), label, "match" if check else "written"))
    return 0


def d01_bound(*timeouts):
    """The generous upper bound D-01 (rule 5) allows on one tool call's
    outcome: 10 x timeoutMs + 5000 ms for every interceptor the call's chain
    may ask, summed, since each of them may take up to its own deadline
    (enforced up to D-01's margin late) before the harness moves on. A
    call whose chain asks no interceptor (observers only) gets the bound of
    one non-deadline interceptor (timeoutMs 5000, D-01 rule 3). No vector
    asserts a tighter window."""
    return sum(10 * t + 5000 for t in timeouts) or 10 * 5000 + 5000


# The observe half of the harness failure matrix (issue 27): what an
# observer does on a notification, by class, and where it can happen. No
# failure policy applies to an observer, so each cell runs beside an
# interceptor that lets the tool run and one that denies it. The statuses
# are every answer to a notification but 202 and 204, which accept it.
OBSERVE_STATUSES = (200, 201, 203, 206, 301, 302, 303, 307, 308, 400, 401, 403, 404, 405, 408, 413, 415, 422, 429,
                    500, 501, 502, 503, 504)
EVERYWHERE = ("stdio", "per_event", "http")
OBSERVE_CLASSES = [("stalls", EVERYWHERE), ("connection_lost", EVERYWHERE), ("unreachable", EVERYWHERE),
                   ("abnormal_exit", ("stdio", "per_event")), ("malformed_json", EVERYWHERE),
                   ("jsonrpc_error_32603", EVERYWHERE)] + [
    ("http_redirect_%d" % c if 300 <= c < 400 else "http_%d" % c, ("http",)) for c in OBSERVE_STATUSES]
COLUMN = {"stdio": "stdio persistent", "per_event": "stdio per_event", "http": "http"}


def observe_column(v):
    if v["binding"] == "http":
        return "http"
    return "stdio per_event" if v["lifecycle"] == "per_event" else "stdio persistent"


def observe_missing(vectors):
    """Each cell of the observe half no vector of `vectors` fills yet, as
    (class, binding, lifecycle, decision, outcome, denial)."""
    have = set()
    for v in vectors:
        if v.get("observer_failure"):
            for t in v["triggers"]:
                for o in t.get("expect", {}).get("outcome", []):
                    have.add((v["observer_failure"], observe_column(v), o))
    for klass, places in OBSERVE_CLASSES:
        for place in places:
            binding = "http" if place == "http" else "stdio"
            lifecycle = "per_event" if place == "per_event" else "persistent"
            for decision, outcome, denial in (("no effect", "executed", None), ("deny", "denied", "explicit")):
                if (klass, COLUMN[place], outcome) not in have:
                    yield klass, binding, lifecycle, decision, outcome, denial


def observer_plan(klass, binding, sleep_ms, raw):
    """O's observe plan for `klass` over `binding` (or {"launch": ...} for
    one that cannot be reached), what it does in words, and whether it
    stalls (the outcome must then come before its plan ends). `raw` is the
    generator's raw-action helper."""
    if klass == "stalls":
        return [{"do": "sleep", "ms": sleep_ms}], "takes %d s per notification" % (sleep_ms // 1000), True
    if klass == "connection_lost":
        return [{"do": "close"}], "closes its stdout" if binding == "stdio" else "drops the connection", False
    if klass == "unreachable":
        return ({"launch": "missing" if binding == "stdio" else "refused"},
                "cannot be started" if binding == "stdio" else "refuses the connection", False)
    if klass == "abnormal_exit":
        return [{"do": "exit", "code": 3}], "exits with status 3", False
    if klass == "malformed_json":
        return ([raw(text="garbage CTK-MALFORMED-CANARY-7f3a")],
                "answers with a body that is not JSON" if binding == "http" else "writes a line that is not JSON", False)
    if klass == "jsonrpc_error_32603":
        return [{"do": "error", "code": -32603}], "answers with a JSON-RPC error", False
    code = int(klass.split("_")[-1])
    if 300 <= code < 400:
        return [{"do": "redirect", "to": "Z", "code": code}], "answers %d, a redirect to the kit's endpoint Z" % code, False
    return [{"do": "status", "code": code}], "answers %d" % code, False

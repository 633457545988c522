"""Vectors for the surfaces section 3.2 allows (issue 27, item 4): a floor host (agent_startup, input,
output, agent_shutdown; no capability) and a tool router (the floor plus the tool points; capability
tool_calls). Without them a host that has no model could run no vector at all.

Applicability is monotone: a vector needing no capability applies to every host, so each vector here
must hold whether or not the host also emits the model points. A host without `model_calls` takes each
`model_script` entry as its own next step, exactly as the loop takes a permitted model response, and
emits no model point (agent-hooks/adapter/HOSTS.md section 4.6). So a vector here:

* acts only at the points of its surface (its interceptor rules name no model point, and a floor
  vector none of the tool points either), so the verdicts, records and outcome are the same with and
  without the model points;
* matches recorded contexts as a subsequence (`sequence_strict: false`) and records by point (always
  so), names no model point in `interceptions` or `records`, and pins no `sequence` but
  agent_startup's 0;
* quotes the clauses it covers through `covers` (the catalog carries each clause's sentence), keeping
  only those that apply to its surface (`needs` in clauses.py).

Each one restates, for the smaller surface, a gating vector written for a host with a model: SOURCES
lists them with their own explicit id numbers (never counted: adding one never renumbers another).
`derive` checks every condition above and fails the generator when a source stops meeting one, and
sim.py runs each of them as a host without a model as well as a full one.
"""
import copy

import clauses
import lib
from lib import SU, IN, PM, PO, PT, PTT, OUT, SD

FLOOR_POINTS = {SU, IN, OUT, SD}
TOOL_POINTS = {PT, PTT}
MODEL_POINTS = {PM, PO}

# surface name -> (capabilities, points, title suffix, slug suffix)
SURFACES = {
    "floor": ([], FLOOR_POINTS, "on a host without a model or tools", "floor"),
    "tool_router": (["tool_calls"], FLOOR_POINTS | TOOL_POINTS, "on a tool router without a model", "router"),
}

NEEDS = {c["id"]: set(c.get("needs", [])) for c in clauses.C}
MUST = {c["id"] for c in clauses.C if c["keyword"] == "MUST" and "not_vector_testable" not in c}


def applies(cid, caps):
    return cid in NEEDS and NEEDS[cid] <= set(caps)


def _rules(v):
    if "interceptor_script" in v:
        return list(v["interceptor_script"])
    return [r for script in v.get("interceptor_scripts", []) for r in script]


def _bare(entry):
    return set(entry) == {"interception_point"}


def _pins_sequence(entry):
    if entry["interception_point"] == SU:
        return False
    keys = list(entry.get("context", {})) + list(entry.get("assert", {}))
    return any(k == "sequence" or k.endswith(".sequence") for k in keys)


def _unsequenced(entry):
    if entry["interception_point"] == SU:
        return entry
    for member in ("context", "assert"):
        if member in entry:
            entry[member] = {k: x for k, x in entry[member].items()
                             if not (k == "sequence" or k.endswith(".sequence"))}
            if not entry[member]:
                del entry[member]
    return entry


def why_not(v, surface):
    """None when `v` restates for `surface`, else the reason it does not."""
    caps, points, _, _ = SURFACES[surface]
    if any(k in v for k in ("host_declaration", "host_declaration_text", "host_declaration_file")):
        return "declaration vector"
    have = set(v.get("capabilities", []))
    if "model_calls" not in have:
        return "no model_calls to drop"
    strip = _strips_tools(v, surface)
    if have - {"model_calls"} - ({"tool_calls"} if strip else set()) != set(caps):
        return "capabilities %s" % sorted(have)
    if "@@RAW:" in repr(v):
        return "raw text"
    sc = v["scenario"]
    steps = [s["respond"] for s in sc.get("model_script", [])]
    if any(s.get("stream") or s.get("error") is not None or s.get("parallel") for s in steps):
        return "streams, fails or runs in parallel"
    if any(r["at"] not in points for r in _rules(v)):
        return "an interceptor acts at a point the surface omits"
    e = v["expect"]
    if "released_output" in e or "principal_notices" in e:
        return "stream or notice expectations"
    if strip:
        # The tool steps go: nothing may depend on them.
        text = repr({k: x for k, x in e.items() if k not in ("tool_invocations", "tool_not_invoked")})
        names = [t["name"] for t in sc.get("tools", [])]
        if "tools_registered" in text or any(repr(n) in text for n in names):
            return "asserts on the tools"
        if not any(not s.get("tool_calls") for s in steps):
            return "no step without tool calls"
    return None


def _strips_tools(v, surface):
    """Whether a floor restatement drops the source's tool steps: the source has them, and only its
    model and tool points, which it neither acts at nor asserts on, see them."""
    if surface != "floor":
        return False
    sc = v["scenario"]
    return bool(sc.get("tools")) or any(s["respond"].get("tool_calls") for s in sc.get("model_script", []))


def _strip(scenario, expect):
    scenario = copy.deepcopy(scenario)
    scenario.pop("tools", None)
    scenario["model_script"] = [s for s in scenario.get("model_script", []) if not s["respond"].get("tool_calls")]
    for k in ("tool_invocations", "tool_not_invoked"):
        expect.pop(k, None)
    return scenario


def derive(v, surface, num):
    """Queue the restatement of `v` for `surface` as CTK-<num>; surface `output` is the floor surface,
    the source's pre_tool_call verdicts acting at output."""
    args, kw = restate_at_output(v) if surface == "output" else restate(v, surface)
    lib.V(num, *args, **kw)


def restate(v, surface):
    """lib.V's arguments (but the id number) for the restatement of `v` for `surface`."""
    caps, points, title, slug = SURFACES[surface]
    reason = why_not(v, surface)
    assert reason is None, "%s no longer restates for %s: %s" % (v["id"], surface, reason)
    e = copy.deepcopy(v["expect"])
    scenario = copy.deepcopy(v["scenario"])
    if _strips_tools(v, surface):
        scenario = _strip(scenario, e)
    for key in ("interceptions", "records"):
        # What the source asserts at a point the surface omits is about that point; a sequence
        # number other than agent_startup's 0 counts the omitted points.
        if key in e:
            e[key] = [_unsequenced(x) for x in e[key] if x["interception_point"] in points]
            if not e[key] and key == "records":
                del e[key]
    if "interceptions" in e or "sequence_strict" in e:
        e["sequence_strict"] = False
    covers = [cid for cid in v["covers"] if applies(cid, caps)]
    seen = {x["interception_point"] for x in e.get("interceptions", [])}
    if FLOOR_POINTS <= seen:
        covers.append("3.2-d")
    assert covers, (v["id"], surface)
    top = {k: copy.deepcopy(v[k]) for k in ("mode", "composition", "identity_provider", "interceptor_timeout_ms",
                                             "approval_script", "redact_for_approval", "advisory") if k in v}
    script = copy.deepcopy(v.get("interceptor_script"))
    scripts = copy.deepcopy(v.get("interceptor_scripts"))
    name = [n for n, x in lib.VECTORS if x["id"] == v["id"]][0]
    source_slug = name[len(v["id"]) + 1:-len(".json")]
    top.update(caps=list(caps) or None, script=script, scripts=scripts)
    return ("%s-%s" % (source_slug, slug), "%s, %s" % (v["title"], title), "%s, 3.2" % v["spec_clause"],
            covers, v["part"], scenario, e), top


def as_vector(v, surface):
    """The restatement as a vector document (id CTK-9999), for sim.py."""
    args, kw = restate_at_output(v) if surface == "output" else restate(v, surface)
    slug, title, clause, covers, part, scenario, expect = args
    out = {"id": "CTK-9999", "title": title, "spec_clause": clause, "part": part, "covers": covers,
           "scenario": scenario, "expect": lib.text_spellings(expect)}
    if kw.get("caps"):
        out["capabilities"] = kw["caps"]
    for k in ("mode", "composition", "identity_provider", "interceptor_timeout_ms", "approval_script",
              "redact_for_approval", "advisory"):
        if k in kw:
            out[k] = kw[k]
    if kw.get("script") is not None:
        out["interceptor_script"] = kw["script"]
    else:
        out["interceptor_scripts"] = kw["scripts"]
    return out


# ---- restating a tool-seam vector at `output` (floor surface)
# Most composition, verdict and identity vectors act at pre_tool_call over the standard tool scenario (the
# tool `lookup` called once with {"q": <value>}, then the answer "done"). On a floor host the same verdicts
# act at `output` over the answer <value>: what the tool would have received is what the caller receives.
# The target's `q` becomes the output's `content`; a tool the verdict let run becomes an output that
# reaches the caller (final_output <the args' q>), a tool the verdict stopped becomes a blocked run
# (section 6.1: a blocked output never reaches the caller, whatever the posture).
AT_OUTPUT = ("at output", "output")
_KEY_MAP = [("tool_call.args.q", "output.content"), ("tool_call.args", "output"), ("target.q", "target.content")]
_PATH_MAP = [("$target.q", "$target.content"), ("$policy_target.q", "$policy_target.content"),
             ('$target["q"]', '$target["content"]')]


class _No(Exception):
    pass


def _key(k):
    for a, b in _KEY_MAP:
        if k == a or k.startswith(a + ".") or k.startswith(a + "["):
            return b + k[len(a):]
    if k.startswith("context."):
        return "context." + _key(k[len("context."):])
    if k.startswith(("tool_call", "tool_result")) or ".tool_call" in k or "tool_result" in k:
        raise _No("names the tool call")
    return k


def _path(p):
    if not isinstance(p, str):
        return p
    for a, b in _PATH_MAP:
        if p == a or p.startswith(a + ".") or p.startswith(a + "["):
            return b + p[len(a):]
    return p


_ONE_CALL = ("tool_call.name", "tool_call.id", "context.tool_call.name", "context.tool_call.id")


def _keys(m):
    # The source's one tool call always has the name and id a match or an assertion names: dropped.
    return {_key(k): (OUT if x == PT else x) for k, x in m.items() if k not in _ONE_CALL}


def _verdict(v):
    if isinstance(v, dict):
        v = copy.deepcopy(v)
        if isinstance(v.get("transform"), dict) and "path" in v["transform"]:
            v["transform"]["path"] = _path(v["transform"]["path"])
            if v["transform"]["path"] == "$target" and isinstance(v["transform"].get("value"), dict):
                val = v["transform"]["value"]
                v["transform"]["value"] = {("content" if k == "q" else k): x for k, x in val.items()}
        if "verdict" in v:
            v["verdict"] = _verdict(v["verdict"])
    return v


def _rule(r):
    r = copy.deepcopy(r)
    r["at"] = OUT
    if "match" in r:
        r["match"] = _keys(r["match"])
    for k in ("return", "return_raw"):
        if k in r:
            r[k] = _verdict(r[k])
    return r


def at_output_why_not(v):
    if set(v.get("capabilities", [])) != {"model_calls", "tool_calls"}:
        return "not a model and tool vector"
    if any(k in v for k in ("host_declaration", "host_declaration_text", "host_declaration_file")):
        return "declaration vector"
    rules = _rules(v)
    if not rules or any(r["at"] != PT for r in rules):
        return "acts elsewhere than pre_tool_call"
    sc = v["scenario"]
    std = lib.tool_scenario()
    steps = sc.get("model_script", [])
    if sc.get("tools") != std["tools"] or sc.get("turns") or len(steps) != 2 or steps[1] != std["model_script"][1]:
        return "not the standard tool scenario"
    first = steps[0]["respond"]
    if set(first) != {"content", "tool_calls", "finish_reason"} or len(first["tool_calls"]) != 1:
        return "not one tool call"
    args = first["tool_calls"][0]["args"]
    if set(args) != {"q"} or "@@RAW:" in repr(v):
        return "arguments other than q"
    e = v["expect"]
    if set(e) - {"interceptions", "records", "interceptions_absent", "tool_invocations", "tool_not_invoked",
                 "run_outcome", "run_outcome_by_posture", "sequence_strict", "identities_equal", "final_output"}:
        return "expects more than the tool seam's outcome"
    if e.get("final_output", "done") != "done" or e.get("run_outcome", "completed") != "completed":
        return "the run does not complete"
    for key in ("interceptions", "records"):
        for entry in e.get(key) or []:
            if entry["interception_point"] != PT and not _bare(entry):
                return "asserts at %s" % entry["interception_point"]
    inv = e.get("tool_invocations")
    if inv is None and "lookup" not in e.get("tool_not_invoked", []):
        return "does not say whether the tool ran"
    if inv and (len(inv) != 1 or set(inv[0]["args"]) != {"q"}):
        return "invocations other than one lookup(q)"
    try:
        at_output(v)
        restate_at_output(v, checked=True)
    except _No as no:
        return str(no)
    return None


def at_output(v):
    """(scenario, expect, rules-map) of `v` restated at output."""
    sc = v["scenario"]
    q = sc["model_script"][0]["respond"]["tool_calls"][0]["args"]["q"]
    scenario = {"input": copy.deepcopy(sc["input"]),
                "model_script": [{"respond": {"content": q, "tool_calls": [], "finish_reason": "stop"}}]}
    e = v["expect"]
    out = {}
    for key in ("interceptions", "records"):
        kept = []
        for entry in e.get(key) or []:
            if entry["interception_point"] != PT:
                continue
            entry = copy.deepcopy(entry)
            entry["interception_point"] = OUT
            for member in ("context", "assert"):
                if member in entry:
                    entry[member] = _keys(entry[member])
            for member in ("absent", "present", "absent_or_null", "no_entries"):
                if member in entry:
                    entry[member] = [_key(k) for k in entry[member]]
            kept.append(entry)
        if kept or key == "interceptions":
            out[key] = kept
    out["sequence_strict"] = False
    inv = e.get("tool_invocations")
    if inv:
        out["final_output"] = inv[0]["args"]["q"]
        out["run_outcome"] = "completed"
    else:
        out["final_output"] = None
        out["run_outcome"] = "blocked"
    if "identities_equal" in e:
        out["identities_equal"] = e["identities_equal"]
    return scenario, out


def restate_at_output(v, checked=False):
    if not checked:
        reason = at_output_why_not(v)
        assert reason is None, "%s no longer restates at output: %s" % (v["id"], reason)
    scenario, e = at_output(v)
    caps = []
    covers = [cid for cid in v["covers"] if applies(cid, caps)]
    assert covers, v["id"]
    top = {k: copy.deepcopy(v[k]) for k in ("mode", "composition", "identity_provider", "interceptor_timeout_ms",
                                             "advisory") if k in v}
    if "approval_script" in v:
        top["approval_script"] = [dict(copy.deepcopy(r), **({"match": _keys(r["match"])} if "match" in r else {}),
                                       resolve=_verdict(r["resolve"])) for r in v["approval_script"]]
    if "redact_for_approval" in v:
        top["redact_for_approval"] = [_path(p) for p in v["redact_for_approval"]]
    if "interceptor_script" in v:
        top["script"] = [_rule(r) for r in v["interceptor_script"]]
        top["scripts"] = None
    else:
        top["script"] = None
        top["scripts"] = [[_rule(r) for r in sc] for sc in v["interceptor_scripts"]]
    name = [n for n, x in lib.VECTORS if x["id"] == v["id"]][0]
    source_slug = name[len(v["id"]) + 1:-len(".json")]
    return ("%s-at-output" % source_slug, "%s; restated at output on a host without a model or tools" % v["title"],
            "%s, 3.2" % v["spec_clause"], covers, v["part"], scenario, e), top


def candidates(surface):
    """Source ids that restate for `surface` and whose restatement sim.py runs as the source expects on
    a full host and on the smallest host of the surface, with the MUST clauses each would cover there."""
    import sim
    out = []
    test = at_output_why_not if surface == "output" else (lambda v: why_not(v, surface))
    for _, v in lib.VECTORS:
        if test(v) is None:
            d = as_vector(v, surface)
            try:
                if sim.check(v) or any(sim.check(d, m, t) for m, t in sim.surfaces(d)):
                    continue
            except Exception:  # noqa: the simulator does not model every scenario
                continue
            cov = {c for c in d["covers"] if c in MUST}
            if cov:
                out.append((v["id"], cov))
    return out


_ADVISORY = {}


def choose(surface, already=()):
    """A greedy cover: the fewest sources whose restatements cover every MUST clause any of them covers
    (used once to write SOURCES; the table, not this, decides what is generated)."""
    _ADVISORY.update({v["id"]: v.get("advisory") for _, v in lib.VECTORS})
    cands = candidates(surface)
    todo = set().union(*[c for _, c in cands]) - set(already)
    picked = []
    gating = {i for i, _ in cands if not _ADVISORY.get(i)}
    while todo:
        best = max(cands, key=lambda ic: (bool(ic[1] & todo) and ic[0] in gating, len(ic[1] & todo),
                                          -int(ic[0][4:])))
        if not best[1] & todo:
            break
        picked.append(best[0])
        todo -= best[1]
    return picked


# (new id number, source id, surface): written once from choose() (floor, then output, then tool_router,
# each given the clauses the earlier ones and native() cover), then kept as data. Surface `output` restates a
# pre_tool_call vector at output on the floor surface.
SOURCES = [
    (1450, "CTK-0600", "floor"),
    (1451, "CTK-0025", "floor"),
    (1452, "CTK-0602", "floor"),
    (1453, "CTK-0010", "floor"),
    (1454, "CTK-0024", "floor"),
    (1455, "CTK-0001", "floor"),
    (1456, "CTK-0033", "floor"),
    (1457, "CTK-0040", "floor"),
    (1458, "CTK-0101", "floor"),
    (1459, "CTK-0446", "floor"),
    (1460, "CTK-0601", "floor"),
    (1461, "CTK-0015", "floor"),
    (1462, "CTK-0130", "floor"),
    (1463, "CTK-0143", "floor"),
    (1464, "CTK-0302", "floor"),
    (1465, "CTK-0376", "floor"),
    (1466, "CTK-0412", "floor"),
    (1467, "CTK-0530", "floor"),
    (1468, "CTK-0608", "floor"),
    (1469, "CTK-0712", "floor"),
    (1470, "CTK-0016", "floor"),
    (1471, "CTK-0039", "floor"),
    (1472, "CTK-0042", "floor"),
    (1473, "CTK-0047", "floor"),
    (1474, "CTK-0050", "floor"),
    (1475, "CTK-0104", "floor"),
    (1476, "CTK-0109", "floor"),
    (1477, "CTK-0114", "floor"),
    (1478, "CTK-0115", "floor"),
    (1479, "CTK-0118", "floor"),
    (1480, "CTK-0120", "floor"),
    (1481, "CTK-0149", "floor"),
    (1482, "CTK-0332", "floor"),
    (1483, "CTK-0343", "floor"),
    (1484, "CTK-0367", "floor"),
    (1485, "CTK-0377", "floor"),
    (1486, "CTK-0404", "floor"),
    (1487, "CTK-0416", "floor"),
    (1488, "CTK-0432", "floor"),
    (1489, "CTK-0448", "floor"),
    (1490, "CTK-0528", "floor"),
    (1491, "CTK-0604", "floor"),
    (1492, "CTK-0804", "floor"),
    (1493, "CTK-0155", "floor"),
    (1494, "CTK-0615", "floor"),
    (1495, "CTK-1361", "floor"),
    (1500, "CTK-0300", "output"),
    (1501, "CTK-0339", "output"),
    (1502, "CTK-0317", "output"),
    (1503, "CTK-0318", "output"),
    (1504, "CTK-0350", "output"),
    (1505, "CTK-0353", "output"),
    (1506, "CTK-0704", "output"),
    (1507, "CTK-0707", "output"),
    (1508, "CTK-0148", "output"),
    (1509, "CTK-0167", "output"),
    (1510, "CTK-0303", "output"),
    (1511, "CTK-0304", "output"),
    (1512, "CTK-0313", "output"),
    (1513, "CTK-0322", "output"),
    (1514, "CTK-0323", "output"),
    (1515, "CTK-0330", "output"),
    (1516, "CTK-0331", "output"),
    (1517, "CTK-0349", "output"),
    (1518, "CTK-0405", "output"),
    (1519, "CTK-0413", "output"),
    (1520, "CTK-0419", "output"),
    (1521, "CTK-0422", "output"),
    (1522, "CTK-0433", "output"),
    (1523, "CTK-0800", "output"),
    (1524, "CTK-0107", "output"),
    (1530, "CTK-0013", "tool_router"),
    (1531, "CTK-0014", "tool_router"),
    (1532, "CTK-0048", "tool_router"),
]

def native():
    """Floor vectors no tool-seam vector restates: transforms inside an object output, evidence, result
    labels, an envelope-breaking transform, and numbers that are no integer literals."""
    from lib import V, ix, rec, rule, transform, deny
    from v_identity import raw
    obj = {"input": {"content": "summarize", "role": "user"},
           "model_script": [{"respond": {"content": {"title": "T-1", "body": "B-1"}, "tool_calls": [],
                                         "finish_reason": "stop"}}]}
    plain = {"input": {"content": "say hello", "role": "user"},
             "model_script": [{"respond": {"content": "hello there", "tool_calls": [], "finish_reason": "stop"}}]}
    floor = ix([SU, IN, OUT, SD])
    V(1435, "floor-output-transform-inside", "On a host without a model or tools, a transform at output whose path "
      "points inside the content replaces that member only", "4.3, 5.2, 3.2", ["4.3-d", "5.2-c", "5.1-b", "3.2-d"],
      "transform/targets", obj,
      {"sequence_strict": False, "interceptions": floor,
       "records": [rec(OUT, {"verdict.decision": "transform", "verdict.transform.path": "$target.content.title"})],
       "final_output": {"title": "T-2", "body": "B-1"}, "run_outcome": "completed", "identities_equal": False},
      script=[rule(OUT, transform("$target.content.title", "T-2"))])
    V(1436, "floor-output-transform-whole-target", "On a host without a model or tools, a transform at output with the "
      "bare path $target replaces the whole output", "5.2, 3.2", ["5.2-d", "5.1-b", "6.1-i"], "transform/targets", obj,
      {"sequence_strict": False, "interceptions": ix([OUT]),
       "records": [rec(OUT, {"verdict.decision": "transform", "verdict.transform.path": "$target"})],
       "final_output": "replaced whole", "run_outcome": "completed"},
      script=[rule(OUT, transform("$target", {"content": "replaced whole"}))])
    V(1437, "floor-output-transform-no-value", "On a host without a model or tools, a transform at output without a "
      "value sets the addressed member to null", "5.2, 3.2", ["5.2-g", "4.3-d"], "transform/targets", obj,
      {"sequence_strict": False, "interceptions": ix([OUT]),
       "records": [rec(OUT, {"verdict.decision": "transform"})],
       "final_output": {"title": None, "body": "B-1"}, "run_outcome": "completed"},
      script=[rule(OUT, transform("$target.content.title", novalue=True))])
    V(1438, "floor-output-evidence-kept", "On a host without a model or tools, evidence on a transform at output is "
      "accepted and reaches the record unchanged", "5.3, 10.3, 3.2", ["5.3-b", "5-j", "10.3-b"], "transform/targets",
      plain,
      {"sequence_strict": False, "interceptions": ix([OUT]),
       "records": [rec(OUT, {"verdict.decision": "transform", "verdict.evidence": {"artefact": "E-77", "verification_pointers": {"log": "https://audit.invalid/e/77"}}},
                       ["verdict.transform.value"])],
       "final_output": "hello, edited", "run_outcome": "completed"},
      script=[rule(OUT, transform("$target.content", "hello, edited", evidence={"artefact": "E-77", "verification_pointers": {"log": "https://audit.invalid/e/77"}}))])
    V(1439, "floor-labels-persisted", "On a host without a model or tools, the result labels of a permitted input and "
      "a permitted output are persisted with the session", "5.4, 3.2", ["5.4-a", "7.3-d"], "record/fields",
      plain,
      {"sequence_strict": False, "interceptions": ix([IN, OUT]),
       "persisted_must_contain": ["ctk-floor-input-label", "ctk-floor-output-label"],
       "final_output": "hello there", "run_outcome": "completed"},
      script=[rule(IN, {"decision": "allow", "result_labels": ["ctk-floor-input-label"]}),
              rule(OUT, {"decision": "allow", "result_labels": ["ctk-floor-output-label"]})])
    V(1440, "floor-labels-withheld-output", "On a host without a model or tools, result labels of an allow at output "
      "that a later deny overrules are neither recorded nor persisted, and neither is the output",
      "5.4, 7.3, 6.1, 3.2", ["5.4-b", "7.3-d", "6.1-g"], "record/fields",
      {"input": {"content": "say it", "role": "user"},
       "model_script": [{"respond": {"content": "WITHHELD-OUT-61", "tool_calls": [], "finish_reason": "stop"}}]},
      {"sequence_strict": False, "interceptions": ix([OUT]),
       "records": [rec(OUT, {"verdict.decision": "deny", "verdict.reason": "ctk:output-refused", "decided_by": 1},
                       ["verdict.result_labels"])],
       "persisted_must_not_contain": ["ctk-withheld-floor-label", "WITHHELD-OUT-61"],
       "final_output": None, "run_outcome": "blocked"},
      scripts=[[rule(OUT, {"decision": "allow", "result_labels": ["ctk-withheld-floor-label"]})],
               [rule(OUT, deny("ctk:output-refused"))]])
    V(1441, "floor-output-transform-breaks-envelope", "On a host without a model or tools, a transform that makes the "
      "output a string leaves no valid context: the output is denied host_error:context_invalid and never reaches "
      "the caller", "4.3, 6.1, 3.2", ["4.3-e", "6.1-g"], "transform/targets", plain,
      {"sequence_strict": False, "interceptions": ix([OUT]),
       "records": [rec(OUT, {"verdict.decision": "deny", "verdict.reason": "host_error:context_invalid"})],
       "final_output": None, "run_outcome": "blocked"},
      script=[rule(OUT, transform("$target", "not-an-object"))])
    V(1442, "floor-long-fractions-not-integers", "On a host without a model or tools, numbers whose fractions have 20 "
      "and 18 digits in the input are no integer literals: the input is dispatched and allowed",
      "10.2, 4.4, 3.2", ["10.2-d", "10.2-e", "4.4-d"], "identity/canonical",
      {"input": {"content": {"ratio": raw("0.12345678901234567890"), "scale": raw("12.345678901234567891")},
                 "role": "user"},
       "model_script": [{"respond": {"content": "noted", "tool_calls": [], "finish_reason": "stop"}}]},
      {"sequence_strict": False, "interceptions": ix([IN, OUT]), "records": [rec(IN, {"verdict.decision": "allow"})],
       "final_output": "noted", "run_outcome": "completed"},
      script=[])
    # One level past the recommended 128-level depth bound (section 12.3): the projection's root is level 0,
    # output 1, content 2, the objects 2..128, the leaf 129. Advisory, as the bound is host-tunable (D-13).
    from v_identity_domain import gen_nest
    V(1443, "floor-output-depth-one-past-bound", "On a host without a model or tools, a transform that leaves the "
      "output context one level past the 128-level depth bound fails closed: denied context_invalid, enforced "
      "identity and decided_by null, nothing reaches the caller", "12.3, 10.2, 3.2", ["10.2-f", "12.3-b", "6.1-g"],
      "identity/canonical", plain,
      {"sequence_strict": False, "interceptions": ix([OUT]),
       "records": [rec(OUT, {"verdict.reason": "host_error:context_invalid", "enforced_identity": None,
                             "decided_by": None})],
       "final_output": None, "run_outcome": "blocked"},
      script=[rule(OUT, transform("$target.content", gen_nest(127, 0, "n")))], advisory="D-13")
    # A host with a model and no tools (the model-only surface): one model call per turn, both model points
    # around it. No tool is scripted, so a host with tools emits exactly the same points.
    V(1444, "model-only-points-pair", "On a host with a model and no tools, each turn's model call is mediated by a "
      "pre_model_call right before it and a post_model_call right after it, and no tool point is emitted",
      "3, 3.1, 3.2, 4.2", ["3-d", "3.1-d", "3.2-e", "4.2-c", "4.2-d", "3.2-d"], "context/points",
      plain, {"interceptions": ix([SU, IN, PM, PO, OUT, SD],
                                  {2: {"messages[0].content": "say hello", "messages[0].role": "user"},
                                   3: {"response.content": "hello there", "response.tool_calls": [],
                                       "response.finish_reason": "stop"}}),
              "interceptions_absent": [PT, PTT],
              "records": [rec(PM, {"verdict.decision": "allow"}), rec(PO, {"verdict.decision": "allow"})],
              "final_output": "hello there", "run_outcome": "completed"},
      caps=["model_calls"], script=[])


def generate():
    native()
    by_id = {v["id"]: v for _, v in lib.VECTORS}
    for num, source, surface in SOURCES:
        derive(by_id[source], surface, num)


generate()

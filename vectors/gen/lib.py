"""Building blocks for the agent-hooks/0.1 vectors (standard library only)."""

import copy
import re

SU, IN, PM, PO, PT, PTT, OUT, SD = (
    "agent_startup", "input", "pre_model_call", "post_model_call",
    "pre_tool_call", "post_tool_call", "output", "agent_shutdown")
POINTS = [SU, IN, PM, PO, PT, PTT, OUT, SD]
MT = ["model_calls", "tool_calls"]
M = ["model_calls"]
POSTURE = {"posture": "tool_seam_host_error", "outcomes": {"continue": "completed", "terminate": "blocked"}}

VECTORS = []
_IDS = set()


def tool_scenario(args=None, tool="lookup", ret=None, final="done", text="find alpha",
                  is_error=False, role="user", extra_tools=None, tool_behavior=None):
    args = {"q": "alpha"} if args is None else args
    ret = {"hits": 1} if ret is None else ret
    behavior = tool_behavior or [{"return": ret, "is_error": is_error}]
    tools = [{"name": tool, "behavior": behavior}] + (extra_tools or [])
    return {
        "input": {"content": text, "role": role},
        "tools": tools,
        "model_script": [
            {"respond": {"content": None, "tool_calls": [{"id": "tc-1", "name": tool, "args": args}],
                         "finish_reason": "tool_calls"}},
            {"respond": {"content": final, "tool_calls": [], "finish_reason": "stop"}},
        ],
    }


def plain_scenario(final="hello there", text="say hello", role="user"):
    return {
        "input": {"content": text, "role": role},
        "model_script": [{"respond": {"content": final, "tool_calls": [], "finish_reason": "stop"}}],
    }


FULL_TOOL = [SU, IN, PM, PO, PT, PTT, PM, PO, OUT, SD]
FULL_PLAIN = [SU, IN, PM, PO, OUT, SD]


def ix(points, ctx=None):
    """interceptions list from point names; ctx maps list position -> extra keys."""
    out = []
    for i, p in enumerate(points):
        e = {"interception_point": p}
        if ctx and i in ctx:
            for k, val in ctx[i].items():
                if k in ("context", "context_must_validate", "context_must_contain", "context_must_not_contain"):
                    e[k] = val
                else:
                    e.setdefault("context", {})[k] = val
        out.append(e)
    return out


def rec(point, assert_=None, absent=None, present=None):
    r = {"interception_point": point}
    if assert_:
        r["assert"] = assert_
    if absent:
        r["absent"] = absent
    if present:
        r["present"] = present
    return r


# Members a gating vector may not pin to one spelling, because the text equates several (issue 26,
# spec/0.1/freedoms.json): `resolved_by` is "approval" | "rejection" | null in the §10.3 record template
# and "absent/null iff never consulted" in the record schema (freedom resolved-by-null); `verdicts` of an
# emission where nothing was dispatched only "has no entries" (freedom verdicts-empty). A gating vector's
# `absent` on them becomes `absent_or_null` resp. `no_entries`; an advisory vector keeps the reference
# host's preferred spelling (absent), D-15.
SPELLINGS = {"resolved_by": "absent_or_null", "verdicts": "no_entries"}


def text_spellings(expect):
    expect = copy.deepcopy(expect)
    for r in expect.get("records") or []:
        for path in list(r.get("absent", [])):
            form = SPELLINGS.get(path)
            if form:
                r["absent"].remove(path)
                r.setdefault(form, []).append(path)
        if "absent" in r and not r["absent"]:
            del r["absent"]
    return expect


def deny(reason, **kw):
    v = {"decision": "deny", "reason": reason}
    v.update(kw)
    return v


def liftable(reason, **kw):
    kw.setdefault("approval", {})
    return deny(reason, **kw)


def transform(path, value=None, novalue=False, **kw):
    t = {"path": path}
    if not novalue:
        t["value"] = value
    v = {"decision": "transform", "transform": t}
    v.update(kw)
    return v


ALLOW = {"decision": "allow"}


def rule(at, ret=None, match=None, fault=None, raw=None, raw_set=False):
    r = {"at": at}
    if match:
        r["match"] = match
    if fault:
        r["fault"] = fault
    elif raw_set:
        r["return_raw"] = raw
    elif ret is not None:
        r["return"] = ret
    return r


def V(num, slug, title, clause, covers, part, scenario, expect, caps=None, script=None, scripts=None,
      advisory=None, **top):
    """Build one vector and queue it for writing.

    num is the vector's explicit id number (written at the call site, never counted, so adding a
    vector never renumbers another). advisory names the DECISIONS.md entry (D-nn / P-nn) whose
    preferred reading the vector pins among several the spec text allows: such a vector is run and
    reported in its own column and never gates (see spec/0.1/DECISIONS.md, "Rulings of issue 9").
    """
    assert (script is None) != (scripts is None), slug
    assert advisory is None or re.fullmatch(r"(D|P|DD)-[0-9]+", advisory), (slug, advisory)
    vid = "CTK-%04d" % num
    assert vid not in _IDS, "vector id %s used twice (%s)" % (vid, slug)
    _IDS.add(vid)
    v = {"id": vid, "title": title, "spec_clause": clause, "part": part, "covers": list(dict.fromkeys(covers))}
    if advisory:
        v["advisory"] = advisory
    if "adapter_contract" in top:
        assert not covers, (slug, "a check of HOSTS.md covers no clause")
        v["adapter_contract"] = top.pop("adapter_contract")
    if caps:
        v["capabilities"] = caps
    for k in ("host_posture", "host_buffers_only"):
        if k in top:
            v[k] = top.pop(k)
    for k in ("mode", "composition", "identity_provider", "interceptor_timeout_ms"):
        if k in top:
            v[k] = top.pop(k)
    v["scenario"] = scenario
    if script is not None:
        v["interceptor_script"] = script
    else:
        v["interceptor_scripts"] = scripts
    for k in ("approval_script", "redact_for_approval", "host_declaration", "host_declaration_text",
              "host_declaration_file", "host_declaration_invalid"):
        if k in top:
            v[k] = top.pop(k)
    assert not top, (slug, top)
    if not advisory:
        expect = text_spellings(expect)
    v["expect"] = expect
    VECTORS.append(("%s-%s.json" % (vid, slug), copy.deepcopy(v)))
    return v

#!/usr/bin/env python3
"""Lint vectors/0.1 against spec/0.1/clauses.json (standard library only). Exit 1 on any problem."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VDIR = os.path.join(ROOT, "vectors", "0.1")

CAPS = {"model_calls", "tool_calls", "parallel_tool_calls", "streaming", "multi_turn", "int64_json", "bigint_json",
        "incremental_output", "host_declaration"}
POINTS = {"agent_startup", "input", "pre_model_call", "post_model_call", "pre_tool_call", "post_tool_call", "output",
          "agent_shutdown"}
TOP = {"id", "title", "spec_clause", "part", "covers", "spec_versions", "capabilities", "mode", "composition",
       "identity_provider", "interceptor_timeout_ms", "scenario", "interceptor_script", "interceptor_scripts",
       "approval_script", "redact_for_approval", "host_declaration", "host_declaration_text", "host_declaration_file",
       "host_declaration_invalid", "expect"}
FILE_FAULTS = {"missing", "directory", "bom", "invalid_utf8", "oversized"}
EXPECT = {"load", "sequence_strict", "interceptions", "interceptions_absent", "run_outcome", "run_outcome_by_posture",
          "final_output", "tool_invocations", "tool_not_invoked", "records", "identities_equal", "released_output",
          "persisted_must_not_contain"}
MAX_SAFE = 2 ** 53 - 1
problems = []


def bad(name, msg):
    problems.append("%s: %s" % (name, msg))


def walk(x):
    yield x
    if isinstance(x, dict):
        for v in x.values():
            yield from walk(v)
    elif isinstance(x, list):
        for v in x:
            yield from walk(v)


def rules_of(v):
    if "interceptor_script" in v:
        return [v["interceptor_script"]]
    return v.get("interceptor_scripts", [])


HOST_CHOSEN = {"agent.id", "agent.framework", "session.id", "session_id", "timestamp", "model.id"}


def e_items(v):
    """Every dotted-path map of expectations: interception contexts and record assertions."""
    e = v.get("expect", {})
    for it in e.get("interceptions", []):
        yield it.get("context", {})
    for r in e.get("records", []):
        yield r.get("assert", {})


def main():
    with open(os.path.join(ROOT, "spec", "0.1", "clauses.json"), encoding="utf-8") as f:
        catalog = json.load(f)
    ids = {}
    untested = []
    for c in catalog["clauses"]:
        if c["id"] in ids:
            bad("clauses.json", "duplicate clause id " + c["id"])
        ids[c["id"]] = c
        if c["keyword"] not in ("MUST", "SHOULD", "MAY"):
            bad("clauses.json", "bad keyword in " + c["id"])
        if not re.fullmatch(r"\d+(\.\d+)*[a-z]?-[a-z]", c["id"]):
            bad("clauses.json", "bad clause id " + c["id"])
        if "not_vector_testable" in c and "unit_tests" not in c:
            bad("clauses.json", "not_vector_testable needs unit_tests: " + c["id"])
        for t in c.get("unit_tests", []):
            m = re.fullmatch(r"([A-Za-z0-9_.\-/]+\.rs)::([a-z_][a-z0-9_]*)", t)
            if not m:
                bad("clauses.json", "%s: unit test %r is not <repo-relative file>::<fn name>" % (c["id"], t))
                continue
            path = os.path.join(ROOT, m.group(1))
            if not os.path.isfile(path):
                bad("clauses.json", "%s: unit test file %s does not exist" % (c["id"], m.group(1)))
            elif not re.search(r"\bfn\s+%s\s*\(" % m.group(2), open(path, encoding="utf-8").read()):
                bad("clauses.json", "%s: %s has no fn %s(" % (c["id"], m.group(1), m.group(2)))
        if "not_vector_testable" in c and not c.get("unit_tests"):
            untested.append(c["id"])
    covered = {}
    retired = set()
    rpath = os.path.join(ROOT, "vectors", "RETIRED.md")
    if os.path.exists(rpath):
        retired = set(re.findall(r"^\| (CTK-\d{4}) \|", open(rpath, encoding="utf-8").read(), re.M))
    seen_ids, seen_titles = set(), set()
    files = sorted(x for x in os.listdir(VDIR) if x.endswith(".json"))
    if not files:
        bad("vectors/0.1", "no vectors")
    parts = {}
    for name in files:
        raw = open(os.path.join(VDIR, name), encoding="utf-8").read()
        try:
            v = json.loads(raw)
        except ValueError as e:
            bad(name, "invalid JSON: %s" % e)
            continue
        for k in ("id", "title", "spec_clause", "scenario", "expect", "covers", "part"):
            if k not in v:
                bad(name, "missing " + k)
        unknown = set(v) - TOP
        if unknown:
            bad(name, "unknown top-level keys %s" % sorted(unknown))
        vid = v.get("id", "")
        if not re.fullmatch(r"CTK-\d{4}", vid):
            bad(name, "bad id " + vid)
        if not re.fullmatch(re.escape(vid) + r"-[a-z0-9]+(-[a-z0-9]+)*\.json", name):
            bad(name, "file name does not match id and slug")
        if vid in seen_ids:
            bad(name, "duplicate id")
        if vid in retired:
            bad(name, "reuses a retired id (vectors/RETIRED.md)")
        # host-chosen values must not be pinned (vectors are host-neutral)
        for r in e_items(v):
            for k, val in r.items():
                if k in HOST_CHOSEN or (k == "model.id"):
                    bad(name, "pins the host-chosen value %s" % k)
        seen_ids.add(vid)
        if v.get("title") in seen_titles:
            bad(name, "duplicate title")
        seen_titles.add(v.get("title"))
        parts[v.get("part")] = parts.get(v.get("part"), 0) + 1
        if ("interceptor_script" in v) == ("interceptor_scripts" in v):
            bad(name, "exactly one of interceptor_script / interceptor_scripts")
        if v.get("spec_versions", ["0.1"]) != ["0.1"]:
            bad(name, "spec_versions must be [\"0.1\"]")
        for cid in v.get("covers", []):
            if cid not in ids:
                bad(name, "covers unknown clause " + cid)
            covered.setdefault(cid, []).append(vid)
        if len(set(v.get("covers", []))) != len(v.get("covers", [])):
            bad(name, "covers lists a clause twice")
        if not v.get("covers"):
            bad(name, "covers is empty")
        caps = set(v.get("capabilities", []))
        if caps - CAPS:
            bad(name, "unknown capabilities %s" % sorted(caps - CAPS))
        e = v.get("expect", {})
        if set(e) - EXPECT:
            bad(name, "unknown expect keys %s" % sorted(set(e) - EXPECT))
        refused = e.get("load", {}).get("outcome") == "refused"
        if "interceptions" not in e or "run_outcome" not in e:
            bad(name, "expect needs interceptions and run_outcome")
        if e.get("run_outcome") not in ("completed", "blocked", "error"):
            bad(name, "bad run_outcome")
        if "run_outcome_by_posture" in e:
            if e["run_outcome_by_posture"]["outcomes"].get("continue") != e.get("run_outcome"):
                bad(name, "run_outcome_by_posture.continue must equal run_outcome")
            if e.get("sequence_strict", True):
                bad(name, "posture-dependent vectors must not be sequence_strict")
        for it in e.get("interceptions", []):
            if it.get("interception_point") not in POINTS:
                bad(name, "bad interception_point")
            extra = set(it) - {"interception_point", "context", "context_must_validate", "context_must_contain",
                               "context_must_not_contain"}
            if extra:
                bad(name, "unknown interception keys %s" % sorted(extra))
        for k in ("interceptions_absent", "tool_not_invoked", "persisted_must_not_contain"):
            if k in e and not e[k]:
                bad(name, "empty %s asserts nothing" % k)
        for r in e.get("records", []):
            if r.get("interception_point") not in POINTS:
                bad(name, "bad record point")
            if not (r.get("assert") or r.get("absent") or r.get("present")):
                bad(name, "record entry asserts nothing")
        # non-vacuous: something beyond the run outcome
        asserted = any(k in e for k in ("records", "final_output", "tool_invocations", "tool_not_invoked", "load",
                                        "identities_equal", "released_output", "interceptions_absent")) or any(
            len(it) > 1 for it in e.get("interceptions", []))
        if not asserted:
            bad(name, "asserts nothing beyond the run outcome")
        sc = v.get("scenario", {})
        tools = {t["name"] for t in sc.get("tools", [])}
        for step in sc.get("model_script", []):
            resp = step["respond"]
            for k in ("content", "tool_calls", "finish_reason"):
                if k not in resp:
                    bad(name, "respond lacks " + k)
            for tc in resp.get("tool_calls", []):
                if tc["name"] not in tools:
                    bad(name, "model calls unknown tool " + tc["name"])
            if resp.get("parallel") and "parallel_tool_calls" not in caps:
                bad(name, "parallel needs parallel_tool_calls")
            if "stream" in resp:
                if "incremental_output" not in caps:
                    bad(name, "stream needs incremental_output")
                if "".join(resp["stream"]) != resp["content"]:
                    bad(name, "stream chunks must concatenate to content")
            if resp.get("parallel") and e.get("sequence_strict", True):
                bad(name, "parallel vectors must not be sequence_strict")
            if resp.get("parallel") and "tool_invocations" in e:
                bad(name, "parallel vectors must not pin the invocation order")
        if "turns" in sc and "multi_turn" not in caps:
            bad(name, "turns needs multi_turn")
        if any(t.get("behavior") == [] for t in sc.get("tools", [])):
            bad(name, "tool without behaviour")
        if tools and "tool_calls" not in caps and not refused:
            bad(name, "tools need tool_calls")
        if sc.get("model_script") and "model_calls" not in caps and not refused:
            bad(name, "model_script needs model_calls")
        for rl in rules_of(v):
            for r in rl:
                if r.get("at") not in POINTS:
                    bad(name, "rule with bad at")
                if sum(k in r for k in ("return", "return_raw", "fault")) > 1:
                    bad(name, "return / return_raw / fault are exclusive")
                if r.get("fault") == "timeout" and "interceptor_timeout_ms" not in v and "host_declaration" not in v:
                    bad(name, "fault timeout needs interceptor_timeout_ms")
                if r.get("fault") not in (None, "raise", "timeout", "malformed_verdict", "mutate"):
                    bad(name, "unknown fault")
        declared = [k for k in ("host_declaration", "host_declaration_text", "host_declaration_file") if k in v]
        if declared and "host_declaration" not in caps:
            bad(name, "%s needs the host_declaration capability" % declared[0])
        if "host_declaration" in v and v["host_declaration"] is None:
            bad(name, "host_declaration may not be null (write it as host_declaration_text)")
        if "host_declaration" in v and "host_declaration_text" in v:
            bad(name, "host_declaration and host_declaration_text are exclusive")
        if "host_declaration_text" in v and not isinstance(v["host_declaration_text"], str):
            bad(name, "host_declaration_text must be a string")
        if "host_declaration_file" in v:
            fault = v["host_declaration_file"]
            if fault not in FILE_FAULTS:
                bad(name, "unknown host_declaration_file %r" % (fault,))
            elif fault in ("bom", "invalid_utf8", "oversized"):
                text = v.get("host_declaration_text")
                if text is None and "host_declaration" in v:
                    text = json.dumps(v["host_declaration"])
                if text is None or (fault == "invalid_utf8" and '"' not in text):
                    bad(name, "file fault %s needs a document text to build the file from" % fault)
        if "host_declaration_text" in v and not v.get("host_declaration_invalid"):
            try:
                json.loads(v["host_declaration_text"])
            except ValueError:
                bad(name, "host_declaration_text is not JSON; mark the vector host_declaration_invalid")
        if refused and e.get("interceptions") != []:
            bad(name, "refused load must record nothing")
        if "composition" in v and declared:
            bad(name, "declaration vectors configure composition in the document")
        # integers beyond the safe range need int64_json / bigint_json
        for tok in re.findall(r"(?<![\w.\"])-?\d+(?![\w.eE])", re.sub(r'"(?:[^"\\]|\\.)*"', '""', raw)):
            n = int(tok)
            if abs(n) > MAX_SAFE:
                need = "bigint_json" if not (-2 ** 63 <= n < 2 ** 64) else "int64_json"
                if need not in caps:
                    bad(name, "integer %s needs %s" % (tok, need))
    uncovered = [c["id"] for c in catalog["clauses"]
                 if c["keyword"] == "MUST" and "not_vector_testable" not in c and c["id"] not in covered]
    for cid in uncovered:
        bad("coverage", "MUST clause %s is not covered by any vector" % cid)
    nvt_covered = [c["id"] for c in catalog["clauses"] if "not_vector_testable" in c and c["id"] in covered]
    for cid in nvt_covered:
        bad("coverage", "clause %s is marked not_vector_testable but vectors cover it" % cid)
    kw = {}
    for c in catalog["clauses"]:
        kw[c["keyword"]] = kw.get(c["keyword"], 0) + 1
    print("clauses: %d (%s), not vector-testable: %d" % (
        len(ids), ", ".join("%s %d" % x for x in sorted(kw.items())),
        sum(1 for c in catalog["clauses"] if "not_vector_testable" in c)))
    print("vectors: %d in %d parts" % (len(files), len(parts)))
    for p in sorted(parts, key=str):
        print("  %-40s %d" % (p, parts[p]))
    covered_must = sum(1 for c in catalog["clauses"] if c["keyword"] == "MUST" and c["id"] in covered)
    print("MUST clauses covered by vectors: %d" % covered_must)
    if untested:
        print("not vector-testable and no unit test pins them yet (%d): %s" % (len(untested), ", ".join(untested)))
    if problems:
        print("\n%d problem(s):" % len(problems))
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()

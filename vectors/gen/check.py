#!/usr/bin/env python3
"""The generator's bookkeeping over vectors/0.1 and spec/0.1/clauses.json (standard library only).
Exit 1 on any problem.

A vector's own validity (schema, ids, clause ids, host-neutral expectations, capabilities its
scenario needs, ...) is the Rust vector lint's, which every vector set gets:

    cargo run -q -p ctk -- validate vector vectors/0.1 vectors/draft

This file checks only how the project keeps its own set: the clause catalog (ids, keywords,
not_vector_testable clauses pinned by unit tests that exist), clause coverage, the CTK-NNNN id and
file-name convention, retired ids, covers (none for a check of HOSTS.md, adapter_contract) and part on every vector, distinct titles, and two
conventions stricter than validity: every capability a scenario could use is declared (a model_script
needs model_calls only to be about the model points: HOSTS.md section 4.6), and every vector asserts
something beyond its run outcome and point sequence."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VDIR = os.path.join(ROOT, "vectors", "0.1")

problems = []


def bad(name, msg):
    problems.append("%s: %s" % (name, msg))


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
    seen_titles = set()
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
        for k in ("covers", "part"):
            if k not in v:
                bad(name, "missing " + k)
        vid = v.get("id", "")
        if not re.fullmatch(r"CTK-\d{4}", vid):
            bad(name, "bad id " + vid)
        if not re.fullmatch(re.escape(vid) + r"-[a-z0-9]+(-[a-z0-9]+)*\.json", name):
            bad(name, "file name does not match id and slug")
        if vid in retired:
            bad(name, "reuses a retired id (vectors/RETIRED.md)")
        if v.get("title") in seen_titles:
            bad(name, "duplicate title")
        seen_titles.add(v.get("title"))
        parts[v.get("part")] = parts.get(v.get("part"), 0) + 1
        if v.get("spec_versions", ["0.1"]) != ["0.1"]:
            bad(name, "spec_versions must be [\"0.1\"]")
        for cid in v.get("covers", []):
            covered.setdefault(cid, []).append(vid)
        if not v.get("covers") and not v.get("adapter_contract"):
            bad(name, "covers is empty")
        caps = set(v.get("capabilities", []))
        e = v.get("expect", {})
        refused = e.get("load", {}).get("outcome") == "refused"
        # Project convention: something beyond the run outcome and the point sequence.
        asserted = any(k in e for k in ("records", "final_output", "tool_invocations", "tool_not_invoked", "load",
                                        "identities_equal", "released_output", "interceptions_absent")) or any(
            len(it) > 1 for it in e.get("interceptions", []))
        if not asserted:
            bad(name, "asserts nothing beyond the run outcome")
        # Project convention: declare every capability the scenario could use, even where the run stops
        # before using it (upstream vectors need not).
        sc = v.get("scenario", {})
        if sc.get("tools") and "tool_calls" not in caps and not refused:
            bad(name, "tools need tool_calls")
        # A host without a model takes each model_script entry as its own step (HOSTS.md section 4.6), so a
        # script needs model_calls only when the vector is about the model points; a scripted tool call always
        # needs tool_calls, and a vector that a host without a model runs names no model point.
        steps = [s.get("respond", {}) for s in sc.get("model_script", [])]
        if any(s.get("tool_calls") for s in steps) and "tool_calls" not in caps and not refused:
            bad(name, "scripted tool calls need tool_calls")
        if "model_calls" not in caps and not refused and not v.get("host_declaration"):
            named = [x.get("interception_point") for k in ("interceptions", "records") for x in e.get(k) or []]
            named += [r.get("at") for r in v.get("interceptor_script") or []]
            named += [r.get("at") for s in v.get("interceptor_scripts") or [] for r in s]
            if {"pre_model_call", "post_model_call"} & set(named):
                bad(name, "names a model point but does not need model_calls")
            if e.get("interceptions") and e.get("sequence_strict", True):
                bad(name, "without model_calls, interceptions must be matched as a subsequence (sequence_strict false)")
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

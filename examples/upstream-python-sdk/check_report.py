#!/usr/bin/env python3
"""Check a `ctk run` report of this host against its triaged results.

    python3 check_report.py SUITE REPORT_JSON

SUITE is a key of expected.json's `suites` (`0.1`, the project's released
vectors; `upstream`, the upstream vectors). The run is as triaged when no
vector is an `error`, and the failing gating vectors and the failing advisory
vectors are exactly the ones expected.json lists. Exit status: 0 as triaged,
1 it departs (each difference is printed), 2 bad arguments or input.

`ctk run` itself exits 1 for this host, since the SDK fails gating vectors
(README.md, Triage); a CI step runs it, then this check, which is what gates.
Standard library only.
"""

from __future__ import annotations

import json
import os
import sys

EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")


def main(argv):
    if len(argv) != 2:
        print("usage: " + __doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    suite, path = argv
    try:
        with open(EXPECTED, encoding="utf-8") as f:
            expected = json.load(f)["suites"][suite]
        with open(path, encoding="utf-8") as f:
            report = json.load(f)
    except KeyError:
        print(f"check_report: no suite {suite!r} in {EXPECTED}", file=sys.stderr)
        return 2
    except (OSError, ValueError) as e:
        print(f"check_report: cannot read the input: {e}", file=sys.stderr)
        return 2

    vectors = report.get("vectors", [])
    errors = sorted(v["id"] for v in vectors if v.get("status") == "error")
    failing = {
        kind: sorted(v["id"] for v in vectors
                     if v.get("status") == "fail" and (("advisory" in v) == (kind == "advisory_fail")))
        for kind in ("gating_fail", "advisory_fail")
    }
    problems = [f"harness error: {i}" for i in errors]
    source = str(report.get("vector_set", {}).get("source", ""))
    # "a folder": a --vectors run (the upstream set); otherwise the embedded set named.
    if expected["source"] == "a folder":
        right_set = bool(source) and not source.startswith("embedded:")
    else:
        right_set = source == expected["source"]
    if not right_set:
        problems.append(f"the report ran vector set {source!r}; suite {suite!r} is {expected['source']!r}")
    if report.get("host", {}).get("name") != "upstream-python-sdk-host":
        problems.append(f"the report is of host {report.get('host', {}).get('name')!r}, not this one")
    if not report.get("complete", False):
        problems.append("the report is not complete (a run stopped early)")
    for kind, got in failing.items():
        want = set(expected[kind])
        problems += [f"{kind}: {i} fails and is not triaged (see README.md, Triage)" for i in sorted(set(got) - want)]
        problems += [f"{kind}: {i} is triaged as failing but did not fail" for i in sorted(want - set(got))]
    passed = sum(1 for v in vectors if v.get("status") == "pass")
    skipped = sum(1 for v in vectors if v.get("status") == "skip")
    for p in problems:
        print(f"check_report: {p}", file=sys.stderr)
    print(f"{suite}: {len(vectors)} vectors, {passed} passed, {len(failing['gating_fail'])} gating and "
          f"{len(failing['advisory_fail'])} advisory failed (all triaged: {'no' if problems else 'yes'}), "
          f"{skipped} skipped, {len(errors)} errors")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

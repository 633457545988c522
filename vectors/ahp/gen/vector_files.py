"""Writes a generator's vectors into their folder, or checks them (--check).

Several generators share a folder (vectors/ahp/0.1 holds AHP-B-* and
AHP-H-*, vectors/ahp/draft holds AHP-DB-* and AHP-DH-*), so each one owns
only the files that carry its id prefix: only those can be stale.
"""
import json
import os
import sys


def render(vector):
    """The one on-disk form of a vector: two-space JSON, UTF-8, final newline."""
    return json.dumps(vector, indent=2, ensure_ascii=False) + "\n"


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

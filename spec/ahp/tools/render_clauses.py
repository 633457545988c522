#!/usr/bin/env python3
"""Render spec/ahp/0.1/clauses.md from spec/ahp/0.1/clauses.json.

The JSON catalog is the source; the Markdown table is derived from it so the
two cannot drift. Run from anywhere:

  python3 spec/ahp/tools/render_clauses.py          # rewrite clauses.md
  python3 spec/ahp/tools/render_clauses.py --check  # exit 1 if clauses.md is stale
                                                    # or a quote is not in its source

Every clause's `quote` must occur, up to whitespace, in its `source` (a path
relative to the upstream folder, $CTK_UPSTREAM_DIR or ../shared/upstream
beside the checkout). --check verifies that when the upstream folder is
there, and says it skipped the check when it is not (CTK_REQUIRE_UPSTREAM=1
makes that a failure, as for the tests). A source `seed:NNN` names one of
the project's seed documents (../shared/seeds/NNN_*.txt); a clause with no
source has no quote.
"""

import glob
import json
import os
import re
import sys
from collections import Counter, OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION_DIR = os.path.normpath(os.path.join(HERE, "..", "0.1"))
SOURCE = os.path.join(VERSION_DIR, "clauses.json")
TARGET = os.path.join(VERSION_DIR, "clauses.md")
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
UPSTREAM = os.environ.get("CTK_UPSTREAM_DIR") or os.path.normpath(os.path.join(REPO, "..", "shared", "upstream"))
SEEDS = os.path.normpath(os.path.join(UPSTREAM, "..", "seeds"))

SECTION_TITLES = {
    "6": "Conformance profiles", "6.1": "Base Protocol profile", "6.2": "Tool Interception profile",
    "6.3": "Lifecycle Observation profile", "7.1": "JSON-RPC", "7.2": "Versioning", "7.3": "Unknown fields",
    "7.4": "JSON values", "8.1": "Intercept request", "8.4": "Observe notification", "9.1": "Common event fields",
    "9.2": "Session object", "9.3": "Tool object", "9.4": "Native payload", "9.5": "Extensions",
    "10.1": "tool.before", "10.2": "tool.after", "10.3": "tool.error", "10.4": "session.start",
    "10.5": "session.end", "11": "Capabilities", "12.1": "Effect list", "12.2": "deny", "12.3": "No allow effect",
    "13.1": "Interceptor order", "13.2": "Observers", "13.3": "Overlapping subscriptions", "14.2": "Failure policy",
    "14.3": "Synthetic denial", "14.4": "Deadlines", "15": "Duplicate delivery and retries", "16": "JSON-RPC errors",
    "17.1": "stdio framing", "17.2": "Persistent lifecycle", "17.4": "Process security",
    "18.1": "HTTP request and response", "18.2": "TLS", "18.3": "Authentication", "19.1": "Registration document shape",
    "19.2": "Backend fields", "19.3": "Subscription fields", "19.5": "HTTP transport fields",
    "19.6": "Native harness configuration", "20.1": "Sensitive data", "20.2": "Authorization boundary",
    "20.4": "Replay and duplicates", "20.5": "Extension trust", "21": "Conformance tests",
    "22": "Compatibility-adapter requirements",
}


def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def render(catalog):
    clauses = catalog["clauses"]
    by_kw = Counter(c["keyword"] for c in clauses)
    by_term = Counter(c.get("bcp14", c["keyword"]) for c in clauses)
    by_role = Counter(c["role"] for c in clauses)
    nvt = sum(1 for c in clauses if "not_vector_testable" in c)
    req_line = sum(1 for c in clauses if c.get("origin") == "requirement-line")
    out = []
    w = out.append
    w("# AHP 0.1 clause catalog")
    w("")
    w("Rendered from `clauses.json` by `spec/ahp/tools/render_clauses.py`; edit the JSON, then re-run the tool.")
    w("")
    w("Every BCP 14 statement of sections 5 to 22 of the AHP working draft (`protocolVersion` `\"0.1\"`,")
    w("revision `0.1.0-draft.1`), one requirement per clause, in the project's own words. The canonical")
    w("text is read from `../shared/upstream/agent-hooks-protocol/spec/working-draft.md`;")
    w("`spec/ahp/tools/count_bcp14.py` counts its statements per section and compares them with this catalog.")
    w("")
    w("## Shape of `clauses.json`")
    w("")
    w("```")
    w('{ "spec": "agent-hooks-protocol/0.1", "catalog_version": 1, "description": "...",')
    w('  "clauses": [ { "id": "ahp-14.4-e",        // ahp-<section>-<letter>, stable, never reused')
    w('                 "keyword": "MUST",         // MUST | SHOULD | MAY (the runner\'s levels)')
    w('                 "bcp14": "MUST",           // the term as the text spells it: MUST NOT, REQUIRED, OPTIONAL, ...')
    w('                 "section": "14.4",         // section of working-draft.md')
    w('                 "role": "harness",         // harness | backend | registration | both: who the statement binds')
    w('                 "requirements": ["AHP-FAIL-002"],  // AHP-* ids of spec/requirements.json it carries (may be empty)')
    w('                 "text": "...",             // one sentence, paraphrased')
    w('                 "source": "agent-hooks-protocol/spec/working-draft.md",  // where the statement is, relative to ../shared/upstream')
    w('                 "quote": "...",            // its sentence, table cell or list item, verbatim (up to whitespace)')
    w('                 "origin": "requirement-line",      // only for clauses taken from a requirement summary line')
    w('                 "not_vector_testable": "...",     // only when no live vector can observe it: why')
    w('                 "unit_tests": [] } ] }     // with not_vector_testable: <repo-relative file>::<test fn>, filled later')
    w("```")
    w("")
    w("Keyword mapping: MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT are `MUST`; SHOULD, SHOULD NOT, RECOMMENDED,")
    w("NOT RECOMMENDED are `SHOULD`; MAY, OPTIONAL are `MAY`. A negative statement keeps its negation in `text`")
    w("and in `bcp14`.")
    w("")
    w("Counts: %d clauses (%d from requirement summary lines), %d not vector-testable." % (len(clauses), req_line, nvt))
    w("By keyword: %s." % ", ".join("%s %d" % (k, by_kw[k]) for k in ("MUST", "SHOULD", "MAY") if by_kw[k]))
    w("By BCP 14 term: %s." % ", ".join("%s %d" % kv for kv in sorted(by_term.items(), key=lambda kv: -kv[1])))
    w("By role: %s." % ", ".join("%s %d" % (k, by_role[k]) for k in ("harness", "backend", "registration", "both") if by_role[k]))
    w("")
    sections = OrderedDict()
    for c in clauses:
        sections.setdefault(c["section"], []).append(c)
    for sec, items in sections.items():
        title = SECTION_TITLES.get(sec)
        w("## Section %s%s" % (sec, " (%s)" % title if title else ""))
        w("")
        w("| id | keyword | section | role | requirements | text | the text says | vector-testable |")
        w("|---|---|---|---|---|---|---|---|")
        for c in items:
            kw = c["keyword"] if c.get("bcp14", c["keyword"]) == c["keyword"] else "%s (%s)" % (c["keyword"], c["bcp14"])
            reqs = ", ".join(c["requirements"]) or "-"
            text = c["text"] + (" *(from the requirement line)*" if c.get("origin") == "requirement-line" else "")
            if "not_vector_testable" in c:
                tests = ", ".join("`%s`" % t for t in c.get("unit_tests", [])) or "no test pins it yet"
                testable = "no: %s (%s)" % (c["not_vector_testable"], tests)
            else:
                testable = "yes"
            quote = "\u201c%s\u201d" % c["quote"] if c.get("quote") else "-"
            if c.get("source", "").startswith("seed:"):
                quote += " (%s, a description, not the text)" % c["source"]
            w("| `%s` | %s | %s | %s | %s | %s | %s | %s |" % (
                c["id"], kw, c["section"], c["role"], reqs, cell(text), cell(quote), cell(testable)))
        w("")
    return "\n".join(out)


def squash(text):
    return re.sub(r"\s+", " ", text).strip()


def source_text(source):
    """The text of a clause's source, or None when it cannot be read."""
    if source.startswith("seed:"):
        paths = sorted(glob.glob(os.path.join(SEEDS, source[len("seed:"):] + "_*.txt")))
        path = paths[0] if paths else None
    else:
        path = os.path.join(UPSTREAM, source)
    if not path or not os.path.isfile(path):
        return None
    with open(path, encoding="utf-8") as f:
        return f.read()


def quote_problems(catalog):
    """Every clause whose quote is not in its source, named with the file;
    None when the upstream folder is missing."""
    if not os.path.isdir(UPSTREAM):
        return None
    problems = []
    texts = {}
    for c in catalog["clauses"]:
        source, quote = c.get("source"), c.get("quote")
        if not source:
            if quote:
                problems.append("%s: a quote without a source" % c["id"])
            continue
        if not quote:
            problems.append("%s: source %s without a quote" % (c["id"], source))
            continue
        if source not in texts:
            text = source_text(source)
            texts[source] = squash(text) if text is not None else None
        if texts[source] is None:
            problems.append("%s: source %s cannot be read" % (c["id"], source))
        elif squash(quote) not in texts[source]:
            problems.append("%s: the quote is not in %s: %r" % (c["id"], source, quote))
    return problems


def main():
    with open(SOURCE, encoding="utf-8") as f:
        catalog = json.load(f)
    text = render(catalog)
    if "--check" in sys.argv[1:]:
        status = 0
        current = open(TARGET, encoding="utf-8").read() if os.path.isfile(TARGET) else ""
        if current != text:
            sys.stderr.write("render_clauses: %s is stale; run spec/ahp/tools/render_clauses.py\n" % TARGET)
            status = 1
        problems = quote_problems(catalog)
        if problems is None:
            sys.stderr.write("render_clauses: SKIPPED the quote check (upstream data missing: %s)\n" % UPSTREAM)
            if os.environ.get("CTK_REQUIRE_UPSTREAM") == "1":
                status = 1
        else:
            for p in problems:
                sys.stderr.write("render_clauses: %s\n" % p)
            if problems:
                status = 1
        return status
    with open(TARGET, "w", encoding="utf-8") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())

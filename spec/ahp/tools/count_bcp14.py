#!/usr/bin/env python3
"""Count BCP 14 keywords per section of the AHP 0.1 working draft.

The working draft is read at run time from the shared upstream copy (it is
never copied into this project). The script exists so that a reviewer can
compare, section by section, how many BCP 14 statements the text makes with
how many clauses `spec/ahp/0.1/clauses.json` records.

Counting rules (the catalog follows the same rules, see spec/ahp/README.md):

* A keyword is one of MUST, MUST NOT, REQUIRED, SHALL, SHALL NOT, SHOULD,
  SHOULD NOT, RECOMMENDED, NOT RECOMMENDED, MAY, OPTIONAL, in capitals only
  (BCP 14 / RFC 8174). The two-word forms are counted once, not twice.
* Fenced code blocks are skipped.
* `prose`: keywords in running text and list items.
* `table`: keywords inside table cells (`<td>`), e.g. a field marked REQUIRED.
* `req-line`: the level label of a requirement summary line
  (`**AHP-XXX-NNN — MUST.** ...`). These restate other statements and are
  reported apart; the catalog carries them through each clause's
  `requirements` member.
* `statements` = prose + table, except that a keyword closing a sentence that
  introduces a bullet list ("... MUST:") counts once per bullet, because each
  bullet is a separate requirement; a list of alternatives ("MUST contain
  either:", "one of:") counts once.

Usage:
  python3 spec/ahp/tools/count_bcp14.py [--draft FILE] [--catalog FILE]
                                        [--all-sections] [--list] [--json]

With a catalog (by default spec/ahp/0.1/clauses.json when it exists) the
table gains a `catalog` column: the clauses of that section whose `origin` is
not `requirement-line` ("+Nr" counts those that are). A section is listed as
differing when its clause count, or the multiset of the clauses' `bcp14` terms,
differs from the text's statements (a list-introducing keyword counted once per
bullet).
"""

import argparse
import json
import os
import re
import sys
from collections import Counter, OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
DEFAULT_DRAFT = os.path.normpath(
    os.path.join(REPO, "..", "shared", "upstream", "agent-hooks-protocol", "spec", "working-draft.md")
)
DEFAULT_CATALOG = os.path.join(REPO, "spec", "ahp", "0.1", "clauses.json")

# Longer forms first so that "MUST NOT" is one keyword, not "MUST" plus text.
KEYWORD = re.compile(
    r"(?<![A-Za-z])(MUST NOT|MUST|REQUIRED|SHALL NOT|SHALL|SHOULD NOT|SHOULD|"
    r"NOT RECOMMENDED|RECOMMENDED|MAY|OPTIONAL)(?![A-Za-z])"
)
HEADING = re.compile(r"^#{2,3}\s+(\d+(?:\.\d+)*)\.?\s")
REQ_LINE = re.compile(r"^\*\*AHP-[A-Z]+-\d+ \u2014 ")
BULLET = re.compile(r"^\s*(?:[-*]|\d+\.)\s+")
ALTERNATIVES = re.compile(r"(either|one of):\s*$")


def section_number(key):
    return tuple(int(p) for p in key.split("."))


def count(draft_path, all_sections):
    with open(draft_path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    sections = OrderedDict()
    hits = []
    current = None
    in_fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        m = HEADING.match(line)
        if m:
            current = m.group(1)
            sections.setdefault(current, Counter())
            continue
        if current is None:
            continue
        top = int(current.split(".")[0])
        if not all_sections and not 5 <= top <= 22:
            continue
        found = KEYWORD.findall(line)
        if not found:
            continue
        if REQ_LINE.match(line):
            kind = "req-line"
        elif "<td>" in line:
            kind = "table"
        else:
            kind = "prose"
        c = sections[current]
        statements = 0
        if kind != "req-line":
            statements = len(found)
            if line.rstrip().endswith(":") and not ALTERNATIVES.search(line):
                bullets = 0
                for nxt in lines[i + 1 :]:
                    if BULLET.match(nxt):
                        if KEYWORD.search(nxt):
                            break
                        bullets += 1
                        continue
                    if nxt.strip() == "" and bullets == 0:
                        continue
                    break
                if bullets:
                    statements += bullets - 1
                    c["st:" + found[-1]] += bullets - 1
            for k in found:
                c["st:" + k] += 1
        c[kind] += len(found)
        c["statements"] += statements
        for k in found:
            c["kw:" + k] += 1
        hits.append((current, i + 1, kind, found, statements, line.strip()))
    return OrderedDict((k, v) for k, v in sections.items() if v), hits


def catalog_counts(path):
    with open(path, encoding="utf-8") as f:
        catalog = json.load(f)
    per = Counter()
    extra = Counter()
    terms = {}
    for c in catalog["clauses"]:
        if c.get("origin") == "requirement-line":
            extra[c["section"]] += 1
        else:
            per[c["section"]] += 1
            terms.setdefault(c["section"], Counter())[c.get("bcp14", c["keyword"])] += 1
    return per, extra, terms


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--draft", default=DEFAULT_DRAFT, help="working-draft.md (default: %(default)s)")
    ap.add_argument("--catalog", default=None, help="clauses.json to compare with (default: spec/ahp/0.1/clauses.json if present)")
    ap.add_argument("--all-sections", action="store_true", help="count every section, not only the normative 5-22")
    ap.add_argument("--list", action="store_true", help="also print every line that holds a keyword")
    ap.add_argument("--json", action="store_true", help="print the counts as JSON")
    args = ap.parse_args()

    if not os.path.isfile(args.draft):
        sys.stderr.write(
            "count_bcp14: cannot read the working draft at %s\n"
            "  (it lives in ../shared/upstream/agent-hooks-protocol/spec/; pass --draft FILE)\n" % args.draft
        )
        return 2
    sections, hits = count(args.draft, args.all_sections)
    catalog_path = args.catalog or (DEFAULT_CATALOG if os.path.isfile(DEFAULT_CATALOG) else None)
    per_cat, extra_cat, terms_cat = (catalog_counts(catalog_path) if catalog_path else (None, None, None))

    if args.json:
        out = OrderedDict()
        for key, c in sections.items():
            out[key] = OrderedDict(sorted(c.items()))
            if per_cat is not None:
                out[key]["catalog"] = per_cat.get(key, 0)
                out[key]["catalog_requirement_line"] = extra_cat.get(key, 0)
        print(json.dumps(out, indent=2))
        return 0

    kw_order = ["MUST", "MUST NOT", "REQUIRED", "SHALL", "SHALL NOT", "SHOULD", "SHOULD NOT",
                "RECOMMENDED", "NOT RECOMMENDED", "MAY", "OPTIONAL"]
    header = ["section", "keywords", "prose", "table", "req-line", "statements"]
    if per_cat is not None:
        header += ["catalog", "delta"]
    header += ["by keyword"]
    rows = []
    total = Counter()
    mismatched = []
    for key in sorted(set(sections) | set(per_cat or ()), key=section_number):
        c = sections.get(key, Counter())
        total.update(c)
        kws = c["prose"] + c["table"] + c["req-line"]
        row = [key, str(kws), str(c["prose"]), str(c["table"]), str(c["req-line"]), str(c["statements"])]
        if per_cat is not None:
            n = per_cat.get(key, 0)
            row += [str(n) + ("+%dr" % extra_cat[key] if extra_cat.get(key) else ""), "%+d" % (n - c["statements"])]
            text_terms = Counter({k[3:]: v for k, v in c.items() if k.startswith("st:")})
            if n != c["statements"] or text_terms != terms_cat.get(key, Counter()):
                mismatched.append(key)
        row.append(", ".join("%s %d" % (k, c["kw:" + k]) for k in kw_order if c["kw:" + k]))
        rows.append(row)
    kws = total["prose"] + total["table"] + total["req-line"]
    trow = ["total", str(kws), str(total["prose"]), str(total["table"]), str(total["req-line"]), str(total["statements"])]
    if per_cat is not None:
        n = sum(per_cat.values())
        trow += [str(n) + "+%dr" % sum(extra_cat.values()), "%+d" % (n - total["statements"])]
    trow.append(", ".join("%s %d" % (k, total["kw:" + k]) for k in kw_order if total["kw:" + k]))
    rows.append(trow)
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    print("BCP 14 keywords in %s (sections %s)" % (args.draft, "all" if args.all_sections else "5-22"))
    print(fmt % tuple(header))
    for r in rows:
        print(fmt % tuple(r))
    if per_cat is not None:
        print("catalog: %s (\"+Nr\" = clauses drawn from a requirement summary line only)" % catalog_path)
        print("sections where the catalog's clause count or its bcp14 terms differ from the text's statements: %s"
              % (", ".join(mismatched) or "none"))
    if args.list:
        print()
        for sec, lineno, kind, found, st, text in hits:
            print("%-5s L%-5d %-8s %-3d %-30s %s" % (sec, lineno, kind, st, "/".join(found), text[:110]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

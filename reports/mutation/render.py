#!/usr/bin/env python3
"""Scores cargo-mutants runs of the reference host and the AHP references, and renders them.

Reads each run's `mutants.out/outcomes.json` (cargo-mutants' own record),
keys every mutant by its file and description without the line and column
(so an equivalents entry survives an edit elsewhere in the file; a
description that occurs more than once in a file gets ` #k`, its place in
source order), and:

* `--results FILE --markdown FILE`: writes the per-mutant results of the
  project suite and the upstream suite side by side, and reports/mutation.md,
  from one run of both suites (`CTK_ORACLE=both`): cargo-mutants' outcomes
  are the project suite's verdicts, and `--ledger` holds upstream's, paired
  with cargo-mutants' mutants in run order, each pair checked to name the
  same mutation;
* `--gate`: exits 1 when a project-suite run missed a mutant that
  equivalents.txt does not list, naming each one;
* `--sample N`: prints one cargo-mutants `--re` filter per line, naming
  exactly the mutants whose stable key hashes (SHA-256) to R modulo N
  (`--residue R`, default 0): a slice fixed by the keys, so an edit
  elsewhere in the tree leaves it be (`run sample` picks R from its seed).

* `--impl ahp-backend|ahp-harness --results FILE --summary FILE`: the same
  for a run of an AHP reference (one suite, the AHP vectors: no ledger), its
  summary.json for the page's table; the page itself is rendered by the
  reference host's `--from-results` mode, which adds every implementation's
  section from the folders beside this script.

A timeout counts as caught (the suite did not pass the mutant) and is shown
apart. An unviable mutant (it did not build) is not scored.
"""
import argparse
import collections
import datetime
import hashlib
import json
import re
import sys
from pathlib import Path

LINE_COL = re.compile(r":\d+:\d+:\s*")
HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", re.M)
DIFF_FILE = re.compile(r"^\+\+\+ b/(.+)$", re.M)
OUTCOME = {
    "CaughtMutant": "caught",
    "MissedMutant": "missed",
    "Timeout": "timeout",
    "Unviable": "unviable",
}


def bare_key(mutant):
    """`file: description`, without line and column."""
    name = mutant["name"]
    file = mutant["file"]
    if name.startswith(file):
        name = LINE_COL.sub("", name[len(file):], count=1)
    return f"{file}: {name.strip()}"


def keys_from_list(path):
    """Maps each cargo-mutants name to its stable key, from the whole list
    (`cargo mutants --list --json`): the bare key when it is unique in the
    file, else the bare key and ` #k`, its place among the mutants of that
    description in source order. A sample keys its mutants exactly as the
    full run does."""
    try:
        everything = json.loads(Path(path).read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read the mutant list: {e}")
    groups = collections.defaultdict(list)
    for m in everything:
        start = m["span"]["start"]
        groups[bare_key(m)].append((start["line"], start["column"], m["name"]))
    keys = {}
    for bare, members in groups.items():
        members.sort()
        for k, (_, _, name) in enumerate(members, 1):
            keys[name] = bare if len(members) == 1 else f"{bare} #{k}"
    return keys


KEYS = {}


def key_of(mutant):
    if mutant["name"] not in KEYS:
        sys.exit(f"mutant {mutant['name']!r} is not in the --all list: make the list from the same tree")
    return KEYS[mutant["name"]]


def read_run(out_dir):
    """Maps mutant key -> outcome word for one mutants.out folder."""
    path = Path(out_dir) / "outcomes.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read cargo-mutants' outcomes: {e}")
    results = {}
    for o in data.get("outcomes", []):
        scenario = o.get("scenario")
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue
        summary = o.get("summary")
        if summary not in OUTCOME:
            sys.exit(f"{path}: mutant {scenario['Mutant'].get('name')!r} has outcome {summary!r}")
        results[key_of(scenario["Mutant"])] = OUTCOME[summary]
    return results, data


def read_ledger(path):
    """The `both` oracle's ledger: one group per test run, a mutation line
    (`git diff -U0` of the mutated tree) and then each suite's verdict."""
    try:
        text = Path(path).read_text()
    except OSError as e:
        sys.exit(f"{path}: cannot read the oracle's ledger: {e}")
    groups = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            entry = json.loads(line)
        except ValueError as e:
            sys.exit(f"{path}:{n}: not a JSON line: {e}")
        if isinstance(entry, dict) and isinstance(entry.get("mutation"), str):
            groups.append({"mutation": entry["mutation"], "line": n})
        elif (
            isinstance(entry, dict)
            and entry.get("suite") in ("upstream", "project")
            and isinstance(entry.get("caught"), bool)
        ):
            if not groups:
                sys.exit(f"{path}:{n}: a verdict before any mutation line")
            if entry["suite"] in groups[-1]:
                sys.exit(f"{path}:{n}: a second {entry['suite']} verdict for one mutation")
            groups[-1][entry["suite"]] = entry["caught"]
        else:
            sys.exit(f"{path}:{n}: neither a mutation line nor a suite's verdict")
    return groups


def same_mutation(group, mutant):
    """Whether the ledger's diff changes the mutant's file, on lines its
    span covers: what keeps the pairing from drifting silently."""
    files = DIFF_FILE.findall(group["mutation"])
    if files != [mutant["file"]]:
        return False
    first, last = mutant["span"]["start"]["line"], mutant["span"]["end"]["line"]
    for start, count in HUNK.findall(group["mutation"]):
        a = int(start)
        b = 1 if count == "" else int(count)
        if a <= last and first <= a + max(b, 1) - 1:
            return True
    return False


def upstream_from_ledger(path, data):
    """Maps mutant key -> upstream's outcome word, pairing the ledger's
    groups with the project run's tested mutants in run order (one job,
    `--no-shuffle`: one test run per viable mutant). A mutant killed for
    time before upstream's verdict was written is a timeout for both."""
    groups = iter(read_ledger(path))
    results = {}
    for o in data.get("outcomes", []):
        scenario = o.get("scenario")
        if not isinstance(scenario, dict) or "Mutant" not in scenario:
            continue
        mutant = scenario["Mutant"]
        key = key_of(mutant)
        project = OUTCOME[o["summary"]]
        if project == "unviable":
            results[key] = "unviable"
            continue
        group = next(groups, None)
        if group is None:
            sys.exit(f"{path}: the ledger ends before {mutant['name']!r}: it is not this run's")
        if not same_mutation(group, mutant):
            sys.exit(
                f"{path}:{group['line']}: this mutation is not {mutant['name']!r}, the run's next "
                f"tested mutant: the ledger is not this run's, or the checkout was not clean"
            )
        said = group.get("project")
        if said is not None and project in ("caught", "missed") and said != (project == "caught"):
            sys.exit(f"{path}:{group['line']}: the project verdict differs from cargo-mutants' {project}")
        results[key] = "timeout" if "upstream" not in group else ("caught" if group["upstream"] else "missed")
    rest = next(groups, None)
    if rest is not None:
        sys.exit(f"{path}:{rest['line']}: a mutation past the run's last tested mutant")
    return results


def read_equivalents(path):
    """Maps mutant key -> reason; every entry must carry one. survivors.txt
    has the same format."""
    entries = {}
    for n, line in enumerate(Path(path).read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, reason = line.partition("  # ")
        if not sep or not reason.strip():
            sys.exit(f"{path}:{n}: an equivalent mutant needs `<file>: <mutant>  # <reason>`")
        entries[key.strip()] = reason.strip()
    return entries


def module_of(key):
    """The module of a key's file: its path below the crate's `src/`."""
    file = key.split(": ", 1)[0]
    return re.sub(r"^.*?/src/", "", file).removesuffix(".rs").removesuffix("/mod")


def tally(results, equivalents):
    """Per module: counts of caught/timeout/missed/unviable/equivalent."""
    rows = collections.defaultdict(collections.Counter)
    for key, outcome in results.items():
        word = "equivalent" if outcome == "missed" and key in equivalents else outcome
        rows[module_of(key)][word] += 1
    return rows


def score(counts):
    killed = counts["caught"] + counts["timeout"]
    scored = killed + counts["missed"]
    return killed, scored


def pct(killed, scored):
    return "n/a" if scored == 0 else f"{100 * killed / scored:.1f}%"


def gate(runs, equivalents, survivors):
    """Fails on a missed mutant that is neither equivalent nor a known
    survivor, and on a known survivor the suite now catches (the list only
    shrinks)."""
    tested = {key: outcome for results in runs for key, outcome in results.items()}
    missed = sorted(
        key
        for key, outcome in tested.items()
        if outcome == "missed" and key not in equivalents and key not in survivors
    )
    known = sorted(k for k, o in tested.items() if o == "missed" and k in survivors)
    killed = sorted(k for k, o in tested.items() if o in ("caught", "timeout") and k in survivors)
    total = sum(len(r) for r in runs)
    counts = collections.Counter(o for r in runs for o in r.values())
    print(
        f"mutation gate: {total} mutants: {counts['caught']} caught, {counts['timeout']} timeout, "
        f"{counts['missed']} missed, {counts['unviable']} unviable"
    )
    if total == 0:
        sys.exit("mutation gate: no mutant was tested")
    for key in known:
        print(f"known survivor (survivors.txt, a gap still open): {key}")
    for key in killed:
        print(f"CAUGHT but listed in survivors.txt: remove it: {key}")
    for key in missed:
        print(f"MISSED (in neither equivalents.txt nor survivors.txt): {key}")
    if missed or killed:
        sys.exit(1)


def run_meta(data, machine):
    """When the run was made, how long it took, and where."""
    start, end = data.get("start_time"), data.get("end_time")
    took = "?"
    try:
        # cargo-mutants writes nanoseconds; Python's ISO parser takes micro.
        t = [datetime.datetime.fromisoformat(re.sub(r"(\.\d{6})\d*", r"\1", v).replace("Z", "+00:00"))
             for v in (start, end)]
        took = f"{(t[1] - t[0]).total_seconds() / 60:.0f} minutes"
    except (TypeError, ValueError):
        pass
    where = f", on {machine}" if machine else ""
    return f"{start} to {end} ({took}{where}), cargo-mutants {data.get('cargo_mutants_version', '?')}"


HERE = Path(__file__).resolve().parent

# The implementations measured besides the reference host, each with a
# folder beside this script (equivalents.txt, survivors.txt, results.json,
# summary.json, notes.md). The Python example host's folder is its own
# tooling's: only its summary.json is read here.
AHP = {
    "ahp-backend": {
        "title": "The AHP reference backend",
        "implementation": "ahp-reference (ctk-ahp-backend)",
        "source": "ahp/reference-backend/src",
        "config": ".cargo/mutants-ahp-backend.toml",
        "oracle": "ahp/reference-backend/tests/vectors.rs",
        "judged": "every backend vector (AHP-B, and AHP-DB against `--spec draft`), over stdio "
                  "persistent, stdio per_event and HTTP",
    },
    "ahp-harness": {
        "title": "The AHP reference harness",
        "implementation": "ahp-harness (ctk-ahp-harness)",
        "source": "ahp/reference-harness/src",
        "config": ".cargo/mutants-ahp-harness.toml",
        "oracle": "ahp/reference-harness/tests/vectors.rs",
        "judged": "every harness vector (AHP-H, and AHP-DH against `--spec draft`), through the "
                  "adapter contract, its backends over stdio persistent, stdio per_event and HTTP",
    },
}
PYTHON_HOST = "python-host"


def counts_of(results, equivalents):
    """Whole-run counts: caught/timeout/missed/unviable/equivalent."""
    total = collections.Counter()
    for c in tally(results, equivalents).values():
        total.update(c)
    return total


def summary_of(implementation, results, equivalents, data, machine):
    """summary.json: what the page's table shows of one implementation."""
    c = counts_of(results, equivalents)
    killed, scored = score(c)
    start, end = data.get("start_time"), data.get("end_time")
    return {
        "implementation": implementation,
        "tool": f"cargo-mutants {data.get('cargo_mutants_version', '?')}",
        "run": {"start": start, "end": end, "minutes": minutes(start, end), "machine": machine},
        "mutants": sum(c.values()),
        "caught": c["caught"],
        "timeout": c["timeout"],
        "missed": c["missed"],
        "equivalent": c["equivalent"],
        "unviable": c["unviable"],
        "score": None if scored == 0 else round(100 * killed / scored, 1),
    }


def minutes(start, end):
    """Minutes between two of cargo-mutants' timestamps, or None."""
    try:
        # cargo-mutants writes nanoseconds; Python's ISO parser takes micro.
        t = [datetime.datetime.fromisoformat(re.sub(r"(\.\d{6})\d*", r"\1", v).replace("Z", "+00:00"))
             for v in (start, end)]
        return round((t[1] - t[0]).total_seconds() / 60)
    except (TypeError, ValueError):
        return None


def read_summary(path):
    """A summary.json, or None when the implementation was not measured."""
    try:
        data = json.loads(Path(path).read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as e:
        sys.exit(f"{path}: cannot read the summary: {e}")
    if not isinstance(data, dict):
        sys.exit(f"{path}: a summary is a JSON object")
    return data


def table_row(name, summary, gate):
    """One row of the table by implementation. The score is worked out
    again from the counts, so every row means the same thing whatever tool
    wrote the summary."""
    if summary is None:
        return f"| {name} | not measured yet | | | | | | | | {gate} |"
    n = {k: summary.get(k) or 0 for k in ("mutants", "caught", "timeout", "missed", "equivalent", "unviable")}
    killed = n["caught"] + n["timeout"]
    # A tool's summary may explain itself in parentheses; the table names it only.
    tool = (summary.get("tool") or "?").split(" (")[0]
    return (
        f"| {name} | {tool} | {n['mutants']} | {n['caught']} | {n['timeout']} | {n['missed']} | "
        f"{n['equivalent']} | {n['unviable']} | {pct(killed, killed + n['missed'])} | {gate} |"
    )


def implementations_table(host_project, host_equivalents, host_tool):
    """The page's first table: every implementation we ship or certify."""
    host = counts_of(host_project, host_equivalents)
    host_summary = dict(host, mutants=sum(host.values()), tool=host_tool)
    out = [
        "## Scores by implementation",
        "",
        "| implementation | mutants made by | mutants | caught | timeout | missed | equivalent | unviable "
        "| score | CI gate |",
        "|---|---|---|---|---|---|---|---|---|---|",
        table_row("[reference host](#the-reference-host) (`agent-hooks/reference-host`)", host_summary,
                  "`reports/mutation/run sample`"),
        table_row("Python example host (`examples/python-host`)", read_summary(HERE / PYTHON_HOST / "summary.json"),
                  "`reports/mutation/python-host/run sample`"),
    ]
    for key, info in AHP.items():
        anchor = info["title"].lower().replace(" ", "-")
        out.append(table_row(f"[{info['title'].removeprefix('The ')}](#{anchor}) (`{info['source'].removesuffix('/src')}`)",
                             refreshed_summary(key),
                             f"`reports/mutation/run --impl {key} sample`"))
    out += [
        "",
        "Each row: the implementation's mutants judged by vectors alone, never by its own tests. The",
        "score is caught (timeouts included) over caught plus missed; *missed* counts only the mutants",
        "no list calls equivalent, and equivalent and unviable mutants are left out of the score. Each",
        "implementation's CI gate runs a 1-in-80 sample (1-in-100 for the Python host) chosen by stable key and a",
        "seed that rotates daily (printed, to rerun it; the slices together are the full run), plus the mutants",
        "in the commit's diff, and fails on a missed mutant listed neither equivalent nor a known",
        "survivor.",
        "",
    ]
    return out


def lists_of(folder):
    """An AHP reference's equivalents and survivors, as they are now."""
    def read(name):
        return read_equivalents(folder / name) if (folder / name).exists() else {}
    return read("equivalents.txt"), read("survivors.txt")


def refreshed_summary(key):
    """An AHP reference's summary.json with its counts worked out again from
    its results.json and the lists as they are now (a mutant listed
    equivalent since the run leaves `missed`), and written back, so the
    file others read and the page agree; None when never measured."""
    folder = HERE / key
    summary = read_summary(folder / "summary.json")
    if summary is None or not (folder / "results.json").exists():
        return summary
    published = json.loads((folder / "results.json").read_text())
    project = {k: v["project"] for k, v in published.items()}
    equivalents, _ = lists_of(folder)
    c = counts_of(project, equivalents)
    killed, scored = score(c)
    summary.update(
        mutants=sum(c.values()), caught=c["caught"], timeout=c["timeout"], missed=c["missed"],
        equivalent=c["equivalent"], unviable=c["unviable"],
        score=None if scored == 0 else round(100 * killed / scored, 1),
    )
    (folder / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    return summary


def demoted(notes):
    """Hand-written notes one heading level down, to sit inside a section
    (code blocks left alone)."""
    out, fenced = [], False
    for line in notes.rstrip().splitlines():
        if line.startswith("```"):
            fenced = not fenced
        out.append("#" + line if not fenced and line.startswith("#") else line)
    return out


def ahp_section(key):
    """An AHP reference's section: from its folder's results.json (the last
    full run), with the lists as they are now."""
    info = AHP[key]
    folder = HERE / key
    summary = read_summary(folder / "summary.json")
    anchor_title = info["title"]
    out = [
        f"## {anchor_title}",
        "",
        f"Mutants of `{info['source']}` made by cargo-mutants (`{info['config']}` says which code and",
        f"why the rest is left out), each judged by the AHP vectors alone: the `vectors` test target",
        f"`{info['oracle']}` runs {info['judged']},",
        "advisory vectors included, against the crate's own binary rebuilt with the mutant.",
        f"Equivalent mutants are listed with their reasons in [`mutation/{key}/equivalents.txt`](mutation/{key}/equivalents.txt),",
        f"known survivors in [`mutation/{key}/survivors.txt`](mutation/{key}/survivors.txt).",
        "",
        "```sh",
        f"reports/mutation/run --impl {key} full",
        "```",
        "",
    ]
    results_path = folder / "results.json"
    if summary is None or not results_path.exists():
        return out + ["Not measured yet.", ""]
    run = summary.get("run") or {}
    took = "?" if run.get("minutes") is None else f"{run['minutes']} minutes"
    where = f", on {run['machine']}" if run.get("machine") else ""
    # A run stopped before cargo-mutants wrote its end time still judged
    # what it lists; the page says so instead of printing a missing time.
    span = (f"{run.get('start')} to {run.get('end')} ({took}{where})" if run.get("end")
            else f"from {run.get('start')}, no end time recorded{where}")
    out += [f"Measured: {span}, {summary.get('tool', '?')}", ""]
    # A partial run since: the mutants it judged again replace their
    # verdicts in results.json, and the page says which and when.
    again = run.get("rejudged")
    if again:
        out += [f"Judged again: {again['start']} ({again['minutes']} minutes), at {again['commit']}: {again['what']}.", ""]
    published = json.loads(results_path.read_text())
    project = {k: v["project"] for k, v in published.items()}
    equivalents, survivors = lists_of(folder)
    rows = tally(project, equivalents)
    out += [
        "### By module",
        "",
        "| module | mutants | caught | timeout | missed | equivalent | unviable | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in sorted(rows):
        c = rows[m]
        killed, scored = score(c)
        out.append(
            f"| `{m}` | {sum(c.values())} | {c['caught']} | {c['timeout']} | {c['missed']} | "
            f"{c['equivalent']} | {c['unviable']} | {pct(killed, scored)} |"
        )
    missed = sorted(k for k, o in project.items() if o == "missed" and k not in equivalents)
    known = [k for k in missed if k in survivors]
    out += [
        "",
        "### Missed",
        "",
        f"{len(missed)} mutants missed and not listed equivalent, {len(known)} of them known survivors"
        + (" (each saying what a vector needs):" if missed else "."),
        "",
    ]
    out += [f"- `{k}`" + (f": {survivors[k]}" if k in survivors else " (in neither list)") for k in missed]
    notes = folder / "notes.md"
    if notes.exists():
        out += [""] + demoted(notes.read_text())
    out.append("")
    return out


def render(project, upstream, equivalents, survivors, meta, notes, gone=frozenset()):
    """The page: the table by implementation; the reference host's section
    (both suites' scores from one run, by module, the project suite's misses
    with known survivors marked, then its hand-written notes); then each AHP
    reference's section."""
    p_rows, u_rows = tally(project, equivalents), tally(upstream, equivalents)
    modules = sorted(set(p_rows) | set(u_rows))
    tool = re.search(r"cargo-mutants [0-9.]+", meta)
    out = [
        "# Mutation scores",
        "",
        "Generated by `reports/mutation/run` (do not edit: the notes come from",
        "[`mutation/notes.md`](mutation/notes.md) and each implementation's folder under",
        "[`mutation/`](mutation/)). Mutants of every implementation the project ships or certifies,",
        "each judged by vectors alone: a broken implementation must not pass, whichever it is.",
        "",
    ]
    out += implementations_table(project, equivalents, tool.group(0) if tool else "cargo-mutants")
    out += [
        "## The reference host",
        "",
        "Mutants of `agent-hooks/reference-host/src` made by",
        "cargo-mutants (`.cargo/mutants.toml` says which code and why the rest is left out), each",
        "built once and judged by two vector suites alone: the `vectors` test target of `ctk`, run",
        "against the mutated in-process reference host, with the project's vectors (0.1 and draft,",
        "advisory ones included) and with upstream's (AH-CTK-001..113, from `../shared`). A mutant is",
        "*caught* when the suite fails on it (a timeout counts as caught and is shown apart),",
        "*missed* when every vector still passes. Unviable mutants do not build and are not",
        "scored; *equivalent* ones change no observable behaviour and are listed, each with its",
        "reason, in [`mutation/equivalents.txt`](mutation/equivalents.txt).",
        "",
        "Regenerate (about an hour on 2 cores; mutates the tree in place, so use a clean checkout):",
        "",
        "```sh",
        "reports/mutation/run full",
        "```",
        "",
        f"Run: {meta}",
        "",
        "### Scores",
        "",
        "| suite | mutants | caught | timeout | missed | equivalent | unviable | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, rows in (("project (0.1 and draft)", p_rows), ("upstream (AH-CTK-001..113)", u_rows)):
        total = collections.Counter()
        for c in rows.values():
            total.update(c)
        killed, scored = score(total)
        out.append(
            f"| {name} | {sum(total.values())} | {total['caught']} | {total['timeout']} | "
            f"{total['missed']} | {total['equivalent']} | {total['unviable']} | {pct(killed, scored)} |"
        )
    only = sum(
        1
        for k in project
        if project[k] in ("caught", "timeout") and upstream[k] == "missed" and k not in equivalents
    )
    out += [
        "",
        "The score is caught (timeouts included) over caught plus missed: equivalent and",
        "unviable mutants are left out of both. Both rows judge the same builds of the same",
        f"mutants. The project's vectors catch {only} mutants that upstream's miss.",
        "",
        "### By module",
        "",
        "| module | mutants | project: caught / missed | upstream: caught / missed | equivalent | unviable |",
        "|---|---|---|---|---|---|",
    ]
    for m in modules:
        p, u = p_rows[m], u_rows[m]
        pk, _ = score(p)
        uk, _ = score(u)
        out.append(
            f"| `{m}` | {sum(p.values())} | {pk} / {p['missed']} | {uk} / {u['missed']} | "
            f"{p['equivalent']} | {p['unviable']} |"
        )
    missed = sorted(k for k, o in project.items() if o == "missed" and k not in equivalents)
    known = [k for k in missed if k in survivors]
    deleted = [k for k in missed if k in gone]
    out += [
        "",
        "### Missed by the project suite",
        "",
        f"{len(missed)} mutants, {len(known)} of them known survivors",
        "([`mutation/survivors.txt`](mutation/survivors.txt), each saying what a vector needs)"
        + (f", {len(deleted)} in code deleted since the run" if gone else "") + ".",
        "",
    ]

    def note(k):
        if k in gone:
            return " (code deleted since)"
        return " (known survivor)" if k in survivors else ""

    out += [f"- `{k}`" + note(k) for k in missed] or ["None."]
    if notes:
        out += [""] + demoted(notes)
    out.append("")
    for key in AHP:
        out += ahp_section(key)
    return "\n".join(out)


# The characters Rust's regex crate gives a meaning to.
RUST_META = set("\\.+*?()|[]{}^$#&-~")


def rust_regex_exact(text):
    """A regex (Rust syntax) matching exactly `text`."""
    return "^" + "".join("\\" + c if c in RUST_META else c for c in text) + "$"


def sample(n, residue=0):
    """The `--re` filters of the mutants whose key hashes to `residue` mod n."""
    if not 0 <= residue < n:
        sys.exit(f"--residue {residue} is not in 0..{n - 1}")
    picked = [
        name
        for name, key in KEYS.items()
        if int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % n == residue
    ]
    for name in sorted(picked):
        print(rust_regex_exact(name))


def compare(project, upstream, equivalents):
    """Both suites' scores over the same mutants, as a Markdown table."""
    if set(project) != set(upstream):
        sys.exit("the two runs did not test the same mutants")
    print("| suite | mutants | caught | timeout | missed | equivalent | unviable | score |")
    print("|---|---|---|---|---|---|---|---|")
    for name, results in (("project (0.1 and draft)", project), ("upstream (AH-CTK-001..113)", upstream)):
        c = collections.Counter()
        for row in tally(results, equivalents).values():
            c.update(row)
        killed, scored = score(c)
        print(
            f"| {name} | {sum(c.values())} | {c['caught']} | {c['timeout']} | {c['missed']} | "
            f"{c['equivalent']} | {c['unviable']} | {pct(killed, scored)} |"
        )
    only = sorted(k for k in project if project[k] in ("caught", "timeout") and upstream[k] == "missed"
                  and k not in equivalents)
    print(f"\ncaught by the project's vectors, missed by upstream's: {len(only)}")
    for k in only:
        print(f"- {k}")


def ahp_full(args, runs, equivalents):
    """A full run of an AHP reference: its results.json (one suite, so
    `upstream` is null) and its summary.json. The page is rendered apart
    (the reference host's `--from-results` mode reads both)."""
    if len(runs) != 1 or args.ledger or args.compare or args.from_results or args.markdown:
        sys.exit(f"--impl {args.impl}: one --project run, --results and --summary; the page is rendered apart")
    if not args.results or not args.summary:
        sys.exit(f"--impl {args.impl}: --results and --summary are required")
    project, data = runs[0]
    now = set(keys_from_list(args.now).values()) if args.now else set()
    stale = sorted(k for k in equivalents if k not in project and k not in now)
    for k in stale:
        print(f"equivalents.txt names a mutant cargo-mutants no longer makes: {k}", file=sys.stderr)
    if stale:
        sys.exit(1)
    results = {
        k: {"project": project[k], "upstream": None, "equivalent": equivalents.get(k)}
        for k in sorted(project)
    }
    Path(args.results).write_text(json.dumps(results, indent=1) + "\n")
    summary = summary_of(AHP[args.impl]["implementation"], project, equivalents, data, args.machine)
    Path(args.summary).write_text(json.dumps(summary, indent=1) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--project", action="append", default=[], help="mutants.out of a project-suite run")
    ap.add_argument("--ledger", help="the `both` oracle's ledger of the --project run: upstream's verdicts")
    ap.add_argument("--all", required=True, help="`cargo mutants --list --json` of the same tree")
    ap.add_argument("--equivalents")
    ap.add_argument("--sample", type=int, metavar="N", help="print the --re filters of the 1-in-N sample")
    ap.add_argument("--residue", type=int, default=0, metavar="R",
                    help="with --sample: the mutants whose key hashes to R mod N (default 0)")
    ap.add_argument("--compare", action="store_true",
                    help="print one --project run and its --ledger's upstream verdicts side by side")
    ap.add_argument("--survivors", help="known survivors: gaps still open, never equivalents")
    ap.add_argument("--gate", action="store_true")
    ap.add_argument("--notes", help="hand-written Markdown appended to the page")
    ap.add_argument("--now", help="`cargo mutants --list --json` of the published tree, when the run is older: "
                    "its missed mutants in code deleted since are marked")
    ap.add_argument("--machine", help="the machine and commit the run was made on, for the page")
    ap.add_argument("--from-results", metavar="RESULTS_JSON",
                    help="render from a committed results.json (each mutant's verdicts) instead of a --project run "
                    "and its --ledger, with the lists as they are now; needs --meta")
    ap.add_argument("--meta", help="with --from-results: the run line of the page (when, how long, where)")
    ap.add_argument("--results")
    ap.add_argument("--markdown")
    ap.add_argument("--impl", default="reference-host", choices=["reference-host", *AHP],
                    help="the implementation the run mutated (default the reference host)")
    ap.add_argument("--summary", help="with --impl of an AHP reference: where its summary.json goes")
    args = ap.parse_args()
    KEYS.update(keys_from_list(args.all))
    if args.sample:
        sample(args.sample, args.residue)
        return
    if not args.equivalents:
        sys.exit("--equivalents is required to score or gate")
    equivalents = read_equivalents(args.equivalents)
    runs = [read_run(d) for d in args.project]
    survivors = read_equivalents(args.survivors) if args.survivors else {}
    both = sorted(set(survivors) & set(equivalents))
    if both:
        sys.exit(f"listed as both equivalent and survivor: {both}")
    if args.gate:
        if args.results:
            # The project suite only: `ctk mutation --html` shows the
            # upstream suite as not run.
            tested = {k: o for r, _ in runs for k, o in r.items()}
            Path(args.results).write_text(
                json.dumps(
                    {
                        k: {"project": o, "upstream": None, "equivalent": equivalents.get(k)}
                        for k, o in sorted(tested.items())
                    },
                    indent=1,
                )
                + "\n"
            )
        gate([r for r, _ in runs], equivalents, survivors)
        return
    if args.impl in AHP:
        ahp_full(args, runs, equivalents)
        return
    if args.compare:
        if len(runs) != 1 or not args.ledger:
            sys.exit("--compare needs one --project run and its --ledger")
        compare(runs[0][0], upstream_from_ledger(args.ledger, runs[0][1]), equivalents)
        return
    if args.from_results:
        # The verdicts of a run already published, re-read so that the page
        # shows the lists as they are now (a mutant listed since, code deleted
        # since); the run itself is not repeated.
        if runs or args.ledger or not args.meta or not args.results or not args.markdown:
            sys.exit("--from-results needs --meta, --results and --markdown, and no --project or --ledger")
        published = json.loads(Path(args.from_results).read_text())
        project = {k: v["project"] for k, v in published.items()}
        upstream = {k: v["upstream"] for k, v in published.items()}
        meta = args.meta
    else:
        if len(runs) != 1 or not args.ledger or not args.results or not args.markdown:
            sys.exit("rendering needs one --project run, its --ledger, --results and --markdown")
        (project, pdata) = runs[0]
        upstream = upstream_from_ledger(args.ledger, pdata)
        meta = run_meta(pdata, args.machine)
    now = set(keys_from_list(args.now).values()) if args.now else set()
    # A listed mutant the run did not make is stale, unless the tree makes it
    # now (code added since the run).
    stale = sorted(k for k in equivalents if k not in project and k not in now)
    for k in stale:
        print(f"equivalents.txt names a mutant cargo-mutants no longer makes: {k}", file=sys.stderr)
    if stale:
        sys.exit(1)
    results = {
        k: {"project": project[k], "upstream": upstream[k], "equivalent": equivalents.get(k)}
        for k in sorted(project)
    }
    Path(args.results).write_text(json.dumps(results, indent=1) + "\n")
    notes = Path(args.notes).read_text() if args.notes else ""
    # Mutants of the run that the tree's own list (--now) no longer makes:
    # code deleted since, shown as such.
    gone = frozenset(set(project) - now) if args.now else frozenset()
    Path(args.markdown).write_text(render(project, upstream, equivalents, survivors, meta, notes, gone))


if __name__ == "__main__":
    main()

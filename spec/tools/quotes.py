#!/usr/bin/env python3
"""The quote lint: every sentence the project says the upstream text says, checked against that text.

Run from the repository root (CI does): `python3 spec/tools/quotes.py [--require-clause-quotes]`.
Standard library only. The upstream files are read from `$CTK_UPSTREAM_DIR`, by default
`../shared/upstream` beside the checkout; seeds (`seed:NNN`) from `NNN_*.txt` in the `seeds` folder
next to it. They are read, never copied.

What it checks (each failure names the file, the JSON pointer or entry, and the quote):

1. Catalogs of freedoms, every `spec/**/freedoms.json` (format `ctk-freedoms/1`,
   `schemas/freedoms.schema.json`): the shape; freedom ids unique and well formed; every
   `assertions[]` entry a key of `assertion_kinds`, and `assertion_kinds[k]` exactly the freedoms
   that name `k`; for an Agent Hooks line, the keys of `assertion_kinds` exactly the assertion kinds
   of the vector grammar (`schemas/vector.schema.json` `$defs.expect`, plus the implicit checks);
   every `grants[].quote` found in its `source`.
2. Clause catalogs, every `spec/**/clauses.json`: a clause with a `quote` names its `source`, and
   the quote is found there. For `spec/0.1/clauses.json` and `spec/ahp/0.1/clauses.json`, every
   clause a gating vector covers (a vector of `vectors/0.1/` resp. `vectors/ahp/0.1/` without
   `advisory`) should carry a quote from the text or a schema, not from a seed: the ones that do
   not are counted and listed, and with `--require-clause-quotes` each is a failure.
3. Triage, `reports/interop/triage.json` and `reports/interop/ahp/triage.json`: every entry of
   class `implementation_defect` carries a `sentence` found in the text or a schema (any file under
   `agent-hooks/spec/` resp. `agent-hooks-protocol/`), or, when the entry names a `source`, in that
   file or seed (`"source": "seed:000"`).

4. Decisions carried by the text: in `spec/0.1/DECISIONS.md`, every quote ("…", a backtick span
   kept whole) of the bullet "Carried by the text" is found in the 0.1 text, or in seed 000 when
   the bullet attributes it to "seed 000:". A quote elided with "…" is checked piece by piece.

"Found" means: after collapsing every run of whitespace to one space, the quote is a substring of
the file (Markdown emphasis and backticks count as written). In a JSON file the quote may also be
found in the decoded text of the file's strings, so a schema `description` can be quoted without its
JSON escapes.

Without the upstream folder the quote checks are skipped with `SKIPPED (upstream data missing:
<path>)` on stderr (the checks that need no upstream data still run); with `CTK_REQUIRE_UPSTREAM=1`
that is a failure. Exit codes: 0 clean, 1 a failure, 2 usage.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys
from pathlib import Path

FORMAT = "ctk-freedoms/1"
ID_RE = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SPEC_RE = re.compile(r"^(agent-hooks|agent-hooks-protocol)/([0-9]+\.[0-9]+|draft)$")
SOURCE_RE = re.compile(r"^(seed:[0-9]{3}|(agent-hooks|agent-hooks-protocol)/\S+)$")
SEED_RE = re.compile(r"^seed:([0-9]{3})$")
ADVISORY_RE = re.compile(r"^[A-Z]+-[0-9]+$")
CATEGORIES = ("representation", "optional_member", "wording", "order", "timing", "behaviour")
REALISED_BY = ("link", "host")
FREEDOM_KEYS = ("id", "category", "summary", "reference_choice", "other_choice", "grants", "assertions",
                "realised_by", "advisory")
CATALOG_KEYS = ("format", "spec", "description", "freedoms", "assertion_kinds")
GRANT_KEYS = ("source", "section", "quote")

# Checks the suite makes on every vector without a key of its own (agent-hooks/suite/src/assert/).
IMPLICIT_KINDS = ("input_identity", "context_sequence", "approval_requests")

# Where each protocol's normative text lives, relative to the upstream folder. A clause quote from
# anywhere else (a seed, an upstream vector, a provenance note) is not a quote of the text.
TEXT_PREFIXES = {
    "agent-hooks": ("agent-hooks/spec/",),
    "agent-hooks-protocol": ("agent-hooks-protocol/spec/", "agent-hooks-protocol/schemas/"),
}
# Where a triage sentence without a `source` is looked for.
TRIAGE_SEARCH = {
    "agent-hooks": "agent-hooks/spec",
    "agent-hooks-protocol": "agent-hooks-protocol",
}
CLAUSE_VECTORS = (
    ("spec/0.1/clauses.json", "vectors/0.1", "agent-hooks"),
    ("spec/ahp/0.1/clauses.json", "vectors/ahp/0.1", "agent-hooks-protocol"),
)
TRIAGE_FILES = (
    ("reports/interop/triage.json", "agent-hooks"),
    ("reports/interop/ahp/triage.json", "agent-hooks-protocol"),
)
TEXT_SUFFIXES = (".md", ".json", ".abnf", ".txt")


# A quote in DECISIONS.md prose: straight double quotes around text in which a backtick span (which
# may hold quotes of its own) is kept whole.
CARRIED_QUOTE_RE = re.compile(r'"((?:[^"`]|`[^`]*`)+)"')


def squash(text: str) -> str:
    """Every run of whitespace as one space, ends trimmed."""
    return " ".join(text.split())


def show(quote: str, limit: int = 240) -> str:
    q = squash(quote)
    return json.dumps(q if len(q) <= limit else q[: limit - 1] + "…", ensure_ascii=False)


def pointer(*parts) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


class Upstream:
    """The upstream folder and the seeds beside it, read once per file."""

    def __init__(self, root: Path):
        self.root = root
        self.seeds = root.parent / "seeds"
        self._cache: dict[Path, list[str] | None] = {}

    def resolve(self, source: str) -> Path | None:
        """The file a `source` names; None when it names none (a missing seed, a path outside)."""
        m = SEED_RE.match(source)
        if m:
            hits = sorted(self.seeds.glob(m.group(1) + "_*.txt"))
            return hits[0] if hits else None
        path = (self.root / source).resolve()
        try:
            path.relative_to(self.root.resolve())
        except ValueError:
            return None
        return path if path.is_file() else None

    def haystacks(self, path: Path) -> list[str]:
        """The squashed file text, and for a JSON file also the squashed text of its strings."""
        if path not in self._cache:
            try:
                raw = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                self._cache[path] = None
            else:
                hay = [squash(raw)]
                if path.suffix == ".json":
                    try:
                        hay.append(squash("\n".join(json_strings(json.loads(raw)))))
                    except ValueError:
                        pass
                self._cache[path] = hay
        return self._cache[path] or []

    def found(self, quote: str, path: Path) -> bool:
        q = squash(quote)
        return bool(q) and any(q in h for h in self.haystacks(path))

    def text_files(self, folder: str) -> list[Path]:
        base = self.root / folder
        return sorted(p for p in base.rglob("*") if p.is_file() and p.suffix in TEXT_SUFFIXES)

    def rel(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def json_strings(value):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from json_strings(v)
    elif isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from json_strings(v)


class Lint:
    def __init__(self, root: Path, upstream: Upstream | None, require_clause_quotes: bool):
        self.root = root
        self.upstream = upstream
        self.require_clause_quotes = require_clause_quotes
        self.failures: list[str] = []
        self.notes: list[str] = []
        self.counts = {"catalogs": 0, "grants": 0, "clause_quotes": 0, "triage": 0}
        self.unquoted: dict[str, list[str]] = {}
        # Whether a grant may name a source that is not stored (a draft line's catalog only).
        self.unstored_ok = False

    def fail(self, file: str, where: str, message: str, quote: str | None = None) -> None:
        line = f"{file}: {where}: {message}"
        if quote is not None:
            line += f": {show(quote)}"
        self.failures.append(line)

    def load(self, rel: str):
        path = self.root / rel
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as e:
            self.fail(rel, "/", f"cannot read as JSON ({e})")
            return None

    # -- quotes ------------------------------------------------------------------------------

    def check_quote(self, file: str, where: str, source, quote) -> None:
        """`quote` is found in `source`; failures name `file` and `where`."""
        if not isinstance(quote, str) or not quote.strip():
            self.fail(file, where, "the quote is empty or not a string")
            return
        if not isinstance(source, str) or not SOURCE_RE.match(source):
            self.fail(file, where, f"source {json.dumps(source)} is neither a path under the upstream folder nor seed:NNN", quote)
            return
        if self.upstream is None:
            return
        path = self.upstream.resolve(source)
        if path is None and self.unstored_ok and not SEED_RE.match(source):
            # A draft line's text is mutable and not stored beside the checkout: the grant names the
            # file it was quoted from, and cannot be checked here (counted, never silently passed).
            self.counts["unstored"] = self.counts.get("unstored", 0) + 1
            return
        if path is None:
            self.fail(file, where, f"source {source} does not exist under {self.upstream.root}", quote)
        elif not self.upstream.found(quote, path):
            self.fail(file, where, f"quote not found in {source}", quote)

    # -- 1. catalogs of freedoms ----------------------------------------------------------------

    def grammar_kinds(self) -> set[str] | None:
        """The assertion kinds of the Agent Hooks vector grammar, or None without its schema."""
        path = self.root / "schemas/vector.schema.json"
        if not path.is_file():
            return None
        try:
            expect = json.loads(path.read_text(encoding="utf-8"))["$defs"]["expect"]["properties"]
        except (OSError, ValueError, KeyError, TypeError):
            self.fail("schemas/vector.schema.json", "/$defs/expect/properties", "cannot read the assertion vocabulary")
            return None
        kinds = set(IMPLICIT_KINDS)
        for name, spec in expect.items():
            if name == "sequence_strict":
                kinds.add("interceptions.sequence")
                continue
            nested = spec.get("properties") or (spec.get("items") or {}).get("properties")
            if name in ("load", "interceptions", "records") and nested:
                for sub in nested:
                    if sub != "interception_point":
                        kinds.add(f"{name}.{sub}")
                if name == "interceptions":
                    # The points themselves, in order (with `sequence_strict`).
                    kinds.add("interceptions.sequence")
            else:
                kinds.add(name)
        return kinds

    def check_catalog(self, rel: str) -> None:
        doc = self.load(rel)
        if doc is None:
            return
        self.counts["catalogs"] += 1
        if not isinstance(doc, dict):
            self.fail(rel, "/", "the catalog is not a JSON object")
            return
        spec = doc.get("spec") if isinstance(doc.get("spec"), str) else ""
        protocol_ahp = spec.startswith("agent-hooks-protocol/")
        self.unstored_ok = spec.endswith("/draft")
        for key in CATALOG_KEYS:
            if key not in doc:
                self.fail(rel, "/", f"member {key} is missing")
        for key in doc:
            if key not in CATALOG_KEYS:
                self.fail(rel, pointer(key), "unknown member")
        if doc.get("format") != FORMAT:
            self.fail(rel, "/format", f"is {json.dumps(doc.get('format'))}, not {FORMAT}")
        spec = doc.get("spec")
        if not isinstance(spec, str) or not SPEC_RE.match(spec):
            self.fail(rel, "/spec", f"{json.dumps(spec)} names no protocol line")
        if not isinstance(doc.get("description"), str) or not doc.get("description"):
            self.fail(rel, "/description", "must be a non-empty string")
        freedoms = doc.get("freedoms")
        kinds = doc.get("assertion_kinds")
        if not isinstance(freedoms, list):
            self.fail(rel, "/freedoms", "must be an array")
            freedoms = []
        if not isinstance(kinds, dict):
            self.fail(rel, "/assertion_kinds", "must be an object")
            kinds = {}

        seen: dict[str, int] = {}
        named_by: dict[str, set[str]] = {}
        for i, fr in enumerate(freedoms):
            at = pointer("freedoms", i)
            if not isinstance(fr, dict):
                self.fail(rel, at, "a freedom must be an object")
                continue
            fid = fr.get("id")
            label = f"{at} ({fid})" if isinstance(fid, str) else at
            for key in FREEDOM_KEYS:
                if key not in fr:
                    self.fail(rel, label, f"member {key} is missing")
            for key in fr:
                if key not in FREEDOM_KEYS and not (key == "roles" and protocol_ahp):
                    self.fail(rel, label, f"unknown member {key}")
            if protocol_ahp:
                roles = fr.get("roles")
                if (not isinstance(roles, list) or not roles or len(set(map(str, roles))) != len(roles)
                        or any(r not in ("backend", "harness") for r in roles)):
                    self.fail(rel, label + "/roles", "roles must list backend and/or harness (AHP catalogs)")
            if not isinstance(fid, str) or not ID_RE.match(fid):
                self.fail(rel, at + "/id", f"{json.dumps(fid)} is not a well-formed freedom id (^[a-z0-9]+(-[a-z0-9]+)*$)")
            elif fid in seen:
                self.fail(rel, at + "/id", f"{fid} repeats the id of /freedoms/{seen[fid]}")
            else:
                seen[fid] = i
            if fr.get("category") not in CATEGORIES:
                self.fail(rel, label, f"category {json.dumps(fr.get('category'))} is not one of {', '.join(CATEGORIES)}")
            if fr.get("realised_by") not in REALISED_BY:
                self.fail(rel, label, f"realised_by {json.dumps(fr.get('realised_by'))} is not link or host")
            for key in ("summary", "reference_choice", "other_choice"):
                if key in fr and (not isinstance(fr[key], str) or not fr[key].strip()):
                    self.fail(rel, label, f"{key} must be a non-empty string")
            advisory = fr.get("advisory", [])
            if not isinstance(advisory, list) or not all(isinstance(a, str) and ADVISORY_RE.match(a) for a in advisory):
                self.fail(rel, label + "/advisory", "must be an array of decision ids such as D-15")
            elif len(set(advisory)) != len(advisory):
                self.fail(rel, label + "/advisory", "repeats a decision id")
            assertions = fr.get("assertions", [])
            if not isinstance(assertions, list) or not all(isinstance(a, str) for a in assertions):
                self.fail(rel, label + "/assertions", "must be an array of assertion kinds")
                assertions = []
            if len(set(assertions)) != len(assertions):
                self.fail(rel, label + "/assertions", "repeats an assertion kind")
            for j, a in enumerate(assertions):
                if a not in kinds:
                    self.fail(rel, f"{label}/assertions/{j}", f"{a} is not a key of assertion_kinds")
                if isinstance(fid, str):
                    named_by.setdefault(a, set()).add(fid)
            grants = fr.get("grants")
            if not isinstance(grants, list) or not grants:
                self.fail(rel, label + "/grants", "must be a non-empty array")
                grants = []
            for j, gr in enumerate(grants):
                gat = f"{label}/grants/{j}"
                if not isinstance(gr, dict):
                    self.fail(rel, gat, "a grant must be an object")
                    continue
                for key in GRANT_KEYS:
                    if key not in gr:
                        self.fail(rel, gat, f"member {key} is missing")
                for key in gr:
                    if key not in GRANT_KEYS:
                        self.fail(rel, gat, f"unknown member {key}")
                if not isinstance(gr.get("section"), str) or not gr.get("section"):
                    self.fail(rel, gat, "section must be a non-empty string")
                self.counts["grants"] += 1
                self.check_quote(rel, gat, gr.get("source"), gr.get("quote"))

        for kind, listed in kinds.items():
            at = pointer("assertion_kinds", kind)
            if not isinstance(listed, list) or not all(isinstance(x, str) for x in listed):
                self.fail(rel, at, "must be an array of freedom ids")
                continue
            if len(set(listed)) != len(listed):
                self.fail(rel, at, "repeats a freedom id")
            for x in listed:
                if x not in seen:
                    self.fail(rel, at, f"{x} is not a freedom of this catalog")
            want = named_by.get(kind, set())
            missing = sorted(want - set(listed))
            extra = sorted(set(listed) & set(seen) - want)
            if missing:
                self.fail(rel, at, f"lacks {', '.join(missing)}, whose assertions name {kind}")
            if extra:
                self.fail(rel, at, f"lists {', '.join(extra)}, whose assertions do not name {kind}")

        if isinstance(spec, str) and spec.startswith("agent-hooks/"):
            grammar = self.grammar_kinds()
            if grammar is not None:
                for kind in sorted(grammar - set(kinds)):
                    self.fail(rel, "/assertion_kinds", f"the vector grammar's assertion kind {kind} is missing (list it, [] when no freedom touches it)")
                for kind in sorted(set(kinds) - grammar):
                    self.fail(rel, pointer("assertion_kinds", kind), "is not an assertion kind of the vector grammar (schemas/vector.schema.json $defs.expect or an implicit check)")

    # -- 2. clause catalogs ---------------------------------------------------------------------

    def check_clauses(self, rel: str) -> dict[str, dict]:
        doc = self.load(rel)
        clauses = doc.get("clauses") if isinstance(doc, dict) else None
        if not isinstance(clauses, list):
            if doc is not None:
                self.fail(rel, "/clauses", "must be an array")
            return {}
        by_id = {}
        for i, cl in enumerate(clauses):
            if not isinstance(cl, dict):
                continue
            cid = cl.get("id")
            by_id[cid] = cl
            at = f"{pointer('clauses', i)} ({cid})"
            has_q, has_s = "quote" in cl, "source" in cl
            if has_q and not has_s:
                self.fail(rel, at, "the clause has a quote but no source", cl.get("quote"))
            elif has_s and not has_q:
                self.fail(rel, at, f"the clause names source {cl.get('source')} but has no quote")
            elif has_q:
                self.counts["clause_quotes"] += 1
                self.check_quote(rel, at, cl.get("source"), cl.get("quote"))
        return by_id

    def check_gating_clauses(self, rel: str, by_id: dict, vectors: str, protocol: str) -> None:
        covered: dict[str, list[str]] = {}
        for path in sorted(glob.glob(str(self.root / vectors / "*.json"))):
            try:
                v = json.loads(Path(path).read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, ValueError) as e:
                self.fail(os.path.relpath(path, self.root), "/", f"cannot read as JSON ({e})")
                continue
            if not isinstance(v, dict) or v.get("advisory"):
                continue
            for cid in v.get("covers") or []:
                if isinstance(cid, str):
                    covered.setdefault(cid, []).append(str(v.get("id", Path(path).stem)))
        prefixes = TEXT_PREFIXES[protocol]
        missing = []
        for cid in sorted(covered):
            cl = by_id.get(cid)
            source = cl.get("source") if isinstance(cl, dict) else None
            if (isinstance(cl, dict) and isinstance(cl.get("quote"), str) and isinstance(source, str)
                    and source.startswith(prefixes) and not source.endswith("PROVENANCE.md")):
                continue
            # A seed may be quoted for what it states of the contract itself, and the clause says so
            # (`seed_states_contract`); a seed describing an implementation never carries a gating vector.
            if (isinstance(cl, dict) and cl.get("seed_states_contract") is True and isinstance(source, str)
                    and SEED_RE.match(source) and isinstance(cl.get("quote"), str)):
                continue
            if cl is None:
                why = "is not in the catalog"
            elif "quote" not in cl:
                why = "has no quote"
            else:
                why = f"has a quote from {source}, not from the text or a schema"
            missing.append(cid)
            who = covered[cid]
            msg = (f"clause {cid} is covered by gating vectors ({', '.join(who[:3])}{', ...' if len(who) > 3 else ''}) "
                   f"but {why}")
            if self.require_clause_quotes:
                self.fail(rel, cid, msg)
        self.unquoted[rel] = missing
        self.notes.append(f"{rel}: {len(covered)} clauses covered by gating vectors of {vectors}/, "
                          f"{len(missing)} without a quote from the text or a schema")

    # -- 3. triage ------------------------------------------------------------------------------

    def check_triage(self, rel: str, protocol: str) -> None:
        if not (self.root / rel).is_file():
            return
        doc = self.load(rel)
        entries = doc.get("entries") if isinstance(doc, dict) else None
        if not isinstance(entries, list):
            if doc is not None:
                self.fail(rel, "/entries", "must be an array")
            return
        pool = None
        for i, e in enumerate(entries):
            if not isinstance(e, dict) or e.get("class") != "implementation_defect":
                continue
            at = f"{pointer('entries', i)} ({e.get('vector')}, {e.get('implementation')})"
            sentence = e.get("sentence")
            self.counts["triage"] += 1
            if not isinstance(sentence, str) or not sentence.strip():
                self.fail(rel, at, "an implementation_defect entry must quote the sentence it breaks (member sentence)")
                continue
            if "source" in e:
                self.check_quote(rel, at, e["source"], sentence)
                continue
            if self.upstream is None:
                continue
            if pool is None:
                pool = self.upstream.text_files(TRIAGE_SEARCH[protocol])
            if not any(self.upstream.found(sentence, p) for p in pool):
                self.fail(rel, at, f"sentence not found in any file under {TRIAGE_SEARCH[protocol]}/", sentence)

    # -- 4. decisions carried by the text -------------------------------------------------------

    def check_carried(self, rel: str, source: str) -> None:
        path = self.root / rel
        if not path.is_file():
            return
        text = path.read_text(encoding="utf-8")
        start = text.find("- Carried by the text")
        if start < 0:
            self.fail(rel, "Carried by the text", "the bullet listing the decisions carried by the text is missing")
            return
        end = text.find("\n- ", start + 1)
        bullet = text[start:end if end > 0 else len(text)]
        for m in CARRIED_QUOTE_RE.finditer(bullet):
            quote = m.group(1)
            before = bullet[max(0, m.start() - 12):m.start()]
            src = "seed:000" if "seed 000:" in before else source
            for piece in (p.strip() for p in quote.split("…")):
                if len(piece) < 12:
                    continue
                self.counts["carried"] = self.counts.get("carried", 0) + 1
                self.check_quote(rel, f"Carried by the text, quote {show(quote, 60)}", src, piece)

    # -- all ------------------------------------------------------------------------------------

    def run(self) -> None:
        for path in sorted(glob.glob(str(self.root / "spec" / "**" / "freedoms.json"), recursive=True)):
            self.check_catalog(Path(path).relative_to(self.root).as_posix())
        clause_files = sorted(Path(p).relative_to(self.root).as_posix()
                              for p in glob.glob(str(self.root / "spec" / "**" / "clauses.json"), recursive=True))
        catalogs = {rel: self.check_clauses(rel) for rel in clause_files}
        for rel, vectors, protocol in CLAUSE_VECTORS:
            if rel in catalogs:
                self.check_gating_clauses(rel, catalogs[rel], vectors, protocol)
        for rel, protocol in TRIAGE_FILES:
            self.check_triage(rel, protocol)
        self.check_carried("spec/0.1/DECISIONS.md", "agent-hooks/spec/AGENT-HOOKS-0.1.md")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--require-clause-quotes", action="store_true",
                    help="fail for every clause a gating vector covers that has no quote from the text or a schema")
    ap.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[2],
                    help="the repository root (default: the checkout this script is in)")
    ap.add_argument("--list-unquoted", action="store_true",
                    help="also list the ids of gating-covered clauses without a text quote")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    upstream_dir = Path(os.environ.get("CTK_UPSTREAM_DIR") or (root / ".." / "shared" / "upstream"))
    if not upstream_dir.is_absolute():
        upstream_dir = root / upstream_dir
    upstream_dir = Path(os.path.normpath(upstream_dir))
    upstream = Upstream(upstream_dir) if upstream_dir.is_dir() else None
    missing_upstream = upstream is None
    if missing_upstream:
        print(f"SKIPPED (upstream data missing: {upstream_dir})", file=sys.stderr)

    lint = Lint(root, upstream, args.require_clause_quotes)
    lint.run()

    for line in lint.failures:
        print(line)
    for note in lint.notes:
        print("note: " + note)
    if args.list_unquoted:
        for rel, ids in lint.unquoted.items():
            if ids:
                print(f"note: {rel}: without a text quote: {' '.join(ids)}")
    c = lint.counts
    checked = "checked" if not missing_upstream else "read (quotes not checked)"
    if c.get("unstored"):
        print(f"note: {c['unstored']} grant(s) of draft-line catalogs quote a text not stored under the upstream "
              "folder and could not be checked")
    print(f"quotes.py: {c['catalogs']} catalog(s) of freedoms ({c['grants']} grants), {c['clause_quotes']} clause "
          f"quote(s), {c['triage']} implementation_defect triage sentence(s), {c.get('carried', 0)} decision quote(s) {checked}; "
          f"{len(lint.failures)} failure(s)")
    if lint.failures:
        return 1
    if missing_upstream and os.environ.get("CTK_REQUIRE_UPSTREAM") == "1":
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

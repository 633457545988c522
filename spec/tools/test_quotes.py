#!/usr/bin/env python3
"""Self-test of spec/tools/quotes.py: `python3 spec/tools/test_quotes.py` (standard library only).

Each test builds a tiny repository and a fake upstream folder in a temporary directory and runs the
lint on them as CI does, through its command line.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap
import unittest
from pathlib import Path

LINT = Path(__file__).resolve().parent / "quotes.py"

TEXT = textwrap.dedent("""\
    # Fake spec

    ## 10.3 The record

    | `resolved_by` | Consultation outcome: absent iff the seam was
    never consulted. |

    A host MUST produce one **InterceptionRecord** per emission. The record
        is payload-free: it carries no context or target content.
    """)

SCHEMA = {
    "properties": {
        "resolved_by": {"description": "Consultation outcome (\u00a77.6): \"approval\" iff a permit resolution substituted; absent/null iff never consulted."}
    }
}

SEED = "The envelope is part of the 0.1 contract.\nThe SDKs require that member.\n"


def freedom(fid, quote, source="agent-hooks/spec/TEXT.md", assertions=("records.absent",)):
    return {
        "id": fid,
        "category": "representation",
        "summary": "A record may write null or leave the member out.",
        "reference_choice": "Leaves it out.",
        "other_choice": "Writes null.",
        "grants": [{"source": source, "section": "10.3", "quote": quote}],
        "assertions": list(assertions),
        "realised_by": "link",
        "advisory": [],
    }


def catalog(*freedoms, kinds=None):
    if kinds is None:
        kinds = {"records.absent": [], "records.assert": []}
        for f in freedoms:
            for a in f["assertions"]:
                kinds.setdefault(a, []).append(f["id"])
    return {
        "format": "ctk-freedoms/1",
        "spec": "agent-hooks/0.1",
        "description": "test catalog",
        "freedoms": list(freedoms),
        "assertion_kinds": kinds,
    }


class QuoteLint(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        base = Path(self.tmp.name)
        self.root = base / "repo"
        self.upstream = base / "shared" / "upstream"
        (self.root / "spec" / "0.1").mkdir(parents=True)
        spec = self.upstream / "agent-hooks" / "spec"
        (spec / "schema").mkdir(parents=True)
        (spec / "TEXT.md").write_text(TEXT, encoding="utf-8")
        (spec / "schema" / "record.schema.json").write_text(json.dumps(SCHEMA, indent=2), encoding="utf-8")
        seeds = base / "shared" / "seeds"
        seeds.mkdir(parents=True)
        (seeds / "000_abc.txt").write_text(SEED, encoding="utf-8")

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, rel, doc):
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")

    def lint(self, *args, upstream=None, require=False):
        env = dict(os.environ)
        env["CTK_UPSTREAM_DIR"] = str(upstream if upstream is not None else self.upstream)
        env.pop("CTK_REQUIRE_UPSTREAM", None)
        if require:
            env["CTK_REQUIRE_UPSTREAM"] = "1"
        p = subprocess.run([sys.executable, str(LINT), "--root", str(self.root), *args],
                           capture_output=True, text=True, env=env, timeout=60)
        return p.returncode, p.stdout, p.stderr

    def test_a_good_quote_passes(self):
        self.write("spec/0.1/freedoms.json", catalog(freedom(
            "resolved-by-null", "A host MUST produce one **InterceptionRecord** per emission.")))
        rc, out, err = self.lint()
        self.assertEqual(rc, 0, out + err)
        self.assertIn("1 catalog(s) of freedoms (1 grants)", out)
        self.assertIn("0 failure(s)", out)

    def test_whitespace_differences_pass(self):
        # The file breaks the line inside the table cell and indents the next sentence.
        quote = ("| `resolved_by` | Consultation outcome: absent iff the seam was never consulted. |   A host MUST "
                 "produce one **InterceptionRecord** per emission. The record is payload-free:")
        self.write("spec/0.1/freedoms.json", catalog(freedom("resolved-by-null", quote)))
        rc, out, err = self.lint()
        self.assertEqual(rc, 0, out + err)

    def test_a_bad_quote_fails_naming_the_entry_and_the_file(self):
        self.write("spec/0.1/freedoms.json", catalog(
            freedom("resolved-by-null", "A host MUST produce one record per emission."),
            freedom("verdicts-empty", "A host MUST produce one **InterceptionRecord** per emission.")))
        rc, out, err = self.lint()
        self.assertEqual(rc, 1, out + err)
        failures = [l for l in out.splitlines() if not l.startswith(("note:", "quotes.py:"))]
        self.assertEqual(len(failures), 1, out)
        line = failures[0]
        self.assertIn("spec/0.1/freedoms.json", line)
        self.assertIn("/freedoms/0 (resolved-by-null)/grants/0", line)
        self.assertIn("quote not found in agent-hooks/spec/TEXT.md", line)
        self.assertIn("one record per emission", line)

    def test_markdown_emphasis_counts_as_written(self):
        self.write("spec/0.1/freedoms.json", catalog(freedom(
            "resolved-by-null", "A host MUST produce one InterceptionRecord per emission.")))
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1, out)

    def test_a_schema_description_may_be_quoted_decoded(self):
        self.write("spec/0.1/freedoms.json", catalog(freedom(
            "resolved-by-null",
            'Consultation outcome (§7.6): "approval" iff a permit resolution substituted; absent/null iff never consulted.',
            source="agent-hooks/spec/schema/record.schema.json")))
        rc, out, err = self.lint()
        self.assertEqual(rc, 0, out + err)

    def test_a_seed_quote_is_read_from_the_seed(self):
        self.write("spec/0.1/freedoms.json", catalog(
            freedom("resolved-by-null", "The envelope is part of the 0.1 contract.", source="seed:000"),
            freedom("verdicts-empty", "The envelope is part of the 0.2 contract.", source="seed:000")))
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        self.assertIn("(verdicts-empty)/grants/0: quote not found in seed:000", out)
        self.assertNotIn("(resolved-by-null)", out)

    def test_a_missing_source_fails(self):
        self.write("spec/0.1/freedoms.json", catalog(freedom(
            "resolved-by-null", "anything", source="agent-hooks/spec/NOPE.md")))
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        self.assertIn("source agent-hooks/spec/NOPE.md does not exist", out)

    def test_bookkeeping_ids_and_assertion_kinds(self):
        good = "A host MUST produce one **InterceptionRecord** per emission."
        doc = catalog(freedom("resolved-by-null", good), freedom("resolved-by-null", good),
                      freedom("Bad_Id", good, assertions=("records.nowhere",)),
                      kinds={"records.absent": ["resolved-by-null"], "records.assert": ["resolved-by-null"]})
        self.write("spec/0.1/freedoms.json", doc)
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        self.assertIn("/freedoms/1/id: resolved-by-null repeats the id of /freedoms/0", out)
        self.assertIn('/freedoms/2/id: "Bad_Id" is not a well-formed freedom id', out)
        self.assertIn("/freedoms/2 (Bad_Id)/assertions/0: records.nowhere is not a key of assertion_kinds", out)
        self.assertIn("/assertion_kinds/records.assert: lists resolved-by-null, whose assertions do not name records.assert", out)

    def test_a_kind_must_list_every_freedom_that_names_it(self):
        good = "A host MUST produce one **InterceptionRecord** per emission."
        self.write("spec/0.1/freedoms.json", catalog(
            freedom("resolved-by-null", good), kinds={"records.absent": [], "records.assert": []}))
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        self.assertIn("/assertion_kinds/records.absent: lacks resolved-by-null", out)

    def test_the_vector_grammar_must_be_covered(self):
        self.write("schemas/vector.schema.json", {"$defs": {"expect": {"properties": {
            "run_outcome": {}, "sequence_strict": {},
            "records": {"items": {"properties": {"interception_point": {}, "absent": {}, "assert": {}}}}}}}})
        good = "A host MUST produce one **InterceptionRecord** per emission."
        self.write("spec/0.1/freedoms.json", catalog(freedom("resolved-by-null", good)))
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        for kind in ("run_outcome", "interceptions.sequence", "input_identity", "context_sequence", "approval_requests"):
            self.assertIn(f"the vector grammar's assertion kind {kind} is missing", out)
        self.assertNotIn("records.absent is missing", out)

    def test_without_upstream_it_skips_unless_required(self):
        self.write("spec/0.1/freedoms.json", catalog(freedom("resolved-by-null", "not checked without upstream")))
        gone = Path(self.tmp.name) / "nowhere"
        rc, out, err = self.lint(upstream=gone)
        self.assertEqual(rc, 0, out + err)
        self.assertIn(f"SKIPPED (upstream data missing: {gone})", err)
        rc, _, err = self.lint(upstream=gone, require=True)
        self.assertEqual(rc, 1)
        self.assertIn("SKIPPED (upstream data missing:", err)

    def test_clause_quotes_and_gating_coverage(self):
        self.write("spec/0.1/clauses.json", {"clauses": [
            {"id": "10.3-a", "text": "one record", "source": "agent-hooks/spec/TEXT.md",
             "quote": "A host MUST produce one **InterceptionRecord** per emission."},
            {"id": "10.3-b", "text": "payload-free", "source": "agent-hooks/spec/TEXT.md",
             "quote": "The record is payload free."},
            {"id": "5-l", "text": "envelope", "source": "seed:000", "quote": "The envelope is part of the 0.1 contract."},
            {"id": "5-m", "text": "no quote yet"},
        ]})
        self.write("vectors/0.1/CTK-0001.json", {"id": "CTK-0001", "covers": ["10.3-a", "5-l", "5-m"]})
        self.write("vectors/0.1/CTK-0002.json", {"id": "CTK-0002", "covers": ["10.3-b"], "advisory": "D-1"})
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        self.assertIn("spec/0.1/clauses.json: /clauses/1 (10.3-b): quote not found in agent-hooks/spec/TEXT.md", out)
        self.assertIn("3 clauses covered by gating vectors of vectors/0.1/, 2 without a quote from the text or a schema", out)
        rc, out, _ = self.lint("--require-clause-quotes")
        self.assertIn("spec/0.1/clauses.json: 5-l: clause 5-l is covered by gating vectors (CTK-0001) but has a quote from seed:000, not from the text or a schema", out)
        self.assertIn("spec/0.1/clauses.json: 5-m: clause 5-m is covered by gating vectors (CTK-0001) but has no quote", out)
        self.assertNotIn("10.3-a: clause", out)

    def test_a_seed_stating_the_contract_may_carry_a_gating_clause_when_it_says_so(self):
        self.write("spec/0.1/clauses.json", {"clauses": [
            {"id": "5-l", "text": "envelope", "source": "seed:000", "quote": "The envelope is part of the 0.1 contract.",
             "seed_states_contract": True},
            {"id": "5-m", "text": "sdk", "source": "seed:000", "quote": "The SDKs require that member."},
        ]})
        self.write("vectors/0.1/CTK-0001.json", {"id": "CTK-0001", "covers": ["5-l", "5-m"]})
        rc, out, _ = self.lint("--require-clause-quotes")
        self.assertEqual(rc, 1, out)
        self.assertNotIn("5-l: clause", out)
        self.assertIn("5-m: clause 5-m is covered by gating vectors (CTK-0001) but has a quote from seed:000", out)

    def test_ahp_catalogs_need_roles_and_draft_catalogs_may_name_unstored_texts(self):
        ahp = freedom("status-200-only", "A host MUST produce one **InterceptionRecord** per emission.")
        doc = catalog(ahp)
        doc["spec"] = "agent-hooks-protocol/0.1"
        self.write("spec/ahp/0.1/freedoms.json", doc)
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("spec/ahp/0.1/freedoms.json: /freedoms/0 (status-200-only)/roles: roles must list backend and/or harness", out)
        ahp["roles"] = ["backend"]
        self.write("spec/ahp/0.1/freedoms.json", catalog(ahp) | {"spec": "agent-hooks-protocol/0.1"})
        rc, out, _ = self.lint()
        self.assertEqual(rc, 0, out)
        unstored = freedom("draft-only", "a draft sentence", source="agent-hooks-protocol/spec/draft/base/events.md")
        unstored["roles"] = ["harness"]
        self.write("spec/ahp/draft/freedoms.json", catalog(unstored) | {"spec": "agent-hooks-protocol/draft"})
        rc, out, _ = self.lint()
        self.assertEqual(rc, 0, out)
        self.assertIn("1 grant(s) of draft-line catalogs quote a text not stored", out)
        self.write("spec/ahp/0.1/freedoms.json", catalog(unstored) | {"spec": "agent-hooks-protocol/0.1"})
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1, out)
        self.assertIn("does not exist under", out)

    def test_triage_sentences(self):
        self.write("reports/interop/triage.json", {"format": "ctk-triage/1", "entries": [
            {"implementation": "h", "vector": "CTK-0001", "class": "implementation_defect", "clause": "10.3-a",
             "sentence": "The record is\npayload-free: it carries no context or target content.", "diagnosis": "d"},
            {"implementation": "h", "vector": "CTK-0002", "class": "implementation_defect", "clause": "10.3-a",
             "sentence": "The record is payload-free (paraphrased).", "diagnosis": "d"},
            {"implementation": "h", "vector": "CTK-0003", "class": "implementation_defect", "clause": "5-l",
             "sentence": "The SDKs require that member.", "source": "seed:000", "diagnosis": "d"},
            {"implementation": "h", "vector": "CTK-0004", "class": "other_reading", "clause": "x",
             "sentence": "not checked", "diagnosis": "d"},
        ]})
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        failures = [l for l in out.splitlines() if not l.startswith(("note:", "quotes.py:"))]
        self.assertEqual(len(failures), 1, out)
        self.assertIn("reports/interop/triage.json: /entries/1 (CTK-0002, h): sentence not found in any file under agent-hooks/spec/", failures[0])
        self.assertIn("3 implementation_defect triage sentence(s)", out)

    def test_decisions_carried_by_the_text_quote_it(self):
        spec = self.upstream / "agent-hooks" / "spec"
        (spec / "AGENT-HOOKS-0.1.md").write_text(TEXT, encoding="utf-8")
        decisions = self.root / "spec" / "0.1" / "DECISIONS.md"
        decisions.write_text(textwrap.dedent("""\
            ### Decisions audited

            - Carried by the text: D-01 (§10.3 "A host MUST produce one
              **InterceptionRecord** per emission"), D-02 ("The record … carries no context or
              target content"), D-04 (seed 000: "The envelope is part of the 0.1 contract"),
              D-05 (`"quoted"` code spans are kept whole: "is payload-free: it carries `no`").
            - Not pinned: D-03.
            """), encoding="utf-8")
        rc, out, _ = self.lint()
        failures = [l for l in out.splitlines() if not l.startswith(("note:", "quotes.py:"))]
        self.assertEqual(len(failures), 1, out)
        self.assertIn("spec/0.1/DECISIONS.md: Carried by the text", failures[0])
        self.assertIn("is payload-free: it carries `no`", failures[0])
        self.assertIn("4 decision quote(s)", out)
        self.assertEqual(rc, 1)
        decisions.write_text("### Decisions audited\n\n- Not pinned: D-03.\n", encoding="utf-8")
        rc, out, _ = self.lint()
        self.assertEqual(rc, 1)
        self.assertIn("the bullet listing the decisions carried by the text is missing", out)


if __name__ == "__main__":
    unittest.main()

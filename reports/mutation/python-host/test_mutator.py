#!/usr/bin/env python3
"""Checks that mutate.py does what it says: each operator makes a different
module that compiles, the skipped code stays unmutated, keys survive
unrelated edits, and the run script's list rules hold.

    python3 reports/mutation/python-host/test_mutator.py
"""

import ast
import importlib.machinery
import importlib.util
import sys
import textwrap
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
# No __pycache__ beside the sources: the folder is part of the repository.
sys.dont_write_bytecode = True
sys.path.insert(0, str(HERE))
import mutate  # noqa: E402

FILE = "m.py"


def load_run_script():
    loader = importlib.machinery.SourceFileLoader("pymut_run", str(HERE / "run"))
    spec = importlib.util.spec_from_loader("pymut_run", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def mutants_of(source):
    return mutate.mutants(FILE, textwrap.dedent(source))


def descriptions(source):
    return [m.description for m in mutants_of(source)]


def apply(source, key):
    return mutate.mutated_source(FILE, textwrap.dedent(source), key)


def run_f(source, *args):
    """Calls `f(*args)` as defined by the module text."""
    scope = {}
    exec(compile(source, FILE, "exec"), scope)
    return scope["f"](*args)


class Operators(unittest.TestCase):
    """Each operator, on a module holding just what it changes."""

    def only(self, source, description, args, before, after):
        """Exactly one mutant with `description`; f(*args) gives `before`
        unmutated and `after` mutated, and the module compiles and differs."""
        source = textwrap.dedent(source)
        matches = [m for m in mutants_of(source) if m.description == description]
        self.assertEqual(len(matches), 1, f"{description!r} in {descriptions(source)}")
        text = apply(source, matches[0].key)
        self.assertNotEqual(ast.dump(ast.parse(text)), ast.dump(ast.parse(source)))
        self.assertEqual(run_f(source, *args), before)
        self.assertEqual(run_f(text, *args), after)
        return matches[0]

    def test_comparison_swaps(self):
        for op, new, args, before, after in [
            ("==", "!=", (1, 1), True, False),
            ("!=", "==", (1, 1), False, True),
            ("<", "<=", (1, 1), False, True),
            ("<=", "<", (1, 1), True, False),
            (">", ">=", (1, 1), False, True),
            (">=", ">", (1, 1), True, False),
            ("in", "not in", (1, [1]), True, False),
            ("not in", "in", (1, [1]), False, True),
            ("is", "is not", (None, None), True, False),
            ("is not", "is", (None, None), False, True),
        ]:
            with self.subTest(op=op):
                self.only(f"def f(a, b):\n    return a {op} b\n", f"replace {op} with {new}", args, before, after)

    def test_chained_comparison_swaps_each_operator(self):
        self.assertEqual(
            [d for d in descriptions("def f(a, b, c):\n    return a < b <= c\n") if "with <" in d],
            ["replace < with <=", "replace <= with <"],
        )

    def test_boolean_operators(self):
        self.only("def f(a, b):\n    return a and b\n", "replace and with or", (True, False), False, True)
        self.only("def f(a, b):\n    return a or b\n", "replace or with and", (True, False), True, False)

    def test_not_deleted(self):
        self.only("def f(a):\n    return not a\n", "delete not", (True,), False, True)

    def test_if_condition(self):
        src = "def f(a):\n    if a:\n        return 1\n    return 2\n"
        self.only(src, "replace if condition with True", (False,), 2, 1)
        self.only(src, "replace if condition with False", (True,), 1, 2)

    def test_elif_is_an_if_condition(self):
        src = "def f(a):\n    if a == 1:\n        return 1\n    elif a == 2:\n        return 2\n    return 3\n"
        self.assertEqual(descriptions(src).count("replace if condition with True"), 2)

    def test_conditional_expression(self):
        src = "def f(a):\n    return 1 if a else 2\n"
        self.only(src, "replace conditional expression's condition with True", (False,), 2, 1)
        self.only(src, "replace conditional expression's condition with False", (True,), 1, 2)

    def test_constant_condition_is_not_replaced_by_itself(self):
        self.assertNotIn("replace if condition with True", descriptions("def f():\n    if True:\n        return 1\n"))
        self.assertNotIn("replace while condition with False", descriptions("def f():\n    while False:\n        pass\n"))

    def test_while_condition(self):
        src = "def f(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n"
        self.only(src, "replace while condition with False", (3,), 3, 0)

    def test_arithmetic(self):
        self.only("def f(a, b):\n    return a + b\n", "replace + with -", (5, 3), 8, 2)
        self.only("def f(a, b):\n    return a - b\n", "replace - with +", (5, 3), 2, 8)
        self.only("def f(a):\n    a += 2\n    return a\n", "replace += with -=", (5,), 7, 3)
        self.only("def f(a):\n    a -= 2\n    return a\n", "replace -= with +=", (5,), 3, 7)

    def test_constants(self):
        self.only("def f():\n    return 7\n", "replace 7 with 8", (), 7, 8)
        self.only("def f():\n    return 0\n", "replace 0 with 1", (), 0, 1)
        self.only("def f():\n    return 1\n", "replace 1 with 0", (), 1, 0)
        self.only("def f():\n    return True\n", "replace True with False", (), True, False)
        self.only("def f():\n    return False\n", "replace False with True", (), False, True)
        self.only("def f():\n    return 'abc'\n", "replace 'abc' with ''", (), "abc", "")
        self.only("def f():\n    return ''\n", "replace '' with 'xyzzy'", (), "", "xyzzy")
        self.only("def f():\n    return b'ab'\n", "replace b'ab' with b''", (), b"ab", b"")
        self.only("def f(a):\n    return f'<{a}>'\n", "replace f-string f'<{a}>' with ''", (1,), "<1>", "")

    def test_long_constants_are_shortened_in_the_key(self):
        long_text = "x" * 200
        (m,) = [m for m in mutants_of(f"def f():\n    return {long_text!r}\n") if m.description.startswith("replace 'x")]
        self.assertLessEqual(len(m.description), 2 * mutate.SHORT + 20)
        self.assertIn("…", m.description)

    def test_return_value(self):
        self.only("def f():\n    return 5\n", "replace return value with None", (), 5, None)
        self.assertNotIn("replace return value with None", descriptions("def f():\n    return None\n"))
        self.assertNotIn("replace return value with None", descriptions("def f():\n    return\n"))

    def test_statement_deletion(self):
        src = "def f():\n    a = []\n    a.append(1)\n    return a\n"
        self.only(src, "replace `a.append(1)` with pass", (), [1], [])
        src = "def f(a):\n    if a:\n        raise ValueError('no')\n    return 1\n"
        m = [m for m in mutants_of(src) if m.description.startswith("replace `raise")]
        self.assertEqual(len(m), 1)
        self.assertEqual(run_f(apply(src, m[0].key), True), 1)
        for stmt in ("x = 1", "x: int = 1", "x += 1", "del x", "assert x"):
            with self.subTest(stmt=stmt):
                self.assertIn(f"replace `{stmt}` with pass", descriptions(f"def f(x):\n    {stmt}\n"))

    def test_break_and_continue(self):
        src = "def f(xs):\n    out = []\n    for x in xs:\n        if x == 2:\n            break\n        out.append(x)\n    return out\n"
        self.only(src, "replace break with continue", ([1, 2, 3],), [1], [1, 3])
        src = src.replace("break", "continue")
        self.only(src, "replace continue with break", ([1, 2, 3],), [1, 3], [1])


class Skipped(unittest.TestCase):
    """What the mutator leaves alone."""

    def test_docstrings(self):
        src = '"""Module."""\nclass C:\n    """Class."""\n    def m(self):\n        """Method."""\n        return 1\n'
        for d in descriptions(src):
            self.assertNotIn("Module", d)
            self.assertNotIn("Class", d)
            self.assertNotIn("Method", d)

    def test_log_lines(self):
        src = textwrap.dedent("""\
            import sys
            def f(a):
                log(f"x {a}", "y", a == 1)
                print("z", a + 1, file=sys.stderr)
                return a
            """)
        self.assertEqual(descriptions(src), ["replace return value with None"])

    def test_print_to_stdout_is_mutated(self):
        self.assertIn("replace `print('z')` with pass", descriptions("def f():\n    print('z')\n"))

    def test_main_guard_imports_and_annotations(self):
        src = textwrap.dedent("""\
            from __future__ import annotations
            import sys
            def f(a: "int" = 3) -> "str":
                return a
            if __name__ == "__main__":
                sys.exit(f() + 1)
            """)
        self.assertEqual(descriptions(src), ["replace 3 with 4", "replace return value with None"])

    def test_the_unparsed_module_is_the_same_program(self):
        src = "def f(a):\n    # a comment\n    return (a +\n            1)\n"
        self.assertEqual(run_f(mutate.unparsed(src), 1), run_f(src, 1))


class Keys(unittest.TestCase):
    """Keys name the function and what changes, with an index among the
    same changes in that function, and no line number."""

    BASE = textwrap.dedent("""\
        def g(a, b):
            if a == b:
                return a + 1
            return a == 2

        class K:
            def m(self, x):
                return x - 1
        """)

    def keys(self, source):
        return {m.key for m in mutate.mutants(FILE, source)}

    def test_shape(self):
        keys = self.keys(self.BASE)
        self.assertIn("m.py: g: replace == with != #1", keys)
        self.assertIn("m.py: g: replace == with != #2", keys)
        self.assertIn("m.py: K.m: replace - with + #1", keys)
        self.assertIn("m.py: <module>: replace 1 with 0 #1", self.keys("X = 1\n"))

    def test_nested_functions_are_in_the_qualname(self):
        keys = self.keys("def outer():\n    def inner(a):\n        return a + 1\n    return inner\n")
        self.assertIn("m.py: outer.inner: replace + with - #1", keys)

    def test_stable_under_unrelated_edits(self):
        base = self.keys(self.BASE)
        edits = [
            # lines, comments and a new function above
            "# a comment\n\n\ndef h(z):\n    return z == 0 and z + 1\n\n" + self.BASE,
            # a function below
            self.BASE + "\ndef h(z):\n    return z - 1 != 2\n",
            # in g, a statement of other kinds before the mutated ones
            self.BASE.replace("def g(a, b):\n", "def g(a, b):\n    b = b - 0 if b else b\n    print('x')\n"),
            # the layout of an expression
            self.BASE.replace("return a + 1", "return (a\n                + 1)"),
        ]
        for edited in edits:
            with self.subTest(edited=edited):
                after = self.keys(edited)
                self.assertLessEqual(base - after, set(), f"lost: {sorted(base - after)}")

    def test_index_counts_the_same_change_in_the_same_function_only(self):
        edited = self.BASE.replace("def g(a, b):\n", "def g(a, b):\n    c = a == 0\n")
        after = self.keys(edited)
        # One more `==` in g shifts g's == indices; K.m is untouched.
        self.assertIn("m.py: g: replace == with != #3", after)
        self.assertIn("m.py: K.m: replace - with + #1", after)

    def test_keys_are_unique_and_applying_one_changes_its_site_only(self):
        ms = mutate.mutants(FILE, self.BASE)
        self.assertEqual(len({m.key for m in ms}), len(ms))
        original = ast.parse(self.BASE)
        for m in ms:
            text = mutate.mutated_source(FILE, self.BASE, m.key)
            self.assertNotEqual(ast.dump(ast.parse(text)), ast.dump(original), m.key)

    def test_residue_is_render_py_s(self):
        import hashlib
        key = "m.py: g: replace == with != #1"
        self.assertEqual(mutate.residue(key, 20), int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % 20)


class TheHost(unittest.TestCase):
    """The mutants of the real host: unique keys, each a different module
    that compiles (checked on the CI sample and one whole function)."""

    def test_every_sampled_mutant_compiles_and_differs(self):
        run = load_run_script()
        ms = run.all_mutants()
        self.assertGreater(len(ms), 1000)
        self.assertEqual(len({m.key for m in ms}), len(ms))
        # The kit the host is built on is its code too: every module listed is mutated.
        self.assertEqual({m.file for m in ms}, set(run.FILES))
        # Today's sample (the seed CI's job uses), and one whole function.
        chosen = run.sample_of(ms, run.seed_of([])) + [m for m in ms if m.qualname == "Emitter.first_deny"]
        self.assertGreater(len(chosen), 25)
        sources = {name: (run.ROOT / name).read_text(encoding="utf-8") for name in run.FILES}
        plain = {name: ast.dump(ast.parse(s)) for name, s in sources.items()}
        for m in chosen:
            text = mutate.mutated_source(m.file, sources[m.file], m.key)
            compile(text, m.file, "exec")
            self.assertNotEqual(ast.dump(ast.parse(text)), plain[m.file], m.key)

    def test_the_seeded_samples_partition_the_mutants(self):
        run = load_run_script()
        ms = run.all_mutants()
        slices = [run.sample_of(ms, seed) for seed in range(run.SAMPLE_MODULUS)]
        self.assertEqual(sorted(m.key for s in slices for m in s), sorted(m.key for m in ms))
        self.assertEqual([m.key for m in run.sample_of(ms, 20261206)], [m.key for m in slices[20261206 % run.SAMPLE_MODULUS]])
        self.assertEqual(run.seed_of(["sample", "17"]), 17)
        import os
        saved = os.environ.get("CTK_MUTATION_SEED")
        try:
            os.environ["CTK_MUTATION_SEED"] = "42"
            self.assertEqual(run.seed_of([]), 42)
            os.environ["CTK_MUTATION_SEED"] = "x1"
            with self.assertRaises(SystemExit):
                run.seed_of([])
        finally:
            if saved is None:
                os.environ.pop("CTK_MUTATION_SEED", None)
            else:
                os.environ["CTK_MUTATION_SEED"] = saved

    def test_nothing_in_selftest_log_lines_or_docstrings(self):
        run = load_run_script()
        ms = run.all_mutants()
        self.assertFalse([m for m in ms if "selftest" in m.file])
        self.assertFalse([m for m in ms if m.qualname == "log"])
        self.assertFalse([m for m in ms if "A small Agent Hooks host" in m.description])
        self.assertFalse([m for m in ms if "__main__" in m.description])


class ListRules(unittest.TestCase):
    """The run script's gate, as reports/mutation/run's."""

    def setUp(self):
        self.run = load_run_script()
        src = "def f(a):\n    return a + 1\n"
        self.ms = mutate.mutants(FILE, src)
        self.keys = [m.key for m in self.ms]

    def verdicts(self, outcome):
        return {k: {"outcome": outcome} for k in self.keys}

    def test_missed_unlisted_fails_and_listed_passes(self):
        problems = self.run.gate(self.ms, self.verdicts("missed"), {}, {}, full=False)
        self.assertEqual(len(problems), len(self.keys))
        eq = {self.keys[0]: "why"}
        sv = {k: "gap" for k in self.keys[1:]}
        self.assertEqual(self.run.gate(self.ms, self.verdicts("missed"), eq, sv, full=True), [])

    def test_a_listed_survivor_or_equivalent_caught_fails(self):
        problems = self.run.gate(self.ms, self.verdicts("caught"), {self.keys[0]: "why"}, {self.keys[1]: "gap"}, full=False)
        self.assertEqual(len(problems), 2)
        self.assertTrue(any("survivors.txt" in p for p in problems))
        self.assertTrue(any("equivalents.txt" in p for p in problems))

    def test_a_race_survivor_passes_the_gate_caught_or_missed(self):
        race = {self.keys[0]: "[race] a thread race decides"}
        self.assertEqual(self.run.gate(self.ms[:1], self.verdicts("caught"), {}, race, full=True), [])
        self.assertEqual(self.run.gate(self.ms[:1], self.verdicts("missed"), {}, race, full=True), [])
        gap = {self.keys[0]: "[gap] a vector is missing"}
        self.assertEqual(len(self.run.gate(self.ms[:1], self.verdicts("caught"), {}, gap, full=True)), 1)

    def test_rejudge_refuses_a_function_no_mutant_is_in(self):
        with self.assertRaises(SystemExit) as e:
            self.run.rejudge(self.run.all_mutants(), {}, {}, ["examples/python-host/host.py: no_such_function"],
                             Path("/nonexistent"), False)
        self.assertIn("no_such_function", str(e.exception.code))

    def test_a_stale_entry_fails_the_full_run_only(self):
        stale = {"m.py: gone: replace + with - #1": "why"}
        self.assertEqual(self.run.gate(self.ms, self.verdicts("caught"), stale, {}, full=False), [])
        self.assertEqual(len(self.run.gate(self.ms, self.verdicts("caught"), stale, {}, full=True)), 1)

    def test_a_results_line_names_the_list_and_the_survivor_kind(self):
        m = self.ms[0]
        caught = self.run.result_entry(m, {"outcome": "caught", "caught_by": ["A", "B", "C", "D"]}, {}, {})
        self.assertEqual(caught["caught_by"], ["A", "B", "C"])
        self.assertNotIn("listed", caught)
        self.assertNotIn("mutation", caught)
        missed = self.run.result_entry(m, {"outcome": "missed"}, {}, {m.key: "[gap] a vector is missing"})
        self.assertEqual(missed["listed"], "survivor [gap]")
        self.assertIn(" -> ", missed["mutation"])
        self.assertEqual(self.run.result_entry(m, {"outcome": "missed"}, {m.key: "why"}, {})["listed"], "equivalent")

    def test_survivors_are_counted_by_kind(self):
        v = self.verdicts("missed")
        sv = {self.keys[0]: "[gap] x", self.keys[1]: "[open] y", self.keys[2]: "[gap] z"}
        self.assertEqual(self.run.tally(self.ms, v, {}, sv)["survivors_by_kind"], {"gap": 2, "open": 1})

    def test_equivalents_are_counted_by_kind(self):
        v = self.verdicts("missed")
        eq = {self.keys[0]: "open: a reading the text allows", self.keys[1]: "changes nothing", self.keys[2]: "open: x"}
        c = self.run.tally(self.ms, v, eq, {})
        self.assertEqual(c["equivalent_by_kind"], {"open": 2, "same": 1})
        self.assertEqual(c["equivalent"], 3)

    def test_only_short_timeout_vectors_are_judged_again(self):
        self.assertIn("CTK-0148", self.run.TIMING_VECTORS)
        self.assertNotIn("CTK-0001", self.run.TIMING_VECTORS)

    def test_score_leaves_out_equivalents_and_counts_timeouts_as_caught(self):
        v = self.verdicts("caught")
        v[self.keys[0]] = {"outcome": "timeout"}
        v[self.keys[1]] = {"outcome": "missed"}
        v[self.keys[2]] = {"outcome": "missed"}
        c = self.run.tally(self.ms, v, {self.keys[1]: "why"}, {})
        self.assertEqual((c["timeout"], c["missed"], c["equivalent"]), (1, 1, 1))
        killed = c["caught"] + c["timeout"]
        self.assertEqual(c["score"], round(100 * killed / (killed + 1), 1))


if __name__ == "__main__":
    unittest.main()

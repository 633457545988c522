"""A small AST mutator for the Python example host (issue 27), standard
library only.

Why our own: mutmut 3 judges mutants with pytest alone (its trampolines
record which test reaches which function in process, so a host run as a
child of `ctk run` would count as reached by nothing), and cosmic-ray 8
takes any test command but mutates the file in place, numbers each
operator's occurrences across the whole file (an edit anywhere above shifts
every later id), runs one mutant at a time with its local distributor,
lacks statement deletion, return-value and string mutants, and can only be
told to skip a docstring or a log line by a pragma in the source. See
reports/mutation/notes.md.

A mutant is one change at one site of a module's AST. Its stable key is

    <file>: <qualname>: <description> #<k>

where qualname names the enclosing classes and functions (`<module>` at top
level), description says what changes (`replace == with !=`; a constant or a
deleted statement is named by its own text), and k is the place of the site
among the sites of the same file, qualname and description, in source order.
No line number is in the key, so an edit elsewhere in the file, or elsewhere
in the same function with another description, leaves it alone.

Operators: comparison swaps (== and !=, < and <=, > and >=, in and not in,
is and is not), `and` and `or`, `not x` to `x`, an `if` or conditional
expression's condition to True and to False, a `while` condition to False,
`+` and `-` (also `+=` and `-=`), constants (an int n to n+1, 0 and 1 both
ways, True and False, a non-empty string or bytes to empty, an empty string
to "xyzzy", an f-string to ""), a return value to None, a simple statement
to `pass`, break and continue.

Left alone: docstrings, annotations, imports, log lines (calls to `log(...)`
and `print(..., file=sys.stderr)`) and the `if __name__ == "__main__":`
guard; nothing inside an f-string but the f-string as a whole (Python 3.11
gives no reliable positions inside one). A mutated module is written with
`ast.unparse`, so it loses comments and layout, never behaviour.
"""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import re
from typing import Callable

COMPARE_SWAPS = {
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE, ast.LtE: ast.Lt,
    ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}
SYMBOL = {
    ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
    ast.And: "and", ast.Or: "or", ast.Add: "+", ast.Sub: "-",
}
DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Assert, ast.Delete)
SHORT = 48


@dataclasses.dataclass
class Mutant:
    """One mutant: where it is, what it changes, and its stable key."""

    file: str
    qualname: str
    description: str
    index: int
    line: int
    before: str
    after: str

    @property
    def key(self) -> str:
        return f"{self.file}: {self.qualname}: {self.description} #{self.index}"


def residue(key: str, modulus: int) -> int:
    """The key's hash modulo `modulus` (SHA-256, first 8 bytes big-endian,
    as reports/mutation/render.py keys the reference host's sample)."""
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big") % modulus


def short(text: str) -> str:
    """One line, at most SHORT characters, and never the list files'
    `  # ` separator."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) > SHORT:
        text = text[: SHORT - 1] + "…"
    return text


@dataclasses.dataclass
class _Site:
    qualname: str
    description: str
    line: int
    col: int
    seq: int
    node: ast.AST
    # Mutates the tree in place and returns the undo.
    apply: Callable[[], Callable[[], None]]
    # The site's node as it reads after the change.
    after: Callable[[], str]


def _is_docstring(body, stmt) -> bool:
    return (
        bool(body)
        and body[0] is stmt
        and isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _is_log_call(node) -> bool:
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id == "log":
        return True
    if isinstance(node.func, ast.Name) and node.func.id == "print":
        for kw in node.keywords:
            if kw.arg == "file" and ast.unparse(kw.value) == "sys.stderr":
                return True
    return False


def _is_main_guard(node) -> bool:
    return (
        isinstance(node, ast.If)
        and isinstance(node.test, ast.Compare)
        and isinstance(node.test.left, ast.Name)
        and node.test.left.id == "__name__"
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], ast.Eq)
        and isinstance(node.test.comparators[0], ast.Constant)
        and node.test.comparators[0].value == "__main__"
    )


def _replacer(parent, field, index, new):
    """Puts `new` where the child (parent.field, or parent.field[index]) is;
    returns the undo."""

    def apply():
        if index is None:
            old = getattr(parent, field)
            setattr(parent, field, new)
            return lambda: setattr(parent, field, old)
        seq = getattr(parent, field)
        old = seq[index]
        seq[index] = new
        return lambda: seq.__setitem__(index, old)

    return apply


def _setter(obj, attr, new):
    def apply():
        old = getattr(obj, attr)
        setattr(obj, attr, new)
        return lambda: setattr(obj, attr, old)

    return apply


def _list_setter(seq, index, new):
    def apply():
        old = seq[index]
        seq[index] = new
        return lambda: seq.__setitem__(index, old)

    return apply


class _Collector:
    """Walks a module and lists every mutation site, in traversal order."""

    def __init__(self):
        self.sites: list[_Site] = []
        self.stack: list[str] = []

    def qualname(self):
        return ".".join(self.stack) or "<module>"

    def add(self, node, description, apply, after):
        self.sites.append(
            _Site(self.qualname(), description, getattr(node, "lineno", 0), getattr(node, "col_offset", 0),
                  len(self.sites), node, apply, after)
        )

    def walk(self, node, parent=None, field=None, index=None):
        if isinstance(node, (ast.Import, ast.ImportFrom)) or _is_main_guard(node) or _is_log_call(node):
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            # Decorators and default values belong to the enclosing scope.
            for d in node.decorator_list:
                self.walk(d, node, "decorator_list")
            if not isinstance(node, ast.ClassDef):
                for i, d in enumerate(node.args.defaults):
                    self.walk(d, node.args, "defaults", i)
                for i, d in enumerate(node.args.kw_defaults):
                    if d is not None:
                        self.walk(d, node.args, "kw_defaults", i)
            self.stack.append(node.name)
            self.body(node, "body")
            self.stack.pop()
            return
        if isinstance(node, ast.JoinedStr):
            self.add(node, f"replace f-string {short(ast.unparse(node))} with ''",
                     _replacer(parent, field, index, ast.Constant("")), lambda: "''")
            return
        self.sites_of(node, parent, field, index)
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns", "type_comment"):
                continue
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.body(node, name)
                else:
                    for i, child in enumerate(value):
                        if isinstance(child, ast.AST):
                            self.walk(child, node, name, i)
            elif isinstance(value, ast.AST):
                self.walk(value, node, name)

    def body(self, node, field):
        stmts = getattr(node, field)
        for i, stmt in enumerate(stmts):
            if _is_docstring(stmts, stmt) and isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.Expr) and _is_log_call(stmt.value):
                continue
            if isinstance(stmt, DELETABLE):
                self.add(stmt, f"replace `{short(ast.unparse(stmt))}` with pass",
                         _replacer(node, field, i, ast.Pass()), lambda: "pass")
            self.walk(stmt, node, field, i)

    def sites_of(self, node, parent, field, index):
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                new = COMPARE_SWAPS.get(type(op))
                if new is not None:
                    self.add(node, f"replace {SYMBOL[type(op)]} with {SYMBOL[new]}",
                             _list_setter(node.ops, i, new()), lambda n=node: ast.unparse(n))
        elif isinstance(node, ast.BoolOp):
            new = ast.Or if isinstance(node.op, ast.And) else ast.And
            self.add(node, f"replace {SYMBOL[type(node.op)]} with {SYMBOL[new]}",
                     _setter(node, "op", new()), lambda n=node: ast.unparse(n))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            self.add(node, "delete not", _replacer(parent, field, index, node.operand),
                     lambda n=node: ast.unparse(n.operand))
        elif isinstance(node, (ast.If, ast.IfExp)):
            what = "if condition" if isinstance(node, ast.If) else "conditional expression's condition"
            for value in (True, False):
                if not (isinstance(node.test, ast.Constant) and node.test.value is value):
                    self.add(node.test, f"replace {what} with {value}", _setter(node, "test", ast.Constant(value)),
                             lambda v=value: str(v))
        elif isinstance(node, ast.While):
            if not (isinstance(node.test, ast.Constant) and node.test.value is False):
                self.add(node.test, "replace while condition with False", _setter(node, "test", ast.Constant(False)),
                         lambda: "False")
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and isinstance(node.op, (ast.Add, ast.Sub)):
            new = ast.Sub if isinstance(node.op, ast.Add) else ast.Add
            eq = "=" if isinstance(node, ast.AugAssign) else ""
            self.add(node, f"replace {SYMBOL[type(node.op)]}{eq} with {SYMBOL[new]}{eq}",
                     _setter(node, "op", new()), lambda n=node: ast.unparse(n))
        elif isinstance(node, ast.Constant):
            new = _constant_change(node.value)
            if new is not _NO_CHANGE:
                self.add(node, f"replace {short(repr(node.value))} with {short(repr(new))}",
                         _replacer(parent, field, index, ast.Constant(new)), lambda v=new: repr(v))
        elif isinstance(node, ast.Return):
            if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
                self.add(node, "replace return value with None", _setter(node, "value", ast.Constant(None)),
                         lambda: "return None")
        elif isinstance(node, (ast.Break, ast.Continue)):
            new = ast.Continue if isinstance(node, ast.Break) else ast.Break
            old_word, new_word = ("break", "continue") if isinstance(node, ast.Break) else ("continue", "break")
            self.add(node, f"replace {old_word} with {new_word}", _replacer(parent, field, index, new()),
                     lambda w=new_word: w)


_NO_CHANGE = object()


def _constant_change(value):
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return {0: 1, 1: 0}.get(value, value + 1)
    if isinstance(value, str):
        return "" if value else "xyzzy"
    if isinstance(value, bytes):
        return b"" if value else _NO_CHANGE
    return _NO_CHANGE


def _sites(source: str):
    tree = ast.parse(source)
    collector = _Collector()
    collector.body(tree, "body")
    return tree, collector.sites


def _keyed(file: str, sites):
    """Each site's occurrence index among the sites of its file, qualname
    and description, in source order."""
    counts: dict[tuple[str, str], int] = {}
    out = []
    for site in sorted(sites, key=lambda s: (s.line, s.col, s.seq)):
        group = (site.qualname, site.description)
        counts[group] = counts.get(group, 0) + 1
        out.append((site, counts[group]))
    return out


def mutants(file: str, source: str) -> list[Mutant]:
    """Every mutant of one module, in source order."""
    _, sites = _sites(source)
    out = []
    for site, k in _keyed(file, sites):
        before = ast.unparse(site.node)
        undo = site.apply()
        after = site.after()
        undo()
        out.append(Mutant(file, site.qualname, site.description, k, site.line, short(before), short(after)))
    keys = [m.key for m in out]
    if len(set(keys)) != len(keys):
        raise AssertionError(f"{file}: two mutants share a key")
    for key in keys:
        if "  # " in key:
            raise AssertionError(f"{file}: a key holds the list separator: {key!r}")
    return out


def mutated_source(file: str, source: str, key: str) -> str:
    """The module with the mutant `key` applied, written by ast.unparse."""
    tree, sites = _sites(source)
    for site, k in _keyed(file, sites):
        if f"{file}: {site.qualname}: {site.description} #{k}" == key:
            site.apply()
            return ast.unparse(tree) + "\n"
    raise KeyError(key)


def unparsed(source: str) -> str:
    """The module as ast.unparse writes it, unmutated: what every mutant is
    written as, less its one change."""
    return ast.unparse(ast.parse(source)) + "\n"

"""Issue kinds: every kind the source reports is declared in `toolcalls.parsing.issues`, with
one line saying what it means, and every kind declared is reported somewhere."""

from __future__ import annotations

import ast
import typing
from collections.abc import Iterator
from pathlib import Path

from corpus import load_cases

import toolcalls
from toolcalls.parsing.issues import ISSUE_ERRORS, ISSUE_KINDS, IssueKind

PACKAGE = Path(toolcalls.__file__).resolve().parent
ISSUES_MODULE = PACKAGE / "parsing" / "issues.py"

_REPORTERS = {"issue": 0, "fail_call": 0, "_issue": 1, "region_openers": 1, "_as_issue": 0}
"""Functions that take an issue kind, and the index of their kind among the positional
arguments (`_issue` is a reader's helper called as ``self._issue(ctx, kind, ...)``)."""
_KEYWORDS = {"Tag": "slip", "replace": "slip", "ParseIssue": "kind"}
"""Calls that take an issue kind by keyword (``Tag(..., slip="escaped_newline")``)."""


def _strings(node: ast.AST) -> Iterator[str]:
    """The string constants in an expression (both branches of ``a if c else b``)."""
    for inner in ast.walk(node):
        if isinstance(inner, ast.Constant) and isinstance(inner.value, str):
            yield inner.value


def _called_name(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _kind_arguments(call: ast.Call) -> Iterator[ast.expr]:
    """The expressions `call` passes as an issue kind."""
    name = _called_name(call)
    at = _REPORTERS.get(name)
    if at is not None and len(call.args) > at:
        yield call.args[at]
    keyword = _KEYWORDS.get(name)
    yield from (k.value for k in call.keywords if keyword is not None and k.arg == keyword)


def _assigned(function: ast.AST) -> dict[str, list[ast.expr]]:
    """The values assigned to each local name of `function` (``kind, why = "a", "b"`` too)."""
    values: dict[str, list[ast.expr]] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            pairs = [(node.target, node.value)]
        elif isinstance(node, ast.Assign):
            pairs = [(target, node.value) for target in node.targets]
        else:
            continue
        for target, value in pairs:
            if isinstance(target, ast.Tuple) and isinstance(value, ast.Tuple):
                pairs += list(zip(target.elts, value.elts, strict=False))
            elif isinstance(target, ast.Name):
                values.setdefault(target.id, []).append(value)
    return values


def _passed_kinds(tree: ast.AST) -> Iterator[str]:
    """The issue kinds a module passes as literals, or through a local variable."""
    for function in ast.walk(tree):
        if not isinstance(function, ast.FunctionDef | ast.Lambda | ast.Module):
            continue
        assigned = _assigned(function) if not isinstance(function, ast.Lambda) else {}
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                for argument in _kind_arguments(node):
                    if isinstance(argument, ast.Name):
                        for value in assigned.get(argument.id, []):
                            yield from _strings(value)
                    else:
                        yield from _strings(argument)


def _source_files() -> list[Path]:
    return [path for path in sorted(PACKAGE.rglob("*.py")) if path != ISSUES_MODULE]


def _kinds_in_source() -> dict[str, list[str]]:
    """Each kind passed as a literal, with the modules that pass it."""
    found: dict[str, list[str]] = {}
    for path in _source_files():
        for kind in _passed_kinds(ast.parse(path.read_text())):
            found.setdefault(kind, []).append(str(path.relative_to(PACKAGE)))
    return found


def test_every_kind_the_source_passes_is_declared() -> None:
    passed = _kinds_in_source()
    undeclared = {kind: where for kind, where in passed.items() if kind not in ISSUE_KINDS}
    assert undeclared == {}


def test_every_declared_kind_is_used() -> None:
    passed = _kinds_in_source()
    assert [kind for kind in ISSUE_KINDS if kind not in passed] == []


def test_the_scan_finds_the_kinds_passed_through_helpers() -> None:
    """The scan sees kinds given to `region_openers`, a tag's ``slip`` and a tuple assignment
    and a local variable (each would otherwise count as unused above)."""
    passed = _kinds_in_source()
    assert "tool_result_in_text" in passed  # region_openers(..., "tool_result_in_text")
    assert "ascii_pipes" in passed  # replace(tag, slip="ascii_pipes")
    assert "evicted_tool" in passed  # kind, why = "evicted_tool", ...; ParseIssue(kind=kind)
    assert "escaped_newline" in passed  # slip = "escaped_newline" if ...; Tag(..., slip=slip)


def test_each_kind_has_one_line_of_meaning() -> None:
    for kind, meaning in ISSUE_KINDS.items():
        assert kind.isidentifier() and kind == kind.lower(), kind
        assert meaning and "\n" not in meaning and len(meaning) <= 100, kind


def test_the_kind_type_and_the_table_agree() -> None:
    assert list(typing.get_args(IssueKind)) == list(ISSUE_KINDS)
    assert set(ISSUE_ERRORS) <= set(ISSUE_KINDS)


def test_parsing_the_corpus_reports_only_declared_kinds() -> None:
    reported: set[str] = set()
    for case in load_cases():
        reported |= {issue.kind for issue in case.run().issues}
    assert reported - set(ISSUE_KINDS) == set()
    assert reported  # the corpus does report issues: the check above is not empty


def test_the_parse_issue_kind_points_at_the_table() -> None:
    source = (PACKAGE / "parsing" / "_models.py").read_text().split("class ParseIssue", 1)[1]
    kind_doc = source.split("kind: str", 1)[1].split("message: str", 1)[0]
    assert "toolcalls.parsing.issues.ISSUE_KINDS" in kind_doc

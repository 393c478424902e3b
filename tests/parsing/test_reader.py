"""Readers use `toolcalls.parsing.reader` and nothing else of the engine; `StreamParser` shows
a program feed, close and result, and nothing of what readers use."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import toolcalls
from toolcalls import StreamParser, ToolCallEnd, ToolCallStart
from toolcalls.parsing.reader import ReaderContext

FORMATS_DIR = Path(toolcalls.__file__).resolve().parent / "parsing" / "formats"
READER_MODULES = sorted(FORMATS_DIR.glob("*.py"))


def _engine_imports(tree: ast.AST) -> Iterator[str]:
    """Imports of the engine module, in any spelling."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if "_engine" in module.split(".") or any(a.name == "_engine" for a in node.names):
                yield f"line {node.lineno}: from {'.' * node.level}{module} import ..."
        elif isinstance(node, ast.Import):
            yield from (f"line {node.lineno}: import {a.name}" for a in node.names
                        if "_engine" in a.name.split("."))


def _context_names(tree: ast.AST) -> set[str]:
    """Names that hold a reader context: ``ctx``, and any variable, parameter or attribute
    annotated `ReaderContext` (``self._ctx: ReaderContext | None``)."""
    names = {"ctx"}
    for node in ast.walk(tree):
        annotation, target = None, None
        if isinstance(node, ast.arg):
            annotation, target = node.annotation, node.arg
        elif isinstance(node, ast.AnnAssign):
            annotation = node.annotation
            target = getattr(node.target, "id", None) or getattr(node.target, "attr", None)
        if annotation is not None and target and "ReaderContext" in ast.unparse(annotation):
            names.add(target)
    return names


def _held_name(node: ast.expr) -> str | None:
    """`ctx` for ``ctx``, ``_ctx`` for ``self._ctx``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return node.attr
    return None


def _private_context_attributes(tree: ast.AST) -> Iterator[str]:
    """``ctx._anything``: a private attribute read on a reader context."""
    holders = _context_names(tree)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                and _held_name(node.value) in holders):
            yield f"line {node.lineno}: {ast.unparse(node)}"


@pytest.mark.parametrize("path", READER_MODULES, ids=lambda p: p.stem)
def test_no_reader_imports_the_engine(path: Path) -> None:
    assert list(_engine_imports(ast.parse(path.read_text()))) == []


@pytest.mark.parametrize("path", READER_MODULES, ids=lambda p: p.stem)
def test_no_reader_touches_a_private_name_of_the_context(path: Path) -> None:
    assert list(_private_context_attributes(ast.parse(path.read_text()))) == []


@pytest.mark.parametrize(
    "source",
    [
        "def read(self, ctx, eof):\n    ctx._commit_pending('content')\n",
        "def span(self, ctx: ReaderContext):\n    return ctx._call.start\n",
        "def f(self, context: ReaderContext):\n    context._pending = (0, '')\n",
        "class R:\n    def feed(self, c: ReaderContext):\n        self._ctx: ReaderContext = c\n"
        "    def f(self):\n        return self._ctx._events\n",
    ],
    ids=["commit_pending", "call", "annotated", "held_on_self"],
)
def test_the_check_catches_a_private_name(source: str) -> None:
    """The check above fails on the accesses it forbids (``ctx._commit_pending`` was one)."""
    assert list(_private_context_attributes(ast.parse(source))) != []


@pytest.mark.parametrize(
    "source",
    ["from .._engine import Engine\n", "from toolcalls.parsing._engine import holdback\n",
     "from .. import _engine\n", "import toolcalls.parsing._engine\n"],
)
def test_the_check_catches_an_engine_import(source: str) -> None:
    assert list(_engine_imports(ast.parse(source))) != []


def test_the_reader_context_is_a_concrete_class() -> None:
    """Readers call it millions of times: compiled, calls on a concrete class are native,
    calls through a `typing.Protocol` are not."""
    assert not getattr(ReaderContext, "_is_protocol", False)


def test_every_public_method_of_the_context_says_what_it_does() -> None:
    """Read from the source: a compiled build drops docstrings."""
    tree = ast.parse((FORMATS_DIR.parent / "reader.py").read_text())
    context = next(node for node in tree.body
                   if isinstance(node, ast.ClassDef) and node.name == "ReaderContext")
    methods = [node for node in context.body if isinstance(node, ast.FunctionDef)
               and not node.name.startswith("_")]
    assert len(methods) >= 15
    assert [m.name for m in methods if not (ast.get_docstring(m) or "").strip()] == []


# -- StreamParser --------------------------------------------------------------------------------

CALL = '<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>'
READER_API = ["buf", "pos", "off", "emits", "tools", "strict", "section", "consume",
              "hold_blanks", "commit_blanks", "start_call", "arguments", "end_call", "fail_call",
              "issue", "call_count", "find", "tool", "known_tool", "at", "starts_line",
              "open_reasoning", "call_start", "take_result"]


def test_stream_returns_the_public_stream_parser() -> None:
    parser = toolcalls.stream("hermes")
    assert type(parser) is StreamParser
    assert type(toolcalls.get_format("hermes").stream()) is StreamParser
    assert type(toolcalls.parser("hermes").stream()) is StreamParser
    assert toolcalls.parsing.StreamParser is StreamParser
    assert StreamParser.__module__ == "toolcalls"


@pytest.mark.parametrize("name", READER_API)
def test_the_stream_parser_shows_nothing_of_the_reader_api(name: str) -> None:
    assert not hasattr(toolcalls.stream("hermes"), name)


def test_the_repr_says_format_text_fed_calls_and_state() -> None:
    parser = toolcalls.stream("hermes")
    assert repr(parser) == "<toolcalls.StreamParser 'hermes': 0 characters fed, 0 calls, open>"
    parser.feed(CALL[:20])
    parser.feed(CALL[20:])
    assert repr(parser) == (
        f"<toolcalls.StreamParser 'hermes': {len(CALL)} characters fed, 1 call, open>"
    )
    parser.close(" bye")
    assert repr(parser) == (
        f"<toolcalls.StreamParser 'hermes': {len(CALL) + 4} characters fed, 1 call, closed>"
    )
    assert parser.closed


def test_feed_after_close_raises() -> None:
    parser = toolcalls.stream("hermes")
    parser.close(CALL)
    with pytest.raises(RuntimeError, match="feed\\(\\) after close\\(\\)"):
        parser.feed("more")
    with pytest.raises(RuntimeError, match="close\\(\\) after close\\(\\)"):
        parser.close("more")
    assert parser.close() == []  # closing again without text is harmless


def test_the_result_mid_stream_is_a_snapshot() -> None:
    parser = toolcalls.stream("hermes")
    events = parser.feed("Hi. " + CALL)
    middle = parser.result()
    assert [call.name for call in middle.calls] == ["f"]
    assert [type(e) for e in events if not isinstance(e, toolcalls.TextDelta)] == [
        ToolCallStart, toolcalls.ArgumentsDelta, ToolCallEnd,
    ]
    parser.feed(" " + CALL)
    parser.close()
    assert len(middle.calls) == 1  # the snapshot did not grow with the stream
    final = parser.result()
    assert len(final.calls) == 2
    assert final == toolcalls.parse("Hi. " + CALL + " " + CALL, "hermes")


@pytest.mark.parametrize("chunks", [
    ["Done.", "<|im", "_end|>", "\n", " ", "\n"],  # a turn end held back, then blanks after it
    ["Done.<|im_end|>", "\n\n", "more"],  # held whole, then the text goes on
    ["<tool_call>", '{"name": "f"', "}</tool", "_call>"],
])
def test_the_repr_counts_every_character_fed_even_held_ones(chunks: list[str]) -> None:
    """The count comes from what the engine holds, not a counter bumped on every feed: text
    held back as a possible end-of-turn token counts too."""
    parser = toolcalls.stream("hermes")
    fed = 0
    for chunk in chunks:
        parser.feed(chunk)
        fed += len(chunk)
        assert f": {fed} characters fed," in repr(parser)
    parser.close("!")
    assert f": {fed + 1} characters fed," in repr(parser)

"""demo.py, the README's first command: real responses we read as their source does, shown
readably, a malformed and a cut-off call, a recorded provider response, a fuzz run against a toy
parser, then the budget report."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from corpus import load_disagreements

import toolcalls

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "demo.py"


def _demo() -> ModuleType:
    spec = importlib.util.spec_from_file_location("demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_demo_runs_and_every_stream_gives_the_batch_result() -> None:
    done = subprocess.run([sys.executable, str(DEMO)], capture_output=True, text=True,
                          timeout=300, check=False, cwd=ROOT)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert "the same result: False" not in done.stdout
    assert "token budget" in done.stdout and "tool_search" in done.stdout
    assert '"      ' not in done.stdout  # no value shown with its blanks
    out = done.stdout
    assert re.search(r"over all \d+ rows it agrees on \d+ \(\d+%\)", out)  # says the whole
    assert "issue invalid_arguments" in out and "issue truncated_call" in out
    assert "read_response: provider anthropic, finish_reason tool_use" in out
    assert re.search(r"hermes: \d+ responses in \d+ s, \d+ disagreements", out)
    assert "<minimax:tool_call>⏎" in out  # the wire format shown with its line breaks


def test_a_response_is_wrapped_never_cut() -> None:
    demo = _demo()
    text = "a" * 200 + "\nb"
    shown = demo.wrapped(text, indent="")
    assert shown.replace("⏎\n", "\n").replace("\n", "") == text.replace("\n", "")
    assert max(len(line) for line in shown.splitlines()) <= demo.WRAP + 1


def test_the_toy_parser_is_fooled_where_toolcalls_is_not() -> None:
    text = '<tool_call>{"name": "f", "arguments": {"s": "</tool_call>"}}</tool_call>'
    assert _demo().naive_hermes(text) == []
    assert [call.arguments for call in toolcalls.parse(text, "hermes").calls] == [
        {"s": "</tool_call>"}]


def test_the_demo_shows_only_rows_we_agree_on_in_several_formats() -> None:
    demo = _demo()
    cases = demo.pick_examples()
    assert len({case.format for case in cases}) >= 6
    disagreed = load_disagreements()
    for case in cases:
        assert case.id not in disagreed
        result = case.run()
        assert case.mismatches(result) == [] and result.issues == [], case.id
        assert all(demo._plain(call.arguments) for call in result.calls), case.id
    assert any(case.options().get("thinking") for case in cases)  # read as the source did


def test_long_text_is_cut_after_a_word_with_an_ellipsis() -> None:
    cut = _demo().cut
    assert cut("short text\non two lines") == "short text on two lines"
    long = "word " * 40
    shown = cut(long, 30)
    assert shown.endswith(" …") and len(shown) <= 32
    assert long.startswith(shown[:-2]) and shown[-3] == "d"  # a whole word, then the ellipsis
    assert cut("x" * 50, 20) == "x" * 20 + " …"  # markup without spaces: cut at the width

"""demo.py, the README's first command: real responses we read as their source does, shown
readably, then the budget report."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

from corpus import load_disagreements

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

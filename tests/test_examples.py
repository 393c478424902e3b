"""Every script of examples/ runs, as a user runs it: in a fresh interpreter, from anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXPECTED = {
    "parse.py": ["call call_0: get_weather {'city': 'Paris', 'days': 2}", "issue missing_argument"],
    "stream.py": ["ToolCallEnd(index=0", "reasoning: 'The user wants the weather; I will call"],
    "read_response.py": ["openai (none): [('call_abc'", "anthropic (none): [('toolu_1'",
                         "openai (hermes): [('call_0', 'get_weather', {'city': 'Paris'}, 'text')]"],
    "agent_loop.py": ["tool  get_capital -> London",
                      "ask   time__get_current_time({'timezone': 'Europe/London'}): yes",
                      'tool  time__get_current_time -> {"timezone": "Europe/London"',
                      "model The capital of the UK is London.",
                      "tools: ['get_capital', 'time__get_current_time', 'time__convert_time']"],
    "budget.py": ["86 tools: 15,154 tokens in full; budget 2,000: lazy mode",
                  "next request: ['tool_search', 'merge_pull_request']"],
}


def test_every_example_is_checked() -> None:
    assert sorted(path.name for path in EXAMPLES.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_runs(name: str, tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(EXAMPLES / name)], capture_output=True, text=True,
                          timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    for line in EXPECTED[name]:
        assert line in done.stdout, (line, done.stdout)

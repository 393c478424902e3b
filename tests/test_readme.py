"""Every Python block of the README runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)

# What the API overview leaves to the reader: a response, its tools, its chunks as they arrive.
READERS_DATA = {
    "text": "<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n"
    "</function>\n</tool_call>",
    "tools": [{"name": "get_weather", "parameters": {"type": "object"}}],
    "chunks": [
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0",
        '<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|>',
        "<|tool_calls_section_end|>",
    ],
}


def test_the_readme_has_python_blocks() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("block", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_block_runs(block: str) -> None:
    exec(compile(block, str(README), "exec"), dict(READERS_DATA))  # noqa: S102 - our own docs

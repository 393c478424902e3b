"""Llama 3.x prompt pieces shared by `llama3_json` and `pythonic`.

Both write the tools as indented JSON after an instruction, and a tool's result as an
``ipython`` turn: ``<|start_header_id|>ipython<|end_header_id|>\\n\\n`` + JSON + ``<|eot_id|>``.
Such a turn in the text is a region of data (`_results`), never calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...tools._tool import Tool
from ..reader import ReaderFactory
from ._results import protect, region_openers
from ._template_json import openai_tool, tojson

__all__ = ["EOT", "IPYTHON", "ipython_turn", "result_openers", "tools_json"]

IPYTHON = "<|start_header_id|>ipython<|end_header_id|>"
EOT = "<|eot_id|>"


def tools_json(instruction: str, tools: Sequence[Tool]) -> str:
    """The instruction, then each tool as ``tojson(indent=4)`` followed by a blank line."""
    return instruction + "".join(tojson(openai_tool(tool), indent=4) + "\n\n" for tool in tools)


def ipython_turn(body: str) -> str:
    """A tool result turn holding `body` (already JSON)."""
    return f"{IPYTHON}\n\n{protect(body, EOT)}{EOT}"


def result_openers() -> dict[str, ReaderFactory]:
    return region_openers({IPYTHON: EOT}, "tool_result_in_text")

"""FireFunction v2's tools block, which its template reads from llama.cpp's ``functions``.

The template (fixtures/render/firefunction_v2/) ignores ``tools``: llama.cpp passes the tools
as ``functions``, their JSON indented by two (``tools.dump(2)``), and the date as ``datetime``.
The shared fidelity test renders with one fixed context, so this one renders each case with
that case's tools as llama.cpp would.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_template_fidelity import CASES, assert_written, load_toolset, render_template

import toolcalls
from toolcalls import Tool


def _functions(tools: tuple[Tool, ...]) -> str:
    """llama.cpp's ``functions``: the tools in OpenAI's shape, JSON indented by two."""
    listed = [
        {"type": "function",
         "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
        for t in tools
    ]
    return json.dumps(listed, indent=2, ensure_ascii=False)


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_tools_block_is_the_templates_with_llama_cpp_functions(case: dict[str, Any]) -> None:
    tools = load_toolset(case["toolset"])
    output = render_template("firefunction_v2", case, functions=_functions(tools))
    ours = toolcalls.get_format("firefunction_v2").render_tools(tools)
    assert ours.endswith("]") and "Available functions as JSON spec:" in ours
    assert_written(ours, output, "the tools block")


def test_no_tools_no_block() -> None:
    assert toolcalls.get_format("firefunction_v2").render_tools(()) == ""

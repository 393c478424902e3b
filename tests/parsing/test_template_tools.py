"""The tools section of a format derived from a chat template (`tools_from_template`).

Over every real template we hold: the derived format writes the tools section byte for byte
as the template does, for random tool sets (hypothesis), or the template's section is no list
of the tools as JSON and `tools_from_template` says why; and where the template writes the
section right after the system text, prompt mode gives the template the very prompt it
writes with native tools.
"""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import HealthCheck, given, settings
from test_from_template import NOT_DERIVED, TEMPLATES, derived

from toolcalls import Tool
from toolcalls.parsing import TemplateFormatError
from toolcalls.parsing._chat_template import ChatTemplate
from toolcalls.parsing._from_template import tools_from_template
from toolcalls.parsing._template_tools import SYSTEM, tools_section, writes_the_same_prompt
from toolcalls.parsing.formats._base import Format
from toolcalls.testing import tools

# Templates whose calls derive but whose tools section does not, by a phrase of the reason.
TOOLS_NOT_DERIVED = {
    "DeepSeek-V3.1.jinja": "writes no tools section",  # its tools are the system text's job
    "render/deepseek_v31": "writes no tools section",
    "render/firefunction_v2": "writes no tools section",  # reads llama.cpp's `functions`
    "Llama-3.1-8B-Instruct.jinja": "more of the prompt than one section",  # + a date header
    "Llama-3.2-3B-Instruct.jinja": "more of the prompt than one section",
    "render/llama3_json": "more of the prompt than one section",
    "gpt-oss-120b.jinja": "more of the prompt than one section",  # TypeScript namespaces
    "render/gpt_oss": "more of the prompt than one section",
    "render/hunyuan_a13b": "more of the prompt than one section",
    "render/apertus": "more of the prompt than one section",  # TypeScript, and a line less
    # Its tools replace a line saying there are none, which prompt mode would leave in place.
    "render/olmo3": "more of the prompt than one section",
    "Qwen3-Coder-30B-A3B-Instruct.jinja": "no shape a description holds",  # XML per tool
    "Qwen3-Coder.llamacpp.jinja": "no shape a description holds",
    "render/qwen3_coder": "no shape a description holds",
    "Seed-OSS.jinja": "no shape a description holds",
    "render/seed_oss": "no shape a description holds",
    "render/apriel": "no shape a description holds",
    "Hermes-2-Pro-Llama-3-8B-tool_use.jinja": "no shape a description holds",
    # Strings between quotes as they are: no JSON once a description holds a quote.
    "Mistral-Nemo-Instruct-2407.jinja": "no shape a description holds",
    "render/cohere": "no shape a description holds",
    "render/functionary_v31": "no shape a description holds",
    "render/gigachat3": "no shape a description holds",
    "render/gigachat31": "no shape a description holds",
}

# Where prompt mode writes the very prompt the template writes with native tools: the section
# right after the system text, and the same system turn without a system message.
SAME_PROMPT = {"Qwen3-0.6B.jinja", "render/hermes", "render/reka", "render/step35",
               "render/nemotron_v2", "render/granite4"}

WITH_TOOLS = sorted(key for key in TEMPLATES
                    if key not in NOT_DERIVED and key not in TOOLS_NOT_DERIVED)


@cache
def template(key: str) -> ChatTemplate:
    return ChatTemplate(TEMPLATES[key].read_text(encoding="utf-8"))


@pytest.mark.parametrize("key", sorted(TOOLS_NOT_DERIVED))
def test_a_template_without_a_describable_section_says_why(key: str) -> None:
    fmt = derived(key)
    assert isinstance(fmt, Format)
    assert fmt.spec.tools is None  # type: ignore[attr-defined]
    with pytest.raises(TemplateFormatError, match=TOOLS_NOT_DERIVED[key]):
        tools_from_template(TEMPLATES[key].read_text(encoding="utf-8"))
    with pytest.raises(NotImplementedError, match="without \\[tools\\]"):
        fmt.render_tools([Tool(name="f")])


@pytest.mark.parametrize("key", WITH_TOOLS)
def test_render_tools_writes_the_templates_own_section(key: str) -> None:
    fmt = derived(key)
    assert isinstance(fmt, Format), fmt
    assert fmt.spec.tools is not None  # type: ignore[attr-defined]

    @settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tools(min_size=1))
    def check(offered: list[Tool]) -> None:
        try:
            section = tools_section(template(key), offered, SYSTEM)
        except TemplateFormatError as refused:  # the template raises on this tool set
            assert "refused" in str(refused)
            return
        assert fmt.render_tools(offered) == section

    check()


@pytest.mark.parametrize("key", sorted(SAME_PROMPT))
def test_prompt_mode_writes_the_prompt_the_template_writes(key: str) -> None:
    fmt = derived(key)
    assert isinstance(fmt, Format)

    @settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tools(min_size=1))
    def check(offered: list[Tool]) -> None:
        assert writes_the_same_prompt(template(key), fmt.spec.tools, offered)  # type: ignore[attr-defined]

    check()


def test_the_sections_counted_are_the_ones_derived() -> None:
    with_calls = [key for key in TEMPLATES if key not in NOT_DERIVED]
    assert len(WITH_TOOLS) + len(TOOLS_NOT_DERIVED) == len(with_calls)
    assert SAME_PROMPT <= set(WITH_TOOLS)

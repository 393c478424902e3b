"""A format from a chat template (`toolcalls.parsing.format_from_template`).

Over every real template we hold (``fixtures/templates/``, and each format's own in
``fixtures/render/<format>/``): it derives a format, or fails with a `TemplateFormatError`
that names the reason, never another exception; at least 80% derive; a derived format reads
back the template's own rendering of random calls (hypothesis), streamed as in one piece; and
on the corpus rows of the format the template belongs to, it agrees at least as often as
recorded here.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from corpus import load_cases
from helpers import assert_lossless, random_chunks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolcalls
from toolcalls import Tool, ToolCall
from toolcalls.parsing import TemplateFormatError, format_from_template, spec_from_template
from toolcalls.parsing._chat_template import ChatTemplate
from toolcalls.parsing._template_probe import Probe
from toolcalls.parsing.formats._base import Format
from toolcalls.testing import calls, tools

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = {
    **{path.name: path for path in sorted((ROOT / "fixtures" / "templates").glob("*.jinja"))},
    **{f"render/{path.parent.name}": path
       for path in sorted((ROOT / "fixtures" / "render").glob("*/template.jinja"))},
}

# What cannot be derived, and why: the only templates allowed to fail (by a phrase of the
# reason each gives).
NOT_DERIVED = {
    "DeepSeek-V3.2.llamacpp.jinja": 'string="true" or "false"',
    "render/deepseek_v32_dsml": 'string="true" or "false"',
    "render/granite": "writes no tool calls",  # Granite 3.3's template drops an assistant's calls
    # vLLM's Granite-20B-FC template loops over every message and raises on the system one.
    "render/granite_20b_fc": "Unexpected combination of role and message content",
    # vLLM's Phi-4-mini template writes the arguments as Python's str of a dict.
    "render/phi4_mini": "in no order a description holds",
    # The prompt writes the first >>>: the first call has no marker of its own.
    "render/functionary_v32": "start must hold a marker",
    # call:NAME{key:<|"|>value<|"|>}: keys bare, strings between quote tokens.
    "render/gemma4": "cannot write the template's calls",
    # vLLM's InternLM2 template writes the arguments as Python's str of a dict.
    "render/internlm2": "outside JSON",
    # vLLM's Llama 3.2 pythonic template writes strings unquoted, which no reader reads back.
    "render/pythonic": "does not read back",
}

# The body kind each derived template gives, where it matters that it stays so.
BODIES = {
    "Qwen3-0.6B.jinja": "json", "Llama-3.1-8B-Instruct.jinja": "json",
    "Mistral-Nemo-Instruct-2407.jinja": "json_list", "DeepSeek-V3.1.jinja": "name_json",
    "Kimi-K2-Instruct.jinja": "name_json", "Mistral-Small-3.2-24B-Instruct-2506.jinja":
    "name_json", "GLM-4.6.jinja": "xml", "MiniMax-M2.unsloth.jinja": "xml",
    "Qwen3-Coder-30B-A3B-Instruct.jinja": "xml", "Seed-OSS.jinja": "xml",
    "render/lfm2": "pythonic", "render/minimax_m1": "json", "render/firefunction_v2": "json_list",
    "render/xlam": "json_list", "render/granite4": "json", "render/olmo3": "pythonic",
    "render/apertus": "json_list",
}

# Corpus rows of the template's format that the derived format reads as their source expects:
# at least these many (`bench/README.md` has the table with the module's own count).
AGREES_AT_LEAST = {
    "deepseek_v31": 57, "glm45": 56, "glm47": 32, "hermes": 28, "kimi_k2": 34, "lfm2": 8,
    "llama3_json": 20, "minimax_m2": 47, "gpt_oss": 3, "mistral": 48, "qwen3_coder": 58,
    "reka": 13, "seed_oss": 8, "functionary_v31": 3, "apriel": 2, "nemotron_v2": 1,
    "minimax_m1": 8, "firefunction_v2": 3, "cohere": 9, "step35": 11, "olmo3": 25,
    "apertus": 1,
}


@cache
def derived(key: str) -> Format | TemplateFormatError:
    try:
        return format_from_template(TEMPLATES[key].read_text(encoding="utf-8"), name="derived")
    except TemplateFormatError as failure:
        return failure


@pytest.mark.parametrize("key", sorted(TEMPLATES))
def test_a_template_derives_a_format_or_says_why_not(key: str) -> None:
    outcome = derived(key)
    if key in NOT_DERIVED:
        assert isinstance(outcome, TemplateFormatError)
        assert NOT_DERIVED[key] in str(outcome)
        return
    assert isinstance(outcome, Format), outcome
    if key in BODIES:
        assert outcome.spec.calls.body == BODIES[key]  # type: ignore[attr-defined]


def test_at_least_four_fifths_of_the_templates_derive() -> None:
    made = [key for key in TEMPLATES if isinstance(derived(key), Format)]
    assert len(made) / len(TEMPLATES) >= 0.8, sorted(set(TEMPLATES) - set(made))


def test_a_derived_description_is_data_that_builds_the_same_format() -> None:
    source = TEMPLATES["Qwen3-0.6B.jinja"].read_text(encoding="utf-8")
    spec = spec_from_template(source, name="qwen3_derived")
    assert spec.calls.body == "json" and spec.calls.start == "<tool_call>\n"
    assert spec.results is not None and spec.results.start == "<tool_response>\n"
    assert spec.reasoning == ("<think>", "</think>") and spec.turn_ends == ("<|im_end|>",)
    again = toolcalls.parsing.declare_format(spec.model_dump())
    assert again.example == format_from_template(source, name="qwen3_derived").example


_WORDS = st.text(st.characters(categories=("L", "N"), max_codepoint=0x24F), min_size=1,
                 max_size=12)
_PLAIN_TEXT = st.lists(_WORDS, min_size=1, max_size=4).map(" ".join)


def _tool_calls(written: list[ToolCall]) -> list[dict[str, Any]]:
    return [{"id": f"call{i:05d}", "type": "function",
             "function": {"name": c.name, "arguments": c.arguments}}
            for i, c in enumerate(written)]


@pytest.mark.parametrize("key", sorted(k for k in TEMPLATES if k not in NOT_DERIVED))
def test_a_derived_format_reads_back_what_its_template_writes(key: str) -> None:
    fmt = derived(key)
    assert isinstance(fmt, Format)
    probe = Probe(ChatTemplate(TEMPLATES[key].read_text(encoding="utf-8")))

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tools(), st.data(), st.integers(0, 2**16))
    def check(offered: list[Tool], data: st.DataObject, seed: int) -> None:
        several = fmt.spec.calls.body != "json" or bool(fmt.spec.calls.start.strip())  # type: ignore[attr-defined]
        made = data.draw(calls(offered, max_size=3 if several else 1, text=_PLAIN_TEXT))
        try:
            written = probe.assistant_part({"role": "assistant", "content": "",
                                            "tool_calls": _tool_calls(made)})
        except TemplateFormatError:  # the template refuses this conversation (one call only)
            return
        result = toolcalls.parse(written, fmt, tools=offered)
        if len(made) > 1 and len(result.calls) == 1:  # gpt-oss writes the first call alone
            made = made[:1]
        assert [(c.name, c.arguments) for c in result.calls] == [
            (c.name, c.arguments) for c in made], written
        assert_lossless(written, result)
        streamed = toolcalls.stream(fmt, tools=offered)
        for chunk in random_chunks(written, seed):
            streamed.feed(chunk)
        streamed.close()
        assert streamed.result() == result

    check()


@pytest.mark.parametrize("name", sorted(AGREES_AT_LEAST))
def test_a_derived_format_agrees_with_the_corpus_as_recorded(name: str) -> None:
    fmt = derived(f"render/{name}")
    assert isinstance(fmt, Format)
    agreed = 0
    for case in load_cases([name]):
        options = case.options()
        if fmt.reasoning_tags is None:
            options.pop("thinking", None)
        agreed += not case.mismatches(toolcalls.parse(case.text, fmt, **options))
    assert agreed >= AGREES_AT_LEAST[name]


def test_a_template_that_does_not_compile_says_so() -> None:
    with pytest.raises(TemplateFormatError, match="does not compile"):
        format_from_template("{% if %}")


def test_a_template_without_jinja2_names_the_extra() -> None:
    import subprocess

    code = ("import sys; sys.modules['jinja2'] = None\n"
            "import toolcalls.parsing as p\n"
            "try:\n    p.format_from_template('x')\nexcept ImportError as e: print(e)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert "pip install 'toolcalls[templates]'" in out.stdout


def test_the_docs_state_how_many_templates_derive() -> None:
    import re

    readme = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    stated = re.search(r"derives (\d+) of the (\d+) real templates", readme)
    assert stated is not None
    made = sum(isinstance(derived(key), Format) for key in TEMPLATES)
    assert (int(stated[1]), int(stated[2])) == (made, len(TEMPLATES))

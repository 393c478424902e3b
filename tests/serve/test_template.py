"""``toolcalls serve --template FILE``: the proxy reads calls in the format derived from a
model's own chat template (`format_from_template`), in front of a model server that renders the
tools with that template (repair mode), or one that renders none: the proxy writes them into
the system message as the template writes them (prompt mode)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clients import chat_streamed, chat_whole, expected, named, openai_client
from upstream import FakeUpstream, corpus_rows

import toolcalls
from toolcalls.parsing import unregister_format
from toolcalls.parsing._chat_template import ChatTemplate
from toolcalls.serve._config import ConfigError, ServeConfig

TEMPLATES = Path(__file__).resolve().parents[2] / "fixtures" / "render"


@pytest.fixture(autouse=True)
def _registry_as_found() -> Iterator[None]:
    """A proxy given a template registers its format in the process: taken out again after,
    so the other tests see the registry they expect."""
    yield
    if "template" in toolcalls.list_formats():
        unregister_format("template")


@pytest.mark.parametrize("fmt", ["glm47", "kimi_k2", "deepseek_v31"])
def test_calls_in_the_templates_format_come_back_as_calls(
        start_proxy, upstream: FakeUpstream, fmt: str) -> None:
    row = corpus_rows(fmt, calls=1)[0]
    url = start_proxy(template=str(TEMPLATES / fmt / "template.jinja"))
    upstream.script(row["text"])
    request = {"model": "any-model", "tools": row["tools"],
               "messages": [{"role": "user", "content": "go"}]}
    whole = chat_whole(openai_client(url), **request)
    assert upstream.requests[0]["tools"] == row["tools"]  # repair: the upstream renders them
    want = [(call["name"], call["arguments"]) for call in row["expected"]["calls"]]
    assert named(whole["calls"]) == want == expected(row["text"], "template", row["tools"])[1]
    streamed = chat_streamed(openai_client(url), **request)
    assert named(streamed["calls"]) == want
    assert toolcalls.get_format("template").spec.calls.start  # type: ignore[attr-defined]


@pytest.mark.parametrize(("settings", "message"), [
    ({"template": str(TEMPLATES / "gemma4" / "template.jinja")},
     "no format could be derived from"),
    ({"template": "/no/such/template.jinja"}, "cannot read '/no/such/template.jinja'"),
    # Llama 3.1's tools go into the last user turn, with a line of their own in the system turn.
    ({"template": str(TEMPLATES / "llama3_json" / "template.jinja"), "mode": "prompt"},
     "more of the prompt than one section.*use mode repair"),
])
def test_a_template_that_cannot_serve_says_why(settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ServeConfig(upstream="http://127.0.0.1:9/v1", **settings)


def test_prompt_mode_writes_the_tools_as_the_template_does(
        start_proxy, upstream: FakeUpstream) -> None:
    path = TEMPLATES / "hermes" / "template.jinja"
    row = corpus_rows("hermes", calls=1)[0]
    url = start_proxy(template=str(path), mode="prompt")
    upstream.script(row["text"])
    messages = [{"role": "system", "content": "You are terse."},
                {"role": "user", "content": "go"}]
    whole = chat_whole(openai_client(url), model="any-model", tools=row["tools"],
                       messages=messages)
    sent = upstream.requests[0]
    assert "tools" not in sent  # prompt mode: the upstream renders none
    want = [(call["name"], call["arguments"]) for call in row["expected"]["calls"]]
    assert named(whole["calls"]) == want
    # The upstream's template, given the proxy's messages and no tools, writes the very prompt
    # the model's template writes given the tools natively.
    template = ChatTemplate(path.read_text(encoding="utf-8"))
    assert template.render(sent["messages"], None, add_generation_prompt=True) == (
        template.render(messages, row["tools"], add_generation_prompt=True))

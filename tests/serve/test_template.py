"""``toolcalls serve --template FILE``: the proxy reads calls in the format derived from a
model's own chat template (`format_from_template`), in front of a model server that renders the
tools with that template (repair mode)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clients import chat_streamed, chat_whole, expected, named, openai_client
from upstream import FakeUpstream, corpus_rows

import toolcalls
from toolcalls.parsing import unregister_format
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
    ({"template": str(TEMPLATES / "glm47" / "template.jinja"), "mode": "prompt"},
     "use mode repair"),
])
def test_a_template_that_cannot_serve_says_why(settings: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        ServeConfig(upstream="http://127.0.0.1:9/v1", **settings)

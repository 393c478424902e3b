"""`plan` (`toolcalls.serve._proxy`): what a client request becomes; answering it is tested
through the app (test_chat.py, test_messages.py, test_faults.py)."""

from __future__ import annotations

import pytest

from toolcalls.serve import ServeConfig
from toolcalls.serve._proxy import plan

WEATHER = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}}}}}


def _request(model: str) -> dict:
    return {"model": model, "tools": [WEATHER], "messages": [{"role": "user", "content": "go"}]}


@pytest.mark.parametrize("model", ["Qwen/Qwen3-Coder-30B", "qwen3-coder", "QWEN3-X",
                                   "org/sub/qwen3.5"])
def test_a_glob_gives_the_format_and_the_mode_by_one_rule(model: str) -> None:
    """``--model-format`` globs match case-insensitively, the whole id or its last ``/``
    part: a model whose format a glob configures is in prompt mode and read in that format."""
    config = ServeConfig(upstream="http://u/v1", model_formats={"qwen3*": "hermes"})
    planned = plan("openai", _request(model), config)
    assert (planned.mode, planned.format.name) == ("prompt", "hermes")
    repair = plan("openai", _request(model), ServeConfig(
        upstream="http://u/v1", mode="repair", model_formats={"qwen3*": "hermes"}))
    assert repair.parse_format is not None and repair.parse_format != "auto"
    assert repair.parse_format.name == "hermes"  # type: ignore[union-attr]


@pytest.mark.parametrize("model", ["llama-3", "my-qwen3", "Qwen/Coder"])
def test_a_model_no_glob_matches_is_repaired_by_markup(model: str) -> None:
    config = ServeConfig(upstream="http://u/v1", model_formats={"qwen3*": "hermes"})
    planned = plan("openai", _request(model), config)
    assert (planned.mode, planned.parse_format) == ("repair", "auto")

"""Writing results back through the dispatch (`toolcalls.providers._write`): every provider.

Each provider's own shapes are tested beside its module (test_openai_chat_write.py, ...).
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import pytest
from written import FULL, OPTIONS

import toolcalls.providers
from toolcalls.providers import PROVIDERS, stream_text, write_response, write_stream
from toolcalls.providers._write import WRITERS


def test_every_provider_has_a_writer_module_in_the_table() -> None:
    package = Path(toolcalls.providers.__file__).parent
    modules = sorted(info.name for info in pkgutil.iter_modules([str(package)])
                     if info.name.endswith("_write") and info.name != "_write")
    writers = [importlib.import_module(f"toolcalls.providers.{name}").WRITER for name in modules]
    assert sorted(map(id, writers)) == sorted(map(id, WRITERS.values()))
    assert list(WRITERS) == list(PROVIDERS)


@pytest.mark.parametrize("entry", [write_response, write_stream])
def test_an_unknown_provider_is_refused_with_the_known_ones(entry: object) -> None:
    with pytest.raises(ValueError, match="unknown provider 'cohere'.*openai_responses"):
        entry(FULL, "cohere")  # type: ignore[operator]
    with pytest.raises(ValueError, match="unknown provider"):
        stream_text([], "cohere")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_written_responses_are_plain_json(provider: str) -> None:
    """What is written is JSON data (a proxy dumps it as it is), and the same for equal
    options: nothing depends on the time but ``created``, which the caller may give."""
    import json

    whole = write_response(FULL, provider, **OPTIONS)
    stream = write_stream(FULL, provider, **OPTIONS)
    assert json.loads(json.dumps(whole)) == whole
    assert json.loads(json.dumps(stream)) == stream
    assert write_response(FULL, provider, **OPTIONS) == whole
    assert stream_text(stream, provider) == stream_text(write_stream(FULL, provider, **OPTIONS),
                                                        provider)

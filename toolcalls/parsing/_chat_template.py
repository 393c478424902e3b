"""Rendering a model's Jinja chat template as transformers does, for `format_from_template`.

transformers renders chat templates with jinja2 in the immutable sandbox, ``trim_blocks`` and
``lstrip_blocks`` on, the ``loopcontrols`` extension, its own ``tojson`` filter
(``json.dumps`` with ``ensure_ascii=False``: keys in order, no HTML escaping), and the globals
``raise_exception`` and ``strftime_now``. A template written for llama.cpp's minja may mutate
lists, which the immutable sandbox refuses: such a template is rendered in the mutable one.
jinja2 is the ``templates`` extra (``pip install 'toolcalls[templates]'``).
"""

from __future__ import annotations

import functools
import json
from datetime import datetime
from typing import Any

from .._errors import FormatSpecError

try:
    from jinja2 import nodes
    from jinja2.exceptions import TemplateError
    from jinja2.ext import Extension, loopcontrols
    from jinja2.parser import Parser
    from jinja2.sandbox import ImmutableSandboxedEnvironment, SandboxedEnvironment
except ImportError as missing:  # an optional extra: said plainly
    raise ImportError("reading a chat template needs jinja2: "
                      "pip install 'toolcalls[templates]'") from missing

__all__ = ["ChatTemplate", "TemplateFormatError", "TemplateRenderError", "environment"]

NOW = datetime(2026, 1, 2, 3, 4, 5)  # fixed: a template that writes the date renders the same


class TemplateFormatError(FormatSpecError):
    """No format could be derived from a chat template (the message says what was not
    found)."""


class TemplateRenderError(TemplateFormatError):
    """The template raised while rendering a conversation (its ``raise_exception``, or an
    error in the template itself)."""


class ChatTemplate:
    """One chat template, compiled once, rendered on message lists."""

    def __init__(self, source: str, context: dict[str, Any] | None = None) -> None:
        self.source = source
        self.context = {"bos_token": "", "eos_token": "", **(context or {})}
        try:
            self._templates = [environment(mutable).from_string(source)
                               for mutable in (False, True)]
        except Exception as exc:  # noqa: BLE001  # jinja2's syntax errors, any kind
            raise TemplateRenderError(f"the template does not compile: {exc}") from None

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
               *, add_generation_prompt: bool = False) -> str:
        """The prompt the template writes; TemplateRenderError when it refuses."""
        failure: Exception | None = None
        for template in self._templates:
            try:
                return template.render(messages=messages, tools=tools,
                                       add_generation_prompt=add_generation_prompt,
                                       **self.context)
            except Exception as exc:  # noqa: BLE001  # a template's own error, any type
                failure = failure or exc
        raise TemplateRenderError(f"the template refused the conversation: {failure}")


class _GenerationBlock(Extension):
    """transformers' ``{% generation %}`` ... ``{% endgeneration %}`` (it marks the assistant's
    own tokens for training masks; LFM2.5 uses it): rendered as its body, as transformers does."""

    tags = {"generation"}  # noqa: RUF012  # jinja2 declares it a plain class attribute

    def parse(self, parser: Parser) -> nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_body"), [], [], body).set_lineno(lineno)

    def _body(self, caller: Any) -> str:
        return str(caller())


@functools.cache
def environment(mutable: bool, now: datetime = NOW) -> SandboxedEnvironment:
    """transformers' chat-template environment: the immutable sandbox (`mutable` for a
    template written for minja), `now` the clock ``strftime_now`` reads."""
    kind = SandboxedEnvironment if mutable else ImmutableSandboxedEnvironment
    env = kind(trim_blocks=True, lstrip_blocks=True,
               extensions=[loopcontrols, _GenerationBlock])
    env.filters["tojson"] = _tojson
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = now.strftime
    return env


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


def _raise_exception(message: str) -> None:
    raise TemplateError(message)

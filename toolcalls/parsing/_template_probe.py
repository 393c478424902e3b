"""The probe conversations `format_from_template` renders, and the assistant's part of each.

A template is rendered on conversations that differ in one respect (a call or none, one call
or two, a result, a reasoning text); the probe strings are unique, so where each lands in the
rendering shows how the template writes that respect. What the differences mean is
`_from_template`'s part.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from .._errors import FormatSpecError
from ._chat_template import ChatTemplate, TemplateFormatError, TemplateRenderError

__all__ = ["CONTENT", "NESTED", "NO_ARGUMENTS", "ONE", "OTHER_CONTENT", "PROBE_TOOLS",
           "REASONING", "RESULT", "TOKEN", "TWO", "Call", "Probe", "common_prefix",
           "common_suffix"]


CONTENT, OTHER_CONTENT, REASONING, RESULT = "PROBE_TEXT_7Q", "PROBE_LEAD_3K", "PROBE_WHY_5M", \
    "PROBE_RESULT_9Z"
PROBE_TOOLS: list[dict[str, Any]] = [
    {"type": "function", "function": {
        "name": name, "description": f"Probe tool \"{name}\", déjà vu.",
        "parameters": {"type": "object", "properties": properties,
                       "required": list(properties)}}}
    for name, properties in (
        ("probe_alpha", {"probe_key": {"type": "string"}}),
        ("probe_beta", {"probe_count": {"type": "integer"}}),
        ("probe_gamma", {}),
        ("probe_delta", {"probe_filter": {"type": "object"}}),
    )
]
Call = tuple[str, dict[str, Any]]
ONE: Call = ("probe_alpha", {"probe_key": "PROBE_VALUE_4X"})
TWO: tuple[Call, Call] = (ONE, ("probe_beta", {"probe_count": 7}))
NO_ARGUMENTS: Call = ("probe_gamma", {})
NESTED: Call = ("probe_delta", {"probe_filter": {"tags": ["a", "b"], "limit": 3, "on": True}})
TOKEN = re.compile(r"<\|[^|<>\s]{1,40}\|>|<｜[^<>\s]{1,40}｜>|</?[A-Za-z_][\w:.-]{0,40}>|"
                    r"\[/?[A-Z_]{2,30}\]|</s>")


class Probe:
    """Renders the probe conversations and cuts out the assistant's part."""

    def __init__(self, template: ChatTemplate) -> None:
        self.template = template

    def render(self, assistant: dict[str, Any], *after: dict[str, Any]) -> str:
        """The conversation up to `assistant` (and `after`). Arguments go as objects, as
        transformers passes them; a template that joins them to text (Functionary's) gets
        them as JSON text instead, from its first refusal on."""
        for attempt in (assistant, _arguments_as_text(assistant)):
            messages = [{"role": "system", "content": "You are a probe."},
                        {"role": "user", "content": "Probe the tools."}, attempt, *after]
            try:
                return self.template.render(messages, PROBE_TOOLS)
            except TemplateRenderError:
                if attempt is not assistant or "tool_calls" not in assistant:
                    raise
        raise AssertionError("unreachable: the last attempt returns or raises")

    def assistant_part(self, assistant: dict[str, Any]) -> str:
        """What the assistant turn adds, against a turn holding `CONTENT` alone."""
        plain = self.render({"role": "assistant", "content": CONTENT})
        other = self.render(assistant)
        at = plain.find(CONTENT)
        if at < 0:
            raise TemplateFormatError("the template does not write an assistant's text")
        head = len(common_prefix(plain[:at], other))
        rest = plain[at + len(CONTENT):]
        tail = len(other) - len(common_suffix(rest, other[head:]))
        # A cut inside a token (<|end|> and <|call|> share their ends) takes the whole token.
        for token in TOKEN.finditer(other):
            if token.start() < head < token.end():
                head = token.start()
            if token.start() < tail < token.end():
                tail = token.end()
        return other[head:tail]

    def call_text(self, calls: list[Call], content: str = "") -> str:
        written = self.assistant_part(assistant_message(calls, content))
        if ONE[0] not in written and calls and calls[0][0] not in written:
            raise TemplateFormatError("the template writes no tool calls: an assistant turn "
                                      "with a call renders as one without")
        return written

    def text_before_calls(self, call: str) -> str:
        """What the template writes between an assistant's text and its first call."""
        both = self.call_text([ONE], OTHER_CONTENT)
        at, found = both.find(OTHER_CONTENT), both.find(call.strip())
        if at < 0 or found < at:
            return ""  # the template drops or moves the text that comes with calls
        between = both[at + len(OTHER_CONTENT): found]
        return between if not between.strip() else ""

    def writes_several(self, call: str) -> bool:
        """Whether the template writes two calls in one turn (Llama 3.1 refuses; gpt-oss
        writes the first alone: one call per message)."""
        try:
            return self.call_text(list(TWO)) != call
        except FormatSpecError:
            return False

    def turn_ends(self) -> list[str]:
        plain = self.render({"role": "assistant", "content": CONTENT})
        after = plain[plain.find(CONTENT) + len(CONTENT):]
        token = TOKEN.match(after.lstrip(" \n"))
        return [token.group()] if token else []

    def reasoning_tags(self) -> tuple[str, str] | bool:
        written = self.render({"role": "assistant", "content": CONTENT,
                               "reasoning_content": REASONING, "thinking": REASONING})
        at = written.find(REASONING)
        if at < 0:
            return ("<think>", "</think>") if "<think>" in self.template.source else False
        before = [m for m in TOKEN.finditer(written[:at])]
        after = TOKEN.match(written[at + len(REASONING):].lstrip())
        opening = before[-1].group() if before else ""
        closing = after.group() if after is not None else ""
        if closing not in ("</" + opening[1:], opening.replace("START_", "END_", 1)) or (
                opening == closing):
            return False  # a pair such as <think> ... </think>, or none we can tell
        return opening, closing

    def results(self) -> dict[str, Any] | None:
        """The markers around a tool message's text, or None when they are no clear pair."""
        call = assistant_message([ONE], "")
        result = {"role": "tool", "tool_call_id": "call00000", "name": ONE[0],
                  "content": RESULT}
        try:
            with_result = self.render(call, result)
        except FormatSpecError:
            return None
        without = self.render(call)
        at = with_result.find(RESULT)
        if at < 0:
            return None
        head = with_result[len(common_prefix(without, with_result)):at]
        tail = with_result[at + len(RESULT):]
        return _result_markers(head, tail)


def _arguments_as_text(assistant: dict[str, Any]) -> dict[str, Any]:
    calls = [{**call, "function": {**call["function"],
                                   "arguments": json.dumps(call["function"]["arguments"])}}
             for call in assistant.get("tool_calls", ())]
    return {**assistant, "tool_calls": calls}


def assistant_message(calls: list[Call], content: str) -> dict[str, Any]:
    tool_calls = [{"id": f"call{index:05d}", "type": "function",
                   "function": {"name": name, "arguments": arguments}}
                  for index, (name, arguments) in enumerate(calls)]
    return {"role": "assistant", "content": content, "tool_calls": tool_calls}


def _result_markers(head: str, tail: str) -> dict[str, Any] | None:
    opening = list(TOKEN.finditer(head))
    closing = TOKEN.match(tail.lstrip())
    if not opening or closing is None:
        return None
    last = opening[-1]
    start, end_at = head[last.start():], len(tail) - len(tail.lstrip()) + closing.end()
    end = tail[:end_at]
    tag = last.group()
    if closing.group() == "</" + tag[1:]:
        return {"start": start, "end": end}  # a tag pair the model may name in prose
    line = head.rstrip().rfind("\n", 0, len(head.rstrip()) - len(tag))
    region_start = head[line + 1:] if line >= 0 else head.lstrip()
    for probe in ("call00000", ONE[0]):  # the call's id and the tool's name are no marker
        region_start = region_start.split(probe)[0]
    return {"start": region_start, "end": end, "tokens": True}


def common_prefix(a: str, b: str) -> str:
    return os.path.commonprefix([a, b])


def common_suffix(a: str, b: str) -> str:
    return os.path.commonprefix([a[::-1], b[::-1]])[::-1]

"""What the CLI prints for people and for programs: a parse or read result, and stream events.

On a terminal a result is a few labelled lines (calls as ``name(key=value)``, each issue on one
line, spans only with ``--spans``); piped, or with ``--json``, it is the JSON the library's
model dumps, indented, and with ``--compact`` the same JSON on one line, one record per line as
``jq -c`` writes it. Events are always one per line: JSON, or with ``--human`` a label and the
event's text.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from typing import Any

from pydantic import BaseModel

from ..parsing._models import IncompleteCall, ParseIssue, ParseResult, Span, ToolCall

__all__ = ["add_view_options", "event_line", "human_view", "result_text", "wants_human"]

_LABEL = 11  # the width of the label column


def add_view_options(parser: argparse.ArgumentParser) -> None:
    """``--human``, ``--json``, ``--compact`` (one of them) and ``--spans``."""
    view = parser.add_mutually_exclusive_group()
    view.add_argument("--human", dest="view", action="store_const", const="human",
                      help="labelled lines for people (the default on a terminal)")
    view.add_argument("--json", dest="view", action="store_const", const="json",
                      help="indented JSON (the default when piped)")
    view.add_argument("--compact", dest="view", action="store_const", const="compact",
                      help="JSON, one line per record")
    parser.add_argument("--spans", action="store_true",
                        help="with the human view, where each call and issue is in the text")


def wants_human(args: argparse.Namespace) -> bool:
    """The human view: asked for, or nothing asked for and stdout is a terminal."""
    return bool(args.view == "human" or (args.view is None and sys.stdout.isatty()))


def result_text(result: ParseResult, args: argparse.Namespace) -> str:
    """`result` as the options ask: human, compact JSON or indented JSON."""
    if wants_human(args):
        return human_view(result, spans=args.spans)
    return result.model_dump_json(indent=None if args.view == "compact" else 2)


def human_view(result: ParseResult, spans: bool = False) -> str:
    """Labelled lines: the format (and provider), content, reasoning, calls, incomplete calls,
    issues, finish reason; values in JSON, so quotes and control characters stay visible."""
    lines = [_row("format", _format_line(result))]
    if result.reasoning:
        lines.append(_row("reasoning", result.reasoning))
    if result.content:
        lines.append(_row("content", result.content))
    lines += [_row("call", _call(call) + _where(call.span, spans)) for call in result.calls]
    lines += [_row("incomplete", _incomplete(call) + _where(call.span, spans))
              for call in result.incomplete]
    lines += [_row("issue", _issue(issue, spans)) for issue in result.issues]
    if result.finish_reason:
        lines.append(_row("finish", result.finish_reason))
    if not (result.calls or result.incomplete):
        lines.append(_row("calls", "none"))
    return "\n".join(lines)


def event_line(event: Any, human: bool) -> str:
    """One stream event on one line: JSON, or a label and its text."""
    if not human:
        payload = asdict(event)
        for key in ("call", "incomplete"):
            value = getattr(event, key, None)
            if isinstance(value, BaseModel):
                payload[key] = value.model_dump()
        return json.dumps(payload, ensure_ascii=False)
    if isinstance(event, ParseIssue):
        return _row("issue", _issue(event, False))
    kind = event.kind
    if kind in ("text", "reasoning"):
        return _row(kind, _quoted(event.text))
    if kind == "tool_call_start":
        return _row(f"call {event.index}", f"{event.name} started")
    if kind == "arguments_delta":
        return _row(f"call {event.index}", f"+ {event.fragment}")
    if kind == "tool_call_end":
        return _row(f"call {event.index}", _call(event.call))
    if kind == "tool_call_failed":
        return _row(f"call {event.index}", f"failed: {_incomplete(event.incomplete)}")
    return _row(kind, json.dumps(asdict(event), ensure_ascii=False, default=str))


def _row(label: str, value: str) -> str:
    """`label` then `value`; a value's later lines indented under its first."""
    indent = "\n" + " " * _LABEL
    return f"{label:<{_LABEL - 1}} {indent.join(value.splitlines()) or _quoted(value)}"


def _format_line(result: ParseResult) -> str:
    count = len(result.calls)
    calls = f"{count} call" + ("" if count == 1 else "s")
    provider = f"{result.provider} response, " if result.provider else ""
    return f"{provider}{result.format}, {calls}"


def _call(call: ToolCall) -> str:
    arguments = ", ".join(f"{key}={_value(value)}" for key, value in call.arguments.items())
    return f"{call.name}({arguments})  id {call.id}"


def _incomplete(call: IncompleteCall) -> str:
    return f"{call.name or '(no name)'}: {call.raw}"


def _issue(issue: ParseIssue, spans: bool) -> str:
    return f"{issue.kind}: {issue.message}{_where(issue.span, spans)}"


def _where(span: Span | None, spans: bool) -> str:
    return f"  [chars {span[0]}-{span[1]}]" if spans and span is not None else ""


def _value(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _quoted(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)

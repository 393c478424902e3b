"""The ``toolcalls`` command: parse responses, list formats.

    toolcalls parse [FILE|-] --format NAME|auto [--tools FILE] [--stream] [--thinking]
    toolcalls read [FILE|-] [--provider P] [--format NAME|auto|none] [--tools FILE]
    toolcalls formats
    toolcalls render TOOLS.json --format NAME|openai|anthropic|gemini|ollama [--budget N]
    toolcalls budget TOOLS.json [--encoding o200k_base] [--budget N] [--json] [--plot FILE]
"""

from __future__ import annotations

import argparse
import codecs
import io
import json
import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, cast

from .._errors import ToolCallsError
from ..parsing._api import parse, stream
from ..parsing._registry import get_format, list_formats
from ..tools._importers import load_tools
from ..tools._tool import Tool
from ._budget import add_commands as add_budget_commands

__all__ = ["main"]


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return int(args.run(args))
    except ToolCallsError as error:
        print(f"toolcalls: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="toolcalls", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(required=True, metavar="COMMAND")
    p = commands.add_parser("parse", help="parse a model response and print the result as JSON")
    p.add_argument("file", nargs="?", default="-", help="the response text (default: stdin)")
    p.add_argument("--format", "-f", default="auto", help="format name, alias or model id")
    p.add_argument("--tools", help="JSON file with the tool definitions offered to the model")
    p.add_argument("--stream", action="store_true", help="print one JSON event per line")
    p.add_argument("--thinking", action="store_true", help="the text starts inside reasoning")
    p.set_defaults(run=_parse)
    r = commands.add_parser("read", help="read a provider's saved response (JSON) or captured "
                            "stream (SSE, NDJSON) and print the result: native calls first, "
                            "then calls in the text")
    r.add_argument("file", nargs="?", default="-",
                   help="the response as JSON, or the stream as SSE/NDJSON (default: stdin)")
    r.add_argument("--provider", "-p", help="openai, openai_responses, anthropic, gemini or "
                   "ollama (default: detected from the response's shape)")
    r.add_argument("--format", "-f", default="auto", help="the format calls in the text are in: "
                   "a name, alias or model id, auto (from the response's model id, then the "
                   "markup), or none (the text is not read for calls)")
    r.add_argument("--tools", help="JSON file with the tool definitions offered to the model")
    r.set_defaults(run=_read)
    f = commands.add_parser("formats", help="list the formats with an example each")
    f.set_defaults(run=_formats)
    add_budget_commands(commands)
    return parser


def _load_tools(path: str | None) -> list[Tool]:
    return [] if path is None else load_tools(path)


class _InputError(ToolCallsError):
    """An input file (the response or --tools) could not be used."""


def _parse(args: argparse.Namespace) -> int:
    tools = _load_tools(args.tools)
    source = sys.stdin if args.file == "-" else None
    if args.stream:
        return _parse_stream(args, tools, source)
    try:
        text = source.read() if source else Path(args.file).read_text(encoding="utf-8")
    except OSError as error:
        raise _InputError(f"cannot read {args.file!r}: {error.strerror}") from None
    result = parse(text, args.format, tools=tools, thinking=args.thinking)
    print(result.model_dump_json(indent=2))
    return 0


def _read(args: argparse.Namespace) -> int:
    from ..providers._read import read_response  # the provider readers load when used
    from ..providers._stream import read_stream

    tools = _load_tools(args.tools)
    text = _read_text(args.file)
    fmt = None if args.format == "none" else args.format
    try:
        if _is_captured_stream(text):
            reader = read_stream(args.provider or _stream_provider(text), format=fmt, tools=tools)
            reader.feed(text)
            reader.close()
            result = reader.result()
        else:
            result = read_response(text, args.provider, format=fmt, tools=tools)
    except ValueError as error:  # not JSON, or not a shape any provider answers with
        raise _InputError(f"cannot read {args.file!r} as a response: {error}") from None
    print(result.model_dump_json(indent=2))
    return 0


_STREAM_MARKS = (  # what only one provider's stream holds, checked in this order
    ("event: message_start", "anthropic"),
    ('"type":"message_start"', "anthropic"),
    ("event: response.", "openai_responses"),
    ('"type":"response.', "openai_responses"),
    ("chat.completion.chunk", "openai"),
    ('"candidates"', "gemini"),
    ('"done":', "ollama"),
)


def _stream_provider(text: str) -> str:
    """The provider whose stream `text` is, from marks only its events carry."""
    compact = text[:4096].replace('": ', '":')  # the marks are written without the blank
    for mark, provider in _STREAM_MARKS:
        if mark in compact:
            return provider
    raise _InputError("cannot tell which provider this stream is from: name it with --provider")


def _read_text(file: str) -> str:
    try:
        return sys.stdin.read() if file == "-" else Path(file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or str(error)
        raise _InputError(f"cannot read {file!r}: {reason}") from None


def _is_captured_stream(text: str) -> bool:
    """SSE (``data:``/``event:`` lines) or NDJSON (one JSON object per line, several)."""
    head = text.lstrip()
    if head.startswith(("data:", "event:", ":")):
        return True
    lines = [line for line in head.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") and line.rstrip().endswith("}")
                                  for line in lines[:2])


def _parse_stream(args: argparse.Namespace, tools: list[Tool], source: Any) -> int:
    """Feed the input to a stream parser as it arrives, printing events as they are final."""
    if args.format == "auto":
        raise _InputError("--stream needs --format: a format cannot be detected from a prefix")
    parser = stream(args.format, tools=tools, thinking=args.thinking)
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    try:
        raw = sys.stdin.buffer if source is not None else open(args.file, "rb")  # noqa: SIM115
        handle = cast(io.BufferedReader, raw)  # read1: whatever has arrived, without waiting
    except OSError as error:
        raise _InputError(f"cannot read {args.file!r}: {error.strerror}") from None
    with handle:
        while block := handle.read1(4096):
            _print_events(parser.feed(decoder.decode(block)))
    _print_events(parser.feed(decoder.decode(b"", final=True)))
    _print_events(parser.close())
    return 0


def _print_events(events: list[Any]) -> None:
    for event in events:
        payload = asdict(event)
        for key in ("call", "incomplete"):
            if key in payload and hasattr(getattr(event, key), "model_dump"):
                payload[key] = getattr(event, key).model_dump()
        print(json.dumps(payload, ensure_ascii=False), flush=True)


def _formats(args: argparse.Namespace) -> int:
    for name in list_formats():
        fmt = get_format(name)
        aliases = f" (aliases: {', '.join(fmt.aliases)})" if fmt.aliases else ""
        print(f"{name}{aliases}")
        for line in fmt.example.splitlines() or ["(no example)"]:
            print(f"    {line}")
        print()
    return 0

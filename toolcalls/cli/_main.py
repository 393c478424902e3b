"""The ``toolcalls`` command: parse responses, read provider responses, list formats, render
tools and count their tokens.

    toolcalls parse [FILE|-] --format NAME|auto [--tools FILE] [--stream] [--thinking]
    toolcalls read [FILE|-] [--provider P] [--format NAME|auto|none] [--tools FILE]
    toolcalls formats
    toolcalls render TOOLS.json --format NAME|openai|anthropic|gemini|ollama [--budget N]
    toolcalls budget TOOLS.json [--encoding o200k_base] [--budget N] [--json] [--plot FILE]
    toolcalls serve --upstream URL [--format auto|NAME] [--model-format MODEL=FORMAT ...]
                    [--mode prompt|repair|auto] [--budget N] [--host H] [--port P] [--config F]
    toolcalls fuzz --format NAME --against MODULE:CALLABLE [--seconds N] [--out FILE] [--stream]
    toolcalls openapi FILE|URL [--json] [--include ID|TAG ...] [--exclude ID|TAG ...]
    toolcalls --version

No input makes it print a traceback: every failure is one line on stderr, after whatever stdout
already holds, and an exit status (`EXIT_STATUSES`, also in ``toolcalls --help``):

    0    done (warnings, such as invalid UTF-8 read as U+FFFD, go to stderr)
    1    --fail-over was given and no rendering fits the budget (the output is still printed);
         fuzz found disagreements
    2    bad usage or input: an unknown option or format, a file that cannot be read or
         written, a binary file
    70   a bug in toolcalls: the line says what to report (TOOLCALLS_TRACEBACK=1 shows it)
    130  interrupted (Ctrl-C); parse --stream first ends the calls left open with
         tool_call_failed events
    141  stdout was closed before the end (a pipe into head, say): nothing more is printed
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from .._errors import ToolCallsError
from .._version import __version__
from ..parsing._api import parse, stream
from ..parsing._registry import get_format, list_formats
from ..providers._registry import detect_stream_provider
from ..providers._response_reader import read_response
from ..providers._stream_reader import read_stream
from ..tools._tool import Tool
from ._budget import add_commands as add_budget_commands
from ._bulk import add_bulk_options, run_bulk
from ._completion import add_command as add_completion_command
from ._completion import complete_if_asked
from ._fuzz import add_commands as add_fuzz_commands
from ._help import HelpFormatter
from ._input import InputError, TextDecoder, input_name, open_input, read_input, read_tools
from ._mcp import add_commands as add_mcp_commands
from ._openapi import add_commands as add_openapi_commands
from ._serve import add_command as add_serve_command
from ._template import format_of_template
from ._view import add_view_options, event_line, result_text, wants_human

__all__ = ["EXIT_STATUSES", "main"]

EXIT_STATUSES = __doc__[__doc__.index("    0    "):].rstrip()
"""The exit statuses as the module docstring lists them, for ``--help``."""

_DESCRIPTION = ("Parse the tool calls in model responses, read provider responses, render tool "
                "definitions for a provider or a prompt format, and count their tokens.")


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    complete_if_asked(parser)  # a shell asking for completions (toolcalls completion SHELL)
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except ToolCallsError as error:
        return _fail(str(error), 2)
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    except BrokenPipeError:  # `| head`: silent, as Unix tools are, with the status they give
        _discard_stdout()
        return 141
    except Exception as error:  # a bug: say what to report, keep the traceback for who asks
        if os.environ.get("TOOLCALLS_TRACEBACK"):
            raise
        return _fail(f"internal error ({type(error).__name__}: {error}); please report it "
                     "with the command that caused it (TOOLCALLS_TRACEBACK=1 prints the "
                     "traceback)", 70)


def _fail(message: str, status: int) -> int:
    """One line on stderr, after whatever stdout holds; the exit status."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _discard_stdout()
    print(f"toolcalls: {message}", file=sys.stderr, flush=True)
    return status


def _discard_stdout() -> None:
    """Point stdout at the null device: the interpreter's last flush would fail on a closed pipe."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # not a real file (tests capture stdout)
        pass


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors as one line that points at --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="toolcalls", description=_DESCRIPTION,
                     epilog=f"exit status:\n{EXIT_STATUSES}",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"toolcalls {__version__}")
    commands = parser.add_subparsers(required=True, metavar="COMMAND", title="commands")
    p = commands.add_parser("parse", help="parse a model response and print the result")
    p.add_argument("file", nargs="?", default="-", help="the response text (- for stdin)")
    p.add_argument("--format", "-f", default="auto", help="format name, alias or model id")
    p.add_argument("--template", metavar="FILE", help="the model's Jinja chat template: the "
                   "format is derived from it (needs jinja2: pip install "
                   "'toolcalls[templates]'); instead of --format")
    p.add_argument("--tools", help="JSON file with the tool definitions offered to the model")
    p.add_argument("--stream", action="store_true", help="print one event per line, as the "
                   "input arrives; the issues follow as events of kind 'issue'")
    p.add_argument("--thinking", action="store_true", help="the text starts inside reasoning")
    add_view_options(p)
    add_bulk_options(p)
    p.set_defaults(run=_parse)
    r = commands.add_parser("read", help="read a provider's saved response (JSON) or captured "
                            "stream (SSE, NDJSON) and print the result: native calls first, "
                            "then calls in the text")
    r.add_argument("file", nargs="?", default="-",
                   help="the response as JSON, or the stream as SSE/NDJSON (- for stdin)")
    r.add_argument("--provider", "-p", help="openai, openai_responses, anthropic, gemini or "
                   "ollama (default: told from the response's shape)")
    r.add_argument("--format", "-f", default="auto", help="the format calls in the text are in: "
                   "a name, alias or model id, auto (from the response's model id, then the "
                   "markup), or none (the text is not read for calls)")
    r.add_argument("--tools", help="JSON file with the tool definitions offered to the model")
    r.add_argument("--events", action="store_true", help="a captured stream's events, one per "
                   "line, as they are read (read_stream), then its issues")
    add_view_options(r)
    r.set_defaults(run=_read)
    f = commands.add_parser("formats", help="list the formats, the model ids that select each, "
                            "and an example")
    f.add_argument("--json", action="store_true", help="print the list as JSON")
    f.set_defaults(run=_formats)
    add_budget_commands(commands)
    add_serve_command(commands)
    add_fuzz_commands(commands)
    add_openapi_commands(commands)
    add_mcp_commands(commands)
    add_completion_command(commands)
    for command in commands.choices.values():  # every --help shows the defaults
        command.formatter_class = HelpFormatter
    return parser


def _read_tools(path: str | None) -> list[Tool]:
    return [] if path is None else read_tools(path)


def _parse(args: argparse.Namespace) -> int:
    tools = _read_tools(args.tools)
    if args.jsonl is not None:
        return run_bulk(args, tools)
    if args.out is not None:
        raise InputError("--out writes what --jsonl IN reads: give --jsonl, or print to stdout")
    if args.template is not None:
        if args.format != "auto":
            raise InputError("--template and --format both name the format: give one")
        args.format = format_of_template(args.template)
    if args.stream:
        return _parse_stream(args, tools)
    _hint_on_a_terminal(args.file)
    result = parse(read_input(args.file), args.format, tools=tools, thinking=args.thinking)
    print(result_text(result, args))
    return 0


def _read(args: argparse.Namespace) -> int:
    tools = _read_tools(args.tools)
    fmt = None if args.format == "none" else args.format
    _hint_on_a_terminal(args.file)
    if args.events:
        return _read_events(args, fmt, tools)
    text = read_input(args.file)
    try:
        if _is_captured_stream(text):
            reader = read_stream(args.provider or _stream_provider(text), format=fmt, tools=tools)
            reader.feed(text)
            reader.close()
            result = reader.result()
        else:
            result = read_response(text, args.provider, format=fmt, tools=tools)
    except ValueError as error:  # not JSON, or not a shape any provider answers with
        raise InputError(f"cannot read {args.file!r} as a response: {error}") from None
    print(result_text(result, args))
    return 0


_DETECTED_WITHIN = 4096  # detect_stream_provider reads the marks in a stream's first 4 KiB


def _read_events(args: argparse.Namespace, fmt: str | None, tools: list[Tool]) -> int:
    """A captured stream's events as its blocks arrive; the provider, when not named, is told
    from the first block that shows it."""
    decoder = TextDecoder(input_name(args.file))
    handle = open_input(args.file)
    human = wants_human(args)
    reader = None if args.provider is None else read_stream(args.provider, format=fmt,
                                                            tools=tools)
    seen = ""
    try:
        while block := handle.read1(4096):
            text = decoder.decode(block)
            if reader is None:
                seen += text
                provider = detect_stream_provider(seen)
                if provider is None and len(seen) <= _DETECTED_WITHIN:
                    continue
                if provider is None:
                    break
                reader, text = read_stream(provider, format=fmt, tools=tools), seen
            _print_events(reader.feed(text), human)
        if reader is None:
            if _is_captured_stream(seen):
                raise InputError("cannot tell which provider this stream is from: name it "
                                 "with --provider")
            raise InputError("--events reads a captured stream (SSE or NDJSON); this is one "
                             "whole response: read it without --events")
        _print_events(reader.feed(decoder.finish()), human)
    finally:
        if args.file != "-":
            handle.close()
    if reader is not None:
        _print_events(reader.close(), human)
        _print_issues(reader.result().issues, human)
    return 0


def _hint_on_a_terminal(file: str) -> None:
    """Reading stdin from a terminal waits for a paste: say so, and how to end it."""
    if file == "-" and sys.stdin.isatty():
        print("toolcalls: reading the response from the terminal: paste it and end with "
              "Ctrl-D, or give a FILE, or pipe the text in (--help)", file=sys.stderr)


def _stream_provider(text: str) -> str:
    """The provider whose stream `text` is, from marks only its events carry."""
    provider = detect_stream_provider(text)
    if provider is None:
        raise InputError("cannot tell which provider this stream is from: name it with --provider")
    return provider


def _is_captured_stream(text: str) -> bool:
    """SSE (``data:``/``event:`` lines) or NDJSON (one JSON object per line, several)."""
    head = text.lstrip()
    if head.startswith(("data:", "event:", ":")):
        return True
    lines = [line for line in head.splitlines() if line.strip()]
    return len(lines) > 1 and all(line.lstrip().startswith("{") and line.rstrip().endswith("}")
                                  for line in lines[:2])


def _parse_stream(args: argparse.Namespace, tools: list[Tool]) -> int:
    """Feed the input to a stream parser as it arrives, printing events as they are final.

    However the input stops (its end, Ctrl-C, a NUL byte), the parser is closed: the calls left
    open end with ``tool_call_failed`` events, and the issues follow as ``issue`` events.
    """
    if args.format == "auto":
        raise InputError("--stream needs --format or --template: a format cannot be detected "
                         "from a prefix")
    parser = stream(args.format, tools=tools, thinking=args.thinking)
    _hint_on_a_terminal(args.file)
    human = wants_human(args)
    decoder = TextDecoder(input_name(args.file))
    handle = open_input(args.file)
    last = ""
    try:
        while block := handle.read1(4096):  # whatever has arrived, without waiting for more
            _print_events(parser.feed(decoder.decode(block)), human)
        last = decoder.finish()
    finally:
        if args.file != "-":
            handle.close()
        _print_events(parser.close(last), human)
        _print_issues(parser.result().issues, human)
    return 0


def _print_events(events: list[Any], human: bool) -> None:
    for event in events:
        _write_line(event_line(event, human))


def _print_issues(issues: list[Any], human: bool) -> None:
    """The issues as events after the last one: ``{"kind": "issue", "issue": {...}}``."""
    for issue in issues:
        _write_line(event_line(issue, True) if human else json.dumps(
            {"kind": "issue", "issue": issue.model_dump()}, ensure_ascii=False))


def _write_line(text: str) -> None:
    """One event line, in one write: Ctrl-C between `print`'s text and its newline left a line
    without its end, and the closing events ran into it (seen in CI)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def _formats(args: argparse.Namespace) -> int:
    if args.json:
        print(json.dumps([_format_entry(name) for name in list_formats()], indent=2,
                         ensure_ascii=False))
        return 0
    for name in list_formats():
        fmt = get_format(name)
        aliases = f" (aliases: {', '.join(fmt.aliases)})" if fmt.aliases else ""
        print(f"{name}{aliases}")
        if fmt.model_prefixes:  # what `--format MODEL_ID` and serve's model detection match
            print(f"    models: {', '.join(fmt.model_prefixes)}")
        for line in fmt.example.splitlines() or ["(no example)"]:
            print(f"    {line}")
        print()
    return 0


def _format_entry(name: str) -> dict[str, Any]:
    fmt = get_format(name)
    return {"name": name, "aliases": list(fmt.aliases), "models": list(fmt.model_prefixes),
            "example": fmt.example}

"""``toolcalls fuzz``: another parser against toolcalls on generated responses.

    toolcalls fuzz --format F --against MODULE:CALLABLE [--seconds N] [--out FILE] [--stream]

MODULE is a module importable from the current directory (``bench.fuzz_peers``) or a path to a
Python file (``bench/fuzz_peers.py``). The summary goes to stdout: responses tried,
disagreements per class, then one shrunk reproducer per class; the reproducers (up to
--per-class of each) go to --out as JSON lines. The exit status is 1 when they disagreed.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import os
import sys
from typing import Any

from ..parsing._registry import get_format
from ._input import InputError
from ._status import StatusLine

__all__ = ["add_commands"]


def add_commands(commands: Any) -> None:
    f = commands.add_parser("fuzz", help="fuzz another tool-call parser against toolcalls and "
                            "write the disagreements, shrunk, as JSONL reproducers (needs "
                            "toolcalls[testing])")
    f.add_argument("--format", "-f", required=True, help="format name, alias or model id")
    f.add_argument("--against", "-a", required=True, metavar="MODULE:CALLABLE",
                   help="the other parser: a callable taking the response text (a list of "
                   "deltas with --stream), and optionally format= and tools= keywords, and "
                   "returning the calls it read: a list of {\"name\", \"arguments\"} dicts "
                   "(arguments a dict or JSON text), OpenAI tool_calls, (name, arguments) "
                   "pairs or objects with those attributes; raising is a disagreement (raised)")
    f.add_argument("--seconds", "-s", type=float, default=60.0, help="how long to fuzz")
    f.add_argument("--out", "-o", help="JSONL file for the shrunk reproducers")
    f.add_argument("--stream", action="store_true", help="feed the other parser deltas")
    f.add_argument("--per-class", type=int, default=3, help="reproducers kept per class")
    f.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="responses tried, disagreements and rate on stderr, each second "
                   "(default: when stderr is a terminal)")
    f.set_defaults(run=_fuzz)


class _Progress:
    """The fuzz run's status line: responses tried, disagreements, rate, time left."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.line = seconds, StatusLine()

    def __call__(self, report: Any, elapsed: float) -> None:
        found = sum(report.counts.values())
        self.line.show(f"{report.format}: {report.examples:,} responses, {found:,} disagreement"
                       f"{'' if found == 1 else 's'}, "
                       f"{report.examples / max(elapsed, 1e-9):,.0f}/s, "
                       f"{max(self.seconds - elapsed, 0):.0f} s left")

    def done(self) -> None:
        self.line.done()


def load_callable(spec: str) -> Any:
    """The callable `spec` names: ``module.path:name`` or ``path/to/file.py:name``."""
    module_name, _, attribute = spec.rpartition(":")
    if not module_name or not attribute:
        raise InputError(f"--against {spec!r}: expected MODULE:CALLABLE")
    try:
        if module_name.endswith(".py") or os.sep in module_name:
            location = importlib.util.spec_from_file_location(
                os.path.splitext(os.path.basename(module_name))[0], module_name)
            if location is None or location.loader is None or not os.path.exists(module_name):
                raise InputError(f"--against {spec!r}: no file {module_name!r}")
            sys.path.insert(0, os.path.dirname(os.path.abspath(module_name)))
            module = importlib.util.module_from_spec(location)
            location.loader.exec_module(module)
        else:
            sys.path.insert(0, os.getcwd())
            module = importlib.import_module(module_name)
    except InputError:
        raise
    except Exception as error:  # its import failed: the user's module, not toolcalls
        raise InputError(f"--against {spec!r}: cannot import {module_name!r} "
                         f"({type(error).__name__}: {error})") from None
    found = getattr(module, attribute, None)
    if not callable(found):
        raise InputError(f"--against {spec!r}: {module_name!r} has no callable {attribute!r}")
    return found


def _fuzz(args: argparse.Namespace) -> int:
    try:
        from ..testing import fuzz  # the testing extra (hypothesis): loaded for this command only
    except ImportError as missing:
        raise InputError(f"toolcalls fuzz needs hypothesis ({missing}): "
                         "pip install 'toolcalls[testing]'") from None
    if args.seconds <= 0:
        raise InputError("--seconds must be positive")
    fmt = get_format(args.format).name
    against = load_callable(args.against)
    if args.out is not None:
        try:
            open(args.out, "w").close()
        except OSError as error:
            raise InputError(f"cannot write {args.out!r}: {error.strerror}") from None
    show = sys.stderr.isatty() if args.progress is None else args.progress
    progress = _Progress(args.seconds) if show else None
    report = fuzz(fmt, against, seconds=args.seconds, stream=args.stream,
                  per_class=args.per_class, out=args.out, progress=progress)
    if progress is not None:
        progress.done()
    print(report.summary())
    shown: set[str] = set()
    for found in report.reproducers:
        label = f"{found.kind} ({found.origin})"
        if label not in shown:
            shown.add(label)
            print(f"{label}: {json.dumps(found.text, ensure_ascii=False)}")
            print(f"    toolcalls: {json.dumps(found.toolcalls, ensure_ascii=False)}")
            other = found.error if found.other is None else json.dumps(found.other,
                                                                       ensure_ascii=False)
            print(f"    other:     {other}")
    if args.out is not None:
        print(f"{len(report.reproducers)} reproducers written to {args.out}")
    return 1 if report.counts else 0

"""Grammar export on deep and wide schemas: time and size of `toolcalls.decoding.grammar`
(every format and dialect) and `toolcalls.decoding.structural_tag`, as the schema grows.

Issue 24: the pythonic grammar wrote a list's item twice, so nested arrays took x2.6 time a
level (14 levels 5.4 s, 30 levels more than 300 s). Export must be linear in the schema: this
prints, for each shape and size, the slowest build and the largest grammar over all formats
and dialects. A build slower than ``--cap`` seconds stops that format's row growing (an
exponential row shows on the sizes already measured).

    .venv/bin/python bench/grammar_depth.py [--cap 10] [--shape arrays] [--format pythonic]
"""

from __future__ import annotations

import argparse
import json
import signal
import time
from collections.abc import Callable
from typing import Any

from toolcalls.decoding import grammar, structural_tag
from toolcalls.decoding._table import REGIONS, TAGGED, XGRAMMAR_STYLES

Tools = list[dict[str, Any]]


def _one(schema: dict[str, Any]) -> Tools:
    return [{"name": "f", "parameters": {
        "type": "object", "properties": {"v": schema}, "required": ["v"]}}]


def arrays(depth: int) -> Tools:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "array", "items": schema}
    return _one(schema)


def objects(depth: int) -> Tools:
    schema: dict[str, Any] = {"type": "string"}
    for _ in range(depth):
        schema = {"type": "object", "properties": {"b": {"type": "integer"}, "a": schema},
                  "additionalProperties": False}
    return _one(schema)


def any_ofs(depth: int) -> Tools:
    schema: dict[str, Any] = {"type": "array", "items": {"type": "string"}}
    for _ in range(depth):
        schema = {"anyOf": [schema, {"type": "integer"}]}
    return _one(schema)


def parameters(count: int) -> Tools:
    properties = {f"p{i}": {"type": "integer"} for i in range(count)}
    return [{"name": "f", "parameters": {
        "type": "object", "properties": properties, "required": [f"p{count - 1}"]}}]


def tools(count: int) -> Tools:
    return [{"name": f"f{i}", "parameters": {
        "type": "object", "properties": {"a": {"type": "string"}}}} for i in range(count)]


def enum(count: int) -> Tools:
    return _one({"enum": [f"v{i}" for i in range(count)]})


SHAPES: dict[str, tuple[Callable[[int], Tools], tuple[int, ...]]] = {
    "arrays": (arrays, (4, 8, 12, 14, 24, 48, 97)),
    "objects": (objects, (4, 8, 12, 24, 48)),
    "any_ofs": (any_ofs, (4, 8, 12, 24, 48)),
    "parameters": (parameters, (100, 200, 400, 800)),
    "tools": (tools, (50, 100, 200)),
    "enum": (enum, (250, 500, 1000, 2000)),
}


class _Late(Exception):
    pass


def _alarm(*_: object) -> None:
    raise _Late


def _builds() -> dict[str, Callable[[Tools], str]]:
    made: dict[str, Callable[[Tools], str]] = {}
    for name in sorted(REGIONS):
        for dialect in ("llguidance", "lark", "gbnf"):
            made[f"{name}/{dialect}"] = (
                lambda t, n=name, d=dialect: grammar(n, t, dialect=d))  # type: ignore[misc]
    for name in sorted({*TAGGED, *XGRAMMAR_STYLES}):
        made[f"{name}/structural_tag"] = lambda t, n=name: json.dumps(structural_tag(n, t))
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=10.0)
    parser.add_argument("--shape", choices=sorted(SHAPES))
    parser.add_argument("--format", help="only this format's rows")
    args = parser.parse_args()
    signal.signal(signal.SIGALRM, _alarm)
    builds = {row: build for row, build in _builds().items()
              if not args.format or row.split("/")[0] == args.format}
    for shape, (make, sizes) in SHAPES.items():
        if args.shape and shape != args.shape:
            continue
        stopped: set[str] = set()
        for size in sizes:
            slowest, largest, late = (0.0, ""), (0, ""), []
            for row, build in builds.items():
                if row in stopped:
                    continue
                signal.setitimer(signal.ITIMER_REAL, args.cap)
                start = time.perf_counter()
                try:
                    text = build(make(size))
                except _Late:
                    stopped.add(row)
                    late.append(row)
                    continue
                finally:
                    signal.setitimer(signal.ITIMER_REAL, 0)
                took = time.perf_counter() - start
                slowest = max(slowest, (took, row))
                largest = max(largest, (len(text), row))
            print(f"{shape:10} {size:5}  slowest {slowest[0]:7.3f} s ({slowest[1]})  "
                  f"largest {largest[0]:>9,} chars ({largest[1]})"
                  + (f"  over {args.cap:g} s: {', '.join(late)}" if late else ""), flush=True)


if __name__ == "__main__":
    main()

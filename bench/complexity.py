"""Linear time on hostile input: the scaling exponent of parse and stream, every format and shape.

The promise is that the work is linear in the input, whatever the input. For every format and
every shape below, this builds texts of 16 KB to 1 MB, times a batch parse and a stream in
4-character deltas (CPU time, the best of a few runs at small sizes), and fits the exponent b of
time ~ size^b (the log-log slope, least squares). A linear parser has b ≈ 1; the check fails
(exit status 1) when any b exceeds 1.1, or a row raises. A measurement that takes longer than
``--cap`` seconds stops that row growing once three sizes are measured: a quadratic case shows
on those already. bench/README.md's table comes from the editable (pure Python) install.

    .venv/bin/python bench/complexity.py                # all, 16 KB-1 MB
    .venv/bin/python bench/complexity.py --quick        # 16-256 KB
    .venv/bin/python bench/complexity.py --format hermes --shape ws --all

The shapes (``--list`` prints them): generic ones every format gets (long whitespace, prose
without any opener's first character, brackets, JSON candidates, unclosed result and header
openers of every family), shapes made from the format's own example (many valid calls; one call
whose value is long, full of escapes, of brackets, deeply nested, or cut off), and each of the
format's own openers repeated, alone and followed by text.
"""

from __future__ import annotations

import argparse
import gc
import math
import sys
import time
from collections.abc import Callable, Iterator

from toolcalls.parsing._registry import get_format, list_formats

__all__ = ["SHAPES", "exponent", "main", "shapes_for"]

LIMIT = 1.1
SIZES = tuple(16_384 * 2**k for k in range(7))
QUICK_SIZES = SIZES[:5]
DELTA = 4
MIN_POINTS = 3
MIN_SECONDS = 0.002
"""Rows faster than this at their largest size are not judged (see `_counted`)."""

Shape = Callable[[str, int], str]
"""(format name, size) -> a text of about `size` characters."""


def _repeat(unit: str, size: int, head: str = "", tail: str = "") -> str:
    count = max(1, (size - len(head) - len(tail)) // len(unit))
    return head + unit * count + tail


def _repeated(unit: str, head: str = "") -> Shape:
    return lambda fmt, size: _repeat(unit, size, head)


def _example(fmt: str) -> str:
    return get_format(fmt).example


def _in_value(make: Callable[[int], str], *, json_value: bool = False, cut: bool = False) -> Shape:
    """The format's example with its one value ("Paris") replaced by `make(size)`.

    `json_value`: the replacement is a whole JSON value, so it also takes the place of the
    quotes around "Paris" where the example has them. `cut`: the text ends with the value.
    """

    def shape(fmt: str, size: int) -> str:
        example = _example(fmt)
        at = example.index("Paris")
        start, end = at, at + len("Paris")
        if json_value and example[at - 1] == '"' and example[end] == '"':
            start, end = start - 1, end + 1
        return example[:start] + make(size) + ("" if cut else example[end:])

    return shape


MARKERS: dict[str, str] = {
    # Result and header openers that never close.
    "tool_response": "<tool_response>",
    "tool_response_text": "<tool_response>x\n",
    "tool_results": "[TOOL_RESULTS]",
    "im_system": "<|im_system|>",
    "outputs_begin": "<｜tool▁outputs▁begin｜>",
    "output_begin": "<｜tool▁output▁begin｜>x",
    "channel": "<|channel|>",
    "channel_invalid": "<|channel|>a 1\n",
    "start": "<|start|>",
    "start_assistant": "<|start|>assistant<|channel|>commentary to=functions.f ",
    "response": "<response>",
    "result": "<result>",
    "think": "<think>",
    "fence": "```",
    # Call headers that never close.
    "function_eq": "<function=f>",
    "invoke": '<invoke name="f">',
    "dsml_invoke": '<｜DSML｜invoke name="f">',
    "tool_call": "<tool_call>",
    "tool_call_json": '<tool_call>{"name": "f", "arguments": {"a": ',
    "parameter_eq": "<parameter=a>",
    "parameter_name": '<parameter name="a">',
    "kimi_call": "<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{",
    "mistral_call": "[TOOL_CALLS]f[ARGS]{",
    "python_tag": '<|python_tag|>{"name": "f", ',
}
"""Marker units repeated: a format gets those that hold one of its openers or begin as one does
(a marker it does not know is prose, which SHAPES covers)."""

SHAPES: dict[str, Shape] = {
    # Long runs without markup.
    "ws": lambda fmt, size: "a" + " " * size,
    "newlines": lambda fmt, size: "a" + "\n" * size,
    "blank_lines": _repeated("a\n \t\n"),
    "letters": _repeated("lorem ipsum dolor sit amet "),
    "lt_prose": _repeated("a < b, c [d] (e) {f} g | h ` i = j\n"),
    "unicode": _repeated("é ｜ ▁ … 天气 "),
    # Brackets and JSON candidates.
    "open_brackets": _repeated("["),
    "open_braces": _repeated("{"),
    "open_parens": _repeated("("),
    "json_key": _repeated('{"'),
    "json_name": _repeated('{"name": "f", '),
    "json_objects": _repeated('{"a": 1} '),
    "json_list": _repeated('[{"name": "f", '),
    "call_list": _repeated("[f(a="),
    # The format's own example: many valid calls, and one call with a hostile value.
    "valid_calls": lambda fmt, size: _repeat(_example(fmt) + "\n", size),
    "valid_calls_prose": lambda fmt, size: _repeat("Some text. " + _example(fmt) + "\n", size),
    "long_value": _in_value(lambda size: "x" * size),
    "value_escapes": _in_value(lambda size: _repeat('a\\"b\\\\c\\n\\u00e9', size)),
    "value_brackets": _in_value(lambda size: _repeat("[{(", size)),
    "value_ws": _in_value(lambda size: " " * size),
    "deep_value": _in_value(lambda size: "[" * (size // 2) + "]" * (size // 2), json_value=True),
    "many_values": _in_value(lambda size: "[" + _repeat('"ab", ', size) + "1]", json_value=True),
    "cut_value": _in_value(lambda size: "x" * size, cut=True),
    "cut_escapes": _in_value(lambda size: _repeat('a\\"b\\\\', size), cut=True),
}
"""The shapes every format gets; `shapes_for` adds MARKERS and the format's own openers."""


def shapes_for(fmt: str) -> dict[str, Shape]:
    """The generic shapes, the marker units that concern `fmt`, then each opener of `fmt`
    repeated alone and followed by text."""
    shapes = dict(SHAPES)
    openers = sorted(get_format(fmt).openers())
    for name, unit in MARKERS.items():
        if unit not in openers and any(
            opener in unit or opener.startswith(unit[:2]) for opener in openers
        ):
            shapes[name] = _repeated(unit)
    for opener in openers:
        shapes[f"own:{opener}"] = _repeated(opener)
        shapes[f"own_text:{opener}"] = _repeated(opener + "a\n")
    return shapes


def _parse_once(fmt: str, text: str) -> float:
    parser = get_format(fmt)
    start = time.process_time()
    parser.parse(text)
    return time.process_time() - start


def _stream_once(fmt: str, text: str) -> float:
    deltas = [text[i : i + DELTA] for i in range(0, len(text), DELTA)]
    stream = get_format(fmt).stream()
    start = time.process_time()
    for piece in deltas:
        stream.feed(piece)
    stream.close()
    stream.result()
    return time.process_time() - start


def _best(run: Callable[[str, str], float], fmt: str, text: str) -> float:
    """The best of a few runs for short texts, one run for long ones (noise is relative)."""
    gc.collect()
    gc.disable()  # a collection in one run only would bend the slope
    try:
        return _best_of(run, fmt, text)
    finally:
        gc.enable()


def _best_of(run: Callable[[str, str], float], fmt: str, text: str) -> float:
    """Each run reads a text of its own (one more trailing blank each): the parser memoizes
    some pieces (gpt-oss headers, XML tags), and a run that found the last run's pieces
    memoized would time less work than a new response costs."""
    best = spent = run(fmt, text)
    for extra in range(1, 5):
        if spent > 0.05:
            break
        took = run(fmt, text + " " * extra)
        spent += took
        best = min(best, took)
    return best


def exponent(points: list[tuple[int, float]]) -> float:
    """The least-squares slope of log(time) over log(size)."""
    if len(points) < 2:
        return math.nan
    xs = [math.log(size) for size, _ in points]
    ys = [math.log(max(seconds, 1e-6)) for _, seconds in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mx) ** 2 for x in xs
    )


def measure(
    run: Callable[[str, str], float], fmt: str, shape: Shape, sizes: tuple[int, ...], cap: float
) -> list[tuple[int, float]]:
    """(size, seconds) per size, up to the first size that takes longer than `cap` once
    MIN_POINTS are measured (two close sizes alone give a noisy slope); a size that takes four
    times the cap ends the row at once, with a quarter of the first size measured too."""
    run(fmt, shape(fmt, 1024))  # first use: lazy imports, regex compiles
    points: list[tuple[int, float]] = []
    for size in sizes:
        text = shape(fmt, size)
        seconds = _best(run, fmt, text)
        points.append((len(text), seconds))
        if seconds > cap and len(points) >= MIN_POINTS:
            break
        if seconds > 4 * cap:  # quadratic from the start: measure a smaller size instead
            text = shape(fmt, sizes[0] // 4)
            points.insert(0, (len(text), _best(run, fmt, text)))
            break
    return points


def _counted(points: list[tuple[int, float]]) -> bool:
    """Whether the exponent means anything: below MIN_SECONDS at the largest size, the fixed
    cost of a parse dominates and the slope is noise (and the cost per character tiny)."""
    return points[-1][1] >= MIN_SECONDS


class Row:
    def __init__(
        self, fmt: str, shape: str, parse: list[tuple[int, float]], stream: list[tuple[int, float]]
    ) -> None:
        self.fmt, self.shape = fmt, shape
        self.parse, self.stream = parse, stream
        self.b_parse, self.b_stream = exponent(parse), exponent(stream)

    @property
    def worst(self) -> float:
        """The larger exponent of those that count (0 if neither does)."""
        judged = [
            b
            for b, points in ((self.b_parse, self.parse), (self.b_stream, self.stream))
            if _counted(points)
        ]
        return max(judged, default=0.0)

    def cells(self) -> list[str]:
        def last(points: list[tuple[int, float]]) -> str:
            size, seconds = points[-1]
            return f"{seconds * 1000:,.1f} ms @ {size // 1024} KB"

        mark = " ✗" if self.worst > LIMIT else ""
        return [
            self.fmt,
            f"`{self.shape}`",
            f"{self.b_parse:.2f}",
            last(self.parse),
            f"{self.b_stream:.2f}",
            last(self.stream) + mark,
        ]


def _rows(
    formats: list[str], pick: Callable[[str], bool], sizes: tuple[int, ...], cap: float
) -> Iterator[Row | str]:
    """A row per format and shape, or what it raised (parse and stream must never raise)."""
    for fmt in formats:
        for name, shape in shapes_for(fmt).items():
            if not pick(name):
                continue
            try:
                parse = measure(_parse_once, fmt, shape, sizes, cap)
                stream = measure(_stream_once, fmt, shape, sizes, cap)
            except Exception as error:  # reported, and the run goes on
                yield f"{fmt} | `{name}` | raised {type(error).__name__}: {str(error)[:80]}"
                continue
            yield Row(fmt, name, parse, stream)


def _table(rows: list[Row]) -> str:
    head = ["format", "shape", "b parse", "parse", "b stream", "stream (4-char deltas)"]
    lines = ["| " + " | ".join(head) + " |", "|---|---|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


def _summary(rows: list[Row]) -> str:
    """Per format, the largest exponent of the rows that count (see `_counted`)."""
    lines = [
        "| format | shapes | worst b parse (shape) | worst b stream (shape) |",
        "|---|---:|---|---|",
    ]
    for fmt in dict.fromkeys(row.fmt for row in rows):
        mine = [row for row in rows if row.fmt == fmt]
        cells = []
        for mode in ("parse", "stream"):
            judged = [
                (getattr(row, f"b_{mode}"), row.shape)
                for row in mine
                if _counted(getattr(row, mode))
            ]
            b, shape = max(judged, default=(math.nan, "-"))
            cells.append(f"{b:.2f} (`{shape}`)")
        lines.append(f"| {fmt} | {len(mine)} | {cells[0]} | {cells[1]} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--quick", action="store_true", help="sizes 16-256 KB only")
    options.add_argument("--format", action="append", help="only these formats (repeatable)")
    options.add_argument(
        "--shape", action="append", help="only shapes whose name contains this (repeatable)"
    )
    options.add_argument(
        "--cap", type=float, help="seconds after which a row stops growing (0.3; --quick 0.1)"
    )
    options.add_argument("--all", action="store_true", help="print every row, not only misses")
    options.add_argument("--list", action="store_true", help="list the shapes and exit")
    args = options.parse_args(argv)
    formats = args.format or list_formats()
    if args.list:
        for fmt in formats:
            print(fmt, " ".join(shapes_for(fmt)))
        return 0
    wanted = args.shape or []

    def pick(name: str) -> bool:
        return not wanted or any(part in name for part in wanted)

    sizes = QUICK_SIZES if args.quick else SIZES
    cap = args.cap if args.cap is not None else 0.1 if args.quick else 0.3
    rows = []
    raised: list[str] = []
    for row in _rows(formats, pick, sizes, cap):
        if isinstance(row, str):
            raised.append(row)
            print(row, flush=True)
            continue
        rows.append(row)
        if args.all or row.worst > LIMIT:
            print(" | ".join(row.cells()), flush=True)
    if not rows:
        print("no shape matched", file=sys.stderr)
        return 2
    misses = [row for row in rows if row.worst > LIMIT]
    print()
    print(_summary(rows))
    print()
    for line in raised:
        print(line)
    if misses:
        print(f"{len(misses)} of {len(rows)} rows above b = {LIMIT}:")
        print(_table(sorted(misses, key=lambda row: -row.worst)))
    else:
        print(f"all {len(rows)} rows measured at b <= {LIMIT}")
    if misses or raised:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Differential fuzzing: another parser against toolcalls, on generated responses.

Responses come from `toolcalls.testing` strategies (clean renderings of drawn calls, hostile
ones, mutations of both), drawn by hypothesis until the time is up. Each response goes to
toolcalls and to the other parser; where their calls differ, the disagreement gets a class
(`KINDS`), and the first few of each class are shrunk by delta debugging (characters, then
delta boundaries, removed while the class stays the same) and kept as reproducers.
"""

from __future__ import annotations

import inspect
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, settings
from hypothesis import strategies as st

from ..parsing._api import parse
from ..parsing._registry import get_format
from ..tools._tool import Tool
from ._strategies import _cases, chunkings, mutations, split_at
from ._strategies import tools as tool_lists

__all__ = ["KINDS", "Disagreement", "FuzzReport", "fuzz"]

KINDS: dict[str, str] = {
    "raised": "the other parser raised",
    "missed_calls": "it found fewer calls than toolcalls",
    "extra_calls": "it found more calls than toolcalls",
    "wrong_name": "as many calls, another tool name",
    "argument_types": "same names, arguments equal only as strings (5 vs \"5\")",
    "wrong_arguments": "same names, other arguments",
}
"""The classes of disagreement. With ``toolcalls_wrong:`` before one, the response was a clean
rendering of known calls and the other parser, not toolcalls, gave them back. Counts and
reproducers go by class and origin of the response: ``missed_calls (truncated)``."""

Against = Callable[..., Any]
_SHRINK_CALLS = 2000
"""At most this many calls to the other parser shrink one reproducer."""


@dataclass
class Disagreement:
    """One response the two parsers read differently, shrunk."""

    kind: str
    text: str
    deltas: list[str] | None
    """The chunks the other parser was fed, when it streams; None when it read `text` whole."""
    toolcalls: list[dict[str, Any]]
    other: list[dict[str, Any]] | None
    """The other parser's calls; None when it raised (`error` says what)."""
    error: str | None = None
    intended: list[dict[str, Any]] | None = None
    """The calls the unshrunk response was rendered from, when it was a clean rendering."""
    original: str = ""
    origin: str = ""
    """How the unshrunk response was made: ``clean`` (rendered from `intended`), ``hostile``
    (the format's markup inside values and prose), ``truncated``, ``appended`` (prose after
    the calls), ``mutated`` (edited: `mutations`)."""
    tools: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self, format: str) -> str:
        """One JSONL line: ASCII, since U+2028 and other line breaks would split the line for
        readers that split on them (Python's str.splitlines)."""
        return json.dumps({"format": format, **asdict(self)})


@dataclass
class FuzzReport:
    """What `fuzz` tried and found: disagreement counts per class, shrunk reproducers."""

    format: str
    examples: int = 0
    seconds: float = 0.0
    counts: dict[str, int] = field(default_factory=dict)
    reproducers: list[Disagreement] = field(default_factory=list)

    def summary(self) -> str:
        lines = [f"{self.format}: {self.examples} responses in {self.seconds:.0f} s, "
                 f"{sum(self.counts.values())} disagreements"]
        for kind, count in sorted(self.counts.items(), key=lambda item: -item[1]):
            lines.append(f"  {count:6d}  {kind}")
        return "\n".join(lines)


PROGRESS_EVERY = 1.0
"""Seconds between two calls of `fuzz`'s `progress`."""


class _TimeUp(Exception):
    """Raised inside the hypothesis run to end it (generation only: nothing to shrink)."""


def normalize_calls(found: Any) -> list[dict[str, Any]]:
    """The other parser's calls as ``[{"name", "arguments"}]``: dicts with name and arguments
    (a dict, or a JSON string) or an OpenAI ``function`` member, or objects with those
    attributes (toolcalls' own ToolCall), or (name, arguments) pairs.

    >>> normalize_calls([{"function": {"name": "f", "arguments": '{"a": 1}'}}, ("g", {})])
    [{'name': 'f', 'arguments': {'a': 1}}, {'name': 'g', 'arguments': {}}]
    """
    calls = []
    for call in found or []:
        if isinstance(call, tuple):
            name, arguments = call
        elif isinstance(call, dict):
            inner = call.get("function", call)
            name, arguments = inner.get("name"), inner.get("arguments", inner.get("parameters"))
        else:
            name, arguments = getattr(call, "name", None), getattr(call, "arguments", None)
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments) if arguments.strip() else {}
            except ValueError:
                pass  # kept as the string: it differs from any JSON object
        calls.append({"name": name, "arguments": {} if arguments is None else arguments})
    return calls


def _loose(value: Any) -> Any:
    """`value` with every scalar as a string, to tell type slips from other differences."""
    if isinstance(value, dict):
        return {str(key): _loose(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_loose(item) for item in value]
    if isinstance(value, str):
        try:
            return _loose(json.loads(value)) if value[:1] in "[{" else value
        except ValueError:
            return value
    return json.dumps(value)


def classify(ours: list[dict[str, Any]], other: list[dict[str, Any]] | None) -> str | None:
    """The class of disagreement between toolcalls' calls and the other's, None if they agree.

    >>> classify([{"name": "f", "arguments": {"n": 5}}], [{"name": "f", "arguments": {"n": "5"}}])
    'argument_types'
    """
    if other is None:
        return "raised"
    if ours == other:
        return None
    if len(other) < len(ours):
        return "missed_calls"
    if len(other) > len(ours):
        return "extra_calls"
    if [call["name"] for call in ours] != [call["name"] for call in other]:
        return "wrong_name"
    if _loose(ours) == _loose(other):
        return "argument_types"
    return "wrong_arguments"


class _Runner:
    """Calls the other parser the way its signature asks, and toolcalls, on one case."""

    def __init__(self, format: str, against: Against, stream: bool) -> None:
        self.format = get_format(format).name
        self.against = against
        self.stream = stream
        try:
            accepted = set(inspect.signature(against).parameters)
        except (TypeError, ValueError):
            accepted = set()
        self.pass_format = "format" in accepted
        self.pass_tools = "tools" in accepted

    def ours(self, text: str, tools: Sequence[Tool]) -> list[dict[str, Any]]:
        return self.read(text, tools)[0]

    def read(self, text: str, tools: Sequence[Tool]) -> tuple[list[dict[str, Any]], list[str]]:
        """toolcalls' calls, and the kinds of the issues it reports."""
        result = parse(text, self.format, tools=tools)
        calls = [{"name": call.name, "arguments": call.arguments} for call in result.calls]
        return calls, sorted({issue.kind for issue in result.issues})

    def other(self, text: str, deltas: list[str], tools: list[dict[str, Any]]
              ) -> tuple[list[dict[str, Any]] | None, str | None]:
        options: dict[str, Any] = {}
        if self.pass_format:
            options["format"] = self.format
        if self.pass_tools:
            options["tools"] = tools
        try:
            found = self.against(deltas if self.stream else text, **options)
            return normalize_calls(found), None
        except Exception as error:  # the other parser's failure is a finding, not ours
            return None, f"{type(error).__name__}: {error}"[:500]


def _definitions(offered: Sequence[Tool]) -> list[dict[str, Any]]:
    """The tools as OpenAI function definitions, which the serving stacks take."""
    return [{"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}}
        for tool in offered]


def _names(calls: list[dict[str, Any]] | None) -> list[Any] | None:
    return None if calls is None else [call["name"] for call in calls]


def _shrink(runner: _Runner, text: str, cuts: list[int], tools: Sequence[Tool],
            definitions: list[dict[str, Any]], deadline: float) -> tuple[str, list[int]]:
    """Delta debugging: drop slices of `text` (cuts move with it), then cuts, while the
    disagreement keeps its class, both sides keep the names of the calls they read (so a call
    is not whittled down to ``{"name": ""}``) and toolcalls the kinds of issues it reports (so
    a well-formed response does not shrink into a broken one)."""
    budget = [_SHRINK_CALLS]

    def signature(candidate: str, candidate_cuts: list[int]) -> tuple[Any, ...]:
        ours, issues = runner.read(candidate, tools)
        other, _ = runner.other(candidate, split_at(candidate, candidate_cuts), definitions)
        return classify(ours, other), _names(ours), _names(other), issues

    wanted = signature(text, cuts)

    def still(candidate: str, candidate_cuts: list[int]) -> bool:
        if budget[0] <= 0 or time.monotonic() > deadline:
            return False
        budget[0] -= 1
        return signature(candidate, candidate_cuts) == wanted

    granularity = 2
    while len(text) >= 1 and budget[0] > 0:
        size = max(1, len(text) // granularity)
        removed = False
        for start in range(0, len(text), size):
            end = min(len(text), start + size)
            candidate = text[:start] + text[end:]
            moved = [cut if cut <= start else max(start, cut - (end - start)) for cut in cuts]
            if still(candidate, moved):
                text, cuts, removed = candidate, moved, True
                granularity = max(granularity - 1, 2)
                break
        if not removed:
            if size == 1:
                break
            granularity = min(granularity * 2, len(text))
    for cut in sorted(set(cuts)):
        fewer = [kept for kept in cuts if kept != cut]
        if still(text, fewer):
            cuts = fewer
    return text, sorted(set(cut for cut in cuts if 0 < cut < len(text)))


def fuzz(format: str, against: Against, *, seconds: float = 60.0, stream: bool = False,
         tools: Sequence[Tool] | None = None, per_class: int = 3, out: str | None = None,
         max_examples: int | None = None,
         progress: Callable[[FuzzReport, float], None] | None = None) -> FuzzReport:
    """Fuzz `against`, another parser of `format`, against toolcalls for `seconds`.

    `against(text)` returns the calls it reads in a response (see `normalize_calls` for the
    shapes it may return); with ``stream=True`` it gets the response as a list of deltas
    instead. If it takes keyword arguments ``format`` or ``tools``, it gets the format's name
    and the tools offered (OpenAI function definitions). Tools are drawn per response unless
    `tools` is given. Disagreements are counted per class (`KINDS`); the first `per_class` of
    each are shrunk and returned, and written as JSON lines to `out` if given. `progress`, if
    given, is called about once a second with the report so far and the seconds gone.

    >>> import json
    >>> from toolcalls.testing import fuzz
    >>> def drops_the_last_call(text: str) -> list:  # a parser with a bug
    ...     import toolcalls
    ...     return toolcalls.parse(text, "hermes").calls[:-1]
    >>> report = fuzz("hermes", drops_the_last_call, seconds=5, max_examples=50)
    >>> report.reproducers[0].kind
    'missed_calls'
    """
    runner = _Runner(format, against, stream)
    name = runner.format
    report = FuzzReport(format=name)
    kept: dict[str, int] = {}
    clock: list[float] = []  # the start: the first response (imports and setup excluded)
    ticks = [0.0]  # when `progress` was last called
    fixed = None if tools is None else list(tools)
    offered = st.just(fixed) if fixed else tool_lists(min_size=1, max_size=3)

    @st.composite
    def case(draw: st.DrawFn) -> tuple[str, list[int], list[Tool], list[dict[str, Any]] | None,
                                       str]:
        chosen = draw(offered)
        hostile = draw(st.booleans())
        text, intended, origin = draw(_cases(name, chosen, draw(st.booleans()), True, hostile))
        if hostile and draw(st.booleans()):
            text, intended, origin = draw(mutations(text, format=name)), None, "mutated"
        pieces = draw(chunkings(text)) if stream else [text]
        cuts = [sum(len(piece) for piece in pieces[:index]) for index in range(1, len(pieces))]
        expected = None if intended is None else [
            {"name": call.name, "arguments": call.arguments} for call in intended]
        return text, cuts, chosen, expected, origin

    @settings(max_examples=max_examples or 10**9, deadline=None, database=None,
              phases=[Phase.generate], verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck))
    @given(case())
    def run(drawn: tuple[str, list[int], list[Tool], list[dict[str, Any]] | None, str]) -> None:
        if not clock:
            clock.append(time.monotonic())
        deadline = clock[0] + seconds
        if time.monotonic() > deadline:
            raise _TimeUp
        text, cuts, chosen, intended, origin = drawn
        report.examples += 1
        now = time.monotonic()
        if progress is not None and now - ticks[0] >= PROGRESS_EVERY:
            ticks[0] = now
            progress(report, now - clock[0])
        definitions = _definitions(chosen)
        ours = runner.ours(text, chosen)
        other, error = runner.other(text, split_at(text, cuts), definitions)
        kind = classify(ours, other)
        if kind is None:
            return
        label = kind
        if intended is not None and ours != intended and other == intended:
            label = "toolcalls_wrong:" + kind
        counted = f"{label} ({origin})"
        report.counts[counted] = report.counts.get(counted, 0) + 1
        if kept.get(counted, 0) >= per_class:
            return
        kept[counted] = kept.get(counted, 0) + 1
        small, small_cuts = _shrink(runner, text, cuts, chosen, definitions, deadline + 30.0)
        if any(kept_one.text == small and kept_one.kind == label
               for kept_one in report.reproducers):
            return  # shrunk to one already kept
        small_other, small_error = runner.other(small, split_at(small, small_cuts), definitions)
        report.reproducers.append(Disagreement(
            kind=label, text=small, deltas=split_at(small, small_cuts) if stream else None,
            toolcalls=runner.ours(small, chosen), other=small_other,
            error=small_error or error, intended=intended, original=text, origin=origin,
            tools=definitions))

    try:
        run()
    except _TimeUp:
        pass
    report.seconds = time.monotonic() - clock[0] if clock else 0.0
    if out is not None:
        with open(out, "w", encoding="utf-8") as file:
            for found in report.reproducers:
                file.write(found.to_json(name) + "\n")
    return report

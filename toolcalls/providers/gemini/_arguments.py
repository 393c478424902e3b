"""Gemini 3's streamed function-call arguments (``streamFunctionCallArguments``), for
`toolcalls.read_response` (`_response`) and `toolcalls.read_stream` (`_stream`).

A call so streamed comes as several ``functionCall`` parts, each in its own chunk:

    {"name": "f", "willContinue": true}                       the call starts (``id`` if any)
    {"partialArgs": [{"jsonPath": "$.a.b[0]", "stringValue": "Bo", "willContinue": true}],
     "willContinue": true}                                    a piece of its arguments
    {"partialArgs": [{"jsonPath": "$.a.b[0]", "stringValue": "ston"}], "willContinue": true}
    {}                                                        the call ends

A piece sets one value (``stringValue``, ``numberValue``, ``boolValue``, ``nullValue``; a piece
with none is a null, as the SDK's dump of ``nullValue: null`` leaves it) at a path of object
keys (``.key``, ``['key']``) and array indexes (``[0]``); a string may come in several pieces
for the same path. The call ends at a ``functionCall`` part whose ``willContinue`` is not true
(the empty one, or the last piece's own part), or when another call starts.

`PartialArguments` writes the arguments as JSON text as the pieces come, each piece's text a
fragment (an `ArgumentsDelta` of the stream): the pieces come in the order a JSON writer
writes, so the text is a prefix of the arguments' JSON all along, closed at the end. A piece
that cannot continue that text (a key given twice, an index out of turn, a path into a value
already written, a value that is not JSON) makes the call fail: its `problem` says which, and
the pieces after it are counted, not read.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

__all__ = ["PartialArguments", "continues", "is_streamed", "will_continue"]

Step = str | int

_STEP = re.compile(r"""\.([^.\[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]""")
_ESCAPED = re.compile(r"\\(.)")
_SURROGATE = re.compile(r"[\ud800-\udfff]")  # raw: mypyc takes no surrogate literal


def will_continue(call: Mapping[str, Any]) -> bool:
    """Whether more parts of this ``functionCall`` follow."""
    return call.get("willContinue") is True or call.get("will_continue") is True


def _partial_args(call: Mapping[str, Any]) -> Any:
    return call.get("partialArgs", call.get("partial_args"))


def is_streamed(call: Mapping[str, Any]) -> bool:
    """Whether a ``functionCall`` part starts a call whose arguments come in pieces."""
    return will_continue(call) or _partial_args(call) is not None


def continues(name: str | None, ident: str | None, call: Mapping[str, Any]) -> bool:
    """Whether a ``functionCall`` part goes on with the open call named `name` (id `ident`):
    it names no other function and gives no other id."""
    said, given = call.get("name"), call.get("id")
    return (not said or said == name) and (not given or given == ident)


def parse_path(path: Any) -> list[Step] | None:
    """The steps of a ``jsonPath`` (``$.a['b c'][0]``), or None where it is not one that names
    a value inside the arguments object."""
    if not isinstance(path, str) or not path.startswith("$"):
        return None
    steps: list[Step] = []
    at = 1
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None:
            return None
        key, index, single, double = match.groups()
        if index is not None:
            steps.append(int(index))
        else:
            quoted = single if single is not None else double
            steps.append(key if quoted is None else _ESCAPED.sub(r"\1", quoted))
        at = match.end()
    return steps or None


def _kind(value: Any) -> str:
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _string_text(piece: str) -> str:
    """A piece of a JSON string, escaped, without quotes. A surrogate is written as an escape,
    so that a pair split between two pieces joins into its character when read."""
    return json.dumps(piece, ensure_ascii=_SURROGATE.search(piece) is not None)[1:-1]


class _Container:
    """An object or array open in the text: its step, its kind, what it holds so far."""

    __slots__ = ("array", "count", "keys", "step")

    def __init__(self, step: Step | None, array: bool) -> None:
        self.step = step
        self.array = array
        self.count = 0
        self.keys: set[str] = set()

    def misfit(self, step: Step) -> str:
        """Why `step` cannot be this container's next member ("" when it can)."""
        if self.array:
            if not isinstance(step, int):
                return f"key {step!r} into an array"
            return "" if step == self.count else f"index {step} where {self.count} comes next"
        if isinstance(step, int):
            return f"index {step} into an object"
        return f"key {step!r} given twice" if step in self.keys else ""


class PartialArguments:
    """One streamed call's arguments as JSON text, written piece by piece (module docstring)."""

    __slots__ = ("_stack", "_string", "problem", "skipped", "text")

    def __init__(self) -> None:
        self._stack: list[_Container] = []
        self._string: list[Step] | None = None
        """The path of the string still open in the text (its closing quote not written)."""
        self.text: list[str] = []
        self.problem = ""
        """Why the pieces stopped fitting ("" while they fit)."""
        self.skipped = 0
        """The pieces that came after the one that did not fit."""

    def read(self, call: Mapping[str, Any]) -> str:
        """A ``functionCall`` part's ``args`` (values whole, by key) and ``partialArgs``
        pieces: the text they add."""
        start = len(self.text)
        args = call.get("args")
        if isinstance(args, Mapping):
            for key, value in args.items():
                self._whole_value(key, value)
        elif args is not None:
            self._fail(f"its args are {_kind(args)}, not an object")
        pieces = _partial_args(call)
        if isinstance(pieces, list):
            for piece in pieces:
                self._piece(piece)
        elif pieces is not None:
            self._fail(f"its partialArgs are {_kind(pieces)}, not a list")
        return "".join(self.text[start:])

    def close(self) -> str:
        """The text that closes the arguments (``{}`` where no piece came)."""
        if self.problem:
            return ""
        closing = ['"'] if self._string is not None else []
        self._string = None
        closing.extend("]" if opened.array else "}" for opened in reversed(self._stack))
        self._stack.clear()
        text = "".join(closing) if self.text else "{}"
        self.text.append(text)
        return text

    def failure(self) -> str:
        """What the failed call's issue says after its name: the problem, and what was lost."""
        later = f"; {self.skipped} later piece{'s' * (self.skipped != 1)} not read" \
            if self.skipped else ""
        return f"its streamed arguments do not fit together: {self.problem}{later}"

    # -- the pieces --------------------------------------------------------------------------

    def _fail(self, problem: str) -> None:
        if self.problem:
            self.skipped += 1
        else:
            self.problem = problem

    def _piece(self, piece: Any) -> None:
        if self.problem:
            self.skipped += 1
            return
        if not isinstance(piece, Mapping):
            return self._fail(f"a partialArgs piece is {_kind(piece)}, not an object")
        raw_path = piece.get("jsonPath", piece.get("json_path"))
        steps = parse_path(raw_path)
        if steps is None:
            return self._fail(f"the jsonPath {raw_path!r} names no value inside the object")
        string = piece.get("stringValue", piece.get("string_value"))
        if isinstance(string, str) and steps == self._string:
            self.text.append(_string_text(string))  # the open string goes on
            return None
        value, problem = _value_text(piece, string)
        if problem:
            return self._fail(f"{raw_path}: {problem}")
        self._write(steps, value, raw_path)
        if isinstance(string, str) and not self.problem:
            self._string = steps
        return None

    def _whole_value(self, key: Any, value: Any) -> None:
        if self.problem:
            self.skipped += 1
            return
        try:
            text = json.dumps(value, ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as error:
            return self._fail(f"args[{key!r}] is no JSON value ({error})")
        self._write([str(key)], text, f"args[{key!r}]")
        return None

    def _write(self, steps: list[Step], value: str, where: str) -> None:
        """Write `value` at `steps`: close what the path leaves, open what it enters."""
        stack = self._stack
        depth = 0  # the containers open along the path, below the root
        while (depth + 1 < len(stack) and depth < len(steps) - 1
               and stack[depth + 1].step == steps[depth]):
            depth += 1
        top = stack[depth] if stack else _Container(None, False)
        problem = top.misfit(steps[depth]) or next(
            (f"index {step} opens an array" for step in steps[depth + 1:]
             if isinstance(step, int) and step != 0), "")
        if problem:
            return self._fail(f"{where}: {problem}")
        out = ['"'] if self._string is not None else []
        self._string = None
        if not stack:
            stack.append(top)
            out.append("{")
        while len(stack) > depth + 1:
            out.append("]" if stack.pop().array else "}")
        for at in range(depth, len(steps)):
            step, container = steps[at], stack[-1]
            out.append("," if container.count else "")
            container.count += 1
            if isinstance(step, str):
                container.keys.add(step)
                out.append(json.dumps(step, ensure_ascii=False) + ":")
            if at + 1 < len(steps):
                array = isinstance(steps[at + 1], int)
                stack.append(_Container(step, array))
                out.append("[" if array else "{")
        out.append(value)
        self.text.append("".join(out))
        return None


def _value_text(piece: Mapping[str, Any], string: Any) -> tuple[str, str]:
    """A piece's value as JSON text (a string without its closing quote), and what is wrong
    with it ("" when nothing)."""
    if string is not None:
        if not isinstance(string, str):
            return "", f"stringValue is {_kind(string)}"
        return '"' + _string_text(string), ""
    number = piece.get("numberValue", piece.get("number_value"))
    if number is not None:
        if isinstance(number, bool) or not isinstance(number, int | float):
            return "", f"numberValue is {_kind(number)}"
        if isinstance(number, float) and not math.isfinite(number):
            return "", f"numberValue is {number}, not a JSON number"
        return json.dumps(number), ""
    boolean = piece.get("boolValue", piece.get("bool_value"))
    if boolean is not None:
        if not isinstance(boolean, bool):
            return "", f"boolValue is {_kind(boolean)}"
        return ("true" if boolean else "false"), ""
    return "null", ""

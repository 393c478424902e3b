"""What a tool gives back, and every way a call can fail, in words the model can act on.

A `ToolResult` answers one call: content items the model reads (text, JSON, images),
``details`` it never sees (the full output before truncation, timings, a diff for the user),
and ``is_error``. A call that gives no result of its own still gets one: a `ToolError`, whose
text says what went wrong and what the model should do next. The executor turns each failure
into one of these, so a tool that raises, hangs, is refused or is called wrongly never ends
the loop::

    ToolError                 a call that did not give a result of its own
    ├─ Failed                 the tool ran and raised (or reported failure)
    ├─ NotFound               no tool has that name (with the closest names)
    ├─ InvalidArgs            the arguments do not fit the schema (which, and what was expected)
    ├─ Cancelled              cancelled before it finished
    ├─ Denied                 a permission rule or the user refused it
    ├─ RateLimited            over a rate limit or repeated after the same failure
    └─ TimedOut               ran past its timeout and was stopped

A tool body may raise any of them itself (``raise Denied("outside the project")``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from ..parsing._models import ToolCall
from ..providers._content import ToolImage

__all__ = [
    "Cancelled",
    "Content",
    "Denied",
    "Failed",
    "InvalidArgs",
    "Json",
    "NotFound",
    "RateLimited",
    "Text",
    "TimedOut",
    "ToolError",
    "ToolImage",
    "ToolResult",
    "as_content",
]


@dataclass(frozen=True, slots=True)
class Text:
    """Text for the model."""

    text: str


@dataclass(frozen=True, slots=True)
class Json:
    """A JSON value for the model (written as JSON where an API takes text)."""

    value: Any


Content = Text | Json | ToolImage
"""One item of a result's content."""


class ToolError(Exception):
    """A call that did not give a result of its own; its text is what the model reads."""

    kind: ClassVar[str] = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def for_model(self, tool: str) -> str:
        """The text the model reads as the call's result."""
        return self.message


class Failed(ToolError):
    """The tool ran and failed: it raised, or reported an error."""

    kind = "failed"

    @classmethod
    def from_exception(cls, error: BaseException) -> Failed:
        detail = str(error) or "no message"
        return cls(f"{type(error).__name__}: {detail}")

    def for_model(self, tool: str) -> str:
        return (f"The tool {tool!r} failed: {self.message}. Correct what the error names, or "
                "try another way; repeating the same call will fail the same way.")


class NotFound(ToolError):
    """The call names no available tool."""

    kind = "not_found"

    def __init__(self, name: str, closest: Sequence[str] = (),
                 available: Sequence[str] = ()) -> None:
        self.name, self.closest, self.available = name, tuple(closest), tuple(available)
        if self.closest:
            hint = "Did you mean " + " or ".join(repr(n) for n in self.closest) + "?"
        else:
            hint = "The available tools are: " + (", ".join(self.available) or "none") + "."
        super().__init__(f"There is no tool named {name!r}. {hint}")


class InvalidArgs(ToolError):
    """The arguments do not fit the tool's schema."""

    kind = "invalid_arguments"

    def __init__(self, tool: str, problems: Sequence[str]) -> None:
        self.tool, self.problems = tool, tuple(problems)
        listed = "\n".join(f"- {problem}" for problem in self.problems)
        super().__init__(
            f"The arguments for {tool!r} are invalid:\n{listed}\n"
            f"Do not retry with the same arguments: call {tool!r} again with arguments that "
            "fix each problem above.")


class Cancelled(ToolError):
    """The call was cancelled before it finished."""

    kind = "cancelled"

    def __init__(self, reason: str = "cancelled by the user") -> None:
        self.reason = reason
        super().__init__(reason)

    def for_model(self, tool: str) -> str:
        return (f"The call to {tool!r} was cancelled before it finished ({self.reason}). "
                "It may have done part of its work; check before relying on its effects.")


class Denied(ToolError):
    """A permission rule, a hook or the user refused the call."""

    kind = "denied"

    def __init__(self, reason: str, *, rule: str | None = None) -> None:
        self.reason, self.rule = reason, rule
        super().__init__(reason)

    def for_model(self, tool: str) -> str:
        by = f" by the rule {self.rule!r}" if self.rule else ""
        return (f"The call to {tool!r} was denied{by}: {self.reason}. Do not repeat it; "
                "choose another way or ask the user.")


class RateLimited(ToolError):
    """Over a rate limit, or the same failing call repeated."""

    kind = "rate_limited"

    def __init__(self, reason: str, *, retry_after: float | None = None) -> None:
        self.reason, self.retry_after = reason, retry_after
        super().__init__(reason)

    def for_model(self, tool: str) -> str:
        wait = (f" It can be called again in {self.retry_after:.1f} s."
                if self.retry_after is not None else "")
        return f"The call to {tool!r} was not run: {self.reason}.{wait}"


class TimedOut(ToolError):
    """The call ran past its timeout and was stopped."""

    kind = "timed_out"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        super().__init__(f"no result within {seconds:g} s")

    def for_model(self, tool: str) -> str:
        return (f"The call to {tool!r} did not finish within {self.seconds:g} s and was "
                "stopped. Try a smaller request, or another way.")


@dataclass(frozen=True)
class ToolResult:
    """One call's result: what the model reads, and what only the program sees."""

    content: tuple[Content, ...] = ()
    """What the model reads, in order."""
    is_error: bool = False
    """The call failed; providers that have an error flag set it."""
    details: Any = None
    """For the program and the user, never sent to the model (full output, timings, a diff)."""
    error: ToolError | None = None
    """The typed failure, when the runtime (or the tool) gave one."""
    child_loop_id: str | None = None
    """The sub-agent loop this call started, when it started one."""
    call: ToolCall | None = field(default=None, compare=False)
    """The call this answers; the executor fills it in."""

    @classmethod
    def of(cls, value: Any, *, details: Any = None) -> ToolResult:
        """A result from whatever a tool returned (see `as_content`)."""
        if isinstance(value, ToolResult):
            return value
        return cls(as_content(value), details=details)

    @classmethod
    def failure(cls, error: ToolError, call: ToolCall | None = None, *,
                details: Any = None) -> ToolResult:
        """The error result the model reads for `error`."""
        name = call.name if call is not None else "tool"
        return cls((Text(error.for_model(name)),), is_error=True, details=details, error=error,
                   call=call)

    def for_call(self, call: ToolCall) -> ToolResult:
        """This result answering `call`. A result that carries an error and was made before its
        call was known starts with the error's text naming the tool, followed by any content
        the tool gave (the partial output of a stopped command)."""
        if self.error is not None and self.call is None:
            generic = (Text(self.error.for_model("tool")),)
            kept = self.content[1:] if self.content[:1] == generic else self.content
            said = Text(self.error.for_model(call.name))  # then what the tool gave, if anything
            return replace(self, content=(said, *kept), is_error=True, call=call)
        # built directly: dataclasses.replace took 4 µs of the executor's ~50 per call
        return ToolResult(self.content, self.is_error, self.details, self.error,
                          self.child_loop_id, call)

    def text(self) -> str:
        """The content as one text, for APIs and prompt formats that take text."""
        return "\n".join(_item_text(item) for item in self.content)

    def value(self) -> Any:
        """The content as the provider writers take it: a text, a JSON value, or a list of
        texts and images."""
        if any(isinstance(item, ToolImage) for item in self.content):
            return [item if isinstance(item, ToolImage) else _item_text(item)
                    for item in self.content]
        if len(self.content) == 1 and isinstance(self.content[0], Json):
            return self.content[0].value
        return self.text()


def as_content(value: Any) -> tuple[Content, ...]:
    """What a tool returned as content items: a string is text, a `ToolImage` an image, a
    content item itself, a list or tuple holding items or images their items, any other value
    JSON (None is an empty result)."""
    if value is None:
        return ()
    if isinstance(value, Text | Json | ToolImage):
        return (value,)
    if isinstance(value, str):
        return (Text(value),)
    if isinstance(value, list | tuple) and any(isinstance(v, Text | Json | ToolImage)
                                              for v in value):
        return tuple(item for part in value for item in as_content(part))
    return (Json(value),)


def _item_text(item: Content) -> str:
    if isinstance(item, Text):
        return item.text
    if isinstance(item, Json):
        return json.dumps(item.value, ensure_ascii=False, default=str)
    return f"[image: {item.media_type}]"

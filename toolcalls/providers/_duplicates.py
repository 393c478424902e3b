"""A call said twice in one response, natively and in the text, is run once.

Some servers put a call in the native ``tool_calls`` and leave the markup it was parsed from
in the content (or a model writes its native call out in its text as well). Read both ways,
that is two calls to the same tool with the same arguments, and a host would run it twice.

The rule: of a native call and a text call with the same name (the tool's own, after aliases)
and the same arguments, the one that comes first in the response is the call; the other is
its repetition, an incomplete call (``raw`` its arguments, ``span`` where it is in the text)
with a ``duplicate_call`` issue naming the call it repeats. "First" is the order a stream ends
them in, which `toolcalls.read_response` follows too
(`toolcalls.providers._response_reader.arrival`):
a Chat Completions or Ollama message's ``tool_calls`` come after its content, so there the
text's call is kept and the native one is the repetition; the other APIs interleave parts and
blocks as they come. Each call repeats at most one: two text calls of one native call are one
repetition and one call. Calls of the same source are never repetitions of each other (a
model may ask for the same call twice, in parallel).
"""

from __future__ import annotations

import json

from ..parsing._models import IncompleteCall, ParseIssue, ToolCall

__all__ = ["Repeats"]


class Repeats:
    """The calls of one response in the order they come: `earlier` finds the call a new one
    repeats, and `repetition` gives what it becomes."""

    __slots__ = ("_first", "_kept", "incomplete", "issues")

    def __init__(self) -> None:
        self._first: list[ToolCall] = []
        """The calls while all are of one source (the common case: nothing is keyed)."""
        self._kept: dict[tuple[str, str, str], list[ToolCall]] = {}
        """Calls not yet repeated, by (source, name, arguments as sorted JSON)."""
        self.incomplete: list[IncompleteCall] = []
        self.issues: list[ParseIssue] = []

    def earlier(self, call: ToolCall) -> ToolCall | None:
        """The call of the other source that `call` repeats, or None (then `call` is kept, to
        be found repeated by a later one)."""
        first = self._first
        if not self._kept:
            if not first or first[0].source == call.source:
                first.append(call)
                return None
            for kept in first:  # the other source's first call: key the ones before it
                self._keep(kept)
            first.clear()
        other = "text" if call.source == "native" else "native"
        found = self._kept.get((other, *_key(call)))
        if found:
            return found.pop(0)
        self._keep(call)
        return None

    def _keep(self, call: ToolCall) -> None:
        self._kept.setdefault((call.source, *_key(call)), []).append(call)

    def repetition(self, call: ToolCall, earlier: ToolCall) -> IncompleteCall:
        """`call`, which repeats `earlier`, as an incomplete call; its issue is kept."""
        failed = IncompleteCall(name=call.name, raw=call.arguments_json(), span=call.span,
                                source=call.source)
        self.incomplete.append(failed)
        self.issues.append(ParseIssue(
            kind="duplicate_call", span=call.span,
            message=f"{call.source} call {call.id} ({call.name}) repeats {earlier.source} call "
                    f"{earlier.id} with the same arguments: read once, as {earlier.id}"))
        return failed


def _key(call: ToolCall) -> tuple[str, str]:
    """A call's name and its arguments as sorted JSON: equal for the same call."""
    return call.name, json.dumps(call.arguments, sort_keys=True, ensure_ascii=False)

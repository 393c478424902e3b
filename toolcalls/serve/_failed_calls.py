"""What a client gets for a call the model started but that cannot be run (malformed, or cut
off by the token limit): never a call, always the model's text.

As vLLM does when its parser fails, nothing of the model's output is lost: the failed call's
exact text (its markup included, as far as the model wrote it) goes back as content, in its
place among the text around it, whole (`restored_content`) and streamed (`failed_as_text`).
Whole, the response also says what went wrong in a short header (`ISSUES_HEADER`,
`issues_header`). A call the upstream sent as a call (native) that fails is not text the
model wrote: it is dropped, as before, and named in the header.
"""

from __future__ import annotations

from typing import Final

from ..parsing._events import TextDelta, ToolCallFailed
from ..parsing._models import IncompleteCall, ParseResult

__all__ = ["ISSUES_HEADER", "failed_as_text", "issues_header", "restored_content"]

ISSUES_HEADER: Final = "x-toolcalls-issues"
"""The response header that names the calls the proxy did not send as calls (whole answers)."""

_HEADER_LIMIT = 200
"""Characters of the header's value at most: a summary, the log has the rest."""


def restored_content(result: ParseResult) -> str:
    """The result's content with the text of each failed text call put back where the model
    wrote it (the markup around complete calls stays out, as always)."""
    failed = sorted((call.span, call.raw) for call in _failed(result)
                    if call.source == "text" and call.span is not None)
    if not failed:
        return result.content
    kept = [(kind, start, end) for kind, start, end in result.segments
            if kind in ("content", "incomplete")]
    if sum(end - start for kind, start, end in kept if kind == "content") != len(
            result.content):  # segments that do not tile the content: keep it, add the calls
        return result.content + "".join(raw for _, raw in failed)
    pieces, at = [], 0
    for kind, start, end in kept:
        if kind == "content":
            pieces.append(result.content[at:at + end - start])
            at += end - start
        else:  # one segment may hold several failed calls side by side
            pieces += [raw for (first, last), raw in failed if start <= first and last <= end]
    return "".join(pieces)


def failed_as_text(event: ToolCallFailed) -> TextDelta | None:
    """The text a failed call goes out as in a stream: the model's own (None for a call the
    upstream sent natively, which is not text)."""
    if event.incomplete.source != "text" or not event.incomplete.raw:
        return None
    return TextDelta(event.incomplete.raw)


def issues_header(result: ParseResult) -> dict[str, str]:
    """The header that names the calls not sent as calls ({} when every call was sent)."""
    failed = _failed(result)
    if not failed:
        return {}
    said = "; ".join(_said(call, result) for call in failed)
    value = said.encode("ascii", "backslashreplace").decode("ascii")
    if len(value) > _HEADER_LIMIT:
        value = value[:_HEADER_LIMIT - 3] + "..."
    return {ISSUES_HEADER: value}


def _failed(result: ParseResult) -> list[IncompleteCall]:
    """The result's incomplete calls but for repetitions (a call said both natively and in the
    text is read once, and its other saying kept as incomplete: the client got the call)."""
    repeated = {issue.span for issue in result.issues if issue.kind == "duplicate_call"}
    return [call for call in result.incomplete if call.span not in repeated]


def _said(call: IncompleteCall, result: ParseResult) -> str:
    """One failed call in a few words: its issue's kind and its name."""
    kinds = [issue.kind for issue in result.issues
             if call.span is not None and issue.span == call.span]
    if not kinds and result.finish_reason in ("length", "max_tokens"):
        kinds = ["truncated_call"]
    return f"{kinds[0] if kinds else 'failed_call'} {call.name or '(no name)'}"

"""Call headers read with a `regex` pattern that can tell a cut-off header from a wrong one."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["match_header"]

_FIRST_WINDOW: Final = 512
"""Characters a header match is first allowed to see (longer than any header)."""


def match_header(pattern: Any, text: str, start: int) -> Any:
    """``pattern.match(text, start, partial=True)`` for a `regex` pattern (the module has no
    types), looking only as far as the match needs.

    Given the whole rest of the text, the `regex` module first scans it for the literals the
    pattern requires (Mistral's ``[ARGS]``, ``</name>``), which is the length of the rest for
    every opener: a text of repeated openers was quadratic. A window that doubles while the
    match is cut off by it gives the same match at the cost of the header itself.
    """
    window = _FIRST_WINDOW
    while True:
        stop = start + window
        found = pattern.match(text, start, stop, partial=True)
        if found is None or not found.partial or stop >= len(text):
            return found
        window *= 2

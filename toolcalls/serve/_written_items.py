"""The message and reasoning items the proxy wrote in its Responses answers, kept in memory so
that a later request may name one by its id (an ``item_reference`` input item).

A client on OpenAI's default (``store`` true) sends an earlier answer's text back as a
reference rather than the text: the Vercel AI SDK does so for the text a model wrote before
its calls, and for every earlier answer in a conversation. The proxy keeps no conversation,
but it keeps the last items it wrote (`WrittenItems`, bounded by count and by characters),
in this process only: a reference to an item older than that, written by another worker
(``workers`` > 1) or before a restart is not found, and the request is refused with what to
do. Function calls need no memory: every client sends them whole.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Final

__all__ = ["MAX_CHARS", "MAX_ITEMS", "WrittenItems"]

MAX_ITEMS: Final = 4096
"""How many items are kept, the oldest let go first."""
MAX_CHARS: Final = 16 * 1024 * 1024
"""How many characters of text they may hold in all."""
_KINDS: Final = ("message", "reasoning")
"""What a client may refer to: the items the proxy writes that are not calls."""


class WrittenItems:
    """Items by id, the most recently written kept: `remember` them as written, `get` one."""

    def __init__(self, max_items: int = MAX_ITEMS, max_chars: int = MAX_CHARS) -> None:
        self._items: OrderedDict[str, tuple[dict[str, Any], int]] = OrderedDict()
        self._chars = 0
        self.max_items, self.max_chars = max_items, max_chars

    def remember(self, items: Iterable[Mapping[str, Any]]) -> None:
        """Keep the message and reasoning items of `items` (output items as written)."""
        for item in items:
            if item.get("type") in _KINDS and isinstance(item.get("id"), str):
                self._add(item["id"], _as_input(item))

    def get(self, ident: str) -> dict[str, Any] | None:
        """The item written with id `ident`, as an input item; None if not kept."""
        kept = self._items.get(ident)
        return None if kept is None else kept[0]

    def __len__(self) -> int:
        return len(self._items)

    def _add(self, ident: str, item: dict[str, Any]) -> None:
        size = len(str(item))
        if ident in self._items:
            self._chars -= self._items.pop(ident)[1]
        self._items[ident] = (item, size)
        self._chars += size
        while self._items and (len(self._items) > self.max_items
                               or self._chars > self.max_chars):
            self._chars -= self._items.popitem(last=False)[1][1]


def _as_input(item: Mapping[str, Any]) -> dict[str, Any]:
    """An output item as the input item a client would send in its place (without the id
    and status only the output has)."""
    if item["type"] == "message":
        return {"type": "message", "role": "assistant",
                "content": [{"type": "output_text", "text": part.get("text", "")}
                            for part in item.get("content") or []]}
    return {"type": "reasoning", "summary": []}  # input reasoning is dropped: none kept

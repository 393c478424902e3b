"""What the proxy needs to know of an API its clients speak (`InboundApi`).

The proxy is a hub: every inbound request is read into the Chat Completions request it means,
the upstream's answer is read into events, and the client's answer is written back by the
library's own writers for the provider whose wire the API is (`toolcalls.providers`). So an
inbound API is little more than its route, its request reader, its error body, its call ids
and how its stream is framed.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from typing import Any, ClassVar

from .._errors import ProxyError

__all__ = ["InboundApi"]


class InboundApi(ABC):
    """One inbound API; one instance of each is a row of `apis.APIS`."""

    name: ClassVar[str]
    """Its key in the table: ``"chat"``, ``"messages"``."""
    path: ClassVar[str]
    """The route it is served on (``POST``); answers to paths under it take its error shape."""
    provider: ClassVar[str]
    """The `toolcalls.providers` name whose writers write its answers, whole and streamed."""
    id_prefix: ClassVar[str]
    """What its call ids start with; a call read from the text gets a fresh one."""
    keeps_upstream_ids: ClassVar[bool] = True
    """Whether a call the upstream made natively keeps the upstream's id whatever its style
    (Chat Completions: the upstream speaks it); else an id not in this API's style
    (``chatcmpl-tool-...`` to an Anthropic client) is replaced (`call_id`)."""

    @abstractmethod
    def chat_request(self, body: object) -> dict[str, Any]:
        """A JSON-decoded request of this API, checked, as the Chat Completions request it
        means (a `RequestError` names the field that is wrong)."""

    @abstractmethod
    def error_body(self, error: ProxyError) -> dict[str, Any]:
        """The JSON body of an error answer in this API's shape."""

    @abstractmethod
    def event(self, message: dict[str, Any]) -> str:
        """One message of a streamed answer as its server-sent event, in strict JSON
        (ValueError for a NaN or an infinity in it)."""

    def answered(self, answer: dict[str, Any]) -> dict[str, Any]:
        """A whole answer, as it goes to the client (an API that remembers what it wrote keeps
        it here; its streams' last event carries the same)."""
        return answer

    def usage_asked(self, chat: dict[str, Any]) -> bool:
        """Whether a streamed answer to `chat` (the client's request as Chat Completions) ends
        with its token usage: yes, unless the API leaves it to the client."""
        return True

    def call_id(self, upstream_id: str | None, given: dict[str, str]) -> str:
        """The id a call goes out with: a fresh one for a call read from the text (no
        `upstream_id`), the upstream's own where this API keeps it or it is in this API's
        style, else one in this API's style, the same for the same upstream id within an
        answer (`given` holds those of the answer so far)."""
        if upstream_id is None:
            return self.fresh_id()
        if self.keeps_upstream_ids or upstream_id.startswith(self.id_prefix):
            return upstream_id
        return given.setdefault(upstream_id, self.fresh_id())

    def fresh_id(self) -> str:
        """A new call id: the prefix and 24 hex digits."""
        return f"{self.id_prefix}{uuid.uuid4().hex[:24]}"

    def __repr__(self) -> str:
        return f"<inbound API {self.name!r}: POST {self.path}>"

"""The inbound APIs the proxy speaks, one module each, and their table (`APIS`), from which
the app builds its routes and answers its errors.

Adding one is one module and one row: a module here with an
`InboundApi` subclass (its name, route, provider whose writers answer it, call id prefix, how
its request reads into a Chat Completions request, its error body and its stream framing), and
an instance of it in `APIS` below. Nothing else in the proxy names an API.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from ._base import InboundApi
from .chat import ChatCompletions
from .messages import Messages
from .responses import Responses

__all__ = ["APIS", "InboundApi", "api_for"]

APIS: Final[Mapping[str, InboundApi]] = {api.name: api for api in (ChatCompletions(), Messages(),
                                                                    Responses())}
"""Each inbound API by its name."""

_OTHERS: Final = APIS["chat"]
"""The shape of answers to paths of no inbound API (``/v1/models``, ``/healthz``, any other):
OpenAI's, the shape most clients of a proxy expect."""


def api_for(path: str) -> InboundApi:
    """The API whose shape an answer to `path` takes: the one served at or above it, else
    Chat Completions."""
    return next((api for api in APIS.values() if path.startswith(api.path)), _OTHERS)

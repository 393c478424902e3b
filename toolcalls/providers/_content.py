"""Images in tool results: a result may be a `ToolImage`, or a list of text and images.

Each provider's ``result_messages`` asks `result_parts` whether a result has images, and
writes them as its API takes them (Anthropic ``image`` blocks, Responses ``input_image``
parts, Gemini ``inlineData`` parts of the function response, Ollama ``images``). A list
without any image is not parts: it is a JSON value, written as before.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["ToolImage", "result_parts", "texts"]


@dataclass(frozen=True)
class ToolImage:
    """An image a tool returns: base64 ``data`` of ``media_type`` (``image/png``, ...)."""

    data: str
    media_type: str = "image/png"

    @classmethod
    def from_bytes(cls, data: bytes, media_type: str = "image/png") -> ToolImage:
        return cls(base64.b64encode(data).decode("ascii"), media_type)

    def data_url(self) -> str:
        """The image as a ``data:`` URL, as the OpenAI APIs take it."""
        return f"data:{self.media_type};base64,{self.data}"


def result_parts(value: Any) -> list[str | ToolImage] | None:
    """The text and images of a result that has images, in order; None for any other result."""
    if isinstance(value, ToolImage):
        return [value]
    if isinstance(value, list) and any(isinstance(part, ToolImage) for part in value):
        # An empty text is left out: Anthropic refuses empty text blocks.
        return [part if isinstance(part, ToolImage | str) else _refused(part)
                for part in value if part != ""]
    return None


def _refused(part: Any) -> str:
    raise TypeError(f"a result with images is a list of text and ToolImage, not {part!r}")


def texts(parts: Sequence[str | ToolImage]) -> str:
    """The text parts joined, for an API that takes one text beside its images."""
    return "\n".join(part for part in parts if isinstance(part, str))

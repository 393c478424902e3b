"""The parse core: one streaming engine, and every wire format as a small module on it.

This subpackage is what the wheel compiles with mypyc. `formats/` holds one module per format
family (each opens with its wire format), `grammars/` their Lark grammars. The names below are
also at the top level, except `Format`, which format authors subclass
(``docs/adding-a-format.md``). Three public modules: `reader`, the API a format's readers are
written against; `issues`, every issue kind with what it means; `stream`, the `StreamParser`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._errors import FormatSpecError
from .._lazy import lazy_attributes, lazy_dir
from ..tools._read import to_tools
from ._api import Parser, parse, parser, stream
from ._events import (
    ArgumentsDelta,
    Event,
    ReasoningDelta,
    TextDelta,
    ToolCallEnd,
    ToolCallFailed,
    ToolCallStart,
)
from ._registry import detect, get_format, list_formats

if TYPE_CHECKING:
    from ._declare import declare_format as declare_format
    from ._declare import register_format as register_format
    from ._declare import unregister_format as unregister_format
    from ._from_template import TemplateFormatError as TemplateFormatError
    from ._from_template import format_from_template as format_from_template
    from ._from_template import spec_from_template as spec_from_template
    from ._models import IncompleteCall as IncompleteCall
    from ._models import ParseIssue as ParseIssue
    from ._models import ParseResult as ParseResult
    from ._models import SegmentKind as SegmentKind
    from ._models import Span as Span
    from ._models import ToolCall as ToolCall
    from .formats._base import Format as Format
    from .formats._spec import FormatSpec as FormatSpec
    from .stream import StreamParser as StreamParser

# The models need pydantic (~150 ms to import): they load on first use (`toolcalls._lazy`).
_LAZY = {
    "StreamParser": ".stream",
    "IncompleteCall": "._models",
    "ParseIssue": "._models",
    "ParseResult": "._models",
    "SegmentKind": "._models",
    "Span": "._models",
    "ToolCall": "._models",
    "Format": ".formats._base",
    # Formats as data: pydantic, loaded on first use.
    "FormatSpec": ".formats._spec",
    "declare_format": "._declare",
    "register_format": "._declare",
    "unregister_format": "._declare",
    # A format from a chat template: jinja2 (the templates extra), loaded on first use.
    "TemplateFormatError": "._from_template",
    "format_from_template": "._from_template",
    "spec_from_template": "._from_template",
}
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)

__all__ = [
    "ArgumentsDelta",
    "Event",
    "Format",
    "FormatSpec",
    "FormatSpecError",
    "IncompleteCall",
    "ParseIssue",
    "ParseResult",
    "Parser",
    "ReasoningDelta",
    "SegmentKind",
    "Span",
    "StreamParser",
    "TemplateFormatError",
    "TextDelta",
    "ToolCall",
    "ToolCallEnd",
    "ToolCallFailed",
    "ToolCallStart",
    "declare_format",
    "detect",
    "format_from_template",
    "get_format",
    "list_formats",
    "parse",
    "parser",
    "register_format",
    "spec_from_template",
    "stream",
    "to_tools",
    "unregister_format",
]

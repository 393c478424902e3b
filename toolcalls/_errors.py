"""Errors toolcalls raises.

::

    ToolCallsError                          anything this library raises
    ├── UnknownFormatError (LookupError)    no format has that name, alias or model id
    ├── UnknownProviderError (ValueError)   no provider API has that name or alias
    ├── ToolDefinitionError (ValueError)    a tool list that cannot be read
    ├── EncodingError (ValueError)          a tokenizer that cannot be loaded: unknown name,
    │                                       or its shipped vocabulary file is missing or damaged
    ├── ToolNotFoundError (LookupError)     a session asked for a tool its catalog lacks
    └── ParseError (ValueError)             strict mode: the model's output is malformed
        ├── IncompleteToolCallError         the text ended inside a call
        ├── InvalidArgumentsError           a call's arguments are not a JSON object
        └── UnknownToolError                a call names a tool that was not declared

Lenient parsing (the default) never raises: it records a `ParseIssue` instead.
"""

from __future__ import annotations

__all__ = [
    "EncodingError",
    "FormatSpecError",
    "IncompleteToolCallError",
    "InvalidArgumentsError",
    "ParseError",
    "ToolCallsError",
    "ToolDefinitionError",
    "ToolNotFoundError",
    "UnknownFormatError",
    "UnknownProviderError",
    "UnknownToolError",
]


class ToolCallsError(Exception):
    """Base class of every error toolcalls raises."""


class UnknownFormatError(ToolCallsError, LookupError):
    """No format matches the given name, alias or model id."""


class FormatSpecError(ToolCallsError, ValueError):
    """A format description (`toolcalls.parsing.declare_format`) cannot be used as given (the
    message names the field and what to write there)."""


class UnknownProviderError(ToolCallsError, ValueError):
    """No provider API matches the given name or alias (the message names those known)."""


class ToolDefinitionError(ToolCallsError, ValueError):
    """A tool definition could not be read."""


class EncodingError(ToolCallsError, ValueError):
    """A tokenizer encoding cannot be loaded: unknown name, or a missing or damaged file."""


class ToolNotFoundError(ToolCallsError, LookupError):
    """A session was asked for a tool that is not in its catalog (the message names the
    closest ones)."""


class ParseError(ToolCallsError, ValueError):
    """Strict mode: the model's output is malformed.

    Carries the `kind` of the issue and the `span` of the offending text.
    """

    def __init__(self, message: str, *, kind: str, span: tuple[int, int]) -> None:
        super().__init__(message)
        self.kind = kind
        self.span = span


class IncompleteToolCallError(ParseError):
    """The text ended inside a tool call."""


class InvalidArgumentsError(ParseError):
    """A call's arguments could not be read as a JSON object."""


class UnknownToolError(ParseError):
    """A call names a tool that is not among the declared tools."""

"""Every kind of `ParseIssue`, declared here with one line saying what it means.

A reader reports a problem with ``ctx.issue(kind, message, span)`` or fails a call with
``ctx.fail_call(kind, message)``; `kind` is one of `ISSUE_KINDS` (typed `IssueKind`, so mypy
rejects a kind not declared here). The message says what happened in this text; the kind says
what sort of thing it is, for a program to act on. In strict mode an issue raises the error of
`ISSUE_ERRORS` (`ParseError` for a kind not listed there), unless its kind is `INFORMATIONAL`.

tests/parsing/test_issues.py checks that every kind the source passes is declared here, that
every kind declared is used, and that parsing the corpus produces no other.
"""

from __future__ import annotations

from typing import Final, Literal

from .._errors import IncompleteToolCallError, InvalidArgumentsError, ParseError, UnknownToolError

__all__ = ["INFORMATIONAL", "ISSUE_ERRORS", "ISSUE_KINDS", "IssueKind"]

IssueKind = Literal[
    "truncated_call",
    "malformed_call",
    "invalid_arguments",
    "unknown_tool",
    "missing_close_tag",
    "missing_section_open",
    "missing_call_begin",
    "missing_value_open",
    "missing_message_token",
    "missing_end_token",
    "missing_namespace",
    "malformed_parameter",
    "duplicate_parameter",
    "invalid_value",
    "escaped_value",
    "escaped_newline",
    "unexpected_text",
    "arguments_as_string",
    "parameters_key",
    "json_body",
    "json_call",
    "recovered_slip",
    "ascii_pipes",
    "call_id_variant",
    "repeated_channel",
    "call_channel",
    "builtin_tool",
    "reasoning_ended_by_call",
    "stray_reasoning_end",
    "call_in_reasoning",
    "call_in_code_fence",
    "call_in_tool_result",
    "tool_result_in_text",
    "tool_output_markup",
    "evicted_tool",
    "inactive_tool",
    "alias_used",
    "missing_argument",
    "unknown_argument",
    "wrong_argument_type",
    "invalid_argument_value",
    "custom_tool_call",
    "other_choices",
    "server_tool_call",
    "unread_part",
    "unread_stream_data",
    "truncated_stream",
    "invalid_utf8",
    "provider_error",
    "duplicate_call_id",
    "lone_surrogate",
    "duplicate_call",
]
"""The kinds of `ISSUE_KINDS`, as a type: ``ctx.issue`` and ``ctx.fail_call`` take one."""

ISSUE_KINDS: Final[dict[str, str]] = {
    # -- a call that could not be completed (with an `IncompleteCall`) or not run as read ---
    "truncated_call": "the text ended inside a tool call: it is incomplete",
    "malformed_call": "a call (or list of calls) whose structure could not be read",
    "invalid_arguments": "a call's arguments are not a valid JSON object",
    "unknown_tool": "a call names a tool that is not among the declared tools",
    # -- markup missing or out of place, recovered ------------------------------------------
    "missing_close_tag": "a call, a section of calls or a block ends without its closing marker",
    "missing_section_open": "a call outside the section tag that should wrap it, read anyway",
    "missing_call_begin": "a call header right after the section opener, without its begin token",
    "missing_value_open": "a parameter value without its opening tag, read anyway",
    "missing_message_token": "a Harmony header not followed by <|message|>",
    "missing_end_token": "a Harmony message ended by another marker than its end token",
    "missing_namespace": "a recipient without 'functions.' that names a declared tool: a call",
    # -- parameters and values --------------------------------------------------------------
    "malformed_parameter": "a parameter tag that could not be read: skipped",
    "duplicate_parameter": "a parameter given twice: the first value is kept",
    "invalid_value": "a parameter value that does not convert to its schema type: kept as text",
    "escaped_value": "a parameter value escaped twice (JSON in a string): unescaped",
    "escaped_newline": "a literal backslash-n between tags (escaped output), read as a newline",
    "unexpected_text": "text where only markup or calls belong: skipped as markup",
    # -- slips of known models, recovered -----------------------------------------------------
    "arguments_as_string": "the arguments were a JSON string holding the object: decoded",
    "parameters_key": 'the model wrote "parameters" instead of "arguments"',
    "json_body": "a JSON object where parameter tags belong, read as the arguments",
    "json_call": "a Hermes-style JSON call inside the format's own call tags, read as JSON",
    "recovered_slip": "a known slip of the format's markup (the message names it), recovered",
    "ascii_pipes": "DSML tags spelled with ASCII bars instead of fullwidth ones, read anyway",
    "call_id_variant": "a call id spelled otherwise than the template writes it, read anyway",
    "repeated_channel": "several channels in one Harmony header: the last one counts",
    "call_channel": "a function call sent on another channel than commentary, read as a call",
    "builtin_tool": "a message to a built-in tool (not a function): markup, not a call",
    # -- blocks that are not what they look like -------------------------------------------
    "reasoning_ended_by_call": "a reasoning tag opened mid-text and not closed before a call",
    "stray_reasoning_end": "a reasoning end tag without its start tag: kept as content",
    "call_in_reasoning": "a call inside the reasoning block, read as a call (Kimi K2)",
    "call_in_code_fence": "call markup quoted in a Markdown code block: content, not a call",
    "call_in_tool_result": "call markup inside a tool-result block: content, not a call",
    "tool_result_in_text": "a tool-result block written into the answer: its text is content",
    "tool_output_markup": "a tool-result marker written into the answer: dropped, text kept",
    # -- `toolcalls.budget.Session.check_calls` ------------------------------------------------
    "evicted_tool": "a call to a tool the session unloaded to make room for others",
    "inactive_tool": "a call to a tool the session knows but never loaded",
    # -- the declared tools: names always, arguments with ``validate=True`` (complete calls) ---
    "alias_used": "a call named a tool by one of its aliases: it carries the tool's own name",
    "missing_argument": "a complete call lacks an argument its tool's schema requires",
    "unknown_argument": "a complete call passes an argument its tool's schema does not list",
    "wrong_argument_type": "an argument (after typing by the schema) is not of its schema type",
    "invalid_argument_value": "an argument of the right type that its schema rejects (enum...)",
    # -- provider responses (`toolcalls.read_response`; span None: not in the text) -----------
    "custom_tool_call": "a native call to a custom (free-text) tool: kept raw, incomplete",
    "other_choices": "a response with several choices (n > 1): only the first is read",
    "server_tool_call": "a tool the provider ran itself (web search, code execution): not a call",
    "unread_part": "a part of a response of a type the reader does not know: noted, not read",
    "unread_stream_data": "a line or event of a raw SSE/NDJSON stream that is no JSON object",
    "truncated_stream": "a raw stream ended inside a line or event that cannot be read",
    "invalid_utf8": "a raw stream's bytes are not UTF-8: each bad sequence is read as U+FFFD",
    "provider_error": "the provider sent an error (as the body, or mid-stream): its message",
    "duplicate_call_id": "a provider gave two calls one id: the later call is given its own",
    "lone_surrogate": "text of a response holding a lone surrogate (no UTF-8): read as U+FFFD",
    "duplicate_call": "a call said natively and in the text: the later one, failed, not run twice",
}
"""Each issue kind, with what it means."""

ISSUE_ERRORS: Final[dict[str, type[ParseError]]] = {
    "truncated_call": IncompleteToolCallError,
    "invalid_arguments": InvalidArgumentsError,
    "unknown_tool": UnknownToolError,
    "missing_argument": InvalidArgumentsError,
    "unknown_argument": InvalidArgumentsError,
    "wrong_argument_type": InvalidArgumentsError,
    "invalid_argument_value": InvalidArgumentsError,
}
"""The error strict mode raises for an issue kind (`ParseError` for the others)."""

INFORMATIONAL: Final[frozenset[str]] = frozenset({"alias_used"})
"""The kinds that report no fault: strict mode records them and does not raise.

The rule: a kind is informational when the output is exactly what the declared tools allow
and was read as written, the issue only saying how it was read. ``alias_used`` is: an alias is
a name the caller declared for the tool (`Tool.aliases`), so a call by alias is a valid call.
A kind for a slip, however well recovered (``parameters_key``, ``ascii_pipes``...), is not:
strict mode exists to refuse what is not written as the format (or the tools) say."""

"""The errors of the MCP client, importable without the ``mcp`` SDK (to catch them)."""

from __future__ import annotations

from .._errors import ToolCallsError

__all__ = ["McpConnectError", "McpSetupError"]


class McpSetupError(ToolCallsError, ModuleNotFoundError):
    """The ``mcp`` SDK is not installed: ``pip install 'toolcalls[mcp]'``."""


class McpConnectError(ToolCallsError, ConnectionError):
    """The MCP server could not be started or reached (the message says which and why)."""

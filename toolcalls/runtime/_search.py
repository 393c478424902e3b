"""``tool_search`` answered by a budget `Session`: lazy loading inside the executor.

In lazy mode (`toolcalls.budget.Session`) the model sees ``tool_search`` in place of most tools
and loads the ones it needs. The executor hands those calls to the session before it looks in
its registry, so loading a tool is a call like any other (it runs in order, under the same
cancel token), and the session records what the next request must carry.
"""

from __future__ import annotations

from typing import Any

from ..budget._session import TOOL_SEARCH, Session, tool_search_tool
from ..parsing._models import ToolCall
from ._context import ToolContext
from ._results import Json, ToolResult
from ._tool import RuntimeTool

__all__ = ["TOOL_SEARCH", "search_tool"]


class _SessionSearch:
    def __init__(self, session: Session) -> None:
        self.session = session

    def execute(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        call = ToolCall(id=ctx.call_id, name=TOOL_SEARCH, arguments=arguments, source="native")
        answer = self.session.run(call)
        return ToolResult((Json(answer),), is_error="error" in answer)


def search_tool(session: Session) -> RuntimeTool:
    """The ``tool_search`` meta-tool as `session` declares it, run by `session`."""
    declared = [tool for tool in session.request_tools() if tool.name == TOOL_SEARCH]
    definition = declared[0] if declared else tool_search_tool(list(session.catalog.values()))
    return RuntimeTool(definition, _SessionSearch(session))

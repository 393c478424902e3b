"""The example every provider test renders: one weather tool and one call of it."""

from __future__ import annotations

from toolcalls.parsing._models import ToolCall
from toolcalls.tools._tool import Tool

WEATHER_SCHEMA = {
    "type": "object",
    "properties": {"location": {"type": "string", "description": "City"}},
    "required": ["location"],
}
WEATHER = Tool(name="get_weather", description="Current weather", parameters=WEATHER_SCHEMA)
CALL = ToolCall(id="call_1", name="get_weather", arguments={"location": "Paris"}, span=(0, 0))

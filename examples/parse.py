"""Parse one whole response: the calls, the text around them, and what was wrong with them.

Run: python examples/parse.py
"""

from __future__ import annotations

import toolcalls

TOOLS = [{"type": "function", "function": {
    "name": "get_weather",
    "description": "Current weather for a city.",
    "parameters": {"type": "object", "required": ["city"], "properties": {
        "city": {"type": "string"},
        "days": {"type": "integer", "description": "forecast days"},
    }},
}}]

# What Qwen3-Coder writes: XML parameters, typed by the schema ("2" becomes 2).
RESPONSE = """I'll look that up.
<tool_call>
<function=get_weather>
<parameter=city>
Paris
</parameter>
<parameter=days>
2
</parameter>
</function>
</tool_call>
<tool_call>
<function=get_weather>
<parameter=days>
soon
</parameter>
</function>
</tool_call>"""


def main() -> None:
    # format: a name, an alias or a model id ("Qwen/Qwen3-Coder-30B-A3B-Instruct"), or "auto"
    result = toolcalls.parse(RESPONSE, "qwen3_coder", tools=TOOLS, validate=True)
    print(f"content: {result.content!r}")
    for call in result.calls:
        print(f"call {call.id}: {call.name} {call.arguments}")
    for issue in result.issues:  # send these back to the model instead of running the call
        print(f"issue {issue.kind} at {issue.span}: {issue.message}")
    print("as OpenAI tool_calls:", result.tool_calls()[0])


if __name__ == "__main__":
    main()

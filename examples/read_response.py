"""Read a provider's whole response: native calls first, calls left in the text as fallback.

The SDKs' objects work the same (`client.chat.completions.create(...)`, `messages.create(...)`);
here they are the JSON the APIs return, so the script needs no SDK.

Run: python examples/read_response.py
"""

from __future__ import annotations

import toolcalls

OPENAI = {
    "id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": "gpt-4.1",
    "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
        "role": "assistant", "content": None,
        "tool_calls": [{"id": "call_abc", "type": "function", "function": {
            "name": "get_weather", "arguments": '{"city": "Paris"}'}}],
    }}],
    "usage": {"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
}

ANTHROPIC = {
    "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Paris, then.", "signature": "sig"},
        {"type": "text", "text": "Let me check."},
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 50, "output_tokens": 20},
}

# A server that left a Qwen model's Hermes call in the text, with tool_calls empty.
LEFT_IN_TEXT = {
    "id": "c1", "object": "chat.completion", "created": 0, "model": "Qwen/Qwen2.5-7B-Instruct",
    "choices": [{"index": 0, "finish_reason": "stop", "message": {
        "role": "assistant", "tool_calls": [],
        "content": '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    }}],
}


def main() -> None:
    for response in (OPENAI, ANTHROPIC, LEFT_IN_TEXT):
        result = toolcalls.read_response(response, format="auto")  # provider told by the shape
        calls = [(call.id, call.name, call.arguments, call.source) for call in result.calls]
        print(f"{result.provider} ({result.format}): {calls}")
        print(f"   content={result.content!r} reasoning={result.reasoning!r} "
              f"finish_reason={result.finish_reason}")


if __name__ == "__main__":
    main()

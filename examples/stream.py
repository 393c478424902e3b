"""Parse a response as it streams: events as soon as they are certain, and at the end the
same result a whole parse gives.

Run: python examples/stream.py
"""

from __future__ import annotations

import toolcalls

# DeepSeek V3.1 with thinking on: the prompt opened the reasoning block, so thinking=True.
RESPONSE = (
    "The user wants the weather; I will call the tool.</think>Let me check."
    "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"
    '{"city": "Paris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
)


def chunks(text: str, size: int = 7) -> list[str]:
    """The text as a server might send it: a few characters at a time."""
    return [text[start : start + size] for start in range(0, len(text), size)]


def main() -> None:
    parser = toolcalls.stream("deepseek_v31", thinking=True)
    for chunk in chunks(RESPONSE):
        for event in parser.feed(chunk):
            print(event)
    for event in parser.close():
        print(event)
    result = parser.result()
    assert result == toolcalls.parse(RESPONSE, "deepseek_v31", thinking=True)
    print(f"reasoning: {result.reasoning!r}")
    print(f"content: {result.content!r}")
    print(f"calls: {[(call.name, call.arguments) for call in result.calls]}")


if __name__ == "__main__":
    main()

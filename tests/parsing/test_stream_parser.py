"""`StreamParser.release`: a parser whose events are passed on lets go of what they gave."""

from __future__ import annotations

import toolcalls

TEXT = ('Checking. <tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        "</tool_call> and <tool_call>\n{\"name\": \"get_weather\", \"arguments\": "
        '{"city": "Rome"}}\n</tool_call> done.')


def _events(parser: toolcalls.StreamParser, release: bool) -> list[object]:
    events: list[object] = []
    for at in range(0, len(TEXT), 7):
        events += parser.feed(TEXT[at:at + 7])
        if release:
            parser.release()
    return events + parser.close()


def test_release_lets_go_of_what_was_given_and_changes_no_event() -> None:
    kept, released = toolcalls.stream("hermes"), toolcalls.stream("hermes")
    assert _events(released, True) == _events(kept, False)
    whole = kept.result()
    assert [call.arguments["city"] for call in whole.calls] == ["Paris", "Rome"]
    rest = released.result()
    assert rest.calls == [] and rest.segments == []
    assert len(rest.content) < 7  # only what the last piece and close gave
    assert whole.content.endswith(rest.content)
    assert "2 calls" in repr(released)  # still counted


def test_after_release_the_result_holds_what_came_after() -> None:
    parser = toolcalls.stream("hermes")
    parser.feed("Before. ")
    parser.release()
    parser.feed(TEXT.removeprefix("Checking. "))
    parser.close()
    assert parser.result().content == " and done."  # blanks before a call are markup
    assert len(parser.result().calls) == 2

"""The least a parser that returns our models must spend on a short response, beside the peers.

A short response (~300 characters, one call) parsed by a single-regex peer takes a few tens of
microseconds. This measures, in one run on the same inputs:

- **ours**: ``toolcalls.parse(text, fmt, tools=defs)`` with the OpenAI tool dicts, the way users
  call it: the whole parse (every character accounted for, markers checked, issues recorded,
  the same code as streaming); **Format.parse** is the same parse given `Tool` objects, without
  the top-level call (format lookup, tools recognized);
- **floor**: what no parser returning issue 2's models can skip: one regex over the text,
  `json.loads` of the arguments, one `ToolCall` and one `ParseResult` (pydantic, built as the
  engine builds them: `_build.built`, no validation of values it typed itself);
- **models only**: the two pydantic constructions alone;
- **peers**: vLLM's and SGLang's batch parse (their own process, as `compare.py` runs them).

If the floor itself is not twice as fast as the faster peer, no parser built on these models
can be. Only formats with a one-regex floor written here are measured.

    .venv-wheel/bin/python bench/floor.py [--formats hermes,kimi_k2] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import inputs  # noqa: E402
from compare import measure_peer  # noqa: E402

import toolcalls  # noqa: E402
from toolcalls.parsing._build import built
from toolcalls.parsing._models import ParseResult, ToolCall

__all__ = ["FLOORS", "main"]

_HERMES = re.compile(r"<tool_call>\s*(\{.*\})\s*</tool_call>", re.S)
_KIMI = re.compile(
    r"<\|tool_call_begin\|>\s*functions\.([\w.-]+):(\d+)\s*<\|tool_call_argument_begin\|>"
    r"(.*?)<\|tool_call_end\|>", re.S)


def _result(fmt: str, text: str, start: int, end: int, name: str, arguments: Any,
            call_id: str) -> ParseResult:
    call = built(ToolCall, {"id": call_id, "name": name, "arguments": arguments,
                            "span": (start, end)})
    return built(ParseResult, {"format": fmt, "content": text[:start], "reasoning": None,
                               "calls": [call], "incomplete": [], "issues": [],
                               "segments": [("content", 0, start), ("call", start, end)]})


def _hermes_floor(text: str) -> ParseResult:
    found = _HERMES.search(text)
    assert found is not None
    body = json.loads(found.group(1))
    return _result("hermes", text, found.start(), found.end(), body["name"],
                   body["arguments"], "call_0")


def _kimi_floor(text: str) -> ParseResult:
    found = _KIMI.search(text, text.find("<|tool_calls_section_begin|>"))
    assert found is not None
    return _result("kimi_k2", text, found.start(), found.end(), found.group(1),
                   json.loads(found.group(3)), f"functions.{found.group(1)}:{found.group(2)}")


FLOORS: dict[str, Callable[[str], ParseResult]] = {
    "hermes": _hermes_floor,
    "kimi_k2": _kimi_floor,
}


def _models_only(fmt: str) -> Callable[[str], ParseResult]:
    return lambda text: _result(fmt, text, 0, 1, "f", {"a": 1}, "call_0")


def _per_second(parse: Callable[[str], Any], texts: list[str], repeats: int) -> float:
    """Responses per CPU second: the best of `repeats` passes over `texts`."""
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for text in texts:
            parse(text)
        best = min(best, time.process_time() - start)
    return len(texts) / best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--formats", default=",".join(FLOORS))
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args(argv)
    defs = inputs.tool_defs()
    tools = toolcalls.to_tools(defs)
    print("| format | ours /s | Format.parse /s | floor /s | models only /s | faster peer /s "
          "| floor ÷ peer |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for fmt in args.formats.split(","):
        cases = inputs.batch_cases(fmt, "short")
        texts = [text for text, _ in cases]
        floor = FLOORS[fmt]
        assert all([(c.name, c.arguments) for c in floor(t).calls] == calls
                   for t, calls in cases), f"the {fmt} floor misreads its inputs"
        parser = toolcalls.get_format(fmt)

        def ours(text: str, fmt: str = fmt) -> ParseResult:
            return toolcalls.parse(text, fmt, tools=defs)

        def format_parse(text: str, parser: Any = parser) -> ParseResult:
            return parser.parse(text, tools=tools)  # type: ignore[no-any-return]

        rates = [
            _per_second(ours, texts, args.repeats),
            _per_second(format_parse, texts, args.repeats),
            _per_second(floor, texts, args.repeats),
            _per_second(_models_only(fmt), texts, args.repeats),
        ]
        peers = [measure_peer(p, fmt, args.repeats, 5.0, 300.0) for p in ("vllm", "sglang")]
        peer_rates = [(p["batch_short"]["resp_per_s_cpu"], p["peer"]) for p in peers
                      if "error" not in p]
        best, name = max(peer_rates)
        print(f"| {fmt} | {rates[0]:,.0f} | {rates[1]:,.0f} | {rates[2]:,.0f} | {rates[3]:,.0f} | "
              f"{best:,.0f} ({name}) | {rates[2] / best:.2f}× |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

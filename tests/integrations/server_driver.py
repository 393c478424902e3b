"""Run toolcalls' parsers inside a real vLLM or SGLang, through the server's own entry points.

Run by tests/integrations/ under the peers venv's Python (vLLM and SGLang installed, see
../shared/peers/README.md), never collected by pytest:

    python server_driver.py vllm|sglang CASES.json PEERS_HARNESS_DIR [PLUGIN_PATH] > OUT.json

CASES.json: ``{"chunks": [1, 4, ...], "cases": [{"parser", "text", "tools"}]}`` (vLLM: and
optionally ``"reasoning_parser"``, vLLM's own, which then has the text first; SGLang: and
``"structural": [{"parser", "tools"}]``, the structural tags it builds from our detectors).
For each case it prints what the server makes of the text, whole and streamed in each chunk
size:
``{"whole": {"content", "calls": [{"id", "name", "arguments"}]}, "streamed": {"1": ...}}``,
arguments as the JSON text the server would send, calls in the server's order. Also
``"registered"``: the server's parser names starting ``toolcalls_`` after loading the plugin.

The parsers are loaded the way each server loads them: vLLM imports the ``--tool-parser-plugin``
file (``ToolParserManager.import_tool_parser``) and builds its parser with ``ParserManager``;
SGLang runs its plugin loader (``load_plugins``: the ``sglang.srt.plugins`` entry points of
the installed distributions) and each request gets a ``FunctionCallParser``. The import shims
for a CPU machine without the serving stack are the peers harness's own (`peer_stubs`).
"""

from __future__ import annotations

import json
import sys
from typing import Any

Result = dict[str, Any]


def main(server: str, cases_path: str, harness: str, plugin: str | None = None) -> None:
    sys.path.insert(0, harness)
    import peer_parse  # the harness: its shims and log settings
    import peer_stubs

    peer_parse._quiet_logs()
    spec = json.loads(open(cases_path, encoding="utf-8").read())
    if server == "vllm":
        peer_stubs.install_vllm_shims()
        runner: Any = VllmRunner(plugin)
    else:
        peer_stubs.install_sglang_shims()
        runner = SglangRunner()
    results = []
    for case in spec["cases"]:
        reasoning = case.get("reasoning_parser")
        tokenizer = peer_parse.FakeTokenizer(["<think>", "</think>"]) if reasoning else None
        chunks = {str(size): _split(case["text"], size, tokenizer) for size in spec["chunks"]}
        results.append({
            "whole": runner.whole(case["parser"], case["text"], case["tools"], reasoning,
                                  tokenizer),
            "streamed": {size: runner.stream(case["parser"], pieces, case["tools"], reasoning,
                                             tokenizer)
                         for size, pieces in chunks.items()},
        })
    structural = [runner.structural(ask["parser"], ask["tools"])
                  for ask in spec.get("structural", ())]
    json.dump({"registered": runner.registered(), "results": results,
               "structural": structural}, sys.stdout)


def _split(text: str, size: int, tokenizer: Any = None) -> list[tuple[str, list[int]]]:
    """The deltas, with their token ids where a reasoning parser reads them (the reasoning
    tags whole, as the model's tokenizer has them: `peer_parse.split_deltas`)."""
    if tokenizer is not None:
        import peer_parse

        return list(peer_parse.split_deltas(tokenizer, text, str(size)))
    return [(text[start:start + size], []) for start in range(0, len(text), size)] or [("", [])]


class Calls:
    """A stream's call pieces put together as a client does: by index, the name and id from
    the first piece, the arguments joined."""

    def __init__(self) -> None:
        self.calls: dict[int, dict[str, Any]] = {}
        self.content: list[str] = []

    def add(self, index: int, ident: str | None, name: str | None, arguments: str | None) -> None:
        call = self.calls.setdefault(index, {"id": None, "name": None, "arguments": ""})
        if ident:
            call["id"] = ident
        if name:
            call["name"] = name
        call["arguments"] += arguments or ""

    def result(self) -> Result:
        return {"content": "".join(self.content),
                "calls": [self.calls[index] for index in sorted(self.calls)]}


class VllmRunner:
    def __init__(self, plugin: str | None) -> None:
        from vllm.entrypoints.openai.chat_completion.protocol import ChatCompletionRequest
        from vllm.parser.parser_manager import ParserManager
        from vllm.tool_parsers import ToolParserManager

        assert plugin, "vllm needs the --tool-parser-plugin path"
        ToolParserManager.import_tool_parser(plugin)  # what --tool-parser-plugin does
        self.manager = ToolParserManager
        self.parsers = ParserManager
        self.request_class = ChatCompletionRequest

    def registered(self) -> list[str]:
        return [name for name in self.manager.list_registered() if name.startswith("toolcalls_")]

    def _parser_and_request(self, name: str, tools: Any, reasoning: str | None,
                            tokenizer: Any) -> tuple[Any, Any]:
        parser_class = self.parsers.get_parser(tool_parser_name=name, enable_auto_tools=True,
                                               reasoning_parser_name=reasoning)
        request = self.request_class(model="served-model", tools=tools or None,
                                     messages=[{"role": "user", "content": "hi"}])
        return parser_class(tokenizer, request.tools), request

    def whole(self, name: str, text: str, tools: Any, reasoning: str | None = None,
              tokenizer: Any = None) -> Result:
        parser, request = self._parser_and_request(name, tools, reasoning, tokenizer)
        thought, content, calls = parser.parse(text, request, enable_auto_tools=True)
        return {"content": content or "", "reasoning": thought or "",
                "calls": [{"id": call.id, "name": call.name, "arguments": call.arguments}
                          for call in calls or ()]}

    def stream(self, name: str, pieces: list[tuple[str, list[int]]], tools: Any,
               reasoning: str | None = None, tokenizer: Any = None) -> Result:
        parser, request = self._parser_and_request(name, tools, reasoning, tokenizer)
        out = Calls()
        thought = []
        for number, (piece, ids) in enumerate(pieces):
            message = parser.parse_delta(piece, ids, request, prompt_token_ids=[],
                                         finished=number == len(pieces) - 1)
            if message is None:
                continue
            out.content.append(message.content or "")
            thought.append(message.reasoning or "")
            for call in message.tool_calls:
                function = call.function
                out.add(call.index, call.id, function and function.name,
                        function and function.arguments)
        return {**out.result(), "reasoning": "".join(thought)}


class SglangRunner:
    def __init__(self) -> None:
        from sglang.srt.entrypoints.openai.protocol import Tool
        from sglang.srt.function_call.function_call_parser import FunctionCallParser
        from sglang.srt.plugins import load_plugins

        load_plugins()  # the entry points of the installed distributions, as SGLang starts
        self.parser_class = FunctionCallParser
        self.tool_class = Tool

    def registered(self) -> list[str]:
        return [name for name in self.parser_class.ToolCallParserEnum
                if name.startswith("toolcalls_")]

    def _parser(self, name: str, tools: Any) -> Any:
        return self.parser_class([self.tool_class.model_validate(tool) for tool in tools or ()],
                                 name)

    def structural(self, name: str, tools: Any) -> Result:
        """The legacy structural tag SGLang builds from the detector (strict tools,
        ``tool_choice: "required"``), or None where the detector says it has none."""
        parser = self._parser(name, tools)
        if not parser.detector.supports_structural_tag():
            return {"tag": None}
        return {"tag": parser.get_legacy_structural_tag().model_dump(by_alias=True)}

    def whole(self, name: str, text: str, tools: Any, reasoning: None = None,
              tokenizer: None = None) -> Result:
        parser = self._parser(name, tools)
        if not parser.has_tool_call(text):  # what SGLang's serving layer asks first
            return {"content": text, "calls": []}
        content, calls = parser.parse_non_stream(text)
        return {"content": content,
                "calls": [{"id": None, "name": call.name, "arguments": call.parameters}
                          for call in calls]}

    def stream(self, name: str, pieces: list[tuple[str, list[int]]], tools: Any,
               reasoning: None = None, tokenizer: None = None) -> Result:
        parser = self._parser(name, tools)
        out = Calls()
        for number, (piece, _) in enumerate(pieces):
            content, calls = parser.parse_stream_chunk(piece)
            if number == len(pieces) - 1:  # the serving layer's flush, with the last chunk
                end_content, end_calls = parser.parse_stream_end()
                content, calls = content + end_content, [*calls, *end_calls]
            out.content.append(content)
            for call in calls:
                out.add(call.tool_index, None, call.name, call.parameters)
        result = out.result()
        result["unstreamed"] = _unstreamed(parser.detector)
        return result


def _unstreamed(detector: Any) -> str:
    """What SGLang's serving layer would still send at the end of the stream
    (``_check_for_unstreamed_tool_args``, re-implemented by the peers harness)."""
    import peer_parse

    found = peer_parse._sgl_remaining(detector)
    return "" if found is None else found[1]


if __name__ == "__main__":
    main(*sys.argv[1:])

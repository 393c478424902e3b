"""toolcalls as the tool parser inside a model server: vLLM and SGLang.

Each server picks its tool parser by name; these modules register one per toolcalls format,
named ``toolcalls_<format>`` (``toolcalls_hermes``, ``toolcalls_qwen3_coder``, ...) and
``toolcalls_auto`` (the format the model id names, else detected from the whole response), so
they never clash with the server's own:

- `toolcalls.integrations.vllm`: vLLM ``ToolParser`` classes, loaded with
  ``--tool-parser-plugin "$(python -m toolcalls.integrations.vllm --path)"``;
- `toolcalls.integrations.sglang`: SGLang detectors, registered by SGLang's plugin loader (the
  ``sglang.srt.plugins`` entry point this package declares) in every SGLang process.

Each response is read once, delta by delta, by toolcalls' streaming parser (`_session`). The
server modules import the server; nothing else in toolcalls imports them (``docs/
integrations.md`` has the operator's commands).
"""

__all__: list[str] = []

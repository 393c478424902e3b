"""The file vLLM's ``--tool-parser-plugin`` imports (by path, as a module of this file's name):
it registers toolcalls' parsers, ``toolcalls_<format>`` and ``toolcalls_auto``."""

from toolcalls.integrations.vllm._parsers import register

__all__: list[str] = []

register()

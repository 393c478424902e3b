"""toolcalls' formats as vLLM tool parsers: ``--tool-call-parser toolcalls_<format>``.

    vllm serve MODEL --enable-auto-tool-choice \\
        --tool-parser-plugin "$(python -m toolcalls.integrations.vllm --path)" \\
        --tool-call-parser toolcalls_hermes

vLLM imports the plugin file (`plugin_path`), which registers one ``ToolParser`` per format
with vLLM's ``ToolParserManager``: ``toolcalls_hermes``, ``toolcalls_qwen3_coder``, ... and
``toolcalls_auto``. Each reads a response once, delta by delta (`_parsers`). This package's
``__init__`` does not import vLLM, so printing the path is quick; `_parsers` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..._lazy import lazy_attributes, lazy_dir

if TYPE_CHECKING:
    from ._parsers import PARSERS as PARSERS
    from ._parsers import ToolcallsToolParser as ToolcallsToolParser
    from ._parsers import register as register

__all__ = ["PARSERS", "ToolcallsToolParser", "plugin_path", "register"]

_LAZY = {"PARSERS": "._parsers", "ToolcallsToolParser": "._parsers", "register": "._parsers"}
__getattr__ = lazy_attributes(__name__, _LAZY)
__dir__ = lazy_dir(__name__, _LAZY)


def plugin_path() -> Path:
    """The file to give vLLM's ``--tool-parser-plugin``: importing it registers the parsers."""
    return Path(__file__).resolve().parent / "toolcalls_vllm_plugin.py"

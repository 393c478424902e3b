"""The benchmark inputs: the responses `../shared/peers/peer_gen.py` generates, so our numbers and
the peers' compare directly.

The generator is imported from the peers directory at bench time (``$TOOLCALLS_PEERS_DIR``, by
default ``../shared/peers`` next to this checkout), never copied. It knows the formats both peers
parse; for the three only we parse (``minimax_m1``, ``ollama``, ``xml``) this module adds a
renderer each, written from the format's documented wire shape, so every format gets the same
kinds of inputs (same prose, same calls, same sizes). A format registered since is rendered by
its own `Format.render_calls`, and has no peer until `PEER_NAMES` names one.

- `batch_cases`: the cases of ``peer_bench.py``'s batch runs, built exactly as its worker builds
  them (short: 200 responses of ~300 chars with one call; long: 20 of ~20 KB with 8 calls).
- `sized_text`: the streaming input of about `size` characters (``peer_gen.sized_response``).
- `split`: the deltas, cut as ``peer_parse.split_deltas`` cuts them for the peers (every n
  characters, the format's special tokens kept whole, as a real server sends them).
"""

from __future__ import annotations

import json
import os
import random
import sys
from functools import cache, partial
from pathlib import Path
from types import ModuleType
from typing import Any

import toolcalls

__all__ = [
    "PEER_NAMES",
    "OUR_FORMATS",
    "peer_name",
    "peers_dir",
    "batch_cases",
    "expected_calls",
    "sized_text",
    "split",
    "tool_defs",
]

# Our format name -> the name peer_gen.py / peer_parse.py use (None, or not listed: the peers
# have no parser). Data about the peers: the formats benchmarked are the registry's.
PEER_NAMES: dict[str, str | None] = {
    "deepseek_v3": "deepseek_v3",
    "deepseek_v31": "deepseek_v31",
    "deepseek_v32_dsml": "deepseek_v32_dsml",
    "glm45": "glm45",
    "glm47": "glm47",
    "gpt_oss": "gpt_oss",
    "hermes": "hermes",
    "kimi_k2": "kimi_k2",
    "llama3_json": "llama3",
    "minimax_m1": None,
    "minimax_m2": "minimax_m2",
    "mistral": "mistral",
    "ollama": None,
    "pythonic": "pythonic",
    "qwen3_coder": "qwen3_coder",
    "xml": None,
}
OUR_FORMATS = tuple(toolcalls.list_formats())

N_SHORT, N_LONG = 200, 20
"""As in peer_bench.py."""


def peers_dir() -> Path:
    default = Path(__file__).resolve().parents[2] / "shared" / "peers"
    return Path(os.environ.get("TOOLCALLS_PEERS_DIR", default))


def _peer_module(name: str) -> ModuleType:
    where = str(peers_dir())
    if not (Path(where) / f"{name}.py").exists():
        raise SystemExit(f"{name}.py not found in {where}: set TOOLCALLS_PEERS_DIR")
    if where not in sys.path:
        sys.path.insert(0, where)
    return __import__(name)


@cache
def _gen() -> ModuleType:
    gen = _peer_module("peer_gen")
    for name, render in _OUR_RENDERERS.items():
        gen.RENDER.setdefault(name, render)
    for name in OUR_FORMATS:
        if peer_name(name) is None and name not in gen.RENDER:
            gen.RENDER[name] = partial(_registered, name)
    return gen


def tool_defs() -> list[dict[str, Any]]:
    """The peers' tool set (string, integer, boolean, array and object parameters)."""
    return _gen().tool_defs()  # type: ignore[no-any-return]


def peer_name(fmt: str) -> str | None:
    """The peers' name of `fmt`, or None when they parse no such format."""
    return PEER_NAMES.get(fmt)


def _generator_name(fmt: str) -> str:
    return peer_name(fmt) or fmt


def batch_cases(fmt: str, kind: str) -> list[tuple[str, list[tuple[str, dict[str, Any]]]]]:
    """(text, calls) of peer_bench.py's batch runs: ``kind`` is "short" or "long"."""
    gen, name = _gen(), _generator_name(fmt)
    cases = []
    for seed in range(N_SHORT if kind == "short" else N_LONG):
        rng = random.Random(seed)
        if kind == "short":  # the order of the rng draws is peer_bench.worker's
            calls = [gen.make_call(rng, 2, body_chars=120)]
            content = gen.prose(rng, 100)
        else:
            content = gen.prose(rng, 6000)
            calls = [gen.make_call(rng, j, body_chars=6300) for j in range(8)]
        cases.append((gen.render(name, content, calls), calls))
    return cases


def expected_calls(calls: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    return [(name, arguments) for name, arguments in calls]


def sized_text(fmt: str, size: int) -> tuple[str, list[tuple[str, dict[str, Any]]]]:
    """A response of about `size` characters: prose, a small call and a big ``write_file``."""
    text, calls, _content = _gen().sized_response(_generator_name(fmt), size, seed=size)
    return text, calls


@cache
def _tokenizer(fmt: str) -> Any:
    parse = _peer_module("peer_parse")
    peer = peer_name(fmt)
    specials = parse.FORMATS[peer]["specials"] if peer else []
    return parse.FakeTokenizer(specials)


def split(fmt: str, text: str, size: int) -> list[str]:
    """`text` in deltas of `size` characters, special tokens whole (as the peers get it)."""
    pieces = _peer_module("peer_parse").split_deltas(_tokenizer(fmt), text, str(size))
    return [piece for piece, _ids in pieces]


# -- renderers for the formats the peers do not parse ---------------------------------------


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _minimax_m1(content: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """``<tool_calls>`` then one call object per line (MiniMax-M1's chat template)."""
    if not calls:
        return content
    lines = "".join(_json({"name": n, "arguments": a}) + "\n" for n, a in calls)
    return f"{content}\n<tool_calls>\n{lines}</tool_calls>"


def _ollama(content: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """Ollama's default prefix ``<tool_call>`` before each call object."""
    wrapped = "".join(
        f"\n<tool_call>{_json({'name': n, 'arguments': a})}</tool_call>" for n, a in calls
    )
    return content + wrapped


def _xml(content: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """The prompt-based XML format: ``<name>`` and JSON ``<arguments>`` in ``<tool_call>``."""
    wrapped = "".join(
        f"\n<tool_call>\n<name>{n}</name>\n<arguments>{_json(a)}</arguments>\n</tool_call>"
        for n, a in calls
    )
    return content + wrapped


_OUR_RENDERERS = {"minimax_m1": _minimax_m1, "ollama": _ollama, "xml": _xml}


def _registered(fmt: str, content: str, calls: list[tuple[str, dict[str, Any]]]) -> str:
    """A format the peers do not parse and no renderer above writes: its own `render_calls`."""
    written = [
        toolcalls.ToolCall(id=f"call{index:05d}", name=name, arguments=arguments, span=(0, 0))
        for index, (name, arguments) in enumerate(calls)
    ]
    return toolcalls.get_format(fmt).render_calls(written, content)

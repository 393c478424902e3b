"""The sessions a cost simulation replays: a recorded `Trace` (the tools used, turn by turn) or
a `UsageProfile` (the shape of one), which becomes a trace for a given catalog.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from ..tools._tool import Tool
from ._counts import ToolsCost

__all__ = ["DEFAULT_TURN_TOKENS", "Trace", "Turn", "UsageProfile", "sample_trace", "sample_traces"]

DEFAULT_TURN_TOKENS = 400
"""Conversation tokens a turn adds when the trace does not say: a user message, a call or
two with their results, an answer."""


@dataclass(frozen=True)
class Turn:
    """One user turn: the tools the model calls in it, and the tokens it adds to the history."""

    tools: tuple[str, ...] = ()
    tokens: int = DEFAULT_TURN_TOKENS


@dataclass(frozen=True)
class Trace:
    """A session as the tools it used, turn by turn.

    JSON (fixtures/traces/README.md): ``{"name": str, "toolset": str (optional),
    "turn_tokens": int (optional), "turns": [{"tools": [names], "tokens": int (optional)}
    or [names], ...]}``.
    """

    name: str
    turns: tuple[Turn, ...]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], name: str = "trace") -> Trace:
        default = data.get("turn_tokens", DEFAULT_TURN_TOKENS)
        turns = []
        for entry in data["turns"]:
            if isinstance(entry, list):
                entry = {"tools": entry}
            turns.append(Turn(tuple(entry.get("tools", ())), int(entry.get("tokens", default))))
        return cls(str(data.get("name", name)), tuple(turns))

    @classmethod
    def load(cls, path: str | Path) -> Trace:
        """Read a trace file (see the class docstring)."""
        path = Path(path)
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")), name=path.stem)

    def tool_names(self) -> set[str]:
        return {name for turn in self.turns for name in turn.tools}


def sample_traces() -> list[str]:
    """The names `sample_trace` takes: sessions recorded against the sample tool sets of
    `toolcalls.tools.sample_toolsets` (``github-maintainer-50``: 50 turns on GitHub's MCP
    server)."""
    folder = resources.files("toolcalls.budget") / "traces"
    return sorted(entry.name.removesuffix(".json") for entry in folder.iterdir()
                  if entry.name.endswith(".json"))


def sample_trace(name: str) -> Trace:
    """The shipped trace `name` (one of `sample_traces`, with or without ``.json``); its JSON's
    ``toolset`` names the sample tool set it uses. Raises `ValueError` naming the samples for
    any other name."""
    stem = name.removesuffix(".json")
    if stem not in sample_traces():
        raise ValueError(f"no sample trace named {name!r}; the samples are: "
                         f"{', '.join(sample_traces())}")
    text = (resources.files("toolcalls.budget") / "traces" / f"{stem}.json").read_text("utf-8")
    return Trace.from_dict(json.loads(text), name=stem)


@dataclass(frozen=True)
class UsageProfile:
    """A session described by its shape rather than recorded: ``turns`` turns, each calling one
    tool, ``distinct_tools`` different tools in all, first used at evenly spaced turns (a task
    needs new tools as it goes), the turns between calling the last tools again. `trace` picks
    the catalog's largest tools: the case least kind to lazy mode."""

    turns: int = 50
    distinct_tools: int = 5
    turn_tokens: int = DEFAULT_TURN_TOKENS

    def trace(self, tools: Sequence[Tool], cost: ToolsCost) -> Trace:
        largest = sorted(tools, key=lambda tool: cost([tool]), reverse=True)
        used = [tool.name for tool in largest[: max(min(self.distinct_tools, self.turns), 1)]]
        firsts = [index * self.turns // len(used) for index in range(len(used))]
        turns = []
        for number in range(self.turns):
            known = bisect.bisect_right(firsts, number)
            fresh = firsts[known - 1] == number
            name = used[known - 1] if fresh else used[number % known]
            turns.append(Turn((name,), self.turn_tokens))
        return Trace(f"profile {self.turns}x{len(used)}x{self.turn_tokens}", tuple(turns))

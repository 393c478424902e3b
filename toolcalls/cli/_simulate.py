"""``toolcalls budget TOOLS --simulate TRACE``: what a whole session costs per strategy.

TRACE is a trace file (fixtures/traces/README.md), the name of a shipped sample trace
(`toolcalls.budget.sample_traces`, such as ``github-maintainer-50``), or a usage profile written
``TURNSxTOOLS[xTOKENS]`` (``50x15x300``: 50 turns, 15 distinct tools, 300 tokens a turn; see
`toolcalls.budget._traces.UsageProfile`). The plot is drawn the way ``--plot`` draws the
modes (`toolcalls.cli._budget.budget_svg`): SVG by hand, deterministic, no plotting library;
here one line per strategy, the cumulative cost after each turn, the cheapest dark.
"""

from __future__ import annotations

import re
from html import escape
from pathlib import Path

from .._errors import ToolCallsError
from ..budget._simulate import Simulation, Strategy
from ..budget._traces import Trace, UsageProfile, sample_trace, sample_traces

__all__ = ["SimulateError", "read_session", "session_svg"]

_PROFILE = re.compile(r"(\d+)x(\d+)(?:x(\d+))?")
_COLOURS = {"full": "#555555", "compact": "#2e8b57", "lazy_search": "#c0392b",
            "lazy_by_name": "#d68910", "pinned": "#7d3c98", "native": "#17a2b8"}
_CHEAPEST = "#1f4e9c"


class SimulateError(ToolCallsError):
    """A ``--simulate`` argument that names no trace or profile."""


def read_session(spec: str) -> Trace | UsageProfile:
    """The trace file or the ``TURNSxTOOLS[xTOKENS]`` profile ``spec`` names."""
    profile = _PROFILE.fullmatch(spec)
    if profile and not Path(spec).exists():
        turns, tools, tokens = profile.groups()
        if int(turns) < 1 or int(tools) < 1:
            raise SimulateError(f"--simulate {spec!r}: turns and tools are 1 or more")
        return UsageProfile(int(turns), int(tools), *([int(tokens)] if tokens else []))
    if not Path(spec).exists() and spec.removesuffix(".json") in sample_traces():
        return sample_trace(spec)
    try:
        return Trace.load(spec)
    except OSError as error:
        raise SimulateError(f"cannot read --simulate {spec!r}: {error.strerror} (a trace file, "
                            f"a sample trace ({', '.join(sample_traces())}), or a profile such "
                            "as 50x15x300: turns x tools x tokens)") from None
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise SimulateError(f"--simulate {spec!r} is not a trace ({error!r}); see "
                            "fixtures/traces/README.md") from None


def session_svg(simulation: Simulation, title: str) -> str:
    """Cumulative cost per turn, one line per strategy, the cheapest drawn dark and thick."""
    width, height, left, top, right, bottom = 720, 380, 80, 64, 170, 40
    costs = simulation.costs
    turns = max(len(entry.cumulative) for entry in costs.values())
    most = max(max(entry.cumulative, default=0.0) for entry in costs.values()) or 1.0
    x_step = (width - left - right) / max(turns - 1, 1)
    y_scale = (height - top - bottom) / most
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="13">',
        f'<text x="12" y="24" font-size="15">{escape(title)}</text>',
        f'<text x="12" y="44">cumulative cost per turn, in uncached input tokens; '
        f'{escape(simulation.provider)} prices, lazy loads in {simulation.load}</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" '
        f'stroke="#999"/>',
        f'<text x="{left}" y="{height - 12}">turn 1</text>',
        f'<text x="{width - right}" y="{height - 12}" text-anchor="end">turn {turns}</text>',
        f'<text x="{left - 6}" y="{top + 4}" text-anchor="end">{most:,.0f}</text>',
    ]
    labels: list[tuple[float, Strategy, str]] = []
    for strategy, entry in costs.items():
        cheapest = strategy == simulation.cheapest
        colour = _CHEAPEST if cheapest else _COLOURS.get(strategy, "#888888")
        points = " ".join(f"{left + turn * x_step:.1f},{height - bottom - value * y_scale:.1f}"
                          for turn, value in enumerate(entry.cumulative))
        parts.append(f'<polyline points="{points}" fill="none" stroke="{colour}" '
                     f'stroke-width="{3 if cheapest else 1.5}"><title>{strategy}: '
                     f'{entry.cost:,.0f}</title></polyline>')
        last = entry.cumulative[-1] if entry.cumulative else 0.0
        labels.append((height - bottom - last * y_scale, strategy, colour))
    previous = -1e9
    for y, strategy, colour in sorted(labels):  # labels at the line ends, never overlapping
        y = max(y + 4, previous + 15)
        previous = y
        versus = "" if strategy == "full" else f" ({simulation.versus_full(strategy):+.0%})"
        mark = " ✓" if strategy == simulation.cheapest else ""
        parts.append(f'<text x="{width - right + 6}" y="{y:.1f}" fill="{colour}">'
                     f'{escape(strategy)}{versus}{mark}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"

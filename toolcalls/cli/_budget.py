"""The ``render`` and ``budget`` commands of the ``toolcalls`` CLI (wired in `toolcalls.cli._main`).

    toolcalls render TOOLS.json --format NAME|openai|anthropic|gemini|ollama [--budget N]
    toolcalls budget TOOLS.json [--encoding o200k_base] [--budget N] [--json] [--plot FILE]

The plot is an SVG written here by hand: four labelled bars need no plotting library, the
output is deterministic (and so testable), and the package keeps its small dependency set.
"""

from __future__ import annotations

import argparse
import json
import sys
from html import escape
from pathlib import Path
from typing import Any

from .._errors import ToolCallsError
from ..budget._plan import MIN_ACTIVE, MODES
from ..budget._render import BudgetReport, budget_report, render
from ..budget._session import DEFAULT_MAX_ACTIVE
from ..budget._tokens import DEFAULT_ENCODING
from ..tools._importers import load_tools

__all__ = ["add_commands", "budget_svg"]


class _OptionError(ToolCallsError):
    """A command-line option that cannot be used."""


def add_commands(commands: Any) -> None:
    """Add ``render`` and ``budget`` to the CLI's subparsers."""
    r = commands.add_parser("render", help="render tools for a provider or a prompt format")
    _common_options(r)
    r.add_argument("--format", "-f", required=True,
                   help="openai, openai_responses, anthropic, gemini, ollama, or a format name")
    r.set_defaults(run=_render_command)
    b = commands.add_parser("budget", help="tokens of each rendering mode, and the savings")
    _common_options(b)
    b.add_argument("--format", "-f", default="openai",
                   help="count in this rendering (default: OpenAI native)")
    b.add_argument("--json", action="store_true", help="print the report as JSON")
    b.add_argument("--plot", metavar="FILE", help="draw the modes side by side (SVG)")
    b.set_defaults(run=_budget_command)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tools", help="JSON file: OpenAI, Anthropic, Gemini or MCP tool list")
    parser.add_argument("--budget", type=int, help="tokens the tool definitions may take")
    parser.add_argument("--encoding", default=DEFAULT_ENCODING, help="tiktoken encoding")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME",
                        help="a tool lazy mode always sends in full (repeatable)")
    parser.add_argument("--max-active", type=int, default=DEFAULT_MAX_ACTIVE,
                        help="most tools a lazy session keeps loaded")


def _render_command(args: argparse.Namespace) -> int:
    rendering = render(load_tools(args.tools), args.format, budget=args.budget,
                       encoding=args.encoding, pinned=args.pin, max_active=args.max_active)
    content = rendering.content
    print(content if isinstance(content, str) else json.dumps(content, indent=2,
                                                                ensure_ascii=False))
    plan = rendering.plan
    fits = "" if plan.fits else f"; does NOT fit the budget of {plan.budget}"
    if not plan.fits and plan.mode == "lazy" and plan.budget and plan.tokens <= plan.budget:
        fits = (f"; fits the budget of {plan.budget} at session start, but loading "
                f"{MIN_ACTIVE} tools would pass it")
    print(f"toolcalls: {plan.mode} mode, {plan.tokens} tokens "
          f"(full: {plan.full_tokens}, saves {plan.saving:.0%}){fits}", file=sys.stderr)
    return 0


def _budget_command(args: argparse.Namespace) -> int:
    report = budget_report(load_tools(args.tools), args.encoding, args.budget,
                           format=args.format, pinned=args.pin, max_active=args.max_active)
    if args.plot:
        if not args.plot.lower().endswith(".svg"):
            raise _OptionError(f"--plot writes SVG: name the file *.svg, not {args.plot!r}")
        Path(args.plot).write_text(budget_svg(report, Path(args.tools).name), encoding="utf-8")
    if args.json:
        print(json.dumps(report.to_dict(), indent=2))
    else:
        print(report.table(Path(args.tools).name))
    return 0


def budget_svg(report: BudgetReport, title: str) -> str:
    """A bar chart of the modes (lazy at start and at its ceiling), the chosen one dark."""
    bars: list[tuple[str, int]] = [(mode, report.tokens[mode]) for mode in MODES]
    if report.lazy_ceiling_tokens is not None:
        bars.append((f"lazy, {report.lazy_max_active} loaded", report.lazy_ceiling_tokens))
    width, height, left, top, bar_height, gap = 560, 60 + 44 * len(bars), 130, 44, 28, 16
    scale = (width - left - 130) / max(*(tokens for _, tokens in bars), report.budget or 1, 1)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'font-family="sans-serif" font-size="13">',
        f'<text x="12" y="24" font-size="15">{escape(title)}: {report.tool_count} tools, '
        f'{escape(report.format)} tokens ({escape(report.encoding)})</text>',
    ]
    for row, (label, tokens) in enumerate(bars):
        y = top + row * (bar_height + gap)
        chosen = label == report.chosen
        fill = "#1f4e9c" if chosen else "#9db6e0"
        saving = "" if label == "full" else f" ({_saving(report, tokens)})"
        parts += [
            f'<text x="12" y="{y + 19}">{escape(label)}{" ✓" if chosen else ""}</text>',
            f'<rect x="{left}" y="{y}" width="{max(tokens * scale, 1):.1f}" '
            f'height="{bar_height}" fill="{fill}"><title>{label}: {tokens}</title></rect>',
            f'<text x="{left + tokens * scale + 6:.1f}" y="{y + 19}">{tokens:,}{saving}</text>',
        ]
    if report.budget is not None:
        x = left + report.budget * scale
        parts += [
            f'<line x1="{x:.1f}" y1="{top - 8}" x2="{x:.1f}" y2="{height - 8}" stroke="#c0392b" '
            f'stroke-dasharray="4 3"/>',
            f'<text x="{x + 4:.1f}" y="{height - 10}" fill="#c0392b">budget '
            f'{report.budget:,}</text>',
        ]
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _saving(report: BudgetReport, tokens: int) -> str:
    saved = 1 - tokens / report.full_tokens if report.full_tokens else 0.0
    return f"saves {saved:.0%}" if saved >= 0 else f"costs {-saved:.0%} more"

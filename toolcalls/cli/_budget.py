"""The ``render`` and ``budget`` commands of the ``toolcalls`` CLI (wired in `toolcalls.cli._main`).

    toolcalls render TOOLS.json --format NAME|openai|anthropic|gemini|ollama [--budget N]
    toolcalls budget TOOLS.json [--format F] [--model ID] [--encoding o200k_base] [--budget N]
                     [--json] [--plot FILE] [--simulate TRACE|TURNSxTOOLS[xTOKENS]] [--prices NAME]

Counts are the provider's (`toolcalls.budget._counts`): ``--format anthropic --model
claude-opus-4-1`` counts Claude's tool-use system prompt for that family, ``--format ollama
--model qwen3-coder:30b`` the template's tools block with Qwen's tokenizer.

Both end with one verdict, `BudgetReport.verdict` (render on stderr, budget as the table's last
line): for the same tools, format and budget they say the same. With ``--fail-over`` both exit
with status 1 when no mode fits the budget, after printing everything.

With ``--simulate`` the budget also prices a whole session under each strategy, with prompt
caching (`toolcalls.cli._simulate`, `toolcalls.budget._simulate`): the table follows the budget
table, the plan never picks lazy mode where it costs more over that session, and ``--plot``
draws the cumulative cost per turn per strategy instead of the modes.

The plot is an SVG written here by hand: four labelled bars need no plotting library, the
output is deterministic (and so testable), and the package keeps its small dependency set.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from html import escape
from pathlib import Path
from typing import Any

from .._errors import ToolCallsError, UnknownFormatError
from ..budget._plan import MODES
from ..budget._prices import PRICES
from ..budget._profiles import NATIVE_PAYLOADS, PROVIDERS, native_payload
from ..budget._render import BudgetReport, budget_report, plan_report, render
from ..budget._session import DEFAULT_MAX_ACTIVE
from ..budget._simulate import simulate
from ..budget._tokens import DEFAULT_ENCODING, ENCODINGS
from ..budget._traces import Trace
from ..parsing._registry import get_format, list_formats
from ..tools._tool import Tool
from ._input import read_tools
from ._simulate import read_session, session_svg

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
    b.add_argument("--simulate", metavar="TRACE",
                   help="price a session per strategy: a trace file, or TURNSxTOOLS[xTOKENS]")
    b.add_argument("--prices", choices=sorted(PRICES),
                   help="cached/uncached input prices (default: the --format provider's)")
    b.set_defaults(run=_budget_command)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("tools", help="JSON file: OpenAI, Anthropic, Gemini or MCP tool list; "
                                      "or a sample tool set's name, such as "
                                      "github-mcp-server-all")
    parser.add_argument("--budget", type=_count(0, "a budget"), metavar="TOKENS",
                        help="tokens the tool definitions may take")
    parser.add_argument("--fail-over", action="store_true",
                        help="exit with status 1 when no mode fits the budget")
    parser.add_argument("--encoding", default=None,
                        help=f"tokenizer: {', '.join(ENCODINGS)} (default: the provider's or "
                             f"model's own where toolcalls has it, else {DEFAULT_ENCODING})")
    parser.add_argument("--model", default=None, metavar="ID",
                        help="count as this model reads the tools: a Claude model, an Ollama "
                             "tag, a Hugging Face id (its template and tokenizer)")
    parser.add_argument("--pin", action="append", default=[], metavar="NAME",
                        help="a tool lazy mode always sends in full (repeatable)")
    parser.add_argument("--max-active", type=_count(1, "--max-active"),
                        default=DEFAULT_MAX_ACTIVE, help="most tools a lazy session keeps loaded")


def _count(least: int, what: str) -> Callable[[str], int]:
    """An argparse type: a whole number, ``least`` or more (argparse makes the error one line)."""

    def convert(value: str) -> int:
        try:
            number = int(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} is a whole number, not {value!r}") from None
        if number < least:
            raise argparse.ArgumentTypeError(f"{what} is {least} or more, not {number}")
        return number

    return convert


def _checked(args: argparse.Namespace, format: str) -> list[Tool]:  # noqa: A002
    """The tools file's tools, once the options that name things are known to name something."""
    if args.encoding is not None and args.encoding not in ENCODINGS:
        raise _OptionError(f"unknown --encoding {args.encoding!r}: toolcalls counts tokens with "
                           f"{', '.join(ENCODINGS)} (default {DEFAULT_ENCODING}, the encoding "
                           "of gpt-4o and later)")
    if native_payload(format) is None:
        try:
            get_format(format)
        except UnknownFormatError:
            raise _OptionError(_unknown_target(format)) from None
    tools = read_tools(args.tools)
    unknown = sorted(set(args.pin) - {tool.name for tool in tools})
    if unknown:
        raise _OptionError(f"--pin names no tool in {args.tools!r}: {', '.join(unknown)}")
    return tools


def _unknown_target(format: str) -> str:  # noqa: A002
    native = sorted({*NATIVE_PAYLOADS, *(name for name, profile in PROVIDERS.items()
                                        if profile.mode == "native")})
    detect = (" ('auto' detects the format of a response; rendering needs one named)"
              if format == "auto" else "")
    return (f"unknown --format {format!r}{detect}: a provider (its native tools payload: "
            f"{', '.join(native)}) or a prompt format (the tools block of the system prompt: "
            f"{', '.join(list_formats())}, or a model id such as Qwen/Qwen3-Coder-30B-A3B-"
            "Instruct)")


def _render_command(args: argparse.Namespace) -> int:
    tools = _checked(args, args.format)
    rendering = render(tools, args.format, budget=args.budget, encoding=args.encoding,
                       pinned=args.pin, max_active=args.max_active, model=args.model)
    content = rendering.content
    print(content if isinstance(content, str) else json.dumps(content, indent=2,
                                                                ensure_ascii=False))
    report = plan_report(rendering.plan, len(tools), format=args.format, encoding=args.encoding,
                         model=args.model)
    sys.stdout.flush()  # the payload, then the verdict, in that order on a terminal
    print(f"toolcalls: {report.verdict()}", file=sys.stderr)
    return _status(args, report)


def _budget_command(args: argparse.Namespace) -> int:
    tools = _checked(args, args.format)
    if args.plot and not args.plot.lower().endswith(".svg"):
        raise _OptionError(f"--plot writes SVG: name the file *.svg, not {args.plot!r}")
    if args.plot and not Path(args.plot).parent.is_dir():  # say so before counting
        raise _OptionError(f"cannot write --plot {args.plot!r}: the folder "
                           f"{str(Path(args.plot).parent)!r} does not exist")
    session = read_session(args.simulate) if args.simulate else None
    if isinstance(session, Trace):
        unknown = sorted(session.tool_names() - {tool.name for tool in tools})
        if unknown:
            raise _OptionError(f"--simulate {args.simulate!r} uses tools {args.tools!r} does "
                               f"not have: {', '.join(unknown)}")
    report = budget_report(tools, args.encoding, args.budget,
                           format=args.format, pinned=args.pin, max_active=args.max_active,
                           session=session, prices=args.prices, model=args.model)
    simulation = None if session is None else simulate(
        tools, session, provider=args.format, prices=args.prices, encoding=args.encoding,
        model=args.model, pinned=args.pin)
    if args.plot:
        name = Path(args.tools).name
        picture = (budget_svg(report, name) if simulation is None
                   else session_svg(simulation, f"{name}, {simulation.trace}"))
        try:
            Path(args.plot).write_text(picture, encoding="utf-8")
        except OSError as error:
            raise _OptionError(f"cannot write --plot {args.plot!r}: {error.strerror}") from None
    if args.json:
        data = report.to_dict()
        if simulation is not None:
            data["simulation"] = simulation.to_dict()
        print(json.dumps(data, indent=2))
    else:
        print(report.table(Path(args.tools).name))
        if simulation is not None:
            print()
            print(simulation.table())
    return _status(args, report)



def _status(args: argparse.Namespace, report: BudgetReport) -> int:
    """1 when asked to fail over the budget (``--fail-over``) and no mode fits it, else 0."""
    return 1 if args.fail_over and report.budget is not None and not report.fits else 0


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

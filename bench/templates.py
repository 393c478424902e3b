"""Formats derived from real chat templates: which derive, which do not and why, and how often
each derived format reads its format's corpus rows as their source expects, beside the
hand-written module.

    .venv/bin/python bench/templates.py          # the Markdown table in bench/README.md

Templates: ``fixtures/templates/*.jinja`` (the shared set) and
``fixtures/render/<format>/template.jinja`` (each format's own). Nothing is timed: a
derivation renders the template on a dozen probe conversations once.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from corpus import load_cases  # noqa: E402

import toolcalls  # noqa: E402
from toolcalls.parsing import TemplateFormatError, format_from_template  # noqa: E402
from toolcalls.parsing._chat_template import ChatTemplate  # noqa: E402
from toolcalls.parsing._from_template import tools_from_template  # noqa: E402
from toolcalls.parsing._template_probe import PROBE_TOOLS  # noqa: E402
from toolcalls.parsing._template_tools import writes_the_same_prompt  # noqa: E402
from toolcalls.parsing.formats._base import Format  # noqa: E402
from toolcalls.tools import to_tools  # noqa: E402


def _templates() -> dict[str, Path]:
    shared = {p.name: p for p in sorted((ROOT / "fixtures" / "templates").glob("*.jinja"))}
    own = {f"render/{p.parent.name}": p
           for p in sorted((ROOT / "fixtures" / "render").glob("*/template.jinja"))}
    return shared | own


def _agreement(name: str, fmt: Format) -> str:
    """Corpus rows read as expected: derived / module / rows."""
    cases = list(load_cases([name]))
    derived = module = 0
    for case in cases:
        options = case.options()
        module += not case.mismatches(case.run())
        if fmt.reasoning_tags is None:
            options.pop("thinking", None)
        derived += not case.mismatches(toolcalls.parse(case.text, fmt, **options))
    return f"{derived} / {module} / {len(cases)}" if cases else "no rows"


def _tools_section(source: str) -> tuple[str, int, int]:
    """How `render_tools` stands to the template's own tools section: the whole prompt the
    same in prompt mode, the section alone the same, or why none is written."""
    try:
        spec = tools_from_template(source)
    except TemplateFormatError as failure:
        return f"no: {str(failure).split(': ')[0].split(' (')[0]}", 0, 0
    if writes_the_same_prompt(ChatTemplate(source), spec, to_tools(PROBE_TOOLS)):
        return "same prompt", 1, 1
    return "same section", 1, 0


def main() -> None:
    rows, made, sections, prompts = [], 0, 0, 0
    templates = _templates()
    started = time.perf_counter()
    for key, path in templates.items():
        try:
            fmt = format_from_template(path.read_text(encoding="utf-8"), name="derived")
        except TemplateFormatError as failure:
            reason = str(failure).split(": ")[0].replace("\n", " ")
            rows.append(f"| `{key}` | not derived: {reason} | | |")
            continue
        made += 1
        tools, section, prompt = _tools_section(path.read_text(encoding="utf-8"))
        sections, prompts = sections + section, prompts + prompt
        calls = fmt.spec.calls  # type: ignore[attr-defined]
        agreement = _agreement(key.removeprefix("render/"), fmt) if key.startswith(
            "render/") else ""
        first = calls.start.strip() or (calls.section[0].strip() if calls.section else "")
        rows.append(f"| `{key}` | {calls.body} `{first or '(bare)'}` "
                    f"| {agreement} | {tools} |")
    elapsed = time.perf_counter() - started
    print("| template | derived format (body, first marker) | corpus rows: derived / module "
          "/ rows | tools section |")
    print("|---|---|---|---|")
    print("\n".join(rows))
    print(f"\n{made} of {len(templates)} templates derive ({made / len(templates):.0%}); "
          f"of those, {sections} write their tools section as the template does "
          f"({prompts} the whole prompt, in prompt mode); {elapsed:.1f} s in all, corpus "
          f"runs included.")


if __name__ == "__main__":
    main()

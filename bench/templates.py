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
from toolcalls.parsing.formats._base import Format  # noqa: E402


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


def main() -> None:
    rows, made = [], 0
    templates = _templates()
    started = time.perf_counter()
    for key, path in templates.items():
        try:
            fmt = format_from_template(path.read_text(encoding="utf-8"), name="derived")
        except TemplateFormatError as failure:
            reason = str(failure).split(": ")[0].replace("\n", " ")
            rows.append(f"| `{key}` | not derived: {reason} | |")
            continue
        made += 1
        calls = fmt.spec.calls  # type: ignore[attr-defined]
        agreement = _agreement(key.removeprefix("render/"), fmt) if key.startswith(
            "render/") else ""
        first = calls.start.strip() or (calls.section[0].strip() if calls.section else "")
        rows.append(f"| `{key}` | {calls.body} `{first or '(bare)'}` "
                    f"| {agreement} |")
    elapsed = time.perf_counter() - started
    print("| template | derived format (body, first marker) | corpus rows: derived / module "
          "/ rows |")
    print("|---|---|---|")
    print("\n".join(rows))
    print(f"\n{made} of {len(templates)} templates derive ({made / len(templates):.0%}); "
          f"{elapsed:.1f} s in all, corpus runs included.")


if __name__ == "__main__":
    main()

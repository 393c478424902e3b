"""`toolcalls.structural_tag` in xgrammar: each format's tag compiles in both shapes, and the
corpus rows and fixtures toolcalls reads cleanly are accepted by xgrammar's matcher.

    PYTHONPATH=. python bench/xgrammar_check.py [format...]

Needs xgrammar (and so torch; the CPU build: ``pip install torch==2.13.0`` from a CPU index,
never plain ``torch`` on Linux, the CUDA build). Prints, per format, the clean reads accepted
and the first refused ones. A structural tag writes the call as the tag's fixed begin, so rows
written otherwise (another header order, spacing or key) are refused by design: the count says
how much of the real output one tag covers, the llguidance grammar (`toolcalls.grammar`)
covers the rest.
"""

from __future__ import annotations

import json
import sys

import xgrammar as xgr

import toolcalls
from toolcalls.grammars._api import _TAGGED

sys.path.insert(0, "tests")
sys.path.insert(0, "tests/grammars")
from test_grammar_acceptance import infer_tools, texts  # noqa: E402


def accepted(grammar: object, text: str) -> bool:
    return bool(xgr.testing._is_grammar_accept_string(grammar, text))


def main() -> int:
    for name in sys.argv[1:] or sorted(_TAGGED):
        clean = ok = 0
        refused: list[str] = []
        for row_id, text, options in texts(name):
            result = toolcalls.parse(text, name, validate=bool(options.get("tools")), **options)
            if not result.calls or result.issues or result.incomplete or result.reasoning:
                continue
            clean += 1
            tools = options.get("tools") or infer_tools(result.calls)
            tag = toolcalls.structural_tag(name, tools)
            legacy = toolcalls.structural_tag(name, tools, legacy=True)
            current = xgr.Grammar.from_structural_tag(json.dumps(tag))
            xgr.Grammar.from_structural_tag(
                [xgr.StructuralTagItem(begin=s["begin"], schema=json.dumps(s["schema"]),
                                       end=s["end"]) for s in legacy["structures"]],
                legacy["triggers"],
            )
            if accepted(current, text):
                ok += 1
            else:
                refused.append(row_id)
        print(f"{name:12} clean reads {clean:3}  accepted {ok:3}  refused {len(refused):3}"
              f"  e.g. {refused[:4]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

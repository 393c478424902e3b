"""`toolcalls.decoding.structural_tag` in xgrammar: each format's tag compiles in both shapes,
and the corpus rows and fixtures toolcalls reads cleanly are accepted by xgrammar's matcher.

    PYTHONPATH=. python bench/xgrammar_check.py [format...]
    PYTHONPATH=. python bench/xgrammar_check.py --sample N [format...]


Needs xgrammar (and so torch; the CPU build: ``pip install torch==2.13.0`` from a CPU index,
never plain ``torch`` on Linux, the CUDA build). Prints, per format, the clean reads accepted
and the first refused ones. A structural tag writes the call as the tag's fixed begin, so rows
written otherwise (another header order, spacing or key) are refused by design: the count says
how much of the real output one tag covers, the llguidance grammar (`toolcalls.decoding.grammar`)
covers the rest. The current shape's free text excludes the reader's markers (code fences
included), as the grammar's content does: a row with another layout of call is refused, not
taken as free text.

``--sample N``: the larger run of tests/decoding/test_xgrammar_sampling.py: N samples of a
random model (byte-level vocabulary) per format, shape and tool_choice, each parsed with
validate=True; prints samples finished, with calls, failures (every one printed) and known
disagreements (`_sampling_xgrammar.known_disagreement`: enum values padded with blanks in the
XML styles, unpaired surrogate escapes in JSON strings).
"""

from __future__ import annotations

import json
import random
import sys
import time

import xgrammar as xgr

import toolcalls
from toolcalls.decoding._table import TAGGED, XGRAMMAR_STYLES

sys.path.insert(0, "tests")
sys.path.insert(0, "tests/decoding")
from test_grammar_acceptance import infer_tools, texts  # noqa: E402


def accepted(grammar: object, text: str) -> bool:
    return bool(xgr.testing._is_grammar_accept_string(grammar, text))


def sample_run(count: int, names: list[str]) -> int:
    from test_grammar_sampling import TOOLS

    from toolcalls.testing._sampling import problems
    from toolcalls.testing._sampling_xgrammar import known_disagreement, sample_tag

    failures = 0
    for name in names:
        for legacy in (False, True) if name in TAGGED else (False,):
            for choice in ("auto", "required", "search"):
                rng = random.Random(f"bench-{name}-{legacy}-{choice}")
                tag = toolcalls.decoding.structural_tag(name, TOOLS, tool_choice=choice,
                                                        legacy=legacy)
                done = with_calls = failed = 0
                disagreements: dict[str, int] = {}
                started = time.perf_counter()
                for _ in range(count):
                    text, finished = sample_tag(tag, rng)
                    if not finished:
                        continue
                    done += 1
                    with_calls += bool(toolcalls.parse(text, name, tools=TOOLS).calls)
                    found = problems(name, text, TOOLS, "auto" if legacy else choice)
                    known = known_disagreement(found)
                    if known is not None:
                        disagreements[known] = disagreements.get(known, 0) + 1
                    elif found:
                        failed += 1
                        print("  FAIL", repr(text)[:400], found)
                failures += failed
                shape = "legacy " if legacy else "current"
                print(f"{name:12} {shape} {choice:8} finished {done:3}/{count} with calls "
                      f"{with_calls:3} failures {failed} known {disagreements or ''}"
                      f" ({time.perf_counter() - started:.1f} s)")
    print("failures:", failures)
    return 1 if failures else 0


def main() -> int:
    if sys.argv[1:2] == ["--sample"]:
        names = sys.argv[3:] or sorted(set(TAGGED) | set(XGRAMMAR_STYLES))
        return sample_run(int(sys.argv[2]), names)
    for name in sys.argv[1:] or sorted(TAGGED):
        clean = ok = 0
        refused: list[str] = []
        for row_id, text, options in texts(name):
            result = toolcalls.parse(text, name, validate=bool(options.get("tools")), **options)
            if not result.calls or result.issues or result.incomplete or result.reasoning:
                continue
            clean += 1
            tools = options.get("tools") or infer_tools(result.calls)
            tag = toolcalls.decoding.structural_tag(name, tools)
            legacy = toolcalls.decoding.structural_tag(name, tools, legacy=True)
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

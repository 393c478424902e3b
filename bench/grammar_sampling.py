"""The larger sampling run of tests/decoding/test_grammar_sampling.py: a random model under
each format's llguidance mask (o200k), every complete sample parsed with validate=True.

    PYTHONPATH=. python bench/grammar_sampling.py [samples per case, default 40] [seed]
        [formats, comma-separated; default all]

Prints, per format and tool_choice, the samples that finished, those with calls, and every
sample toolcalls read with an issue (none expected).
"""

from __future__ import annotations

import random
import sys
import time

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._table import REGIONS
from toolcalls.testing._sampling import problems, sample

sys.path.insert(0, "tests/decoding")
from test_grammar_sampling import TOOLS  # noqa: E402


def main() -> int:
    if "--help" in sys.argv or "-h" in sys.argv:
        print(__doc__)
        return 0
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    seed = sys.argv[2] if len(sys.argv) > 2 else "bench"
    names = sys.argv[3].split(",") if len(sys.argv) > 3 else sorted(REGIONS)
    failures = 0
    for name in names:
        for choice in ("auto", "required", "search"):
            for reasoning in (False, True):
                rng = random.Random(f"{seed}-{name}-{choice}-{reasoning}")
                rules = grammar(name, TOOLS, tool_choice=choice, reasoning=reasoning)
                done = with_calls = 0
                started = time.perf_counter()
                for _ in range(count):
                    text, finished = sample(rules, rng)
                    if not finished:
                        continue
                    done += 1
                    result = toolcalls.parse(text, name, tools=TOOLS, validate=True)
                    with_calls += bool(result.calls)
                    found = problems(name, text, TOOLS, choice)
                    if found:
                        failures += 1
                        print("  FAIL", repr(text)[:400], found)
                print(f"{name:12} {choice:8} reasoning={reasoning!s:5} finished {done}/{count}"
                      f" with calls {with_calls} ({time.perf_counter() - started:.1f} s)")
    print("failures:", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())

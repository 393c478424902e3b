"""Recall of lazy mode's ``tool_search`` on fixtures/search/eval.jsonl (see its README.md).

    .venv/bin/python bench/search_eval.py              # the ranker the library picks
    .venv/bin/python bench/search_eval.py --ranker bm25   # BM25 alone
    .venv/bin/python bench/search_eval.py --model minilm  # the search-minilm extra's ranker
    .venv/bin/python bench/search_eval.py --misses 10  # and the first misses per catalog

Per catalog, and per kind of request (``own_words``: the tool's own first sentence;
``paraphrase``: no content word shared with the tool's name or description), it prints
recall@1/5/15 (the target among the first k hits), and
``miss``: the share whose target is not among the 15; ``empty``: the share with no hit at all;
the mean milliseconds per query (process CPU time, index built beforehand). The rows
``tuning`` and ``held_out`` are the two fixed halves of the set (`build_eval.half`): tune on
the first, report the second.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "fixtures" / "search"))

from build_eval import CATALOGS, catalog, half  # noqa: E402

from toolcalls import to_tools  # noqa: E402
from toolcalls.budget._search import ToolIndex  # noqa: E402

KS = (1, 5, 15)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--misses", type=int, default=0, help="print this many misses per catalog")
    parser.add_argument("--ranker", choices=["auto", "bm25", "fused"], default="auto",
                        help="auto: fused when the search extra is installed")
    parser.add_argument("--model", choices=["minilm", "wordllama"], default=None,
                        help="the semantic model (default: the first installed)")
    args = parser.parse_args()
    semantic = {"auto": None, "bm25": False, "fused": True}[args.ranker]
    rows = [json.loads(line) for line in (ROOT / "fixtures/search/eval.jsonl").open()]
    table: dict[tuple[str, ...], list[int | None]] = defaultdict(list)
    seconds: dict[str, float] = {}
    for name in CATALOGS:
        index = ToolIndex(to_tools(catalog(name)), semantic=semantic, model=args.model)
        queries = [row for row in rows if row["catalog"] == name]
        index.search("warm up", limit=max(KS))
        start = time.process_time()
        found = [[hit.name for hit in index.search(row["query"], limit=max(KS))]
                 for row in queries]
        seconds[name] = (time.process_time() - start) / len(queries)
        misses = 0
        for row, names in zip(queries, found, strict=True):
            rank = names.index(row["target"]) if row["target"] in names else None
            for group in (name, half(row), "all"):
                for kind in (row["kind"], "all"):
                    table[(group, kind, "empty")].append(0 if names else 1)
                    table[(group, kind)].append(rank)
            if (rank is None or rank >= 5) and misses < args.misses:
                misses += 1
                print(f"  miss {name}/{row['kind']}: {row['query']!r} -> {row['target']} "
                      f"(got {names[:5]})")
        table[(name, "tools")] = [len(index.tools)]
    print(f"ranker: {index.ranker}")
    print(f"{'catalog':8} {'kind':10} {'n':>4} {'tools':>5} {'R@1':>5} {'R@5':>5} {'R@15':>5} "
          f"{'miss':>5} {'empty':>5} {'ms/q':>6}")
    for name in [*CATALOGS, "tuning", "held_out", "all"]:
        for kind in ("own_words", "paraphrase", "all"):
            ranks = table[(name, kind)]
            recall = [sum(r is not None and r < k for r in ranks) / len(ranks) for k in KS]
            miss = sum(r is None for r in ranks) / len(ranks)
            empty = sum(1 for flag in table[(name, kind, "empty")] if flag) / len(ranks)
            tools = table.get((name, "tools"), [0])[0]
            ms = 1000 * (seconds[name] if name in seconds
                         else sum(seconds.values()) / len(seconds))
            print(f"{name:8} {kind:10} {len(ranks):4d} {tools:5d} "
                  + " ".join(f"{value:5.2f}" for value in recall)
                  + f" {miss:5.2f} {empty:5.2f} {ms:6.3f}")


if __name__ == "__main__":
    main()

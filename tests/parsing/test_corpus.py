"""Every corpus row agrees with its source, or is listed with a reason in disagreements.json."""

from __future__ import annotations

import pytest
from corpus import Case, load_cases, load_disagreements

import toolcalls

CASES = load_cases()
DISAGREE = load_disagreements()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_row_agrees_with_source_or_is_listed(case: Case) -> None:
    mismatches = case.mismatches(case.run())
    if case.id in DISAGREE:
        assert mismatches, f"{case.id} is listed as a disagreement but now agrees: unlist it"
    else:
        assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_row_streamed_one_char_at_a_time_equals_batch(case: Case) -> None:
    assert case.run(chunk=1) == case.run()


def test_listed_disagreements_are_real_rows() -> None:
    ids = {c.id for c in load_cases()}
    assert set(DISAGREE) <= ids


# A ratchet over the formats it was set on, raised as their agreement grows; the parse-core
# issue's target is 0.95. A format added since is held to its own rows instead (issue 29: the
# rows consistent with the contract agree, each other one listed with its reason): their
# sources' conventions differ from ours in ways LESSONS.md settles (llama.cpp turns a cut-off
# call into a call with {} arguments; we report it incomplete), so pooling them would move
# the ratchet for reasons no parse changed.
AGREEMENT_FLOOR = 0.85
RATCHETED = frozenset({"deepseek_v3", "deepseek_v31", "deepseek_v32_dsml", "glm45", "glm47",
                       "gpt_oss", "hermes", "kimi_k2", "llama3_json", "minimax_m1",
                       "minimax_m2", "mistral", "ollama", "pythonic", "qwen3_coder",
                       "seed_oss", "xml"})
NEW_FORMAT_FLOOR = 0.5
"""A format added since agrees with at least half of its rows."""


def _agreement(cases: list[Case]) -> tuple[int, int]:
    return sum(1 for c in cases if c.id not in DISAGREE), len(cases)


def test_overall_agreement_does_not_fall_below_the_floor() -> None:
    agreeing, total = _agreement([c for c in CASES if c.format in RATCHETED])
    assert total and agreeing / total >= AGREEMENT_FLOOR, f"{agreeing}/{total}"


@pytest.mark.parametrize("fmt", sorted({c.format for c in CASES} - RATCHETED))
def test_a_format_added_since_agrees_on_most_of_its_rows(fmt: str) -> None:
    agreeing, total = _agreement([c for c in CASES if c.format == fmt])
    assert agreeing / total >= NEW_FORMAT_FLOOR, f"{fmt}: {agreeing}/{total}"


def test_every_format_has_corpus_rows_or_says_why_not() -> None:
    covered = {c.format for c in CASES}
    # xml and ollama are prompt-based formats with no upstream parser test suite: they say so.
    without = {n for n in toolcalls.list_formats() if toolcalls.get_format(n).no_corpus_reason}
    assert set(toolcalls.list_formats()) - covered == without

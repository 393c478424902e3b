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


# A ratchet, raised as formats land; the parse-core issue's target is 0.95 over all formats.
AGREEMENT_FLOOR = 0.85


def test_overall_agreement_does_not_fall_below_the_floor() -> None:
    agreeing = sum(1 for c in CASES if c.id not in DISAGREE)
    assert CASES and agreeing / len(CASES) >= AGREEMENT_FLOOR, f"{agreeing}/{len(CASES)}"


def test_every_format_has_corpus_rows_or_says_why_not() -> None:
    covered = {c.format for c in CASES}
    # xml and ollama are prompt-based formats with no upstream parser test suite: they say so.
    without = {n for n in toolcalls.list_formats() if toolcalls.get_format(n).no_corpus_reason}
    assert set(toolcalls.list_formats()) - covered == without

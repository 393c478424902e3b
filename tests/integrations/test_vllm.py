"""toolcalls inside a real vLLM: loaded as the operator's ``--tool-parser-plugin`` loads it, and
on every corpus case, whole and streamed, vLLM's answer is toolcalls' own (`own`)."""

from __future__ import annotations

from typing import Any

import pytest

import toolcalls

from .own import Run, differences, passed_through, reasoning_runs, runs
from .peers import extra_site, peers_python, run_driver

RUNS = runs()
REASONING = reasoning_runs()


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    python = peers_python()
    work = tmp_path_factory.mktemp("vllm")
    (work / "site").mkdir()
    site = extra_site(work / "site")
    return run_driver(python, site, "vllm", [run.request() for run in [*RUNS, *REASONING]],
                      work)


def test_the_plugin_registers_a_parser_per_format_and_auto(answers: dict[str, Any]) -> None:
    expected = {f"toolcalls_{name}" for name in [*toolcalls.list_formats(), "auto"]}
    assert set(answers["registered"]) == expected


@pytest.mark.parametrize("number", range(len(RUNS)), ids=[str(run) for run in RUNS])
def test_vllm_reads_the_case_as_toolcalls_does(number: int, answers: dict[str, Any]) -> None:
    run: Run = RUNS[number]
    answer = answers["results"][number]
    assert differences(run, answer, None if run.tools else passed_through(run)) == []


@pytest.mark.parametrize("number", range(len(RUNS)), ids=[str(run) for run in RUNS])
def test_every_streamed_call_has_its_own_vllm_id(number: int, answers: dict[str, Any]) -> None:
    answer = answers["results"][number]
    for streamed in [answer["whole"], *answer["streamed"].values()]:
        ids = [call["id"] for call in streamed["calls"]]
        assert all(ident and ident.startswith("chatcmpl-tool-") for ident in ids), ids
        assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("number", range(len(REASONING)), ids=[str(run) for run in REASONING])
def test_with_vllm_s_reasoning_parser_ours_reads_what_follows_the_reasoning(
        number: int, answers: dict[str, Any]) -> None:
    """Reasoning is vLLM's reasoning parser's: the calls and content are toolcalls' own of the
    text after it, and the reasoning is vLLM's, whole and streamed alike."""
    run = REASONING[number]
    answer = answers["results"][len(RUNS) + number]
    assert differences(run.after_reasoning(), answer) == []
    inside = run.text.split("</think>", 1)[0].removeprefix("<think>")
    reasonings = {answer["whole"]["reasoning"],
                  *(streamed["reasoning"] for streamed in answer["streamed"].values())}
    assert {reasoning.strip() for reasoning in reasonings} == {inside.strip()}


def test_the_cases_hold_calls_failures_and_reasoning() -> None:
    """The comparison above is not vacuous: the corpus has whole calls, failed ones and
    reasoning, in many formats."""
    formats = {run.format for run in RUNS if run.format != "auto"}
    assert len(formats) >= 30
    assert sum("<think>" in run.text for run in RUNS) >= 20
    assert sum(bool(run.tools) for run in RUNS) >= 100
    assert len(REASONING) >= 5


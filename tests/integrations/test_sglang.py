"""toolcalls inside a real SGLang: registered by SGLang's own plugin loader from the entry point
toolcalls declares, and on every corpus case, whole and streamed, SGLang's answer is toolcalls'
own (`own`), with nothing left for its serving layer to add at the end of a stream."""

from __future__ import annotations

from typing import Any

import pytest

import toolcalls
from toolcalls.decoding import structural_tag

from .own import Run, differences, runs
from .peers import extra_site, peers_python, run_driver

RUNS = runs()
TOOLS = next(run.tools for run in RUNS if run.tools)
FORMATS = sorted(toolcalls.list_formats())


@pytest.fixture(scope="module")
def answers(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    python = peers_python()
    work = tmp_path_factory.mktemp("sglang")
    (work / "site").mkdir()
    site = extra_site(work / "site")
    asks = [{"parser": f"toolcalls_{fmt}", "tools": TOOLS} for fmt in FORMATS]
    return run_driver(python, site, "sglang", [run.request() for run in RUNS], work, asks)


def test_the_entry_point_registers_a_parser_per_format_and_auto(answers: dict[str, Any]) -> None:
    expected = {f"toolcalls_{name}" for name in [*toolcalls.list_formats(), "auto"]}
    assert set(answers["registered"]) == expected


@pytest.mark.parametrize("number", range(len(RUNS)), ids=[str(run) for run in RUNS])
def test_sglang_reads_the_case_as_toolcalls_does(number: int, answers: dict[str, Any]) -> None:
    run: Run = RUNS[number]
    answer = answers["results"][number]
    assert differences(run, answer) == []



@pytest.mark.parametrize("number", range(len(FORMATS)), ids=FORMATS)
def test_sglang_s_structural_tags_are_toolcalls_own(number: int, answers: dict[str, Any]) -> None:
    """What SGLang constrains strict tools and ``tool_choice: "required"`` with: each tool's
    begin, end and trigger as toolcalls' own export writes them; none where it writes none."""
    fmt = FORMATS[number]
    got = answers["structural"][number]["tag"]
    try:
        expected = structural_tag(fmt, TOOLS, legacy=True)
    except ValueError:
        assert got is None
        return
    assert got is not None, f"{fmt}: toolcalls writes a tag, SGLang was told there is none"
    assert [(tag["begin"], tag["end"]) for tag in got["structures"]] == [
        (tag["begin"], tag["end"]) for tag in expected["structures"]]
    assert got["triggers"] == expected["triggers"]

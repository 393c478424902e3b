"""What every registered format owes, checked over the registry (`toolcalls.list_formats()`).

A format is one module, one registry line, one fixture folder and what its class declares
(`Format.models`, `wire`, `grammars`, `body_wrapper`, `no_corpus_reason`, `refused_values`,
`result_tags`, `result_region_end`, and for constrained decoding `call_region` or
`no_call_region_reason`, `structural_tag_markers`, `xgrammar_style`: see
`toolcalls/parsing/formats/_base.py`). The per-format
tests (goldens, round trips, the corpus, results, the XML-parameter family...) iterate over the
registry and read those declarations, so a new format is tested without editing them; this file
checks that the declarations and the files they point to are there and tell the truth.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from corpus import CORPUS, load_cases
from lark import Lark

import toolcalls
from toolcalls import Tool, ToolCall
from toolcalls.decoding._table import BUILDERS
from toolcalls.parsing._registry import FORMATS as REGISTRY
from toolcalls.parsing.formats._regions import XmlParameterCalls
from toolcalls.parsing.formats._results import is_result_opener

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
GRAMMARS = Path(toolcalls.__file__).resolve().parent / "parsing" / "grammars"
FORMATS = toolcalls.list_formats()
CASES = load_cases()

TOOL = Tool(
    name="write_note",
    parameters={
        "type": "object",
        "properties": {
            "text": {"type": "string"},
            "count": {"type": "integer"},
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object"},
        },
    },
)
CALLS = [
    ToolCall(id="call00000", name="write_note", span=(0, 0), arguments={
        "text": 'Line one,\n"quoted" <b>é</b> {braces}', "count": 3, "tags": ["a", "b"],
        "meta": {"nested": [1, {"k": None}]},
    }),
    ToolCall(id="call00001", name="write_note", arguments={"text": "second"}, span=(0, 0)),
]  # fmt: skip


@pytest.mark.parametrize("name", FORMATS)
def test_the_registry_entry_names_the_class_that_bears_the_name(name: str) -> None:
    fmt = toolcalls.get_format(name)
    assert fmt.name == name, f"{REGISTRY[name]} says its name is {fmt.name!r}"
    assert type(fmt).__module__.startswith("toolcalls.parsing.formats.")


@pytest.mark.parametrize("name", FORMATS)
def test_declares_its_models_and_wire_shape_for_the_readme(name: str) -> None:
    fmt = toolcalls.get_format(name)
    for field in ("models", "wire"):
        value = getattr(fmt, field)
        assert value.strip() and "\n" not in value, f"{name} must declare {field}: one line"


@pytest.mark.parametrize("name", FORMATS)
def test_has_a_fixture_folder_of_golden_pairs(name: str) -> None:
    folder = FIXTURES / name
    assert folder.is_dir(), f"fixtures/{name}/ is missing: each format has golden cases"
    texts = sorted(folder.glob("*.txt"))
    assert texts, f"fixtures/{name}/ holds no golden case (<case>.txt with <case>.json)"
    for text in texts:
        expected = text.with_suffix(".json")
        assert expected.is_file(), f"{text.name} has no {expected.name} (its expected parse)"
        assert {"content", "calls"} <= set(json.loads(expected.read_text(encoding="utf-8")))
    assert any(
        json.loads(text.with_suffix(".json").read_text(encoding="utf-8"))["calls"]
        for text in texts
    ), f"no golden case of fixtures/{name}/ has a call"


@pytest.mark.parametrize("name", FORMATS)
def test_rendered_calls_parse_back(name: str) -> None:
    """A round trip exists (`render_calls`); tests/parsing/test_roundtrip.py runs it at length."""
    fmt = toolcalls.get_format(name)
    text = fmt.render_calls(CALLS, "Writing two notes.")
    result = toolcalls.parse(text, name, tools=[TOOL])
    assert [(c.name, c.arguments) for c in result.calls] == [(c.name, c.arguments) for c in CALLS]
    assert result.content.strip() == "Writing two notes."
    assert result.issues == [] and result.incomplete == []


@pytest.mark.parametrize("name", FORMATS)
def test_has_a_corpus_section_or_says_why_not(name: str) -> None:
    fmt = toolcalls.get_format(name)
    rows = [case for case in CASES if case.format == name]
    path = CORPUS / f"{name}.jsonl"
    if fmt.no_corpus_reason:
        assert not rows, f"{name} declares no_corpus_reason but the corpus has rows for it"
        assert fmt.no_corpus_reason.strip()
        return
    assert path.is_file(), f"fixtures/corpus/{name}.jsonl is missing (or declare no_corpus_reason)"
    ids = {case.id for case in rows}
    assert any(row["id"] in ids for row in _rows(path)), f"corpus/{name}.jsonl has no {name} row"


def _rows(path: Path) -> list[dict[str, object]]:
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


@pytest.mark.parametrize("name", FORMATS)
def test_corpus_rows_of_a_call_body_have_a_body_wrapper(name: str) -> None:
    bodies = [c.id for c in CASES if c.format == name and c.row.get("scope") == "tool_call_body"]
    if bodies:
        assert toolcalls.get_format(name).body_wrapper is not None, (
            f"{name} must declare body_wrapper: its corpus has tool_call_body rows {bodies[:3]}"
        )


@pytest.mark.parametrize("name", FORMATS)
def test_declared_grammars_build_strictly(name: str) -> None:
    for grammar in toolcalls.get_format(name).grammars:
        assert (GRAMMARS / f"{grammar}.lark").is_file(), f"{name}: no grammars/{grammar}.lark"
        Lark.open_from_package(
            "toolcalls.parsing", f"{grammar}.lark", ("grammars",), parser="lalr", strict=True
        )


def test_every_grammar_file_is_declared_by_a_format() -> None:
    declared = {g for name in FORMATS for g in toolcalls.get_format(name).grammars}
    files = {path.stem for path in GRAMMARS.glob("*.lark")}
    assert files <= declared, f"declare in the formats' `grammars`: {sorted(files - declared)}"


@pytest.mark.parametrize("name", FORMATS)
def test_declared_result_markers_are_the_ones_it_reads_and_writes(name: str) -> None:
    fmt = toolcalls.get_format(name)
    written = fmt.render_result(CALLS[0], "RESULT") if (
        fmt.result_tags or fmt.result_region_end) else ""
    results = {m for m, factory in fmt.call_openers().items() if is_result_opener(factory)}
    if fmt.result_tags is not None:
        opener, closer = fmt.result_tags
        assert opener in results, f"{name} does not read {opener!r} as a result block"
        assert written.startswith(opener) and written.endswith(closer), written
    if fmt.result_region_end is not None:
        assert results, f"{name} declares result_region_end but reads no result region"
        assert fmt.result_region_end in written, written


@pytest.mark.parametrize("name", FORMATS)
def test_refused_values_are_refused(name: str) -> None:
    """The check that each also misreads when written raw is test_roundtrip's."""
    for value in toolcalls.get_format(name).refused_values:
        call = ToolCall(id="call00000", name="write_note", arguments={"text": value}, span=(0, 0))
        with pytest.raises(ValueError, match="text"):
            toolcalls.get_format(name).render_calls([call])


@pytest.mark.parametrize("name", FORMATS)
def test_calls_in_reasoning_are_read_as_it_declares(name: str) -> None:
    fmt = toolcalls.get_format(name)
    if fmt.reasoning_tags is None:
        assert not fmt.calls_in_reasoning, f"{name} has no reasoning block to read calls in"
        return
    start, end = fmt.reasoning_tags
    result = toolcalls.parse(f"{start}maybe {fmt.render_calls(CALLS[1:])}{end}", name)
    assert bool(result.calls) == fmt.calls_in_reasoning, (name, result.calls)


@pytest.mark.parametrize("name", FORMATS)
def test_has_a_whole_response_grammar_or_says_why_not(name: str) -> None:
    """A format declares how it writes its calls (`call_region`, a shape `toolcalls.decoding`
    has a builder for), and so has `toolcalls.decoding.grammar`, or says why not."""
    fmt = toolcalls.get_format(name)
    if fmt.call_region is None:
        assert fmt.no_call_region_reason, f"{name}: set call_region or no_call_region_reason"
        with pytest.raises(ValueError, match="no whole-response grammar"):
            toolcalls.decoding.grammar(name, [TOOL])
        return
    assert not fmt.no_call_region_reason, f"{name}: a call_region and a reason for none"
    assert type(fmt.call_region) in BUILDERS, f"{name}: no region builder for its shape"
    for dialect in ("llguidance", "lark", "gbnf"):
        assert toolcalls.decoding.grammar(name, [TOOL], dialect=dialect, tool_choice="required")


@pytest.mark.parametrize("name", FORMATS)
def test_structural_tag_declarations_fit_its_call_region(name: str) -> None:
    """Markers for a JSON structural tag (its begin starts with its trigger) or an xgrammar
    content style (for XML-parameter calls only), each only with a call region."""
    fmt = toolcalls.get_format(name)
    if fmt.xgrammar_style is not None:
        assert isinstance(fmt.call_region, XmlParameterCalls), f"{name}: xgrammar_style"
        assert toolcalls.decoding.structural_tag(name, [TOOL])["format"]["tags"]
    if fmt.structural_tag_markers is not None:
        assert fmt.call_region is not None, f"{name}: structural_tag_markers, no call_region"
        trigger, begin, _ = fmt.structural_tag_markers
        assert begin.format(name="f", name_json='"f"').startswith(trigger)
        assert toolcalls.decoding.structural_tag(name, [TOOL], legacy=True)["triggers"] == [trigger]

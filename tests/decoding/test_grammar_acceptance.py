"""Every corpus row and fixture whose calls toolcalls reads cleanly (at least one call, no
issue, valid against the row's tools) is accepted by the format's llguidance grammar, except
the rows in ``not_in_grammar.json``, each with where and why the matcher refused it. The
grammar is for generation: it writes what the chat template writes, with the blanks the
reader takes, so it leaves out on purpose: content that mentions a marker (``Reply with
<tool_call>``), parameters out of the schema's order, Llama's built-in tools in Python syntax,
call ids (Mistral ``[CALL_ID]``), empty or missing ``<arguments>``, and the slips the readers
recover. A row leaving the list (accepted now) or joining it fails the test: update the file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import toolcalls
from toolcalls.decoding import grammar
from toolcalls.decoding._table import REGIONS

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from corpus import CORPUS, Case  # noqa: E402

from toolcalls.testing._sampling import accepts  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

def infer_tools(calls: list[toolcalls.ToolCall]) -> list[dict[str, Any]]:
    """Tools for a row that declares none: each call's arguments, strings typed as strings."""
    found: dict[str, dict[str, Any]] = {}
    for call in calls:
        properties = found.setdefault(call.name, {})
        for key, value in call.arguments.items():
            properties.setdefault(key, {"type": "string"} if isinstance(value, str) else {})
    return [
        {"name": name, "parameters": {"type": "object", "properties": props,
                                      "required": list(props)}}
        for name, props in found.items()
    ]


def texts(name: str) -> list[tuple[str, str, dict[str, Any]]]:
    rows = []
    path = CORPUS / f"{name}.jsonl"
    if path.exists():
        for line in path.read_text().splitlines():
            case = Case(json.loads(line))
            rows.append((case.id, case.text, case.options()))
    for fixture in sorted((ROOT / "fixtures" / name).glob("*.txt")):
        rows.append((f"{name}/{fixture.stem}", fixture.read_text(), {}))
    return rows


def opens_with_reasoning(fmt: toolcalls.Format, text: str) -> bool:
    """Whether the text opens (after blanks) with the format's reasoning tag: its grammar is
    then the one with a reasoning block, though the block be empty (``<think></think>``) or
    blank and the reader find no reasoning text in it."""
    return fmt.reasoning_tags is not None and text.lstrip().startswith(fmt.reasoning_tags[0])


def refused(name: str) -> dict[str, str]:
    """Rows read cleanly that the grammar refuses: id -> the matcher's reason."""
    out = {}
    fmt = toolcalls.get_format(name)
    for row_id, text, options in texts(name):
        result = toolcalls.parse(text, name, validate=bool(options.get("tools")), **options)
        if not result.calls or result.issues or result.incomplete:
            continue
        tools = options.get("tools") or infer_tools(result.calls)
        thinking = bool(options.get("thinking"))
        if thinking and fmt.reasoning_tags:
            text = fmt.reasoning_tags[0] + text
        rules = grammar(name, tools, reasoning=thinking or bool(result.reasoning)
                        or opens_with_reasoning(fmt, text))
        why = accepts(rules, text)
        if why is not None:
            out[row_id] = why
    return out


EXPECTED_REFUSED = json.loads(
    (Path(__file__).parent / "not_in_grammar.json").read_text()
)


@pytest.mark.parametrize("name", sorted(REGIONS))
def test_clean_reads_are_in_the_grammar(name: str) -> None:
    got = sorted(refused(name))
    assert got == sorted(EXPECTED_REFUSED.get(name, {})), {
        row: why for row, why in refused(name).items()
        if row not in EXPECTED_REFUSED.get(name, {})
    }


TREE = {"name": "f", "parameters": {
    "type": "object", "properties": {"v": {"$ref": "#/$defs/node"}}, "required": ["v"],
    "$defs": {"node": {"type": "object", "properties": {
        "name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
        "required": ["name"]}}}}


# pythonic's values (olmo3's too) follow no $ref yet; minimax_m3's renderer refuses the empty
# list (without a schema it reads back as text): tests/decoding/test_key_tags.py has its refs
@pytest.mark.parametrize("name", sorted(set(REGIONS) - {"minimax_m3", "olmo3", "pythonic"}))
def test_local_refs_point_into_the_tools_defs(name: str) -> None:
    """The arguments' schema stands inside the grammar's (``{"name", "arguments"}``, or one
    parameter's value): its ``#/$defs/...`` refs pointed at a root without them and no
    grammar of a tool using $defs compiled."""
    arguments = {"v": {"name": "a <b>", "kids": [{"name": "c", "kids": []}]}}
    call = toolcalls.ToolCall(id="a", name="f", arguments=arguments, source="native")
    text = toolcalls.get_format(name).render_calls([call])
    assert accepts(grammar(name, [TREE], tool_choice="required"), text) is None

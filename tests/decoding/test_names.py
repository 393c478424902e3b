"""Tools a format cannot call (toolcalls/decoding/_names.py): a name, or a parameter's name,
that the format's reader would not read back is refused with a ToolDefinitionError naming the
format and why, by `grammar` and `structural_tag` alike; any other name is written as is."""

from __future__ import annotations

import pytest

import toolcalls
from toolcalls import ToolDefinitionError
from toolcalls.decoding import grammar, structural_tag
from toolcalls.decoding._table import REGIONS, TAGGED, XGRAMMAR_STYLES

pytest.importorskip("llguidance")
pytest.importorskip("numpy")

from toolcalls.testing._sampling import accepts  # noqa: E402

NAMES = ["resolve-library-id", "a b", "ns:tool", 'a"b', "a<b", "a>b", "a/b", "a=b", "a[b",
         "a\nb", "1abc", "a}b", "x:0", " a", "a ", "名前", "ns.tool", "get_weather"]


def _tool(name: str, parameter: str = "q") -> dict[str, object]:
    return {"name": name, "parameters": {"type": "object",
                                         "properties": {parameter: {"type": "string"}}}}


def _reads_back(format_name: str, name: str, parameter: str = "q") -> bool:
    call = toolcalls.ToolCall(id="a", name=name, arguments={parameter: "x"}, source="native")
    try:
        text = toolcalls.get_format(format_name).render_calls([call])
    except ValueError:
        return False
    result = toolcalls.parse(text, format_name)
    return [(c.name, c.arguments) for c in result.calls] == [(name, {parameter: "x"})] and (
        not result.issues)


@pytest.mark.parametrize("format_name", sorted(REGIONS))
def test_a_name_is_written_only_where_the_reader_reads_it_back(format_name: str) -> None:
    for name in NAMES:
        tools = [_tool(name)]
        if _reads_back(format_name, name):
            call = toolcalls.ToolCall(id="a", name=name, arguments={"q": "x"}, source="native")
            written = toolcalls.get_format(format_name).render_calls([call])
            assert accepts(grammar(format_name, tools), written) is None, name
        else:
            with pytest.raises(ToolDefinitionError, match=f"in the {format_name} format"):
                grammar(format_name, tools)


def test_the_issues_examples() -> None:
    with pytest.raises(ToolDefinitionError, match="Python dotted name"):
        grammar("pythonic", [_tool("resolve-library-id")])
    with pytest.raises(ToolDefinitionError, match="parameter names Python identifiers"):
        grammar("pythonic", [_tool("f", "library-id")])
    for format_name in ("xml", "mistral"):
        with pytest.raises(ToolDefinitionError, match="'a b'"):
            structural_tag(format_name, [_tool("a b")])
    assert grammar("pythonic", [_tool("resolve_library_id")])


@pytest.mark.parametrize("format_name", sorted({*TAGGED, *XGRAMMAR_STYLES}))
def test_structural_tags_refuse_the_same_names(format_name: str) -> None:
    for name in ("a b", "ns:tool", "a<b"):
        if _reads_back(format_name, name):
            assert structural_tag(format_name, [_tool(name)])
        else:
            with pytest.raises(ToolDefinitionError):
                structural_tag(format_name, [_tool(name)])

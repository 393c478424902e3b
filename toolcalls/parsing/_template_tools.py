"""The tools section of a chat template, as a `ToolsSpec`, for `render_tools` and prompt mode.

The template is rendered with the probe tools and without: what the tools add is the section
(after the system text and a blank line, where prompt mode puts it, when the template writes
it there; elsewhere, in a message or a role of its own, otherwise). Each tool is found in it as
JSON (OpenAI's object or the bare function, on one line or indented) between a start,
separators and an end; the description so found must write the section the template writes
for other tool sets with a system message, and a section the prompt holds as it is without
one (where a template may also write a default system text). A section written otherwise (each
tool in a language of its own, text that depends on the tools) is a `TemplateFormatError`
saying so, and the derived format then writes no tools (serve refuses prompt mode for it).

Whether prompt mode then gives the upstream the very prompt the template writes with native
tools (`writes_the_same_prompt`) depends on where the section goes: only after the system
text does it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tools._read import to_tools
from ..tools._tool import Tool
from ._chat_template import ChatTemplate, TemplateFormatError, TemplateRenderError
from ._template_probe import PROBE_TOOLS, TOKEN, common_prefix
from .formats._declared import write_tools
from .formats._spec import ToolsSpec
from .formats._template_json import bare_tool, openai_tool, tojson

__all__ = ["JOINER", "prompt_with_tools", "tools_section", "tools_spec",
           "writes_the_same_prompt"]

SYSTEM, USER = "PROBE_SYSTEM_2W", "Probe the tools."
JOINER = "\n\n"
"""What prompt mode writes between the system text and the tools section (`serve._prompt`)."""
_SHAPES: list[tuple[str, int | None, bool]] = [
    (kind, indent, ascii_only) for kind in ("openai", "function") for indent in (None, 4, 2)
    for ascii_only in (False, True)]


def tools_spec(template: ChatTemplate) -> ToolsSpec:
    """How `template` writes its tools, checked on the probe tools, one of them and the
    probe tools reversed, each with a system message and without.

    Raises:
        TemplateFormatError: the template writes no tools, or in no shape a description
            holds; the message says which.
    """
    tools = to_tools(PROBE_TOOLS)
    spec = _described(tools_section(template, tools, SYSTEM), tools)
    for offered in (tools, tools[2:3], tools[::-1]):
        for system in (SYSTEM, None):
            if not _writes_the_section(template, write_tools(spec, offered), offered, system):
                where = "with" if system else "without"
                raise TemplateFormatError(
                    f"the template's tools section is no list of the tools as JSON: it "
                    f"changes otherwise with the tools ({where} a system message, "
                    f"{len(offered)} tools)")
    return spec


def _writes_the_section(template: ChatTemplate, written: str, tools: Sequence[Tool],
                        system: str | None) -> bool:
    """Whether `written` is the template's section for `tools`: the very one after a system
    text; without a system message, one the prompt holds as it is (the template may write
    more around it there: a system role, a default system text)."""
    if system:
        return written == tools_section(template, tools, system)
    return written in prompt_with_tools(template, tools)


def tools_section(template: ChatTemplate, tools: Sequence[Tool], system: str | None) -> str:
    """What `tools` add to the prompt the template writes: after the system text and a blank
    line when it writes them there, else wherever the two renderings differ."""
    with_tools = template.render(_messages(system), [openai_tool(tool) for tool in tools])
    without = _without_tools(template, _messages(system))
    if with_tools == without:
        raise TemplateFormatError("the template writes no tools section from `tools`")
    added = len(with_tools) - len(without)
    after = with_tools.find(system) + len(system) if system else -1
    if system and after >= len(system) and with_tools == (
            without[:after] + JOINER + with_tools[after + len(JOINER):after + added]
            + without[after:]):
        return with_tools[after + len(JOINER):after + added]
    return _inserted(with_tools, without)


def prompt_with_tools(template: ChatTemplate, tools: Sequence[Tool]) -> str:
    """The prompt the template writes for a user's message alone, given `tools`."""
    return template.render(_messages(None), [openai_tool(tool) for tool in tools])


def writes_the_same_prompt(template: ChatTemplate, spec: ToolsSpec,
                           tools: Sequence[Tool]) -> bool:
    """Whether prompt mode (the section after the system text and a blank line, or as the
    system message) gives the template the very prompt it writes given `tools` natively."""
    native = [openai_tool(tool) for tool in tools]
    section = write_tools(spec, tools)
    for system in (SYSTEM, None):
        text = f"{system}{JOINER}{section}" if system else section
        if _without_tools(template, _messages(text)) != template.render(_messages(system),
                                                                          native):
            return False
    return True


def _inserted(with_tools: str, without: str) -> str:
    """The text `with_tools` holds beyond `without`, which it holds whole. Where the cut could
    slide (the text before and the inserted text end alike), the one that starts at a special
    token and ends at one (``[AVAILABLE_TOOLS]...[/AVAILABLE_TOOLS]``, Kimi's ``<|im_system|>
    ...<|im_end|>``), else the latest."""
    size = len(with_tools) - len(without)
    head = len(common_prefix(with_tools, without))
    if size <= 0 or with_tools[head + size:] != without[head:]:
        raise TemplateFormatError("the template's tools change more of the prompt than one "
                                  "section")
    earliest = head
    while earliest > 0 and with_tools[earliest - 1] == with_tools[earliest - 1 + size]:
        earliest -= 1
    for at in range(earliest, head + 1):
        block = with_tools[at:at + size]
        if TOKEN.match(block) and any(m.end() == size for m in TOKEN.finditer(block)):
            return block
    return with_tools[head:head + size]


def _without_tools(template: ChatTemplate, messages: list[dict[str, Any]]) -> str:
    """The prompt with no tools: `tools` None, or empty for a template that iterates it
    regardless (Hermes 2 Pro's)."""
    try:
        return template.render(messages, None)
    except TemplateRenderError:
        return template.render(messages, [])


def _messages(system: str | None) -> list[dict[str, Any]]:
    user = {"role": "user", "content": USER}
    return [{"role": "system", "content": system}, user] if system else [user]


def _described(block: str, tools: list[Tool]) -> ToolsSpec:
    """The block as each tool's JSON between a start, separators and an end."""
    for kind, indent, ascii_only in _SHAPES:
        written = openai_tool if kind == "openai" else bare_tool
        spans = _spans(block, [tojson(written(tool), indent=indent, ensure_ascii=ascii_only)
                               for tool in tools])
        if spans is None:
            continue
        gaps = {block[end:start] for (_, end), (start, _) in zip(spans, spans[1:], strict=False)}
        if len(gaps) == 1:
            return ToolsSpec.model_validate({
                "start": block[:spans[0][0]], "separator": gaps.pop(),
                "end": block[spans[-1][1]:], "tool_object": kind, "indent": indent,
                "ensure_ascii": ascii_only})
    raise TemplateFormatError("the template writes its tools in no shape a description holds "
                              "(each tool as JSON, in order, one separator between two)")


def _spans(block: str, pieces: list[str]) -> list[tuple[int, int]] | None:
    spans, at = [], 0
    for piece in pieces:
        found = block.find(piece, at)
        if found < 0:
            return None
        spans.append((found, found + len(piece)))
        at = found + len(piece)
    return spans

"""What ``import toolcalls`` loads: the light core only; heavy libraries wait for first use.

Each check runs in a fresh interpreter, since this test process has long imported everything.
Speed itself is measured in ``bench/resources.py``, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("jsonschema", "lark", "tiktoken", "pydantic")
"""Libraries `import toolcalls` must not load: schema checks, grammars, tokenizers, models."""


def _modules_after(code: str) -> set[str]:
    """The names in ``sys.modules`` after running `code` in a new interpreter."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def _loaded(modules: set[str], package: str) -> bool:
    return any(name == package or name.startswith(package + ".") for name in modules)


def test_import_loads_no_heavy_library() -> None:
    modules = _modules_after("import toolcalls")
    assert [package for package in HEAVY if _loaded(modules, package)] == []


def test_import_loads_no_format_and_no_engine() -> None:
    modules = _modules_after("import toolcalls")
    assert not _loaded(modules, "toolcalls.parsing.formats")
    assert not _loaded(modules, "toolcalls.parsing._engine")


@pytest.mark.parametrize(
    ("use", "loads"),
    [
        ("toolcalls.Tool", "pydantic"),
        ("toolcalls.StreamParser", "toolcalls.parsing.stream"),
        ("toolcalls.Tool(name='f')", "jsonschema"),
        ("toolcalls.parse('<tool_call>{\"name\": \"f\"}</tool_call>', 'hermes')", "lark"),
        ("toolcalls.budget.count_tokens('hi')", "tiktoken"),
    ],
)
def test_first_use_loads_what_it_needs(use: str, loads: str) -> None:
    assert _loaded(_modules_after(f"import toolcalls\n{use}"), loads)


def test_models_load_before_their_schema_checks() -> None:
    """A parse without tools builds no schema validator: jsonschema stays unloaded."""
    modules = _modules_after("import toolcalls\ntoolcalls.parse('hello', 'qwen3_coder')")
    assert _loaded(modules, "pydantic")
    assert not _loaded(modules, "jsonschema")


def test_lazy_core_names_are_public_objects() -> None:
    modules_code = (
        "import toolcalls\n"
        "names = ['Tool', 'ToolCall', 'ParseResult', 'ParseIssue', 'IncompleteCall', "
        "'StreamParser']\n"
        "assert all(getattr(toolcalls, n).__module__ == 'toolcalls' for n in names)\n"
        "from toolcalls import Tool\n"
        "assert Tool is toolcalls.tools._tool.Tool"
    )
    assert _loaded(_modules_after(modules_code), "toolcalls.parsing._models")

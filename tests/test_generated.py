"""The generated files are what `tests/generate.py` writes from their sources, never edited."""

from __future__ import annotations

import pytest
from generate import COMMAND, GENERATED


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_the_committed_file_is_what_the_script_generates(name: str) -> None:
    path, generate = GENERATED[name]
    assert path.read_text(encoding="utf-8") == generate(), (
        f"{name} differs from what its sources give: run `{COMMAND}` and commit the result"
    )


def test_the_readme_table_has_a_row_per_registered_format() -> None:
    from generate import formats_table

    import toolcalls

    rows = formats_table().splitlines()[2:]
    assert [row.split("`")[1] for row in rows] == toolcalls.list_formats()

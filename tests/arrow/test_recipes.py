"""The engines people parse logs in, each running toolcalls as docs/scale.md shows, on real
outputs of several formats: every engine gives, row for row, what `toolcalls.parse` gives.

Hugging Face ``datasets`` (``map(batched=True, num_proc=2)`` on Arrow batches), Ray Data
(``map_batches(batch_format="pyarrow")`` on a local Ray the module starts with 2 CPUs and
stops), Polars (``map_batches`` on a column, then one row per call) and DuckDB (an Arrow UDF,
then ``unnest`` and ``->>`` over the calls). Nothing is downloaded: the datasets are built from
local rows, and Ray reports no usage statistics.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import duckdb
import polars as pl
import pyarrow as pa
import pytest
from corpus import load_cases

import toolcalls
from toolcalls.arrow import RESULT_TYPE, calls_table, parse_array, parse_table

FORMATS = ("hermes", "qwen3_coder", "kimi_k2", "glm47", "mistral", "deepseek_v31")


def _span(span: tuple[int, int] | None) -> dict[str, int] | None:
    return None if span is None else {"start": span[0], "end": span[1]}


def as_row(result: toolcalls.ParseResult) -> dict[str, Any]:
    """A parse as `RESULT_TYPE`'s Python value: what each engine must give for its row."""
    return {
        "format": result.format, "content": result.content, "reasoning": result.reasoning,
        "calls": [{"id": call.id, "name": call.name, "arguments": call.arguments_json(),
                   "span": _span(call.span), "source": call.source} for call in result.calls],
        "incomplete": [{"name": call.name, "raw": call.raw, "span": _span(call.span),
                        "source": call.source} for call in result.incomplete],
        "issues": [{"kind": issue.kind, "message": issue.message, "span": _span(issue.span)}
                   for issue in result.issues],
        "provider": None, "finish_reason": None, "usage": None, "error": None,
    }


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return [case.text for name in FORMATS for case in load_cases([name])]


@pytest.fixture(scope="module")
def expected(texts: list[str]) -> list[dict[str, Any]]:
    return [as_row(toolcalls.parse(text, "auto")) for text in texts]


def test_the_engines_see_a_real_mix(texts: list[str], expected: list[dict[str, Any]]) -> None:
    assert len(texts) > 200 and len({row["format"] for row in expected}) >= len(FORMATS)
    assert sum(len(row["calls"]) for row in expected) > 200


def test_parse_table_and_calls_table(texts: list[str], expected: list[dict[str, Any]]) -> None:
    table = parse_table(pa.table({"id": range(len(texts)), "text": texts}), "text")
    assert table.column_names == ["id", "text", "parsed"]
    assert table.column("parsed").to_pylist() == expected
    calls = calls_table(table.column("parsed"))
    assert calls.column("name").to_pylist() == [c["name"] for row in expected
                                                for c in row["calls"]]
    assert calls.column("row").to_pylist() == [n for n, row in enumerate(expected)
                                               for _ in row["calls"]]
    with pytest.raises(ValueError, match="has a column 'parsed' already"):
        parse_table(table, "text")


# -- Hugging Face datasets ------------------------------------------------------------------


def parse_batch(batch: pa.Table) -> pa.Table:
    """The datasets recipe's function: a pyarrow table in (``with_format("arrow")``), one out."""
    return parse_table(batch, "text")


def test_datasets_map_with_two_processes(texts: list[str], expected: list[dict[str, Any]],
                                         tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    import datasets  # after the cache is pointed at tmp_path: it reads the variable on import

    dataset = datasets.Dataset.from_dict({"text": texts}).with_format("arrow")
    mapped = dataset.map(parse_batch, batched=True, batch_size=64, num_proc=2)
    assert mapped.with_format(None)["parsed"] == expected


# -- Ray Data --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ray_local() -> Iterator[Any]:
    """A local Ray with 2 CPUs on loopback, no dashboard and no usage statistics, stopped
    after."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # it would report over the network
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False, _node_ip_address="127.0.0.1")  # loopback only
    try:
        yield ray
    finally:
        ray.shutdown()


# Ray Data warns, on its own import paths, about its own settings being deprecated
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_ray_data_map_batches(ray_local: Any, texts: list[str],
                              expected: list[dict[str, Any]]) -> None:
    import ray.data

    rows = ray.data.from_arrow(pa.table({"id": range(len(texts)), "text": texts}))
    # Ray's workers import the function by name: one from the package, not from this file
    parsed = rows.repartition(4).map_batches(partial(parse_table, column="text"),
                                             batch_format="pyarrow")
    table = pa.concat_tables(ray_local.get(parsed.to_arrow_refs())).sort_by("id")
    assert table.column("id").to_pylist() == list(range(len(texts)))
    assert table.column("parsed").to_pylist() == expected


# -- Polars ----------------------------------------------------------------------------------


def test_polars_struct_column_and_one_row_per_call(texts: list[str],
                                                   expected: list[dict[str, Any]]) -> None:
    frame = pl.DataFrame({"text": texts}).with_columns(
        pl.col("text").map_batches(lambda texts: pl.from_arrow(parse_array(texts.to_arrow())),
                                   return_dtype=pl.from_arrow(pa.array([], RESULT_TYPE)).dtype)
        .alias("parsed"))
    assert frame["parsed"].to_list() == expected
    calls = (frame.with_row_index("row").select("row", pl.col("parsed").struct.field("calls"))
             .explode("calls").drop_nulls("calls").unnest("calls"))
    assert calls["name"].to_list() == [c["name"] for row in expected for c in row["calls"]]
    assert [json.loads(text) for text in calls["arguments"]] == [
        json.loads(c["arguments"]) for row in expected for c in row["calls"]]


# -- DuckDB ----------------------------------------------------------------------------------


def test_duckdb_arrow_udf_and_a_query_over_the_calls(texts: list[str],
                                                     expected: list[dict[str, Any]]) -> None:
    con = duckdb.connect()
    result_type = con.from_arrow(pa.table({"r": pa.array([], RESULT_TYPE)})).types[0]
    con.create_function("parse_response", lambda column: parse_array(column),
                        [duckdb.sqltype("VARCHAR")], result_type, type="arrow")
    con.register("log", pa.table({"id": range(len(texts)), "text": texts}))
    parsed = con.sql("SELECT parse_response(text) AS parsed FROM log ORDER BY id").to_arrow_table()
    assert parsed.column("parsed").to_pylist() == expected
    names = con.sql("SELECT c.name, c.arguments->>'$' AS arguments FROM "
                    "(SELECT id, unnest(parse_response(text).calls) AS c FROM log) ORDER BY id"
                    ).fetchall()
    assert [name for name, _ in names] == [c["name"] for row in expected for c in row["calls"]]
    assert [json.loads(text) for _, text in names] == [
        json.loads(c["arguments"]) for row in expected for c in row["calls"]]
    con.close()

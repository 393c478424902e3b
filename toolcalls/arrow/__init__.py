"""Parse whole columns of responses into Arrow: for engines that work in Arrow batches.

Needs the extra: ``pip install 'toolcalls[arrow]'`` (pyarrow). One call parses a column and
returns a struct column of `RESULT_TYPE`, one row per input row, nulls where the input is null::

    import pyarrow as pa
    from toolcalls.arrow import parse_array

    texts = pa.array(['<tool_call>{"name": "f", "arguments": {"x": 1}}</tool_call>', None])
    parsed = parse_array(texts, "hermes")
    parsed.field("calls")[0][0]["name"]  # <pyarrow.StringScalar: 'f'>

`parse_table` appends such a column to a table: the body of a Hugging Face
``datasets.map(batched=True)`` or a Ray Data ``map_batches(batch_format="pyarrow")``;
`parse_array` is a Polars ``map_batches`` or a DuckDB Arrow UDF; `calls_table` gives one row per
call. With ``provider=...`` each row is a saved provider response or captured stream instead
of text.
"""

from __future__ import annotations

from ._parse import parse_array
from ._schema import RESULT_TYPE
from ._table import calls_table, parse_table

__all__ = ["RESULT_TYPE", "calls_table", "parse_array", "parse_table"]

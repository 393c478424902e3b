"""Property-based testing for tool-call parsers: hypothesis strategies and a differential fuzzer.

Needs hypothesis: ``pip install 'toolcalls[testing]'``. Import it as a submodule
(``from toolcalls.testing import responses``); ``import toolcalls`` does not load it.

* `tools`, `arguments`, `calls`: tools (their schemas from `schemas` or plain properties) and
  calls of them whose arguments fit the schemas.
* `responses`: responses in a format, written by the format's own ``render_calls``, with
  prose, reasoning, and (``hostile=True``) every delimiter of the format inside values and
  prose, unicode, truncation.
* `chunkings`, `mutations`: the deltas a stream may cut a text into; edits of a text.
* `prose`, `strings`, `names`, `delimiters`: the text, identifiers and markup the others draw from.
* `fuzz`: another parser against toolcalls, disagreements shrunk into JSONL reproducers (also
  ``toolcalls fuzz --format F --against MODULE:CALLABLE``).

Each strategy's docstring holds an example test to paste; ``tests/testing`` runs them all.
"""

from ._fuzz import KINDS, Disagreement, FuzzReport, classify, fuzz, normalize_calls
from ._strategies import (
    arguments,
    calls,
    chunkings,
    delimiters,
    mutations,
    names,
    prose,
    responses,
    schemas,
    split_at,
    strings,
    tools,
)

__all__ = [
    "KINDS", "Disagreement", "FuzzReport", "arguments", "calls", "chunkings", "classify",
    "delimiters", "fuzz", "mutations", "names", "normalize_calls", "prose", "responses", "schemas",
    "split_at", "strings", "tools",
]

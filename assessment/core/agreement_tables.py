"""Agreement tables over many assessors: every pair's kappas, each assessor's mean with the
others (ARQMath's Fig. 3), means over topics, and pairs pooled across assessors. Pure Python,
no Django; the statistics themselves are agreement.py's.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Generic, TypeVar

from assessment.core.agreement import GRADES, Agreement, Rating, kappa_of_pairs, shared_pairs
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL

H = TypeVar("H", bound=Hashable)  # a hit id
A = TypeVar("A", bound=Hashable)  # an assessor id


@dataclass(frozen=True)
class PairAgreement(Generic[A]):
    """Kappas of one pair of assessors over the hits both graded."""

    first: A
    second: A
    shared: int
    kappa: Agreement
    kappa_binary: Agreement
    kappa_linear: Agreement
    kappa_quadratic: Agreement
    percentage: Agreement
    # Each of the two gave some shared hit a relevant grade (ARQMath-2's condition for a
    # topic's kappa to count in the mean over topics).
    both_found_relevant: bool = False


@dataclass(frozen=True)
class AssessorMean(Generic[A]):
    """An assessor's mean kappa with every other assessor they share hits with (ARQMath Fig. 3)."""

    assessor: A
    mean_kappa: Agreement
    mean_kappa_binary: Agreement
    partners: int


def binary_pairs(
    pairs: Sequence[tuple[int, int]], relevant_from: int = ARQMATH_RELEVANCE_LEVEL
) -> list[tuple[int, int]]:
    """Paired grades binarized at ``relevant_from`` (1: relevant)."""
    return [(int(x >= relevant_from), int(y >= relevant_from)) for x, y in pairs]


def pair_agreement(
    first: A,
    second: A,
    a: Rating[H],
    b: Rating[H],
    *,
    categories: Sequence[int] = GRADES,
    relevant_from: int = ARQMATH_RELEVANCE_LEVEL,
) -> PairAgreement[A]:
    """All pairwise measures of two assessors at once, on the scale ``categories`` (0..G)
    with grade >= ``relevant_from`` relevant for the binary kappa."""
    pairs = shared_pairs(a, b)
    binary = binary_pairs(pairs, relevant_from)
    agreed = sum(x == y for x, y in pairs)
    percentage = (
        Agreement(agreed / len(pairs), len(pairs))
        if pairs
        else Agreement(None, 0, "no shared hits")
    )
    return PairAgreement(
        first=first,
        second=second,
        shared=len(pairs),
        kappa=kappa_of_pairs(pairs, categories=categories),
        kappa_binary=kappa_of_pairs(binary, categories=(0, 1)),
        kappa_linear=kappa_of_pairs(pairs, weights="linear", categories=categories),
        kappa_quadratic=kappa_of_pairs(pairs, weights="quadratic", categories=categories),
        percentage=percentage,
        both_found_relevant=any(x for x, _ in binary) and any(y for _, y in binary),
    )


def pairwise_agreements(
    ratings: Mapping[A, Rating[H]],
    *,
    categories: Sequence[int] = GRADES,
    relevant_from: int = ARQMATH_RELEVANCE_LEVEL,
) -> list[PairAgreement[A]]:
    """Every pair of assessors that shares at least one graded hit, in assessor order."""
    assessors = sorted(ratings, key=repr)
    result = []
    for first, second in combinations(assessors, 2):
        if ratings[first].keys() & ratings[second].keys():
            result.append(
                pair_agreement(
                    first,
                    second,
                    ratings[first],
                    ratings[second],
                    categories=categories,
                    relevant_from=relevant_from,
                )
            )
    return result


def _mean(values: Iterable[Agreement]) -> Agreement:
    defined = [v.value for v in values if v.value is not None]
    if not defined:
        return Agreement(None, 0, "no defined kappa with another assessor")
    return Agreement(statistics.fmean(defined), len(defined))


def assessor_means(pairs: Iterable[PairAgreement[A]]) -> list[AssessorMean[A]]:
    """Per assessor, the mean of their defined pairwise kappas (4-way and binary)."""
    by_assessor: dict[A, list[PairAgreement[A]]] = defaultdict(list)
    for pair in pairs:
        by_assessor[pair.first].append(pair)
        by_assessor[pair.second].append(pair)
    return [
        AssessorMean(
            assessor=assessor,
            mean_kappa=_mean(p.kappa for p in found),
            mean_kappa_binary=_mean(p.kappa_binary for p in found),
            partners=len(found),
        )
        for assessor, found in sorted(by_assessor.items(), key=lambda kv: repr(kv[0]))
    ]


# --- Over a task's topics ------------------------------------------------------------------

L = TypeVar("L", bound=Hashable)  # a topic label


NO_RELEVANT_FROM_BOTH = "not both assessors found a relevant hit"


@dataclass(frozen=True)
class TopicMean(Generic[L]):
    """The mean of per-topic agreements over the topics ARQMath-2 counted, and the topics left
    out with the reason."""

    mean: Agreement  # ``n`` counts the topics averaged
    left_out: list[tuple[L, str]]


def mean_over_topics(per_topic: Iterable[tuple[L, Agreement, bool]]) -> TopicMean[L]:
    """ARQMath-2's post-assessment kappa: the mean of each dual-assessed topic's kappa over the
    topics where both assessors found some relevant (H+M) hits, because "meaningful values of
    kappa can not be calculated" for the others (ARQMath-2 overview, assessor agreement). The
    4-way and the binary mean are taken over that same set of topics; a topic in it whose kappa
    is still undefined (fewer than 2 shared hits, no variation) is left out too, never counted
    as 0. ``per_topic``: (label, kappa, both assessors found a relevant hit)."""
    values: list[float] = []
    left_out: list[tuple[L, str]] = []
    for label, agreement, both_found_relevant in per_topic:
        if not both_found_relevant:
            left_out.append((label, NO_RELEVANT_FROM_BOTH))
        elif agreement.value is None:
            left_out.append((label, agreement.reason))
        else:
            values.append(agreement.value)
    if not values:
        return TopicMean(Agreement(None, 0, "no topic with a meaningful kappa"), left_out)
    return TopicMean(Agreement(statistics.fmean(values), len(values)), left_out)


def pooled_pairs(ratings: Mapping[A, Rating[H]]) -> list[tuple[int, int]]:
    """The shared grades of every pair of assessors together (first, second in assessor
    order): the pooled table a single task-wide kappa is computed from."""
    assessors = sorted(ratings, key=repr)
    return [
        pair
        for first, second in combinations(assessors, 2)
        for pair in shared_pairs(ratings[first], ratings[second])
    ]

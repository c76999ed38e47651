"""Inter-assessor agreement: Cohen's kappa (plain and weighted), Krippendorff's alpha,
percentage agreement and bootstrap confidence intervals. Pure Python, no Django.

Input: a *rating* is a mapping ``hit id -> grade`` (0..G of the task's scale; ARQMath's
0 N, 1 L, 2 M, 3 H by default) for one assessor.
Flags ("system failure", "do not know") are not grades: callers leave those hits out, as
ARQMath did when it computed kappa (docs/agreement.md). Hit ids may be any hashable value.

A measure that cannot be computed returns an :class:`Agreement` whose ``value`` is ``None``
and whose ``reason`` says why ("fewer than 2 shared hits", "no variation"); nothing here
returns NaN, so pages can print "n/a" with the reason.
"""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal, TypeVar

from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL

GRADES: tuple[int, ...] = (0, 1, 2, 3)  # ARQMath's scale; a task passes its own 0..G

FEWER_THAN_TWO = "fewer than 2 shared hits"
NO_VARIATION = "no variation"

H = TypeVar("H", bound=Hashable)  # a hit id
A = TypeVar("A", bound=Hashable)  # an assessor id
Rating = Mapping[H, int]
Weights = Literal["linear", "quadratic"] | None
Level = Literal["nominal", "ordinal"]


@dataclass(frozen=True)
class Agreement:
    """A measured agreement over ``n`` shared hits, or the reason it is undefined."""

    value: float | None
    n: int
    reason: str = ""

    @property
    def defined(self) -> bool:
        return self.value is not None

    def __str__(self) -> str:
        return f"{self.value:.3f}" if self.value is not None else f"n/a ({self.reason})"


@dataclass(frozen=True)
class ConfidenceInterval:
    """A percentile bootstrap interval, or the reason there is none."""

    low: float | None
    high: float | None
    confidence: float
    resamples: int  # resamples on which the statistic was defined
    reason: str = ""

    @property
    def defined(self) -> bool:
        return self.low is not None and self.high is not None


def binarize(rating: Rating[H], *, relevant_from: int = ARQMATH_RELEVANCE_LEVEL) -> dict[H, int]:
    """H+M binarization (ARQMath): 1 when grade >= ``relevant_from``, else 0."""
    return {hit: int(grade >= relevant_from) for hit, grade in rating.items()}


def shared_pairs(a: Rating[H], b: Rating[H]) -> list[tuple[int, int]]:
    """The (grade of a, grade of b) pairs of the hits both judged, in a stable order."""
    shared = a.keys() & b.keys()
    return [(a[hit], b[hit]) for hit in sorted(shared, key=repr)]


def shared_hits(ratings: Mapping[A, Rating[H]]) -> set[H]:
    """The hits two or more assessors graded: the hits agreement is computed over, and what
    every page calls "shared hits". A hit one assessor flagged and one graded is not shared
    (a flag is not a grade)."""
    seen: set[H] = set()
    shared: set[H] = set()
    for rating in ratings.values():
        shared |= seen & rating.keys()
        seen |= rating.keys()
    return shared


def _weight(i: int, j: int, weights: Weights, span: int) -> float:
    """Disagreement weight of grades i and j (0 on the diagonal)."""
    if weights is None:
        return 0.0 if i == j else 1.0
    distance = abs(i - j) / span
    return distance if weights == "linear" else distance * distance


def kappa_of_pairs(
    pairs: Sequence[tuple[int, int]],
    *,
    weights: Weights = None,
    categories: Sequence[int] = GRADES,
) -> Agreement:
    """Cohen's kappa (Cohen 1960; weighted: Cohen 1968) over paired grades.

    kappa = 1 - sum(w * observed) / sum(w * expected), with w the disagreement weight; for
    unweighted kappa this is (p_o - p_e) / (1 - p_e). Weighted kappa measures distances on the
    grade scale ``categories`` (0..G), not only between the grades that happen to occur.
    """
    n = len(pairs)
    if n < 2:
        return Agreement(None, n, FEWER_THAN_TWO)
    # A grade outside the scale (given before the scale was narrowed) widens it.
    seen = {*categories, *(a for a, _ in pairs), *(b for _, b in pairs)}
    span = max(max(seen) - min(seen), 1)
    row = Counter(a for a, _ in pairs)
    col = Counter(b for _, b in pairs)
    observed = Counter(pairs)
    disagreement = sum(count * _weight(i, j, weights, span) for (i, j), count in observed.items())
    expected = sum(row[i] * col[j] * _weight(i, j, weights, span) for i in row for j in col) / n
    if expected <= 1e-12:
        return Agreement(None, n, NO_VARIATION)
    return Agreement(1.0 - disagreement / expected, n)


def cohen_kappa(
    a: Rating[H], b: Rating[H], *, weights: Weights = None, categories: Sequence[int] = GRADES
) -> Agreement:
    """Cohen's kappa between two assessors over the hits both graded ((G+1)-way over
    ``categories``; ARQMath's 4-way over 0-3)."""
    return kappa_of_pairs(shared_pairs(a, b), weights=weights, categories=categories)


def cohen_kappa_binary(
    a: Rating[H], b: Rating[H], *, relevant_from: int = ARQMATH_RELEVANCE_LEVEL
) -> Agreement:
    """Cohen's kappa after binarization at ``relevant_from`` (ARQMath's H+M: grade >= 2)."""
    return kappa_of_pairs(
        shared_pairs(
            binarize(a, relevant_from=relevant_from), binarize(b, relevant_from=relevant_from)
        ),
        categories=(0, 1),
    )


def percentage_agreement(a: Rating[H], b: Rating[H]) -> Agreement:
    """Share of the shared hits on which both assessors gave the same grade."""
    pairs = shared_pairs(a, b)
    if not pairs:
        return Agreement(None, 0, "no shared hits")
    return Agreement(sum(x == y for x, y in pairs) / len(pairs), len(pairs))


def _ordinal_distance(
    counts: Mapping[int, int], domain: Sequence[int]
) -> Callable[[int, int], float]:
    """Krippendorff's ordinal metric: (sum of n_g for g between c and k - (n_c + n_k)/2)^2."""
    order = sorted({*domain, *counts})  # a grade outside the scale still has its place
    cumulative: dict[int, float] = {}
    running = 0
    for value in order:
        running += counts.get(value, 0)
        cumulative[value] = running

    def distance(c: int, k: int) -> float:
        low, high = min(c, k), max(c, k)
        inner = cumulative[high] - cumulative[low] + counts.get(low, 0)
        return (inner - (counts.get(low, 0) + counts.get(high, 0)) / 2) ** 2

    return distance


Coincidences = dict[tuple[int, int], float]


def coincidences(ratings: Mapping[A, Rating[H]]) -> Coincidences:
    """Krippendorff's coincidence matrix: each pairable unit (hit with m >= 2 values) adds
    1/(m - 1) for every ordered pair of its values. Units with one value are left out.
    """
    units: dict[H, list[int]] = defaultdict(list)
    for rating in ratings.values():
        for hit, grade in rating.items():
            units[hit].append(grade)
    # Most units have exactly two values (dual assessment): count those pairs in one pass.
    pairs: Counter[tuple[int, int]] = Counter()
    matrix: Coincidences = defaultdict(float)
    for values in units.values():
        m = len(values)
        if m == 2:
            pairs[(values[0], values[1])] += 1
        elif m > 2:
            for i, j in combinations(range(m), 2):
                matrix[(values[i], values[j])] += 1 / (m - 1)
                matrix[(values[j], values[i])] += 1 / (m - 1)
    for (c, k), count in pairs.items():
        matrix[(c, k)] += count
        matrix[(k, c)] += count
    return matrix


def krippendorff_alpha(
    ratings: Mapping[A, Rating[H]],
    *,
    level: Level = "ordinal",
    domain: Sequence[int] = GRADES,
    matrix: Coincidences | None = None,
) -> Agreement:
    """Krippendorff's alpha over any number of assessors with missing values
    (Krippendorff 2011, "Computing Krippendorff's Alpha-Reliability").

    ``ratings`` maps each assessor to their rating; hits graded by fewer than two assessors
    are not pairable and are left out. alpha = 1 - (n - 1) * sum o_ck d_ck / sum n_c n_k d_ck
    over the coincidence matrix o (pass ``matrix`` to reuse one computed for another level).
    ``n`` of the result counts the pairable values.
    """
    matrix = coincidences(ratings) if matrix is None else matrix
    totals: dict[int, float] = defaultdict(float)
    for (c, _), weight in matrix.items():
        totals[c] += weight
    n_values = round(sum(totals.values()))
    if n_values < 2:
        return Agreement(None, n_values, FEWER_THAN_TWO)
    if level == "ordinal":
        distance = _ordinal_distance({c: round(v) for c, v in totals.items()}, domain)
    else:

        def distance(c: int, k: int) -> float:
            return 0.0 if c == k else 1.0

    observed = sum(w * distance(c, k) for (c, k), w in matrix.items())
    expected = sum(totals[c] * totals[k] * distance(c, k) for c in totals for k in totals)
    if expected <= 1e-12:
        return Agreement(None, n_values, NO_VARIATION)
    return Agreement(1.0 - (n_values - 1) * observed / expected, n_values)


def bootstrap_ci(
    pairs: Sequence[tuple[int, int]],
    statistic: Callable[[Sequence[tuple[int, int]]], Agreement],
    *,
    rng: random.Random,
    resamples: int = 1000,
    confidence: float = 0.95,
    min_pairs: int = 10,
) -> ConfidenceInterval:
    """Percentile bootstrap over shared hits (Efron & Tibshirani 1993, ch. 13).

    Resamples the hit pairs with replacement ``resamples`` times and takes the
    (1 - confidence)/2 and (1 + confidence)/2 quantiles of the defined statistics.
    Resamples on which the statistic is undefined (e.g. no variation) are skipped.
    """
    n = len(pairs)
    if n < min_pairs:
        return ConfidenceInterval(None, None, confidence, 0, f"fewer than {min_pairs} shared hits")
    values: list[float] = []
    for _ in range(resamples):
        sample = rng.choices(pairs, k=n)
        result = statistic(sample)
        if result.value is not None:
            values.append(result.value)
    if len(values) < max(2, resamples // 2):
        return ConfidenceInterval(None, None, confidence, len(values), NO_VARIATION)
    values.sort()
    tail = (1.0 - confidence) / 2
    return ConfidenceInterval(
        _quantile(values, tail), _quantile(values, 1.0 - tail), confidence, len(values)
    )


def _quantile(ordered: Sequence[float], q: float) -> float:
    """Linear-interpolated quantile of sorted values (numpy's default method)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

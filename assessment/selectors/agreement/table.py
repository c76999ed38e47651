"""An agreement table: pairwise kappas, per-assessor means, alpha, intervals, gold agreement.

What the agreement pages and exports show, and how one is computed from ratings (assessor ->
hit -> grade) with the pure core in ``assessment.core.agreement`` on the task's scale.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from assessment.core.agreement import (
    GRADES,
    Agreement,
    ConfidenceInterval,
    bootstrap_ci,
    coincidences,
    kappa_of_pairs,
    krippendorff_alpha,
    shared_pairs,
)
from assessment.core.agreement_tables import (
    AssessorMean,
    PairAgreement,
    TopicMean,
    assessor_means,
    binary_pairs,
    mean_over_topics,
    pairwise_agreements,
)
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.machine_judges import assessor_names
from collection.models import RetrievalTask
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL

Ratings = dict[int, dict[int, int]]  # assessor id -> hit id -> grade


@dataclass(frozen=True)
class ScalePoints:
    """What agreement needs of a task's scale: its grades 0..G, for the
    (G+1)-way and weighted kappas and alpha, and the relevance level binary kappa uses."""

    categories: tuple[int, ...] = GRADES
    relevant_from: int = ARQMATH_RELEVANCE_LEVEL

    @property
    def ways(self) -> int:
        return len(self.categories)


def scale_points(task: RetrievalTask) -> ScalePoints:
    """The agreement-relevant part of the scale of the task's guidelines in force."""
    current = guidelines_current(task=task)
    return ScalePoints(current.scale.values, current.relevance_level)


@dataclass(frozen=True)
class GoldAgreement:
    """One assessor's agreement with the round's gold grades."""

    assessor: int
    kappa: Agreement
    kappa_binary: Agreement
    percentage: float | None
    shared: int


@dataclass(frozen=True)
class AgreementTable:
    """Pairwise kappas, per-assessor means, alpha over everyone, and (training) gold agreement."""

    pairs: list[PairAgreement[int]]
    means: list[AssessorMean[int]]
    alpha_ordinal: Agreement
    alpha_nominal: Agreement
    names: dict[int, str]
    gold: list[GoldAgreement] = field(default_factory=list)
    intervals: dict[tuple[int, int], tuple[ConfidenceInterval, ConfidenceInterval]] = field(
        default_factory=dict
    )
    # (topic number, pair) for every pair of assessors within each topic (task tables only).
    per_topic: list[tuple[str, PairAgreement[int]]] = field(default_factory=list)
    scale: ScalePoints = field(default_factory=ScalePoints)
    # (4-way, binary) kappa over every pair's shared hits pooled together (task tables only).
    pooled: tuple[Agreement, Agreement] | None = None
    # Whether the task has machine judges' grades (task tables only), taking part or not.
    has_machine_judges: bool = False
    # Hits two or more of the table's assessors graded (``shared_hits``; task tables only),
    # and two or more people (machine judges left out: what the adjudication page counts).
    shared_hits: int = 0
    people_shared_hits: int = 0

    def name(self, assessor: int) -> str:
        return self.names.get(assessor, f"#{assessor}")

    @property
    def pair_rows(self) -> list[tuple[str, str, PairAgreement[int], tuple[Any, ...]]]:
        """Pairs with both names and, when computed, their (4-way, binary) intervals."""
        return [
            (
                self.name(p.first),
                self.name(p.second),
                p,
                self.intervals.get((p.first, p.second), ()),
            )
            for p in self.pairs
        ]

    @property
    def topic_rows(self) -> list[tuple[str, str, str, PairAgreement[int]]]:
        """Per topic and pair: topic number, both names and the pair's measures."""
        return [(topic, self.name(p.first), self.name(p.second), p) for topic, p in self.per_topic]

    def _by_topic(self, binary: bool) -> list[tuple[str, Agreement, bool]]:
        """(label, kappa, both found a relevant hit) per topic and pair; the label names the
        pair when a topic has more."""
        pairs_in = Counter(topic for topic, _ in self.per_topic)
        return [
            (
                topic
                if pairs_in[topic] == 1
                else f"{topic} ({self.name(pair.first)} · {self.name(pair.second)})",
                pair.kappa_binary if binary else pair.kappa,
                pair.both_found_relevant,
            )
            for topic, pair in self.per_topic
        ]

    @property
    def topic_mean(self) -> TopicMean[str]:
        """4-way kappa averaged over the topics where both found relevant hits (ARQMath-2)."""
        return mean_over_topics(self._by_topic(binary=False))

    @property
    def topic_mean_binary(self) -> TopicMean[str]:
        """Binary (H+M) kappa averaged over the same topics as ``topic_mean`` (ARQMath-2)."""
        return mean_over_topics(self._by_topic(binary=True))

    @property
    def assessor_rows(self) -> list[tuple[str, AssessorMean[int] | None, GoldAgreement | None]]:
        """One row per assessor: name, mean kappa with the others, agreement with gold."""
        means = {m.assessor: m for m in self.means}
        gold = {g.assessor: g for g in self.gold}
        people = sorted(means.keys() | gold.keys(), key=self.name)
        return [(self.name(p), means.get(p), gold.get(p)) for p in people]


def _intervals(
    pairs: list[PairAgreement[int]], ratings: Ratings, seed: int, scale: ScalePoints
) -> dict[tuple[int, int], tuple[ConfidenceInterval, ConfidenceInterval]]:
    """Bootstrap 95% intervals of each pair's (G+1)-way and binary kappa (seeded per pair)."""
    result = {}
    for pair in pairs:
        shared = shared_pairs(ratings[pair.first], ratings[pair.second])
        binary = binary_pairs(shared, scale.relevant_from)
        rng = random.Random(f"{seed}:{pair.first}:{pair.second}")  # noqa: S311 (reproducible CI)
        four = bootstrap_ci(
            shared,
            lambda p: kappa_of_pairs(p, categories=scale.categories),
            rng=rng,
            resamples=500,
        )
        two = bootstrap_ci(
            binary, lambda p: kappa_of_pairs(p, categories=(0, 1)), rng=rng, resamples=500
        )
        result[(pair.first, pair.second)] = (four, two)
    return result


def table_compute(
    ratings: Ratings,
    *,
    scale: ScalePoints,
    with_ci: bool = False,
    seed: int = 0,
    names: dict[int, str] | None = None,
) -> AgreementTable:
    """The table of ``ratings`` (with bootstrap intervals when ``with_ci``)."""
    pairs = pairwise_agreements(
        ratings, categories=scale.categories, relevant_from=scale.relevant_from
    )
    matrix = coincidences(ratings)
    domain = scale.categories
    return AgreementTable(
        pairs=pairs,
        means=assessor_means(pairs),
        alpha_ordinal=krippendorff_alpha(ratings, level="ordinal", matrix=matrix, domain=domain),
        alpha_nominal=krippendorff_alpha(ratings, level="nominal", matrix=matrix, domain=domain),
        names=names if names is not None else assessor_names(ratings),
        intervals=_intervals(pairs, ratings, seed, scale) if with_ci else {},
        scale=scale,
    )

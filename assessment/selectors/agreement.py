"""Live agreement tables, computed on read from the judgments (issue 6 §5).

One query loads the graded judgments that matter (hits graded by at least two assessors, or a
training round's judgments), the pure core in ``assessment.agreement`` does the rest. Flags are
left out (they are not grades). Judgments count for the assessor who made them, whatever
became of their assignment later (moved or revoked).
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Count, F, Max, Min, Q

from assessment.agreement import (
    GRADES,
    RELEVANT_FROM,
    Agreement,
    ConfidenceInterval,
    bootstrap_ci,
    coincidences,
    kappa_of_pairs,
    krippendorff_alpha,
    shared_pairs,
)
from assessment.agreement_tables import (
    AssessorMean,
    PairAgreement,
    TopicMean,
    assessor_means,
    binary_pairs,
    mean_over_topics,
    pairwise_agreements,
    pooled_pairs,
)
from assessment.models import Assignment, GoldGrade, Judgment, TrainingRound
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.machine_judges import assessor_names
from collection.models import RetrievalTask
from collection.ordering import natural_key

__all__ = [
    "AgreementTable",
    "FeedbackRow",
    "GoldAgreement",
    "task_agreement",
    "training_feedback",
    "training_round_agreement",
    "training_rounds_agreement",
]

Ratings = dict[int, dict[int, int]]  # assessor id -> hit id -> grade


@dataclass(frozen=True)
class ScalePoints:
    """What agreement needs of a task's scale (issue 12 §4): its grades 0..G, for the
    (G+1)-way and weighted kappas and alpha, and the relevance level binary kappa uses."""

    categories: tuple[int, ...] = GRADES
    relevant_from: int = RELEVANT_FROM

    @property
    def ways(self) -> int:
        return len(self.categories)


def _scale_points(task: RetrievalTask) -> ScalePoints:
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

    def _by_topic(self, binary: bool) -> list[tuple[str, Agreement]]:
        """(label, kappa) per topic and pair; the label names the pair when a topic has more."""
        pairs_in = Counter(topic for topic, _ in self.per_topic)
        return [
            (
                topic
                if pairs_in[topic] == 1
                else f"{topic} ({self.name(pair.first)} · {self.name(pair.second)})",
                pair.kappa_binary if binary else pair.kappa,
            )
            for topic, pair in self.per_topic
        ]

    @property
    def topic_mean(self) -> TopicMean[str]:
        """4-way kappa averaged over the topics where it is defined (ARQMath-2)."""
        return mean_over_topics(self._by_topic(binary=False))

    @property
    def topic_mean_binary(self) -> TopicMean[str]:
        """Binary (H+M) kappa averaged over the topics where it is defined (ARQMath-2)."""
        return mean_over_topics(self._by_topic(binary=True))

    @property
    def assessor_rows(self) -> list[tuple[str, AssessorMean[int] | None, GoldAgreement | None]]:
        """One row per assessor: name, mean kappa with the others, agreement with gold."""
        means = {m.assessor: m for m in self.means}
        gold = {g.assessor: g for g in self.gold}
        people = sorted(means.keys() | gold.keys(), key=self.name)
        return [(self.name(p), means.get(p), gold.get(p)) for p in people]


def _names(ids: Iterable[int]) -> dict[int, str]:
    """Usernames; a machine judge is "machine: NAME" (issue 13 §6)."""
    return assessor_names(ids)


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


def _table(
    ratings: Ratings,
    *,
    scale: ScalePoints,
    with_ci: bool = False,
    seed: int = 0,
    names: dict[int, str] | None = None,
) -> AgreementTable:
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
        names=names if names is not None else _names(ratings),
        intervals=_intervals(pairs, ratings, seed, scale) if with_ci else {},
        scale=scale,
    )


def _work_assignments(task: RetrievalTask, *, machines: bool = True) -> tuple[dict[int, str], bool]:
    """The task's official and dual assignments (revoked ones too: a judgment counts for who
    made it) and, with ``machines``, its machine judges' ones, as assignment id -> topic
    number; and whether the task has machine judges' assignments at all."""
    purposes = [Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL, Assignment.Purpose.MACHINE]
    rows = Assignment.objects.filter(topic__task=task, purpose__in=purposes).values_list(
        "pk", "topic__number", "purpose"
    )
    found, any_machine = {}, False
    for pk, number, purpose in rows:
        is_machine = purpose == Assignment.Purpose.MACHINE
        any_machine = any_machine or is_machine
        if machines or not is_machine:
            found[pk] = number
    return found, any_machine


def _work_judgments(task: RetrievalTask, assignments: dict[int, str] | None = None):  # type: ignore[no-untyped-def]
    """Judgments of the task's official and dual assignments. Filtering by the assignment ids,
    fetched first, spares the database two joins on every judgment row."""
    ids = list(assignments if assignments is not None else _work_assignments(task)[0])
    return Judgment.objects.filter(assignment_id__in=ids)


def _shared_hits(judgments):  # type: ignore[no-untyped-def]
    """Hits judged by two or more assessors; min < max is a hash aggregate, where counting
    distinct assessors would sort every judgment of the task."""
    return (
        judgments.values("hit_id")
        .annotate(low=Min("assessor_id"), high=Max("assessor_id"))
        .filter(low__lt=F("high"))
        .values("hit_id")
    )


def task_agreement(
    *, task: RetrievalTask, with_ci: bool = False, machine_judges: bool = True
) -> AgreementTable:
    """Agreement between the assessors of a task's official and dual assessments, over the
    task and per topic.

    Its machine judges (issue 13 §6) take part as more assessors, named "machine: NAME",
    unless ``machine_judges`` is off (the people's agreement alone). Only hits graded by two
    or more assessors can show (dis)agreement, so the database returns just those (a grouped
    subquery), in one query (plus the assignments and names).
    """
    assignments, has_machines = _work_assignments(task, machines=machine_judges)
    graded = _work_judgments(task, assignments).filter(grade__isnull=False)
    shared_hits = _shared_hits(graded)
    rows = graded.filter(hit_id__in=shared_hits).values_list(
        "assessor_id", "hit_id", "grade", "assignment_id"
    )
    ratings: Ratings = defaultdict(dict)
    by_topic: dict[str, Ratings] = defaultdict(lambda: defaultdict(dict))
    for assessor_id, hit_id, grade, assignment_id in rows:
        ratings[assessor_id][hit_id] = grade  # type: ignore[assignment]
        by_topic[assignments[assignment_id]][assessor_id][hit_id] = grade  # type: ignore[assignment]
    scale = _scale_points(task)
    pooled = pooled_pairs(ratings)
    level = scale.relevant_from
    binary = [(int(a >= level), int(b >= level)) for a, b in pooled]
    table = replace(
        _table(ratings, scale=scale, with_ci=with_ci, seed=task.pool_seed),
        pooled=(
            kappa_of_pairs(pooled, categories=scale.categories),
            kappa_of_pairs(binary, categories=(0, 1)),
        ),
        has_machine_judges=has_machines,
    )
    for topic in sorted(by_topic, key=natural_key):
        table.per_topic.extend(
            (topic, pair)
            for pair in pairwise_agreements(
                by_topic[topic], categories=scale.categories, relevant_from=scale.relevant_from
            )
        )
    return table


def _gold_agreement(
    ratings: Ratings, gold: dict[int, int], expert: int | None, scale: ScalePoints
) -> list[GoldAgreement]:
    result = []
    for assessor, rating in sorted(ratings.items()):
        if assessor == expert:
            continue
        pairs = shared_pairs(rating, gold)
        binary = binary_pairs(pairs, scale.relevant_from)
        result.append(
            GoldAgreement(
                assessor=assessor,
                kappa=kappa_of_pairs(pairs, categories=scale.categories),
                kappa_binary=kappa_of_pairs(binary, categories=(0, 1)),
                percentage=sum(a == b for a, b in pairs) / len(pairs) if pairs else None,
                shared=len(pairs),
            )
        )
    return result


def training_rounds_agreement(*, task: RetrievalTask) -> list[tuple[TrainingRound, AgreementTable]]:
    """Every training round of the task (with ``n_items``) and its table; five queries."""
    rounds = list(
        task.training_rounds.select_related("expert", "machine_judge")
        .annotate(n_items=Count("items"))
        .order_by("created_at", "id")
    )
    rows = Judgment.objects.filter(
        assignment__training_round__in=rounds, grade__isnull=False
    ).values_list("assignment__training_round_id", "assessor_id", "hit_id", "grade")
    per_round: dict[int, Ratings] = defaultdict(lambda: defaultdict(dict))
    people: set[int] = set()
    for round_id, assessor_id, hit_id, grade in rows:
        per_round[round_id][assessor_id][hit_id] = grade  # type: ignore[assignment]
        people.add(assessor_id)
    gold_rows = GoldGrade.objects.filter(training_round__in=rounds).values_list(
        "training_round_id", "hit_id", "grade"
    )
    gold: dict[int, dict[int, int]] = defaultdict(dict)
    for round_id, hit_id, grade in gold_rows:
        gold[round_id][hit_id] = grade
    names = _names(people)
    scale = _scale_points(task)
    result: list[tuple[TrainingRound, AgreementTable]] = []
    for training_round in rounds:
        ratings = per_round.get(training_round.pk, {})
        # The expert's own grades are the gold, not a colleague's: keep them out of the means.
        colleagues = {a: r for a, r in ratings.items() if a != training_round.expert_id}
        table = _table(colleagues, scale=scale, names=names)
        table.gold.extend(
            _gold_agreement(
                ratings, gold.get(training_round.pk, {}), training_round.expert_id, scale
            )
        )
        result.append((training_round, table))
    return result


def training_round_agreement(*, training_round: TrainingRound) -> AgreementTable:
    """One round's table (see ``training_rounds_agreement``)."""
    for found, table in training_rounds_agreement(task=training_round.task):
        if found.pk == training_round.pk:
            return table
    raise TrainingRound.DoesNotExist


@dataclass(frozen=True)
class FeedbackRow:
    """An assessor's grade beside the gold one, for one hit of a submitted round."""

    topic: str
    item_key: str
    hit_id: int
    grade: int | None
    flag: str
    gold: int | None
    assignment_id: int = 0
    item_id: int = 0


def training_feedback(*, training_round: TrainingRound, assessor: User) -> list[FeedbackRow] | None:
    """The assessor's grades beside the gold ones, or None while not allowed to see them
    (the organizer did not allow it, or the assessor has not submitted the round).
    """
    submitted = Assignment.objects.filter(
        training_round=training_round, assessor=assessor, submitted_at__isnull=False
    ).exists()
    if not (training_round.show_gold_after_submit and submitted):
        return None
    gold = dict(
        GoldGrade.objects.filter(training_round=training_round).values_list("hit_id", "grade")
    )
    rows = (
        Judgment.objects.filter(Q(assignment__training_round=training_round) & Q(assessor=assessor))
        .order_by("hit__item__topic_id", "hit__item__display_order", "hit__position")
        .values_list(
            "hit__item__topic__number",
            "hit__item__key",
            "hit_id",
            "grade",
            "flag",
            "assignment_id",
            "hit__item_id",
        )
    )
    return [
        FeedbackRow(topic, key, hit_id, grade, flag, gold.get(hit_id), assignment_id, item_id)
        for topic, key, hit_id, grade, flag, assignment_id, item_id in rows
    ]

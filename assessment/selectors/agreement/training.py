"""Training rounds' agreement (among colleagues and with the round's gold) and the feedback
an assessor sees after submitting a round."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Q

from assessment.core.agreement import kappa_of_pairs, shared_pairs
from assessment.core.agreement_tables import binary_pairs
from assessment.models import Assignment, GoldGrade, Judgment, TrainingRound
from assessment.selectors.agreement.table import (
    AgreementTable,
    GoldAgreement,
    Ratings,
    ScalePoints,
    scale_points,
    table_compute,
)
from assessment.selectors.machine_judges import assessor_names
from collection.models import RetrievalTask


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
    names = assessor_names(people)
    scale = scale_points(task)
    result: list[tuple[TrainingRound, AgreementTable]] = []
    for training_round in rounds:
        ratings = per_round.get(training_round.pk, {})
        # The expert's own grades are the gold, not a colleague's: keep them out of the means.
        colleagues = {a: r for a, r in ratings.items() if a != training_round.expert_id}
        table = table_compute(colleagues, scale=scale, names=names)
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

"""Judging a budgeted pool in priority order: which topics grow their pool as they are judged,
and the judgments an adaptive strategy learns from.

docs/pooling.md, "Budgeted pools in the app". Static budgeted pools need nothing here: their
items' display order is the strategy's order, and assessors get items in display order.
"""

from __future__ import annotations

from collections.abc import Iterable

from assessment.models import Assignment, Judgment
from pooling.selectors.strategy_inputs import STRATEGY_KINDS as KINDS
from pooling.selectors.strategy_inputs import adaptive_topics, topic_strategy
from pooling.services.priority_items import budget_left

# Judgments an adaptive strategy learns from: people's, not practice rounds or machine judges.
LEARNED_FROM = (Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL)


def grows_on_demand(assignment: Assignment) -> bool:
    """Whether the assignment's next item, once every item it has is judged, is the one an
    adaptive strategy chooses next (and the budget allows one more)."""
    # Only document and answer tasks are pooled by budgeted strategies: the others cost no query.
    if assignment.training_round_id is not None or assignment.topic.task.kind not in KINDS:
        return False
    spec, _build = topic_strategy(assignment.topic_id)
    return spec is not None and spec.adaptive and budget_left(spec, assignment.topic) > 0


def growing_topics(assignments: Iterable[Assignment]) -> set[int]:
    """The topics of ``assignments`` whose pools an adaptive strategy grows as they are
    judged (a query when any is a document task's, else none)."""
    documents = [a.topic_id for a in assignments if a.topic.task.kind in KINDS]
    return adaptive_topics(documents)


def topic_judgments_in_order(topic_id: int, relevance_level: int) -> list[tuple[str, bool]]:
    """(docno, relevant) of every judged item of the topic, in the order it was first judged
    by anyone (official or dual assessors); a flag counts as not relevant. Judgments are
    ordered by id, the order they were stored in (a revision keeps its row), not by their
    timestamps, which an import or the demo may date back."""
    rows = (
        Judgment.objects.filter(hit__item__topic_id=topic_id, assignment__purpose__in=LEARNED_FROM)
        .order_by("pk")
        .values_list("hit__item__key", "grade")
    )
    found: dict[str, bool] = {}
    for key, grade in rows:
        if key not in found:
            found[key] = grade is not None and grade >= relevance_level
    return list(found.items())


def task_judgments_by_topic(task_id: int, relevance_level: int) -> dict[int, list[bool]]:
    """topic id -> whether each judged item of the topic is relevant, in the order it was
    first judged (as ``topic_judgments_in_order``), for every topic of the task: what sharing
    a task budget by expected gain learns from."""
    rows = (
        Judgment.objects.filter(
            hit__item__topic__task_id=task_id, assignment__purpose__in=LEARNED_FROM
        )
        .order_by("pk")
        .values_list("hit__item__topic_id", "hit__item__key", "grade")
    )
    first: dict[tuple[int, str], bool] = {}
    for topic_id, key, grade in rows:
        if (topic_id, key) not in first:
            first[topic_id, key] = grade is not None and grade >= relevance_level
    found: dict[int, list[bool]] = {}
    for (topic_id, _key), relevant in first.items():
        found.setdefault(topic_id, []).append(relevant)
    return found

"""Judging a budgeted pool in priority order: which topics grow their pool as they are judged,
and the judgments an adaptive strategy learns from.

docs/pooling.md, "Budgeted pools in the app". Static budgeted pools need nothing here: their
items' display order is the strategy's order, and assessors get items in display order.
"""

from __future__ import annotations

from collections.abc import Iterable

from assessment.models import Assignment, Judgment
from collection.models import Topic
from pooling.core.algorithms.strategies.priority import PoolStrategy
from pooling.selectors.pool_inputs import pooled_runs
from pooling.selectors.strategy_inputs import STRATEGY_KINDS as KINDS
from pooling.selectors.strategy_inputs import adaptive_topics, topic_strategy, topics_with_unpooled
from pooling.services.priority_items import TaskJudging, budget_left

# Judgments an adaptive strategy learns from: people's, not practice rounds or machine judges.
LEARNED_FROM = (Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL)


def grows_pool(assignment: Assignment) -> bool:
    """Whether asking for the next item of ``assignment`` may add one to its topic's adaptive
    pool: only an assignment covering the topic's whole pool may. A training round's covers
    the round's items and a scoped one its chosen items (docs/judging.md, "Scoped
    assignments"): an item the strategy added for them would lie outside what they judge,
    spending the budget on a document nobody asking will judge. The one rule the next item
    (``assessment.services.priority``), "more to come" and the assessor's home page follow."""
    return assignment.training_round_id is None and not assignment.scoped


def grows_on_demand(assignment: Assignment) -> bool:
    """Whether the assignment's next item, once every item it has is judged, is the one an
    adaptive strategy chooses next: the assignment may grow the pool (``grows_pool``), the
    budget allows one more (under a task budget: the topic's share, or idle budget, as the
    next item is chosen) and the runs hold one."""
    # Only document and answer tasks are pooled by budgeted strategies: the others cost no query.
    if not grows_pool(assignment) or assignment.topic.task.kind not in KINDS:
        return False
    spec, _build = topic_strategy(assignment.topic_id)
    if spec is None or not spec.adaptive:
        return False
    topic = assignment.topic
    if budget_left(spec, topic, task_judging(topic, spec)) <= 0:
        return False
    # The strategy finds no next item exactly when every item the runs retrieved is pooled
    # (each pooled one judged in this line already, or it would be continued first).
    task = topic.task
    run_ids = [s.run_id for s in pooled_runs(task).specs]
    unpooled = topics_with_unpooled(
        run_ids, [topic.pk], kind=task.kind, collection_id=task.collection_id
    )
    return topic.pk in unpooled


def task_judging(topic: Topic, spec: PoolStrategy) -> TaskJudging | None:
    """What a task budget's share of ``topic`` follows (None under a budget per topic): every
    topic's judgments and the topics someone judges. The next item (``assessment.services
    .priority``) and "more to come" (``grows_on_demand``) both read it here, so an assessor
    is told more comes exactly when the next item would be given."""
    if spec.scope != "task":
        return None
    return TaskJudging(
        judged=task_judgments_by_topic(topic.task_id, topic.task.relevance_level),
        assessed=assessed_topics(topic.task_id),
    )


def assessed_topics(task_id: int) -> frozenset[int]:
    """The task's topics with an assessor who judges them now: an official or dual assignment,
    not revoked, of an active account."""
    rows = Assignment.objects.filter(
        topic__task_id=task_id,
        purpose__in=LEARNED_FROM,
        revoked_at__isnull=True,
        training_round__isnull=True,
        assessor__is_active=True,
    ).values_list("topic_id", flat=True)
    return frozenset(rows)


def growing_assignments(assignments: Iterable[Assignment]) -> set[int]:
    """The ids of ``assignments`` whose judging grows their topic's pool: those that may grow
    it (``grows_pool``) in a topic an adaptive strategy pools (a query when any is a
    document or answer task's, else none)."""
    growing = [a for a in assignments if grows_pool(a) and a.topic.task.kind in KINDS]
    adaptive = adaptive_topics([a.topic_id for a in growing])
    return {a.pk for a in growing if a.topic_id in adaptive}


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

"""Building a task's pools: load runs in bulk, apply the pooling rules, write the difference.

DESIGN.md "Pooling" and issue 4. A build is incremental and idempotent:
- items, hits, contributions a build finds already stored are kept (their display order too);
  it adds what is new and records every current (run, rank) contribution;
- an item no run contributes any more (its run was replaced or withdrawn) is kept and marked
  orphaned if any of its hits was judged, and removed if not;
- each topic is written in its own transaction, so a build killed half-way leaves whole topics
  behind, and building again gives exactly the state an uninterrupted build gives.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone

from collection.bulkload import bulk_insert
from collection.models import RetrievalTask, Topic
from pooling.algorithms import (
    PlannedItem,
    PoolSettings,
    display_orders,
    item_rng,
    plan_answer_topic,
    plan_formula_topic,
    select_instances,
    topic_rng,
)
from pooling.models import Contribution, Hit, PoolBuild, PoolItem
from pooling.selectors.pool_inputs import (
    PooledRuns,
    answer_rows,
    formula_rows,
    openqa_answers,
    pool_settings,
    pooled_runs,
    pooling_target,
)

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
TOPICS_PER_PASS = 20  # rows of this many topics are held in memory at once

_ITEM_FIELDS = (
    "topic_id",
    "key",
    "post_id",
    "visual_id",
    "answer",
    "display_order",
    "entered_build_id",
    "entered_at",
    "is_orphaned",
)
_HIT_FIELDS = ("item_id", "post_id", "formula_id", "position", "vote")


class PoolBuildError(Exception):
    """A build that cannot start (e.g. an open-QA task with no answer task to join)."""


def pool_build_request(
    *, task: RetrievalTask, requested_by: Any = None, seed: int | None = None
) -> PoolBuild:
    """Record a pending build and hand it to a Celery worker once the transaction commits."""
    from pooling.tasks import build_pools_task  # tasks import this module

    with transaction.atomic():
        build = PoolBuild.objects.create(
            task=task, requested_by=requested_by, parameters={"seed": seed}
        )
        transaction.on_commit(lambda: _enqueue(build.pk, build_pools_task))
    return build


def _enqueue(build_id: int, celery_task: Any) -> None:
    result = celery_task.delay(build_id)
    PoolBuild.objects.filter(pk=build_id).update(celery_task_id=result.id or "")


def pool_build(
    *,
    task: RetrievalTask,
    seed: int | None = None,
    progress: Progress | None = None,
    build: PoolBuild | None = None,
) -> PoolBuild:
    """Build (or rebuild) the pools of ``task`` and return the finished PoolBuild.

    Open QA (Task 3) answers join the answer task's pools (DESIGN.md "Pooling"), so building
    either task builds the answer task's pools with both tasks' runs.
    """
    try:
        target = pooling_target(task)
    except RetrievalTask.DoesNotExist as error:
        raise PoolBuildError(f"{task} has no answer task whose pools its answers join") from error
    settings = pool_settings(target, seed)
    runs = pooled_runs(target)
    topics = list(Topic.objects.filter(task=target).order_by("id").values_list("id", "number"))
    build = _start(build, task, settings, runs, len(topics))
    counts: Counter[str] = Counter()
    try:
        done = 0
        for start in range(0, len(topics), TOPICS_PER_PASS):
            chunk = topics[start : start + TOPICS_PER_PASS]
            for topic_id, number, plan in _plans(target, settings, runs, chunk):
                _write_topic(topic_id, number, plan, settings, build, counts)
                done += 1
                _progress(build, done, progress)
    except Exception as error:
        PoolBuild.objects.filter(pk=build.pk).update(
            status=PoolBuild.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    build.status = PoolBuild.Status.DONE
    build.stats = dict(sorted(counts.items()))
    build.finished_at = timezone.now()
    build.topics_done = len(topics)
    build.save(update_fields=["status", "stats", "finished_at", "topics_done"])
    return build


def _start(
    build: PoolBuild | None,
    task: RetrievalTask,
    settings: PoolSettings,
    runs: PooledRuns,
    topics_total: int,
) -> PoolBuild:
    build = build or PoolBuild(task=task)
    build.parameters = {**settings.as_dict(), "runs": runs.described}
    build.status = PoolBuild.Status.RUNNING
    build.topics_total = topics_total
    build.topics_done = 0
    build.error = ""
    build.save()
    return build


def _progress(build: PoolBuild, done: int, progress: Progress | None) -> None:
    PoolBuild.objects.filter(pk=build.pk).update(topics_done=done)
    if progress is not None:
        progress(done, build.topics_total)


def _plans(
    target: RetrievalTask,
    settings: PoolSettings,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
) -> Iterable[tuple[int, str, dict[str, PlannedItem]]]:
    """Each topic's planned items, reading the rows of ``topics`` in one pass."""
    topic_ids = [topic_id for topic_id, _ in topics]
    if target.kind == RetrievalTask.Kind.FORMULA:
        formulas = formula_rows(runs.specs, settings, topic_ids)
        for topic_id, number in topics:
            ranked = formulas.get(topic_id, {})
            plan, _depths = plan_formula_topic(
                ((spec, ranked.get(spec.run_id, [])) for spec in runs.specs), settings
            )
            yield topic_id, number, plan
        return
    answers = answer_rows(runs.specs, settings, topic_ids)
    generated = openqa_answers(runs.openqa_run_ids, {number: pk for pk, number in topics})
    for topic_id, number in topics:
        by_run = answers.get(topic_id, {})
        plan = plan_answer_topic(
            ((spec, by_run.get(spec.run_id, [])) for spec in runs.specs),
            generated.get(topic_id, []),
            settings,
        )
        yield topic_id, number, plan


@dataclass
class _Stored:
    """What one topic's pool holds now."""

    items: dict[str, tuple[int, int, bool]]  # key -> (id, display order, orphaned)
    contributions: dict[tuple[int, int], tuple[int, int]]  # (item, run) -> (id, rank)
    hits: dict[int, list[tuple[int, int | None, int | None, int, float]]]  # item -> hits
    judged_hits: set[int] = field(default_factory=set)

    def judged_items(self) -> set[int]:
        return {
            item_id
            for item_id, hits in self.hits.items()
            if any(hit[0] in self.judged_hits for hit in hits)
        }


def _stored(topic_id: int) -> _Stored:
    items = {
        key: (pk, order, orphaned)
        for pk, key, order, orphaned in PoolItem.objects.filter(topic_id=topic_id).values_list(
            "id", "key", "display_order", "is_orphaned"
        )
    }
    contributions = {
        (item_id, run_id): (pk, rank)
        for pk, item_id, run_id, rank in Contribution.objects.filter(
            item__topic_id=topic_id
        ).values_list("id", "item_id", "run_id", "rank")
    }
    hits: dict[int, list[tuple[int, int | None, int | None, int, float]]] = {}
    topic_hits = Hit.objects.filter(item__topic_id=topic_id)
    for pk, item_id, post_id, formula_id, position, vote in topic_hits.order_by(
        "item_id", "position", "id"
    ).values_list("id", "item_id", "post_id", "formula_id", "position", "vote"):
        hits.setdefault(item_id, []).append((pk, post_id, formula_id, position, vote))
    # Judgments live in the assessment app; the reverse relation keeps the dependency one-way.
    judged = set(topic_hits.filter(judgments__isnull=False).values_list("id", flat=True))
    return _Stored(items, contributions, hits, judged)


def _write_topic(
    topic_id: int,
    number: str,
    plan: dict[str, PlannedItem],
    settings: PoolSettings,
    build: PoolBuild,
    counts: Counter[str],
) -> None:
    """Bring one topic's stored pool to ``plan`` without losing or re-ordering anything."""
    with transaction.atomic():
        # Serialize concurrent builds of one topic (a no-op on SQLite, which locks the file).
        list(Topic.objects.select_for_update().filter(pk=topic_id).values_list("id"))
        stored = _stored(topic_id)
        _retire_vanished(stored, plan, counts)
        item_ids = _add_items(topic_id, number, plan, stored, settings, build, counts)
        _sync_contributions(plan, item_ids, stored, counts)
        _sync_hits(number, plan, item_ids, stored, settings, counts)


def _retire_vanished(stored: _Stored, plan: dict[str, PlannedItem], counts: Counter[str]) -> None:
    """Orphan judged items no run contributes any more; delete unjudged ones; revive returns."""
    judged = stored.judged_items()
    orphan, delete, revive = [], [], []
    for key, (pk, _order, orphaned) in list(stored.items.items()):
        if key in plan:
            if orphaned:
                revive.append(pk)
        elif pk in judged:
            if not orphaned:
                orphan.append(pk)
        else:
            delete.append(pk)
            del stored.items[key]
    if delete:
        PoolItem.objects.filter(pk__in=delete).delete()
    if orphan:
        PoolItem.objects.filter(pk__in=orphan).update(is_orphaned=True)
    if revive:
        PoolItem.objects.filter(pk__in=revive).update(is_orphaned=False)
    counts["items_removed"] += len(delete)
    counts["items_orphaned"] += len(orphan)
    counts["items_restored"] += len(revive)


def _add_items(
    topic_id: int,
    number: str,
    plan: dict[str, PlannedItem],
    stored: _Stored,
    settings: PoolSettings,
    build: PoolBuild,
    counts: Counter[str],
) -> dict[str, int]:
    """Insert the planned items not stored yet, after every stored one; key -> item id."""
    existing_orders = {key: order for key, (_pk, order, _o) in stored.items.items()}
    orders = display_orders(existing_orders, plan, topic_rng(settings.seed, number))
    now = timezone.now()
    described = [
        (topic_id, key, plan[key].post_id, plan[key].visual_id, plan[key].answer, order)
        for key, order in sorted(orders.items(), key=lambda pair: pair[1])
    ]
    rows = [(*row, build.pk, now, False) for row in described]
    if rows:
        bulk_insert(PoolItem, _ITEM_FIELDS, rows)
        counts["items_added"] += len(rows)
    item_ids = {key: pk for key, (pk, _order, _o) in stored.items.items()}
    if orders:
        new = PoolItem.objects.filter(topic_id=topic_id, key__in=list(orders))
        item_ids.update(new.values_list("key", "id"))
    return item_ids


def _sync_contributions(
    plan: dict[str, PlannedItem],
    item_ids: dict[str, int],
    stored: _Stored,
    counts: Counter[str],
) -> None:
    """Stored contributions become exactly the plan's (run, rank) pairs."""
    wanted = {
        (item_ids[key], run_id): rank
        for key, item in plan.items()
        for run_id, rank in item.contributions.items()
    }
    alive = set(item_ids.values())  # contributions of deleted items went with them
    stale = [
        pk
        for pair, (pk, rank) in stored.contributions.items()
        if pair[0] in alive and wanted.get(pair) != rank
    ]
    if stale:
        Contribution.objects.filter(pk__in=stale).delete()
    fresh = [
        (item_id, run_id, rank)
        for (item_id, run_id), rank in sorted(wanted.items())
        if stored.contributions.get((item_id, run_id), (0, None))[1] != rank
    ]
    if fresh:
        bulk_insert(Contribution, ("item_id", "run_id", "rank"), fresh)
    counts["contributions_removed"] += len(stale)
    counts["contributions_added"] += len(fresh)


def _sync_hits(
    number: str,
    plan: dict[str, PlannedItem],
    item_ids: dict[str, int],
    stored: _Stored,
    settings: PoolSettings,
    counts: Counter[str],
) -> None:
    """One hit per answer item; at most N chosen instances per formula item, judged ones kept."""
    inserts: list[tuple[Any, ...]] = []
    votes: dict[int, float] = {}
    drop: list[int] = []
    for key in sorted(plan):
        item, item_id = plan[key], item_ids[key]
        have = stored.hits.get(item_id, [])
        if not item.candidates:
            if have:
                votes[have[0][0]] = item.vote
            else:
                inserts.append((item_id, item.post_id, None, 0, item.vote))
            continue
        kept = [hit for hit in have if hit[2] in item.candidates or hit[0] in stored.judged_hits]
        drop += [hit[0] for hit in have if hit not in kept]
        kept_ids = {hit[2] for hit in kept}
        for hit in kept:
            candidate = item.candidates.get(hit[2])  # type: ignore[arg-type]
            votes[hit[0]] = float(candidate.vote) if candidate else 0.0
        chosen = select_instances(
            list(item.candidates.values()),
            settings.max_instances,
            settings.formula_policy,
            item_rng(settings.seed, number, key),
            keep={fid for fid in kept_ids if fid is not None},
        )
        position = max((hit[3] for hit in kept), default=-1) + 1
        for candidate in chosen:
            if candidate.formula_id not in kept_ids:
                post_id = candidate.post_id or None
                inserts.append((item_id, post_id, candidate.formula_id, position, candidate.vote))
                position += 1
    _write_hits(inserts, votes, drop, stored, counts)


def _write_hits(
    inserts: list[tuple[Any, ...]],
    votes: dict[int, float],
    drop: list[int],
    stored: _Stored,
    counts: Counter[str],
) -> None:
    if drop:
        Hit.objects.filter(pk__in=drop).delete()
    current = {hit[0]: hit[4] for hits in stored.hits.values() for hit in hits}
    changed = [Hit(pk=pk, vote=vote) for pk, vote in votes.items() if current.get(pk) != vote]
    if changed:
        Hit.objects.bulk_update(changed, ["vote"], batch_size=1000)
    if inserts:
        rows = [(i, p, f, pos, float(v)) for i, p, f, pos, v in inserts]
        bulk_insert(Hit, _HIT_FIELDS, rows)
    counts["hits_added"] += len(inserts)
    counts["hits_removed"] += len(drop)

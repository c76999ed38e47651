"""Building a task's pools: load runs in bulk, apply the pooling rules, write the difference.

DESIGN.md "Pooling" and issue 4 (document tasks: issue 13 §3, the answer rules with docnos,
one hit per item pointing to its document). A build is incremental and idempotent:
- items, hits, contributions a build finds already stored are kept (their display order too);
  it adds what is new and records every current (run, rank) contribution;
- an item no run contributes any more (its run was replaced or withdrawn) is kept and marked
  orphaned if any of its hits was judged, and removed if not;
- a few topics are written per transaction, so a build killed half-way leaves whole topics
  behind, and building again gives exactly the state an uninterrupted build gives.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from collection.bulkload import bulk_insert
from collection.models import RetrievalTask, Topic
from config.queue import JobSuperseded, job_beat, job_checkpoint, job_claim, job_heartbeat
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
from pooling.locks import topic_pools_lock
from pooling.models import Contribution, Hit, PoolBuild, PoolItem, TopicPoolState
from pooling.selectors.pool_fingerprints import topics_to_build
from pooling.selectors.pool_inputs import (
    PooledRuns,
    StoredPool,
    answer_rows,
    formula_rows,
    openqa_answers,
    pool_settings,
    pooled_runs,
    pooling_target,
    stored_pools,
)
from pooling.services.document_pools import DocumentsMissing, document_plans

# Re-exported: callers written before the queue part moved to pool_jobs import them from here.
from pooling.services.pool_jobs import pool_build_request as pool_build_request
from pooling.services.pool_jobs import pool_builds_reap as pool_builds_reap

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
# Rows of this many topics are held in memory at once, and written in one transaction: a build
# killed half-way leaves whole chunks behind, and a commit per chunk, not per topic, keeps the
# database's WAL flushes few.
TOPICS_PER_PASS = 10

_ITEM_FIELDS = (
    "topic_id",
    "key",
    "post_id",
    "document_id",
    "visual_id",
    "answer",
    "display_order",
    "entered_build_id",
    "entered_at",
    "is_orphaned",
)
_HIT_FIELDS = ("item_id", "post_id", "formula_id", "position", "vote", "document_id")


class PoolBuildError(Exception):
    """A build that cannot start (e.g. an open-QA task with no answer task to join)."""


def pool_build(
    *,
    task: RetrievalTask,
    seed: int | None = None,
    progress: Progress | None = None,
    build: PoolBuild | None = None,
    full: bool = False,
) -> PoolBuild:
    """Build (or rebuild) the pools of ``task`` and return the finished PoolBuild.

    Open QA (Task 3) answers join the answer task's pools (DESIGN.md "Pooling"), so building
    either task builds the answer task's pools with both tasks' runs. A queued ``build`` runs
    as its current attempt (``build.attempts``) and raises `config.queue.JobSuperseded` when
    the reaper handed it to another attempt, or it was already finished.

    Only topics whose inputs' fingerprint changed since their pool was written are recomputed
    (issue 14 §3; the others would come out unchanged); ``full`` recomputes every topic, e.g.
    after the collection's formulas changed, which no fingerprint covers.
    """
    target = _target(task, build)
    settings = pool_settings(target, seed)
    runs = pooled_runs(target)
    topics = list(Topic.objects.filter(task=target).order_by("id").values_list("id", "number"))
    changed, fingerprints = topics_to_build(
        target.kind, settings, runs, topics, full=full, collection_id=target.collection_id
    )
    skipped = len(topics) - len(changed)
    build = _start(build, task, settings, runs, len(topics))
    attempt = build.attempts
    counts: Counter[str] = Counter(topics_recomputed=len(changed), topics_skipped=skipped)
    try:
        with job_heartbeat(model=PoolBuild, job_id=build.pk, attempt=attempt):
            for start in range(0, len(changed), TOPICS_PER_PASS):
                chunk = changed[start : start + TOPICS_PER_PASS]
                plans = list(_plans(target, settings, runs, chunk))
                done = skipped + start + len(chunk)
                _write_chunk(plans, settings, build, counts, done=done, fingerprints=fingerprints)
                job_checkpoint("pool_build", done)
                if progress is not None:
                    progress(done, len(topics))
    except JobSuperseded:
        raise  # another attempt owns the build now: leave its status alone
    except Exception as error:
        PoolBuild.objects.filter(pk=build.pk, attempts=attempt).update(
            status=PoolBuild.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    return _finish(build, counts, len(topics))


def _target(task: RetrievalTask, build: PoolBuild | None) -> RetrievalTask:
    """``pooling_target``, or a PoolBuildError (and a queued ``build`` marked failed)."""
    try:
        return pooling_target(task)
    except RetrievalTask.DoesNotExist as error:
        message = f"{task} has no answer task whose pools its answers join"
        if build is not None:  # a queued build: the organizer sees why it failed
            PoolBuild.objects.filter(pk=build.pk).update(
                status=PoolBuild.Status.FAILED, error=message, finished_at=timezone.now()
            )
        raise PoolBuildError(message) from error


def _start(
    build: PoolBuild | None,
    task: RetrievalTask,
    settings: PoolSettings,
    runs: PooledRuns,
    topics_total: int,
) -> PoolBuild:
    """Mark the build running (a new one when called without a queued build)."""
    fields: dict[str, Any] = {
        "parameters": {**settings.as_dict(), "runs": runs.described},
        "topics_total": topics_total,
        "topics_done": 0,
        "error": "",
    }
    if build is None:
        return PoolBuild.objects.create(
            task=task, status=PoolBuild.Status.RUNNING, heartbeat_at=timezone.now(), **fields
        )
    if not job_claim(model=PoolBuild, job_id=build.pk, attempt=build.attempts, **fields):
        raise JobSuperseded(f"build {build.pk} attempt {build.attempts} is not to be run")
    for name, value in fields.items():
        setattr(build, name, value)
    build.status = PoolBuild.Status.RUNNING
    return build


def _finish(build: PoolBuild, counts: Counter[str], topics_total: int) -> PoolBuild:
    """Record the build as done, unless another attempt took it over meanwhile."""
    now = timezone.now()
    fields: dict[str, Any] = {
        "status": PoolBuild.Status.DONE,
        "stats": dict(sorted(counts.items())),
        "finished_at": now,
        "topics_done": topics_total,
    }
    running = PoolBuild.objects.filter(
        pk=build.pk, attempts=build.attempts, status=PoolBuild.Status.RUNNING
    )
    if not running.update(heartbeat_at=now, **fields):
        raise JobSuperseded(f"build {build.pk} attempt {build.attempts} was superseded")
    for name, value in fields.items():
        setattr(build, name, value)
    return build


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
    if target.kind == RetrievalTask.Kind.DOCUMENT:
        try:
            yield from document_plans(target, settings, runs, topics)
        except DocumentsMissing as error:
            raise PoolBuildError(str(error)) from error
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
class _Changes:
    """Every write a chunk of topics needs, applied in a few bulk statements."""

    delete_items: list[int] = field(default_factory=list)
    orphan_items: list[int] = field(default_factory=list)
    revive_items: list[int] = field(default_factory=list)
    new_items: list[tuple[Any, ...]] = field(default_factory=list)
    stale_contributions: list[int] = field(default_factory=list)
    new_contributions: list[tuple[int, int, int]] = field(default_factory=list)
    drop_hits: list[int] = field(default_factory=list)
    votes: dict[int, float] = field(default_factory=dict)
    new_hits: list[tuple[Any, ...]] = field(default_factory=list)


def _write_chunk(
    chunk: Sequence[tuple[int, str, dict[str, PlannedItem]]],
    settings: PoolSettings,
    build: PoolBuild,
    counts: Counter[str],
    *,
    done: int,
    fingerprints: dict[int, str],
) -> None:
    """Bring the stored pools of a few topics to their plans in one transaction, without
    losing or re-ordering anything already stored, and record the ``fingerprints`` of the
    inputs they were built from; ``done`` topics are then finished."""
    topic_ids = [topic_id for topic_id, _number, _plan in chunk]
    changes = _Changes()
    with transaction.atomic():
        _commit_without_waiting_for_disk()
        # Serializes concurrent builds of these topics and judging submits to them (the lock
        # order is in pooling/locks.py): what ``stored_pools`` reads as judged stays judged,
        # and nothing unjudged gains a judgment, until this chunk commits.
        topic_pools_lock(topic_ids=topic_ids)
        stored = stored_pools(topic_ids)
        for topic_id, number, plan in chunk:
            _retire_vanished(stored[topic_id], plan, changes)
            changes.new_items += _new_item_rows(topic_id, number, plan, stored[topic_id], settings)
        item_ids = _write_items(topic_ids, changes, build, counts)
        for topic_id, number, plan in chunk:
            ids = {key: item_ids[(topic_id, key)] for key in plan}
            _contribution_changes(plan, ids, stored[topic_id], changes)
            _hit_changes(number, plan, ids, stored[topic_id], settings, changes)
        _write_contributions_and_hits(stored, changes, counts)
        _remember_inputs(topic_ids, fingerprints, build)
        # In the same transaction: the progress shown never runs ahead of what is stored, and
        # an attempt the reaper replaced (JobSuperseded) writes nothing more.
        job_beat(model=PoolBuild, job_id=build.pk, attempt=build.attempts, topics_done=done)


def _remember_inputs(
    topic_ids: Sequence[int], fingerprints: dict[int, str], build: PoolBuild
) -> None:
    TopicPoolState.objects.bulk_create(
        [
            TopicPoolState(topic_id=topic_id, fingerprint=fingerprints[topic_id], built_by=build)
            for topic_id in topic_ids
        ],
        update_conflicts=True,
        unique_fields=["topic"],
        update_fields=["fingerprint", "built_by"],
    )


def _commit_without_waiting_for_disk() -> None:
    """PostgreSQL: this transaction's commit returns before its WAL reaches the disk.

    Safe for a build: a database crash can lose only the last chunks, never leave one half
    written, and the build is only recorded as done by a normal (synchronous) commit, which
    flushes every earlier chunk first. It saves a disk flush per chunk."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL synchronous_commit TO OFF")


def _retire_vanished(stored: StoredPool, plan: dict[str, PlannedItem], changes: _Changes) -> None:
    """Orphan judged items no run contributes any more; delete unjudged ones; revive returns."""
    judged = stored.judged_items()
    for key, (pk, _order, orphaned) in list(stored.items.items()):
        if key in plan:
            if orphaned:
                changes.revive_items.append(pk)
        elif pk in judged:
            if not orphaned:
                changes.orphan_items.append(pk)
        else:
            changes.delete_items.append(pk)
            del stored.items[key]


def _new_item_rows(
    topic_id: int,
    number: str,
    plan: dict[str, PlannedItem],
    stored: StoredPool,
    settings: PoolSettings,
) -> list[tuple[Any, ...]]:
    """Rows of the planned items not stored yet, ordered after every stored one."""
    existing_orders = {key: order for key, (_pk, order, _o) in stored.items.items()}
    orders = display_orders(existing_orders, plan, topic_rng(settings.seed, number))
    return [
        (
            topic_id,
            key,
            plan[key].post_id,
            plan[key].document_id,
            plan[key].visual_id,
            plan[key].answer,
            order,
        )
        for key, order in sorted(orders.items(), key=lambda pair: pair[1])
    ]


def _write_items(
    topic_ids: Sequence[int], changes: _Changes, build: PoolBuild, counts: Counter[str]
) -> dict[tuple[int, str], int]:
    """Apply the item changes; (topic, key) -> item id of every item of the topics."""
    if changes.delete_items:
        PoolItem.objects.filter(pk__in=changes.delete_items).delete()
    if changes.orphan_items:
        PoolItem.objects.filter(pk__in=changes.orphan_items).update(is_orphaned=True)
    if changes.revive_items:
        PoolItem.objects.filter(pk__in=changes.revive_items).update(is_orphaned=False)
    if changes.new_items:
        now = timezone.now()
        rows = [(*row, build.pk, now, False) for row in changes.new_items]
        bulk_insert(PoolItem, _ITEM_FIELDS, rows)
    counts["items_removed"] += len(changes.delete_items)
    counts["items_orphaned"] += len(changes.orphan_items)
    counts["items_restored"] += len(changes.revive_items)
    counts["items_added"] += len(changes.new_items)
    items = PoolItem.objects.filter(topic_id__in=topic_ids)
    return {(topic_id, key): pk for pk, topic_id, key in items.values_list("id", "topic_id", "key")}


def _contribution_changes(
    plan: dict[str, PlannedItem], item_ids: dict[str, int], stored: StoredPool, changes: _Changes
) -> None:
    """Stored contributions become exactly the plan's (run, rank) pairs."""
    wanted = {
        (item_ids[key], run_id): rank
        for key, item in plan.items()
        for run_id, rank in item.contributions.items()
    }
    deleted = set(changes.delete_items)  # their contributions went with them
    changes.stale_contributions += [
        pk
        for pair, (pk, rank) in stored.contributions.items()
        if pair[0] not in deleted and wanted.get(pair) != rank
    ]
    have = {pair: rank for pair, (_pk, rank) in stored.contributions.items()}
    changes.new_contributions += [
        (item_id, run_id, rank)
        for (item_id, run_id), rank in wanted.items()
        if have.get((item_id, run_id)) != rank
    ]


def _hit_changes(
    number: str,
    plan: dict[str, PlannedItem],
    item_ids: dict[str, int],
    stored: StoredPool,
    settings: PoolSettings,
    changes: _Changes,
) -> None:
    """One hit per answer or document item; at most N chosen instances per formula item,
    judged ones kept."""
    for key in sorted(plan):
        item, item_id = plan[key], item_ids[key]
        have = stored.hits.get(item_id, [])
        if not item.candidates:
            if have:
                changes.votes[have[0][0]] = item.vote
            else:
                changes.new_hits.append(
                    (item_id, item.post_id, None, 0, item.vote, item.document_id)
                )
            continue
        kept = [hit for hit in have if hit[2] in item.candidates or hit[0] in stored.judged_hits]
        changes.drop_hits += [hit[0] for hit in have if hit not in kept]
        kept_ids = {hit[2] for hit in kept if hit[2] is not None}
        for hit in kept:
            candidate = item.candidates.get(hit[2]) if hit[2] is not None else None
            changes.votes[hit[0]] = float(candidate.vote) if candidate else 0.0
        chosen = select_instances(
            list(item.candidates.values()),
            settings.max_instances,
            settings.formula_policy,
            item_rng(settings.seed, number, key),
            keep=kept_ids,
        )
        position = max((hit[3] for hit in kept), default=-1) + 1
        for candidate in chosen:
            if candidate.formula_id not in kept_ids:
                vote = float(candidate.vote)
                post_id = candidate.post_id or None
                changes.new_hits.append(
                    (item_id, post_id, candidate.formula_id, position, vote, None)
                )
                position += 1


def _write_contributions_and_hits(
    stored: dict[int, StoredPool], changes: _Changes, counts: Counter[str]
) -> None:
    if changes.stale_contributions:
        Contribution.objects.filter(pk__in=changes.stale_contributions).delete()
    if changes.new_contributions:
        bulk_insert(Contribution, ("item_id", "run_id", "rank"), changes.new_contributions)
    if changes.drop_hits:
        Hit.objects.filter(pk__in=changes.drop_hits).delete()
    current = {hit[0]: hit[4] for s in stored.values() for hits in s.hits.values() for hit in hits}
    changed = [Hit(pk=pk, vote=v) for pk, v in changes.votes.items() if current.get(pk) != v]
    if changed:
        Hit.objects.bulk_update(changed, ["vote"], batch_size=1000)
    if changes.new_hits:
        bulk_insert(Hit, _HIT_FIELDS, changes.new_hits)
    counts["contributions_removed"] += len(changes.stale_contributions)
    counts["contributions_added"] += len(changes.new_contributions)
    counts["hits_removed"] += len(changes.drop_hits)
    counts["hits_added"] += len(changes.new_hits)

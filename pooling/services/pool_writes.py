"""Bringing a chunk of topics' stored pools to their plans, in one transaction.

The write half of `pooling.services.pools.pool_build` (docs/pooling.md): what is
stored is kept with its display order, what is new is added after it, an item no run
contributes any more is orphaned if judged and removed if not, and every current (run, rank)
contribution and each item's chosen hits are recorded.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from kernel.bulkload import bulk_insert
from kernel.queue import job_beat
from pooling.core.algorithms import (
    PlannedItem,
    PoolSettings,
    display_orders,
    item_rng,
    select_instances,
    topic_rng,
)
from pooling.locks import topic_pools_lock
from pooling.models import Contribution, Hit, PoolBuild, PoolItem, TopicPoolState
from pooling.selectors.pool_inputs import StoredPool, stored_pools
from pooling.services.strategy_pools import TopicPriority

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


def pool_chunk_write(
    *,
    chunk: Sequence[tuple[int, str, dict[str, PlannedItem]]],
    settings: PoolSettings,
    build: PoolBuild,
    counts: Counter[str],
    done: int,
    fingerprints: dict[int, str],
    priority: Mapping[int, TopicPriority] | None = None,
) -> None:
    """Bring the stored pools of a few topics to their plans in one transaction, without
    losing or re-ordering anything already stored, and record the ``fingerprints`` of the
    inputs they were built from; ``done`` topics are then finished.

    A topic in ``priority`` is a budgeted pool: its plan is completed from what is stored
    (``TopicPriority.complete``) and new items are ordered as the strategy judges them."""
    priority = priority or {}
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
            if topic_id in priority:
                priority[topic_id].complete(plan, stored[topic_id])
            _retire_vanished(stored[topic_id], plan, changes)
            changes.new_items += _new_item_rows(
                topic_id, number, plan, stored[topic_id], settings, priority.get(topic_id)
            )
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
    priority: TopicPriority | None = None,
) -> list[tuple[Any, ...]]:
    """Rows of the planned items not stored yet, ordered after every stored one: shuffled,
    or in the strategy's judging order for a budgeted pool."""
    existing_orders = {key: order for key, (_pk, order, _o) in stored.items.items()}
    if priority is not None:
        orders = priority.display_orders(existing_orders, plan)
    else:
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

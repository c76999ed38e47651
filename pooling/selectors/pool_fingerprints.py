"""Fingerprints of each topic's pool inputs, so a rebuild recomputes only what changed.

A topic's pool depends on the pooling settings (seed included), for formula
tasks on the collection's formula index (the newest import that changed it), for document
tasks on the collection the task judges, its number (the display-order and instance seeds,
and how open-QA answers join it) and the rows of the runs that have rows for it. Rows only
change with a run's ``version`` (a replacement bumps it) or its status (a withdrawn run leaves
``PooledRuns``), so a topic's fingerprint hashes the settings, its number and the run
descriptions ``PooledRuns`` recorded for each run with rows for it: no row is read, only which
(run, topic) pairs exist.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from django.db import connection

from collection.models import CollectionImport, Topic
from pooling.core.algorithms import PoolSettings
from pooling.models import RunRow, TopicPoolState
from pooling.selectors.pool_inputs import PooledRuns

_RUNROW = RunRow._meta.db_table

# The distinct topics of each run by a loose index scan of (run, topic, rank): one index probe
# per (run, topic) pair instead of a read of every row.
_PAIRS_SQL = f"""
WITH RECURSIVE pairs(run_id, topic_id) AS (
    SELECT r.run_id, (SELECT MIN(x.topic_id) FROM {_RUNROW} x WHERE x.run_id = r.run_id)
    FROM ({{runs}}) r
  UNION ALL
    SELECT p.run_id, (
        SELECT MIN(x.topic_id) FROM {_RUNROW} x
        WHERE x.run_id = p.run_id AND x.topic_id > p.topic_id
    )
    FROM pairs p WHERE p.topic_id IS NOT NULL
)
SELECT run_id, topic_id FROM pairs WHERE topic_id IS NOT NULL
"""  # noqa: S608


def run_topic_pairs(run_ids: Sequence[int]) -> list[tuple[int, int]]:
    """Every (run, topic) pair for which the run has rows."""
    if not run_ids:
        return []
    runs = " UNION ALL ".join(["SELECT %s AS run_id"] * len(run_ids))
    with connection.cursor() as cursor:
        cursor.execute(_PAIRS_SQL.format(runs=runs), list(run_ids))
        return [(run_id, topic_id) for run_id, topic_id in cursor.fetchall()]


def topic_fingerprints(
    kind: str,
    settings: PoolSettings,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
    *,
    collection_id: int | None = None,
    strategy: dict[str, Any] | None = None,
) -> dict[int, str]:
    """Topic pk -> SHA-256 (hex) of what a build of that topic reads (and the budgeted
    strategy it pools by, when there is one)."""
    described = {entry["run"]: entry for entry in runs.described}
    topic_runs: dict[int, set[int]] = defaultdict(set)
    openqa = set(runs.openqa_run_ids)
    pairs = run_topic_pairs(sorted(described))
    # Open-QA rows sit on the open-QA task's topics and join the topic of the same number.
    foreign = {topic_id for run_id, topic_id in pairs if run_id in openqa}
    number_of = dict(Topic.objects.filter(pk__in=foreign).values_list("id", "number"))
    by_number = {number: topic_id for topic_id, number in topics}
    for run_id, topic_id in pairs:
        if run_id in openqa:
            target = by_number.get(number_of.get(topic_id, ""))
            if target is not None:
                topic_runs[target].add(run_id)
        else:
            topic_runs[topic_id].add(run_id)
    common: dict[str, Any] = {"kind": kind, "settings": settings.as_dict()}
    if strategy is not None:
        common["strategy"] = strategy
    if kind == "formula":  # visual ids come from the collection's formula index
        common["formula_index"] = formula_index_state()
    if kind == "document":  # the items point to documents of the task's collection
        common["collection"] = collection_id
    found = {}
    for topic_id, number in topics:
        inputs = {
            **common,
            "number": number,
            "runs": [described[run_id] for run_id in sorted(topic_runs.get(topic_id, ()))],
        }
        encoded = json.dumps(inputs, sort_keys=True, separators=(",", ":")).encode()
        found[topic_id] = hashlib.sha256(encoded).hexdigest()
    return found


def formula_index_state() -> int | None:
    """The newest import that changed the formula index (or its SLT, which computes visual ids
    where none are given): a formula pool built before it may group instances differently."""
    return (
        CollectionImport.objects.filter(
            role__in=[CollectionImport.Role.FORMULAS, CollectionImport.Role.SLT],
            status=CollectionImport.Status.FINISHED,
            changed=True,
        )
        .order_by("-pk")
        .values_list("pk", flat=True)
        .first()
    )


def stored_fingerprints(topic_ids: Sequence[int]) -> dict[int, str]:
    """Topic pk -> the fingerprint its stored pool was built from (absent: never built)."""
    return dict(
        TopicPoolState.objects.filter(topic_id__in=topic_ids).values_list("topic_id", "fingerprint")
    )


def topics_to_build(
    kind: str,
    settings: PoolSettings,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
    *,
    full: bool = False,
    collection_id: int | None = None,
    strategy: dict[str, Any] | None = None,
) -> tuple[list[tuple[int, str]], dict[int, str]]:
    """The topics whose fingerprint differs from their stored pool's (every topic if ``full``),
    in ``topics``' order, and every topic's fingerprint."""
    fingerprints = topic_fingerprints(
        kind, settings, runs, topics, collection_id=collection_id, strategy=strategy
    )
    built = {} if full else stored_fingerprints([topic_id for topic_id, _ in topics])
    return [t for t in topics if built.get(t[0]) != fingerprints[t[0]]], fingerprints

"""Pools of document tasks: the answer-pool rules applied to docnos.

Each run's first ``depth`` distinct docnos per topic (primary or alternate depth, a baseline
pooled as primary, a run's own override), ties in trec_eval's order; the union is annotated
with every (run, rank). Each item's key is its docno and it points to its Document, as does its
one hit.
"""

from __future__ import annotations

from collections.abc import Sequence

from collection.models import RetrievalTask
from pooling.core.algorithms import PlannedItem, PoolSettings, plan_document_topic
from pooling.selectors.pool_inputs import PooledRuns, document_ids, document_rows

_SHOWN = 5


class DocumentsMissing(Exception):
    """A pooled docno is no longer a document of the task's collection."""


def document_plans(
    target: RetrievalTask,
    settings: PoolSettings,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
) -> list[tuple[int, str, dict[str, PlannedItem]]]:
    """Each topic's planned document items, each pointing to its Document."""
    by_topic = document_rows(runs.specs, settings, [topic_id for topic_id, _ in topics])
    plans = []
    for topic_id, number in topics:
        by_run = by_topic.get(topic_id, {})
        rows = ((spec, by_run.get(spec.run_id, [])) for spec in runs.specs)
        plans.append((topic_id, number, plan_document_topic(rows, settings)))
    docnos = {key for _topic_id, _number, plan in plans for key in plan}
    ids = document_ids(target.collection_id, docnos) if target.collection_id else {}
    for _topic_id, number, plan in plans:
        missing = sorted(key for key in plan if key not in ids)
        if missing:
            # Runs were checked against the collection at upload: its documents changed since.
            more = f" and {len(missing) - _SHOWN} more" if len(missing) > _SHOWN else ""
            raise DocumentsMissing(
                f"topic {number}: runs name documents the task's collection no longer holds "
                f"({', '.join(missing[:_SHOWN])}{more}); re-import the collection or the runs"
            )
        for key, item in plan.items():
            item.document_id = ids[key]
    return plans

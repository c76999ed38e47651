"""The pool as tab-separated text (issue 4 "Exports"), one topic at a time.

- hits: one row per hit — topic, pool item key (post id, visual id or generated-answer id),
  post id, formula id, display order, vote, and the contributing runs with their ranks;
- annotated: one row per contribution — topic, key, team, run, rank — from which any
  depth-k pool can be recomputed (DESIGN.md: the pool is kept annotated).
Document tasks (issue 13 §3) name each item by its docno, and their hits file has no post or
formula id columns: ``topic docno display_order vote runs`` and ``topic docno team run rank``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator

from django.db.models import Q

from collection.formats.spreadsheet import safe_cell
from collection.models import RetrievalTask, Topic
from pooling.models import Contribution, Hit, PoolItem, Run
from pooling.selectors.pool_inputs import pooled_task

HITS_HEADER = ("topic", "key", "post_id", "formula_id", "display_order", "vote", "runs")
ANNOTATED_HEADER = ("topic", "key", "team", "run", "rank")
DOCUMENT_HITS_HEADER = ("topic", "docno", "display_order", "vote", "runs")
DOCUMENT_ANNOTATED_HEADER = ("topic", "docno", "team", "run", "rank")
EXPORT_KINDS = ("hits", "annotated")


def _line(values: tuple[object, ...]) -> str:
    # Team names and run tags are outside text: a cell a spreadsheet would run is neutralized.
    return "\t".join("" if value is None else str(safe_cell(value)) for value in values) + "\n"


def _topics(task: RetrievalTask) -> list[tuple[int, str]]:
    target = pooled_task(task)
    return list(Topic.objects.filter(task=target).order_by("id").values_list("id", "number"))


def _run_labels(task: RetrievalTask) -> dict[int, tuple[str, str]]:
    """Run id -> (team, tag) of every run that may contribute to ``task``'s pools."""
    target = pooled_task(task)
    runs = Run.objects.filter(
        Q(task=target) | Q(task__campaign_id=target.campaign_id, task__kind="openqa")
    )
    return {pk: (team, tag) for pk, team, tag in runs.values_list("id", "team__name", "tag")}


def _contributions(
    topic_id: int, labels: dict[int, tuple[str, str]]
) -> dict[int, list[tuple[str, str, int]]]:
    """Item id -> (team, run tag, rank), best rank first."""
    by_item: dict[int, list[tuple[str, str, int]]] = defaultdict(list)
    rows = Contribution.objects.filter(item__topic_id=topic_id).values_list(
        "item_id", "run_id", "rank"
    )
    for item_id, run_id, rank in rows:
        team, tag = labels.get(run_id, ("", str(run_id)))
        by_item[item_id].append((team, tag, rank))
    for contributions in by_item.values():
        contributions.sort(key=lambda row: (row[2], row[0], row[1]))
    return by_item


def pool_hit_lines(task: RetrievalTask) -> Iterator[str]:
    """The hits TSV, header first, topics in order, items in display order."""
    documents = pooled_task(task).kind == RetrievalTask.Kind.DOCUMENT
    yield _line(DOCUMENT_HITS_HEADER if documents else HITS_HEADER)
    labels = _run_labels(task)
    for topic_id, number in _topics(task):
        contributions = _contributions(topic_id, labels)
        hits = Hit.objects.filter(item__topic_id=topic_id).order_by(
            "item__display_order", "position", "id"
        )
        for item_id, key, post_id, formula_id, order, vote in hits.values_list(
            "item_id", "item__key", "post_id", "formula_id", "item__display_order", "vote"
        ):
            runs = ",".join(f"{team}/{tag}:{rank}" for team, tag, rank in contributions[item_id])
            if documents:
                yield _line((number, key, order, f"{vote:.6f}", runs))
                continue
            yield _line((number, key, post_id, formula_id, order, f"{vote:.6f}", runs))


def annotated_pool_lines(task: RetrievalTask) -> Iterator[str]:
    """The annotated pool TSV: every (topic, item, run, rank), header first."""
    documents = pooled_task(task).kind == RetrievalTask.Kind.DOCUMENT
    yield _line(DOCUMENT_ANNOTATED_HEADER if documents else ANNOTATED_HEADER)
    labels = _run_labels(task)
    for topic_id, number in _topics(task):
        keys = dict(PoolItem.objects.filter(topic_id=topic_id).values_list("id", "key"))
        by_item = _contributions(topic_id, labels)
        for item_id, rows in sorted(by_item.items(), key=lambda pair: keys[pair[0]]):
            for team, tag, rank in rows:
                yield _line((number, keys[item_id], team, tag, rank))


def pool_export_lines(task: RetrievalTask, kind: str) -> Iterator[str]:
    if kind == "annotated":
        return annotated_pool_lines(task)
    return pool_hit_lines(task)

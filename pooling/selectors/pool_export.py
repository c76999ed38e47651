"""The pool as tab-separated text, streamed a topic at a time.

- hits: one row per hit — topic, pool item key (post id, visual id or generated-answer id),
  post id, formula id, display order, vote, and the contributing runs with their ranks;
- annotated: one row per contribution — topic, key, team, run, rank — from which any
  depth-k pool can be recomputed (docs/pooling.md: the pool is kept annotated);
- order: the annotated rows with each item's place in its topic's judging order and whether
  it is judged yet (a budgeted pool's strategy order; docs/pooling.md).
Document tasks name each item by its docno, and their hits file has no post or
formula id columns: ``topic docno display_order vote runs`` and ``topic docno team run rank``.

The whole task is read in two streamed queries (hits; items with their contributions joined in
one text), whatever the number of topics: at full size (100 topics, 40 runs) a query pair per
topic, and a Python row per contribution, took seconds. Ordering and
spreadsheet-safe cells stay in Python, so PostgreSQL and the demo's SQLite write the same bytes.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby
from operator import itemgetter
from typing import NamedTuple

from django.db.models import Exists, OuterRef, Q

from collection.models import RetrievalTask, Topic
from kernel.core.spreadsheet import safe_cell
from pooling.models import Hit, PoolItem, Run
from pooling.selectors.joined_text import JoinedText
from pooling.selectors.pool_inputs import openqa_tasks_joining, pooled_task

HITS_HEADER = ("topic", "key", "post_id", "formula_id", "display_order", "vote", "runs")
ANNOTATED_HEADER = ("topic", "key", "team", "run", "rank")
DOCUMENT_HITS_HEADER = ("topic", "docno", "display_order", "vote", "runs")
DOCUMENT_ANNOTATED_HEADER = ("topic", "docno", "team", "run", "rank")
ORDER_HEADER = ("topic", "key", "order", "judged", "team", "run", "rank")
DOCUMENT_ORDER_HEADER = ("topic", "docno", "order", "judged", "team", "run", "rank")
EXPORT_KINDS = ("hits", "annotated", "order")
_CHUNK_ROWS = 5_000  # rows fetched at a time from the database while the export streams


def _cell(value: object) -> str:
    # Team names, run tags, topic numbers and docnos are outside text: a cell a spreadsheet
    # would run is neutralized.
    return "" if value is None else str(safe_cell(value))


def _line(values: tuple[object, ...]) -> str:
    return "\t".join(_cell(value) for value in values) + "\n"


def _topic_numbers(target: RetrievalTask) -> dict[int, str]:
    return dict(Topic.objects.filter(task=target).values_list("id", "number"))


class _RunLabel(NamedTuple):
    order: tuple[str, str]  # team, tag: how contributions of the same rank are ordered
    runs_cell: str  # "team/tag:" of the hits export's runs cell
    cells: str  # team and tag as two cells of the annotated export


class _RunLabels(dict[str, _RunLabel]):
    """Run id (as text) -> its label. A run of another task is named by its id alone."""

    def __missing__(self, run: str) -> _RunLabel:
        return _RunLabel(("", run), f"/{run}:", f"\t{run}")


def _run_labels(target: RetrievalTask) -> _RunLabels:
    """The labels of every run that may contribute to ``target``'s pools."""
    runs = Run.objects.filter(Q(task=target) | Q(task__in=openqa_tasks_joining(target)))
    return _RunLabels(
        (str(pk), _RunLabel((team, tag), f"{team}/{tag}:", f"{_cell(team)}\t{_cell(tag)}"))
        for pk, team, tag in runs.values_list("id", "team__name", "tag")
    )


# A contribution to a pool item: rank, then (team, tag), then the run's label. Plain tuples,
# sorted as they are, give the export's order: best rank first, then team and tag.
_Contribution = tuple[int, tuple[str, str], _RunLabel]


# A topic's contributions: (item id, key) -> contributions in order.
_TopicPool = dict[tuple[int, str], list[_Contribution]]


def _contributions_by_topic(target: RetrievalTask) -> Iterator[tuple[int, _TopicPool]]:
    """Per topic of ``target`` that has contributions, in topic id order, its pool; memory
    holds one topic's pool at a time."""
    labels = _run_labels(target)
    rows = (
        PoolItem.objects.filter(topic__task=target)
        .order_by("topic_id")
        .values_list("topic_id", "id", "key")
        .annotate(runs=JoinedText("contributions__run_id", "contributions__rank"))
        .iterator(chunk_size=_CHUNK_ROWS)
    )
    for topic_id, topic_rows in groupby(rows, key=itemgetter(0)):
        pool: _TopicPool = {}
        for _topic, item_id, key, runs in topic_rows:
            if runs is None:
                continue  # an orphaned item: no run contributes it any more
            values = iter(runs.split(","))  # run, rank, run, rank...
            pool[item_id, key] = sorted(
                (int(rank), (label := labels[run]).order, label)
                for run, rank in zip(values, values, strict=True)
            )
        yield topic_id, pool


# topic id, item id, key, post id, formula id, display order, vote
_HitRow = tuple[int, int, str, int | None, int | None, int, float]


def _hits(target: RetrievalTask) -> Iterator[tuple[int, Iterator[_HitRow]]]:
    """Per topic of ``target`` that has hits, in topic id order, its hits in display order."""
    rows = (
        Hit.objects.filter(item__topic__task=target)
        .order_by("item__topic_id", "item__display_order", "position", "id")
        .values_list(
            "item__topic_id",
            *("item_id", "item__key", "post_id", "formula_id", "item__display_order", "vote"),
        )
        .iterator(chunk_size=_CHUNK_ROWS)
    )
    return groupby(rows, key=itemgetter(0))


def pool_hit_lines(task: RetrievalTask) -> Iterator[str]:
    """The hits TSV, header first, topics in order, items in display order."""
    target = pooled_task(task)
    documents = target.kind == RetrievalTask.Kind.DOCUMENT
    yield _line(DOCUMENT_HITS_HEADER if documents else HITS_HEADER)
    numbers = _topic_numbers(target)
    # Both streams are in topic id order: each topic's contributions are read just before
    # its hits.
    pools = _contributions_by_topic(target)
    topic_id, pool = -1, _TopicPool()
    for hit_topic, hits in _hits(target):
        while topic_id < hit_topic:
            topic_id, pool = next(pools, (hit_topic, {}))
        number = _cell(numbers[hit_topic])
        runs, key_cell, last = "", "", None
        for _topic, item_id, key, post_id, formula_id, order, vote in hits:
            if item_id != last:  # an item's hits are consecutive
                found = pool.get((item_id, key), ()) if topic_id == hit_topic else ()
                runs = _cell(",".join(f"{label.runs_cell}{rank}" for rank, _, label in found))
                last, key_cell = item_id, _cell(key)
            ids = "" if documents else f"{_cell(post_id)}\t{_cell(formula_id)}\t"
            yield f"{number}\t{key_cell}\t{ids}{order}\t{_cell(f'{vote:.6f}')}\t{runs}\n"


def annotated_pool_lines(task: RetrievalTask) -> Iterator[str]:
    """The annotated pool TSV: every (topic, item, run, rank), header first, topics in order,
    items by key."""
    target = pooled_task(task)
    documents = target.kind == RetrievalTask.Kind.DOCUMENT
    yield _line(DOCUMENT_ANNOTATED_HEADER if documents else ANNOTATED_HEADER)
    numbers = _topic_numbers(target)
    for topic_id, pool in _contributions_by_topic(target):
        number = _cell(numbers[topic_id])
        for (_item, key), rows in sorted(pool.items(), key=lambda pair: pair[0][1]):
            item = f"{number}\t{_cell(key)}\t"
            for rank, _order, label in rows:
                yield f"{item}{label.cells}\t{rank}\n"


def _item_orders(target: RetrievalTask) -> dict[int, tuple[int, bool]]:
    """Item id -> (its place in its topic's judging order, 1-based; judged by anyone yet?).

    Assessors are served a topic's items in display order, so that order is the judging
    order: a budgeted pool's strategy order, or the seeded shuffle of the task's rules. An
    adaptive strategy's later items are not chosen yet and are not listed."""
    rows = (
        PoolItem.objects.filter(topic__task=target)
        .order_by("topic_id", "display_order")
        .annotate(judged=Exists(Hit.objects.filter(item=OuterRef("pk"), judgments__isnull=False)))
        .values_list("topic_id", "id", "judged")
    )
    found: dict[int, tuple[int, bool]] = {}
    for _topic, items in groupby(rows.iterator(chunk_size=_CHUNK_ROWS), key=itemgetter(0)):
        for place, (_t, item_id, judged) in enumerate(items, start=1):
            found[item_id] = (place, judged)
    return found


def judging_order_lines(task: RetrievalTask) -> Iterator[str]:
    """The annotated pool with each item's place in the judging order and whether it is
    judged: one row per contribution, topics in order, items in judging order."""
    target = pooled_task(task)
    documents = target.kind == RetrievalTask.Kind.DOCUMENT
    yield _line(DOCUMENT_ORDER_HEADER if documents else ORDER_HEADER)
    numbers = _topic_numbers(target)
    orders = _item_orders(target)
    for topic_id, pool in _contributions_by_topic(target):
        number = _cell(numbers[topic_id])
        for (item_id, key), rows in sorted(pool.items(), key=lambda pair: orders[pair[0][0]]):
            place, judged = orders[item_id]
            item = f"{number}\t{_cell(key)}\t{place}\t{'yes' if judged else 'no'}\t"
            for rank, _order, label in rows:
                yield f"{item}{label.cells}\t{rank}\n"


def pool_export_lines(task: RetrievalTask, kind: str) -> Iterator[str]:
    if kind == "annotated":
        return annotated_pool_lines(task)
    if kind == "order":
        return judging_order_lines(task)
    return pool_hit_lines(task)

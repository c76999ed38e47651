"""What a budgeted pool reads: every pooled run's ranked docnos per topic, and its strategy.

Strategies weigh whole runs (a fusion sums over every rank; an adaptive strategy walks a run
as deep as judging takes it), so a run's rows are read whole, not to a depth. A run is named
by its tag, or ``team/tag`` where two teams used one tag, so a topic's runs look as the
planner (``manage.py simulate_pools``) sees them in run files.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from django.db import connection

from collection.models import Document, Topic
from pooling.core.algorithms.strategies import Ranked
from pooling.core.algorithms.strategies.priority import (
    PoolStrategy,
    pool_strategy_from,
    ranked_docnos,
)
from pooling.models import PoolBuild, PoolItem, Run, RunRow, TopicPoolState

_RUNROW = RunRow._meta.db_table


@dataclass
class StrategyRuns:
    """topic number -> run name -> docnos in trec_eval's order; run name -> run id."""

    ranked: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    run_ids: dict[str, int] = field(default_factory=dict)

    def as_ranked(self) -> Ranked:
        return self.ranked

    def contributions(self, topic: str, docno: str) -> dict[int, int]:
        """Run id -> the rank at which it retrieved ``docno`` for ``topic``."""
        found = {}
        for name, docs in self.ranked.get(topic, {}).items():
            try:
                found[self.run_ids[name]] = docs.index(docno) + 1
            except ValueError:
                continue
        return found


def run_names(run_ids: Sequence[int]) -> dict[int, str]:
    """Run id -> its tag, or ``team/tag`` when another of the runs has the same tag."""
    rows = list(Run.objects.filter(pk__in=run_ids).values_list("id", "tag", "team__name"))
    tags = [tag for _pk, tag, _team in rows]
    return {pk: tag if tags.count(tag) == 1 else f"{team}/{tag}" for pk, tag, team in rows}


# The column naming a run row's item, per kind of task a strategy may pool (answer tasks:
# the post id, as text, as their pool items' keys are), and the rows that have one. Public:
# topic_rankings reads one topic's rows with the same two, so both read the same items.
ITEM_COLUMN = {"document": "docno", "answer": "CAST(post_id AS TEXT)"}
ITEM_FILTER = {"document": "docno <> ''", "answer": "post_id IS NOT NULL"}
STRATEGY_KINDS = tuple(ITEM_COLUMN)


def poolable(kind: str, collection_id: int | None) -> tuple[str, list[int]]:
    """The SQL condition on a row of the run rows' table (named by the table, not aliased)
    that its item can be pooled, and its parameters. An answer task's post can; a document
    task's docno only while the task's collection holds it: a pool item points to its
    document, and a docno without one has nothing to show. Runs are checked against the
    collection at upload, so only a collection changed since can make a run name others;
    adaptive strategies walk past them (``topic_rankings``), and they are not left to pool
    (``topics_with_unpooled``): the rule ``pool_next_item_add`` applies to the document it
    adds (``document_ids``)."""
    if kind != "document":
        return "TRUE", []
    if collection_id is None:
        return "FALSE", []
    documents = Document._meta.db_table
    condition = (
        f"EXISTS (SELECT 1 FROM {documents} d WHERE d.collection_id = %s "  # noqa: S608
        f"AND d.docno = {_RUNROW}.docno)"
    )
    return condition, [collection_id]


# Each run's first ``depth`` distinct items in trec_eval's order (score descending, then the
# item descending as bytes: the "C" collation), ranked by the database: an adaptive strategy
# asking for its next item reads a few rows a run instead of every row of the topic.
_PREFIX_SQL = """
SELECT run_id, topic_id, score, item FROM (
    SELECT run_id, topic_id, score, item, ROW_NUMBER() OVER (
        PARTITION BY run_id, topic_id ORDER BY score DESC, item COLLATE "C" DESC) AS place
    FROM (
        SELECT run_id, topic_id, MAX(score) AS score, {column} AS item FROM {table}
        WHERE run_id IN ({runs}) AND topic_id IN ({topics}) AND {filter}
        GROUP BY run_id, topic_id, {column}
    ) AS distinct_items
) AS ranked WHERE place <= %s
"""


def strategy_runs(
    run_ids: Sequence[int],
    topics: Sequence[tuple[int, str]],
    kind: str = "document",
    depth: int | None = None,
) -> StrategyRuns:
    """The pooled runs' rankings for ``topics`` ((pk, number) pairs), one query: whole, or
    each run's first ``depth`` items (PostgreSQL; elsewhere whole, cut here)."""
    found = StrategyRuns()
    if not run_ids or not topics:
        return found
    names = run_names(run_ids)
    numbers = dict(topics)
    rows: dict[tuple[str, str], list[tuple[float, str]]] = defaultdict(list)
    runs_in = ", ".join(["%s"] * len(run_ids))
    topics_in = ", ".join(["%s"] * len(numbers))
    params: list[int] = [*run_ids, *numbers]
    if depth is not None and connection.vendor == "postgresql":
        sql = _PREFIX_SQL.format(
            column=ITEM_COLUMN[kind],
            table=_RUNROW,
            runs=runs_in,
            topics=topics_in,
            filter=ITEM_FILTER[kind],
        )
        params.append(depth)
    else:
        sql = (
            f"SELECT run_id, topic_id, score, {ITEM_COLUMN[kind]} FROM {_RUNROW} "  # noqa: S608
            f"WHERE run_id IN ({runs_in}) AND topic_id IN ({topics_in}) AND {ITEM_FILTER[kind]}"
        )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        for run_id, topic_id, score, docno in cursor.fetchall():
            rows[(numbers[topic_id], names[run_id])].append((score, docno))
    for (number, name), run_rows in sorted(rows.items()):
        found.ranked.setdefault(number, {})[name] = ranked_docnos(run_rows)[:depth]
    found.ranked.update({number: {} for number in numbers.values() if number not in found.ranked})
    found.run_ids = {name: pk for pk, name in names.items()}
    return found


def topic_strategy(topic_id: int) -> tuple[PoolStrategy | None, PoolBuild | None]:
    """The strategy the topic's stored pool was built with (None: the task's own rules), and
    that build."""
    state = TopicPoolState.objects.filter(topic_id=topic_id).select_related("built_by").first()
    if state is None or state.built_by is None:
        return None, None
    build = state.built_by
    return pool_strategy_from(build.parameters.get("strategy")), build


def current_strategy(task_id: int) -> PoolStrategy | None:
    """The strategy of the task's latest finished build: what a rebuild keeps unless the
    organizer picks another (None: the task's own rules)."""
    parameters = (
        PoolBuild.objects.filter(task_id=task_id, status=PoolBuild.Status.DONE)
        .order_by("-id")
        .values_list("parameters", flat=True)
        .first()
    )
    return pool_strategy_from((parameters or {}).get("strategy"))


def adaptive_topics(topic_ids: Sequence[int]) -> set[int]:
    """Of ``topic_ids``, those whose stored pool an adaptive strategy grows as it is judged
    (one query)."""
    if not topic_ids:
        return set()
    rows = TopicPoolState.objects.filter(
        topic_id__in=topic_ids, built_by__parameters__strategy__adaptive=True
    ).values_list("topic_id", flat=True)
    return set(rows)


# Topics with an item some pooled run retrieved, that can be pooled and that the topic's pool
# does not hold yet; each topic's search stops at its first such row.
_UNPOOLED_SQL = """
SELECT t.id FROM {topics_table} t WHERE t.id IN ({topics}) AND EXISTS (
    SELECT 1 FROM (
        SELECT {column} AS item FROM {table}
        WHERE run_id IN ({runs}) AND topic_id = t.id AND {filter} AND {poolable}
    ) AS retrieved
    WHERE NOT EXISTS (
        SELECT 1 FROM {items} p WHERE p.topic_id = t.id AND p.key = retrieved.item
    )
)
"""


def topics_with_unpooled(
    run_ids: Sequence[int],
    topic_ids: Sequence[int],
    *,
    kind: str,
    collection_id: int | None,
) -> set[int]:
    """Of ``topic_ids``, those whose runs (``run_ids``) retrieved an item the topic's pool does
    not hold yet and could (``poolable``: a document of the task's collection): the others'
    runs are exhausted, an adaptive strategy has nothing more to add there (one query)."""
    if not run_ids or not topic_ids:
        return set()
    condition, condition_params = poolable(kind, collection_id)
    sql = _UNPOOLED_SQL.format(
        topics_table=Topic._meta.db_table,
        topics=", ".join(["%s"] * len(topic_ids)),
        column=ITEM_COLUMN[kind],
        table=_RUNROW,
        runs=", ".join(["%s"] * len(run_ids)),
        filter=ITEM_FILTER[kind],
        poolable=condition,
        items=PoolItem._meta.db_table,
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*topic_ids, *run_ids, *condition_params])
        return {topic_id for (topic_id,) in cursor.fetchall()}

"""What a pool build reads: the task's settings, its runs and their ranked rows, in bulk.

Rows are read with a few SQL statements for the whole task (never one ORM object per row). Only
a prefix of each run is needed — its first ``depth`` distinct posts or ``k`` visual ids — so the
first pass reads ranks up to a cut-off and a second pass completes the (run, topic) pairs whose
prefix fell short (repeated posts, a run dominated by a few visual ids, odd ranks). The result is
exactly what reading every row would give, because runs are pooled in rank order. Document
tasks read docnos the same way as answer tasks read post ids.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection
from django.db.models import Q

from collection.models import Document, Formula, RetrievalTask, Topic
from collection.selectors import answer_task_of
from pooling.core.algorithms import (
    AnswerRow,
    DocumentRow,
    FormulaRow,
    PoolSettings,
    RunSpec,
    answer_depth,
    formula_k,
)
from pooling.models import Contribution, Hit, PoolItem, Run, RunRow

_RUNROW = RunRow._meta.db_table
_FORMULA = Formula._meta.db_table
_TOPIC = Topic._meta.db_table


def pooling_target(task: RetrievalTask) -> RetrievalTask:
    """The task whose pools a build of ``task`` writes: open QA joins its answer task's pools."""
    if task.kind != RetrievalTask.Kind.OPENQA:
        return task
    target = answer_task_of(task)
    if target is None:
        raise RetrievalTask.DoesNotExist(f"{task} names no answer task")
    return target


def openqa_tasks_joining(target: RetrievalTask) -> list[RetrievalTask]:
    """The open-QA tasks whose answers join the pools of the answer task ``target``."""
    candidates = RetrievalTask.objects.select_related("answer_task").filter(
        Q(answer_task__isnull=True) | Q(answer_task=target),
        campaign_id=target.campaign_id,
        kind=RetrievalTask.Kind.OPENQA,
    )
    return [task for task in candidates if pooling_target_id(task) == target.pk]


def pooling_target_id(task: RetrievalTask) -> int | None:
    """The pk of ``pooling_target(task)``, None when an open-QA task names no answer task."""
    found = answer_task_of(task) if task.kind == RetrievalTask.Kind.OPENQA else task
    return found.pk if found is not None else None


def pooled_task(task: RetrievalTask) -> RetrievalTask:
    """``pooling_target`` for readers: an open-QA task with no answer task shows itself."""
    try:
        return pooling_target(task)
    except RetrievalTask.DoesNotExist:
        return task


def pool_settings(task: RetrievalTask, seed: int | None = None) -> PoolSettings:
    return PoolSettings(
        primary_depth=task.primary_depth,
        alternate_depth=task.alternate_depth,
        primary_k=task.primary_k,
        alternate_k=task.alternate_k,
        max_instances=task.max_instances,
        formula_policy="thread" if task.formula_policy == "thread" else "vote",
        seed=task.pool_seed if seed is None else seed,
        comment_formulas=task.pool_comment_formulas,
    )


@dataclass(frozen=True)
class PooledRuns:
    specs: list[RunSpec]
    openqa_run_ids: list[int]
    described: list[dict[str, Any]]  # recorded on the build


def pooled_runs(target: RetrievalTask) -> PooledRuns:
    """Accepted runs of ``target`` and, for an answer task, the open-QA runs that join it."""
    runs = list(
        Run.objects.filter(task=target, status=Run.Status.ACCEPTED)
        .order_by("id")
        .values("id", "role", "pool_as_primary", "depth_override", "is_baseline", "version")
    )
    specs = [
        RunSpec(
            r["id"],
            "primary" if r["role"] == Run.Role.PRIMARY else "alternate",
            bool(r["pool_as_primary"]),
            r["depth_override"],
        )
        for r in runs
    ]
    openqa: list[tuple[int, int]] = []  # (run, version)
    if target.kind == RetrievalTask.Kind.ANSWER:
        openqa = list(
            Run.objects.filter(task__in=openqa_tasks_joining(target), status=Run.Status.ACCEPTED)
            .order_by("id")
            .values_list("id", "version")
        )
    described: list[dict[str, Any]] = [
        {"run": r["id"], **{key: value for key, value in r.items() if key != "id"}} for r in runs
    ]
    described += [{"run": run_id, "openqa": True, "version": v} for run_id, v in openqa]
    return PooledRuns(specs, [run_id for run_id, _version in openqa], described)


def _placeholders(values: Sequence[object]) -> str:
    return ", ".join(["%s"] * len(values))


def _fetch(sql: str, params: Sequence[Any]) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


_ANSWER_SQL = (
    f"SELECT run_id, topic_id, rank, score, post_id FROM {_RUNROW} "  # noqa: S608
    "WHERE post_id IS NOT NULL AND {where}"
)
_DOCUMENT_SQL = (
    f"SELECT run_id, topic_id, rank, score, docno FROM {_RUNROW} "  # noqa: S608
    "WHERE {where}"
)
_FORMULA_SQL = (
    "SELECT r.run_id, r.topic_id, r.rank, r.score, r.formula_id, "  # noqa: S608
    "COALESCE(f.post_id, r.post_id, 0), COALESCE(f.thread_id, 0), f.visual_id "
    f"FROM {_RUNROW} r LEFT JOIN {_FORMULA} f ON f.formula_id = r.formula_id "
    "WHERE r.formula_id IS NOT NULL AND {where}"
)
# Rows at formula instances in comments are left out unless the task pools them.
_NOT_IN_COMMENT = " AND f.location IS DISTINCT FROM 'comment'"


def _read_answer(where: str, params: Sequence[object], into: dict) -> None:
    for run_id, topic_id, rank, score, post_id in _fetch(
        _ANSWER_SQL.format(where=where.format(p="")), params
    ):
        into[topic_id][run_id].append((rank, score, post_id))


def _read_document(where: str, params: Sequence[object], into: dict) -> None:
    for run_id, topic_id, rank, score, docno in _fetch(
        _DOCUMENT_SQL.format(where=where.format(p="")), params
    ):
        into[topic_id][run_id].append((rank, score, docno))


def _read_formula(where: str, params: Sequence[object], into: dict) -> None:
    _read_formula_rows(where, params, into, comments=True)


def _read_formula_outside_comments(where: str, params: Sequence[object], into: dict) -> None:
    _read_formula_rows(where, params, into, comments=False)


def _read_formula_rows(where: str, params: Sequence[object], into: dict, *, comments: bool) -> None:
    sql = _FORMULA_SQL.format(where=where.format(p="r.")) + ("" if comments else _NOT_IN_COMMENT)
    for run_id, topic_id, rank, score, formula_id, post, thread, visual in _fetch(sql, params):
        # A formula the index does not know is its own visually distinct formula.
        visual_id = visual or f"f{formula_id}"
        into[topic_id][run_id].append(FormulaRow(rank, score, formula_id, post, thread, visual_id))


def _distinct_posts(rows: list[AnswerRow] | list[DocumentRow]) -> int:
    return len({row[2] for row in rows})


def _distinct_visual_ids(rows: list[FormulaRow]) -> int:
    return len({row.visual_id for row in rows})


def _ranked_rows(
    run_cutoffs: dict[int, tuple[int, int]],
    topic_ids: Sequence[int],
    read: Callable[[str, Sequence[object], dict], None],
    enough: Callable[[list[Any]], int],
) -> dict[int, dict[int, list[Any]]]:
    """topic pk -> run pk -> rows, complete up to each run's limit (see the module docstring).

    ``run_cutoffs`` maps a run to (its limit, the rank its first read stops at); ``read`` takes a
    WHERE clause whose columns carry a ``{p}`` prefix placeholder."""
    into: dict[int, dict[int, list[Any]]] = defaultdict(lambda: defaultdict(list))
    if not run_cutoffs or not topic_ids:
        return into
    by_cutoff: dict[int, list[int]] = defaultdict(list)
    for run_id, (_limit, cutoff) in sorted(run_cutoffs.items()):
        by_cutoff[cutoff].append(run_id)
    clauses = [
        f"({{p}}run_id IN ({_placeholders(ids)}) AND {{p}}rank <= %s)" for ids in by_cutoff.values()
    ]
    params: list[object] = [v for cutoff, ids in by_cutoff.items() for v in (*ids, cutoff)]
    first = f"({' OR '.join(clauses)}) AND {{p}}topic_id IN ({_placeholders(topic_ids)})"
    read(first, [*params, *topic_ids], into)
    # Short pairs read one wider window, then (rarely) everything that is left.
    for widen in (4, None):
        for run_id, (limit, cutoff) in sorted(run_cutoffs.items()):
            short = [t for t in topic_ids if enough(into[t][run_id]) < limit]
            if not short:
                continue
            low = cutoff if widen == 4 else 4 * cutoff
            where = (
                f"{{p}}run_id = %s AND {{p}}topic_id IN ({_placeholders(short)}) AND {{p}}rank > %s"
            )
            window: list[object] = [run_id, *short, low]
            if widen is not None:
                where += " AND {p}rank <= %s"
                window.append(widen * cutoff)
            read(where, window, into)
    return into


def _depth_cutoffs(specs: Sequence[RunSpec], settings: PoolSettings) -> dict[int, tuple[int, int]]:
    cutoffs = {}
    for spec in specs:
        depth = answer_depth(spec, settings)
        cutoffs[spec.run_id] = (depth, depth + 20)  # room for a few repeated posts
    return cutoffs


def answer_rows(
    specs: Sequence[RunSpec], settings: PoolSettings, topic_ids: Sequence[int]
) -> dict[int, dict[int, list[AnswerRow]]]:
    """Each run's ranked (rank, score, post id) rows per topic, enough to pool it."""
    return _ranked_rows(_depth_cutoffs(specs, settings), topic_ids, _read_answer, _distinct_posts)


def document_rows(
    specs: Sequence[RunSpec], settings: PoolSettings, topic_ids: Sequence[int]
) -> dict[int, dict[int, list[DocumentRow]]]:
    """Each document run's ranked (rank, score, docno) rows per topic, enough to pool it."""
    cutoffs = _depth_cutoffs(specs, settings)
    return _ranked_rows(cutoffs, topic_ids, _read_document, _distinct_posts)


_DOCNO_CHUNK = 20_000


def document_ids(collection_id: int, docnos: set[str]) -> dict[str, int]:
    """Docno -> Document pk, for the docnos the collection holds (a query per 20,000)."""
    found: dict[str, int] = {}
    ordered = sorted(docnos)
    documents = Document.objects.filter(collection_id=collection_id)
    for start in range(0, len(ordered), _DOCNO_CHUNK):
        chunk = ordered[start : start + _DOCNO_CHUNK]
        found.update(documents.filter(docno__in=chunk).values_list("docno", "id"))
    return found


def formula_rows(
    specs: Sequence[RunSpec], settings: PoolSettings, topic_ids: Sequence[int]
) -> dict[int, dict[int, list[FormulaRow]]]:
    """Each run's ranked formula rows per topic with visual ids, enough to pool it."""
    cutoffs = {}
    for spec in specs:
        k = formula_k(spec, settings)
        cutoffs[spec.run_id] = (k, 4 * k)  # visual ids repeat: walk further
    read = _read_formula if settings.comment_formulas else _read_formula_outside_comments
    return _ranked_rows(cutoffs, topic_ids, read, _distinct_visual_ids)


def openqa_answers(
    run_ids: Sequence[int], topic_ids_by_number: dict[str, int]
) -> dict[int, list[tuple[int, int, str]]]:
    """target topic pk -> (run id, rank, answer text), matched on the topic number."""
    found: dict[int, list[tuple[int, int, str]]] = defaultdict(list)
    if not run_ids:
        return found
    sql = (
        f"SELECT r.run_id, t.number, r.rank, r.answer FROM {_RUNROW} r "  # noqa: S608
        f"JOIN {_TOPIC} t ON t.id = r.topic_id WHERE r.run_id IN ({_placeholders(run_ids)})"
    )
    for run_id, number, rank, answer in _fetch(sql, list(run_ids)):
        topic_id = topic_ids_by_number.get(number)
        if topic_id is not None:
            found[topic_id].append((run_id, rank, answer))
    return found


@dataclass
class StoredPool:
    """What one topic's pool holds now (what a rebuild must keep)."""

    items: dict[str, tuple[int, int, bool]] = field(
        default_factory=dict
    )  # key -> id, order, orphan
    contributions: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    hits: dict[int, list[tuple[int, int | None, int | None, int, float]]] = field(
        default_factory=dict
    )  # item -> (id, post, formula, position, vote)
    judged_hits: set[int] = field(default_factory=set)

    def judged_items(self) -> set[int]:
        return {
            item_id
            for item_id, hits in self.hits.items()
            if any(hit[0] in self.judged_hits for hit in hits)
        }


def stored_pools(topic_ids: Sequence[int]) -> dict[int, StoredPool]:
    """The stored pools of ``topic_ids``: four queries whatever their size."""
    stored = {topic_id: StoredPool() for topic_id in topic_ids}
    for pk, topic_id, key, order, orphaned in PoolItem.objects.filter(
        topic_id__in=topic_ids
    ).values_list("id", "topic_id", "key", "display_order", "is_orphaned"):
        stored[topic_id].items[key] = (pk, order, orphaned)
    for pk, topic_id, item_id, run_id, rank in Contribution.objects.filter(
        item__topic_id__in=topic_ids
    ).values_list("id", "item__topic_id", "item_id", "run_id", "rank"):
        stored[topic_id].contributions[(item_id, run_id)] = (pk, rank)
    hits = Hit.objects.filter(item__topic_id__in=topic_ids)
    for pk, topic_id, item_id, post_id, formula_id, position, vote in hits.order_by(
        "item_id", "position", "id"
    ).values_list("id", "item__topic_id", "item_id", "post_id", "formula_id", "position", "vote"):
        stored[topic_id].hits.setdefault(item_id, []).append(
            (pk, post_id, formula_id, position, vote)
        )
    # Judgments live in the assessment app; the reverse relation keeps the dependency one-way.
    for pk, topic_id in (
        hits.filter(judgments__isnull=False).values_list("id", "item__topic_id").distinct()
    ):
        stored[topic_id].judged_hits.add(pk)
    return stored

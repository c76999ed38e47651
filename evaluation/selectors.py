"""Reads of the evaluation app: judgments as plain records, runs as rows, results for pages."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Q, QuerySet

from assessment.models import Adjudication, Assignment, Judgment
from collection.models import Formula, RetrievalTask
from config.access import is_organizer, results_visible_to
from evaluation.measures import RunRow
from evaluation.models import EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.qrels import JudgmentRecord, JudgmentSource
from evaluation.reports import sort_rows
from pooling.algorithms import answer_key
from pooling.algorithms.openqa import ANSWER_KEY_PREFIX
from pooling.models import Contribution, Run
from pooling.models import RunRow as RunRowModel

VISUAL_ID_CHUNK = 20_000


def pool_task_of(task: RetrievalTask) -> RetrievalTask:
    """Open-QA answers are pooled and judged in the answer task's topics (DESIGN.md)."""
    if task.kind == RetrievalTask.Kind.OPENQA and task.answer_task_id:
        return task.answer_task  # type: ignore[return-value]
    return task


def _item_filter(task: RetrievalTask, prefix: str) -> Q:
    """Which pool items of the pool task belong to ``task``: posts, formulae or QA answers."""
    q = Q(**{f"{prefix}topic__task": pool_task_of(task)})
    if task.kind == RetrievalTask.Kind.OPENQA:
        return q & Q(**{f"{prefix}key__startswith": ANSWER_KEY_PREFIX})
    if task.kind == RetrievalTask.Kind.ANSWER:
        return q & ~Q(**{f"{prefix}key__startswith": ANSWER_KEY_PREFIX})
    return q


def judgment_records(task: RetrievalTask) -> list[JudgmentRecord]:
    """Every official and dual judgment and every adjudication of the task, latest first.

    Revoked assignments and training assignments do not count toward qrels."""
    formula = task.kind == RetrievalTask.Kind.FORMULA
    records: list[JudgmentRecord] = []
    adjudications = (
        Adjudication.objects.filter(_item_filter(task, "hit__item__"))
        .order_by("-decided_at", "-id")
        .values_list("hit__item__topic__number", "hit__item__key", "hit__formula_id", "grade")
    )
    for number, key, formula_id, grade in adjudications:
        records.append(
            JudgmentRecord(number, key, str(formula_id) if formula else key, "adjudicated", grade)
        )
    judgments = (
        Judgment.objects.filter(
            _item_filter(task, "hit__item__"),
            assignment__purpose__in=[Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL],
            assignment__revoked_at__isnull=True,
        )
        .order_by("-updated_at", "-id")
        .values_list(
            "hit__item__topic__number",
            "hit__item__key",
            "hit__formula_id",
            "assignment__purpose",
            "grade",
            "flag",
        )
    )
    for number, key, formula_id, purpose, judged, flag in judgments:
        hit = str(formula_id) if formula else key
        source: JudgmentSource = "official" if purpose == Assignment.Purpose.OFFICIAL else "dual"
        records.append(JudgmentRecord(number, key, hit, source, judged, flag))
    return records


def runs_to_evaluate(task: RetrievalTask) -> QuerySet[Run]:
    return (
        Run.objects.filter(task=task, status=Run.Status.ACCEPTED)
        .select_related("team")
        .order_by("team__name", "tag")
    )


def run_rows(run: Run) -> list[RunRow]:
    """(topic number, doc, score) in file order: post id, formula id or generated-answer key."""
    rows = RunRowModel.objects.filter(run=run).order_by("id")
    kind = run.task.kind
    if kind == RetrievalTask.Kind.OPENQA:
        return [
            (n, answer_key(a), s)
            for n, a, s in rows.values_list("topic__number", "answer", "score")
        ]
    column = "formula_id" if kind == RetrievalTask.Kind.FORMULA else "post_id"
    return [(n, str(d), s) for n, d, s in rows.values_list("topic__number", column, "score")]


def visual_ids(formula_ids: set[str]) -> dict[str, str]:
    """formula id -> visual id from the collection's formula index, in chunks."""
    ids = sorted(int(f) for f in formula_ids if f.isdigit())
    found: dict[str, str] = {}
    for start in range(0, len(ids), VISUAL_ID_CHUNK):
        chunk = ids[start : start + VISUAL_ID_CHUNK]
        for formula_id, visual_id in Formula.objects.filter(formula_id__in=chunk).values_list(
            "formula_id", "visual_id"
        ):
            found[str(formula_id)] = visual_id
    return found


def contributions(task: RetrievalTask) -> Iterator[tuple[str, str, int]]:
    """(topic number, item key, team id) of every contribution to the task's pools."""
    rows = Contribution.objects.filter(_item_filter(task, "item__"), run__task=task)
    yield from rows.values_list("item__topic__number", "item__key", "run__team_id").iterator(
        chunk_size=10_000
    )


def qrels_versions(task: RetrievalTask) -> QuerySet[QrelsVersion]:
    return QrelsVersion.objects.filter(task=task).select_related("created_by")


def latest_job(task: RetrievalTask, qrels: QrelsVersion | None) -> EvaluationJob | None:
    jobs = EvaluationJob.objects.filter(task=task)
    if qrels is not None:
        jobs = jobs.filter(qrels=qrels)
    return jobs.select_related("qrels").first()


def results_for(
    task: RetrievalTask, qrels: QrelsVersion, *, user: Any
) -> QuerySet[EvaluationResult]:
    """The task's results against ``qrels`` that ``user`` may see (config.access)."""
    return results_visible_to(user, task).filter(qrels=qrels).select_related("run__team")


def tasks_with_results(user: Any) -> QuerySet[RetrievalTask]:
    """Every task for organizers; for anybody else the tasks with results they may see."""
    tasks = RetrievalTask.objects.select_related("campaign").order_by("campaign__name", "kind")
    if is_organizer(user):
        return tasks
    return tasks.filter(pk__in=results_visible_to(user).values("run__task_id"))


def result_rows(results: Iterable[EvaluationResult], job: EvaluationJob | None) -> list[dict]:
    """Plain rows for tables and downloads, best first by the task's first measure."""
    intervals = job.intervals if job is not None else {}
    rows = [
        {
            "id": result.run_id,
            "run": f"{result.run.team.name}/{result.run.tag}",
            "team": result.run.team.name,
            "tag": result.run.tag,
            "role": result.run.role,
            "file": result.run.file_name,
            **result.measures,
            "intervals": intervals.get(str(result.run_id), {}),
            "per_topic": result.per_topic,
        }
        for result in results
    ]
    if not rows:
        return rows
    kind = "openqa" if "ar" in rows[0] else "answer"
    return [dict(row) for row in sort_rows(rows, kind)]

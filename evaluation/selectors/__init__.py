"""Reads of the evaluation app: judgments as plain records, runs as rows, results for pages,
and which results a page shows (who may see them: ``kernel.access``)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet, Value

from assessment.models import Adjudication, Assignment, Judgment, MachineJudge
from assessment.selectors.handover import counted_judgments
from collection.models import Formula, RetrievalTask
from collection.selectors import answer_task_of
from evaluation.access import results_visible_to
from evaluation.core.answers import answer_id
from evaluation.core.measures import RankedRow, RunRow
from evaluation.core.official import official_measure_names, unjudged_rule
from evaluation.core.qrels import (
    MACHINE,
    JudgmentRecord,
    JudgmentSource,
    QrelsPolicy,
    counting_judgments,
    qrels_parse,
)
from evaluation.core.readiness import PoolHit, QrelsReadiness, qrels_readiness
from evaluation.core.reports import Columns, columns_for, sort_rows
from evaluation.models import (
    CURRENT_RESULT,
    EvaluationJob,
    EvaluationResult,
    QrelsVersion,
    TaskPublication,
)
from kernel.access import is_organizer
from kernel.params import parse_id
from pooling.access import runs_visible_to
from pooling.core.algorithms import answer_key
from pooling.core.algorithms.openqa import ANSWER_KEY_PREFIX
from pooling.models import Contribution, Hit, Run
from pooling.models import RunRow as RunRowModel

# A result scored the run as it is now: a run replaced since (Run.version) is "not scored yet".

VISUAL_ID_CHUNK = 20_000


def pool_task_of(task: RetrievalTask) -> RetrievalTask:
    """Open-QA answers are pooled and judged in the answer task's topics (docs/pooling.md)."""
    if task.kind == RetrievalTask.Kind.OPENQA:
        return answer_task_of(task) or task
    return task


def task_item_filter(task: RetrievalTask, prefix: str) -> Q:
    """Which pool items of the pool task belong to ``task``: posts, formulae or QA answers."""
    q = Q(**{f"{prefix}topic__task": pool_task_of(task)})
    if task.kind == RetrievalTask.Kind.OPENQA:
        return q & Q(**{f"{prefix}key__startswith": ANSWER_KEY_PREFIX})
    if task.kind == RetrievalTask.Kind.ANSWER:
        return q & ~Q(**{f"{prefix}key__startswith": ANSWER_KEY_PREFIX})
    return q


def judgment_records(task: RetrievalTask, *, machine_judge: str = "") -> list[JudgmentRecord]:
    """Every official and dual judgment that counts and every adjudication of the task, latest
    first; with ``machine_judge`` (a policy's, ``qrels_policy``), that judge's grades too.

    A judgment counts while its assignment is active or an active assignment carries its line
    on after a continue-move (``counted_judgments``; docs/agreement.md, "Moving a topic"): a
    moved topic keeps the earlier assessor's judgments for the hits they judged. A revoked
    assignment's judgments, a start-over move's earlier ones and training judgments do not
    count."""
    formula = task.kind == RetrievalTask.Kind.FORMULA
    records: list[JudgmentRecord] = []
    adjudications = (
        Adjudication.objects.filter(task_item_filter(task, "hit__item__"))
        .order_by("-decided_at", "-id")
        .values_list("hit__item__topic__number", "hit__item__key", "hit__formula_id", "grade")
    )
    for number, key, formula_id, grade in adjudications:
        records.append(
            JudgmentRecord(number, key, str(formula_id) if formula else key, "adjudicated", grade)
        )
    judgments = (
        Judgment.objects.filter(
            task_item_filter(task, "hit__item__"),
            counted_judgments(),
            _counting_purposes(task, machine_judge),
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
        source: JudgmentSource = SOURCES[purpose]
        records.append(JudgmentRecord(number, key, hit, source, judged, flag))
    return records


SOURCES: dict[str, JudgmentSource] = {
    Assignment.Purpose.OFFICIAL: "official",
    Assignment.Purpose.DUAL: "dual",
    Assignment.Purpose.MACHINE: MACHINE,
}


def counting_machine_judge(task: RetrievalTask) -> str | None:
    """The name of the task's machine judge whose grades count in official qrels, if any
    (only when the organizer says so)."""
    return (
        MachineJudge.objects.filter(task=task, counts_in_qrels=True)
        .values_list("name", flat=True)
        .first()
    )


def _counting_purposes(task: RetrievalTask, machine_judge: str) -> Q:
    """Official and dual judgments, and the grades of the machine judge named (its place in
    the precedence is the policy's: last)."""
    people = Q(assignment__purpose__in=[Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL])
    if not machine_judge:
        return people
    return people | Q(
        assignment__purpose=Assignment.Purpose.MACHINE,
        assessor__machine_judge__task=task,
        assessor__machine_judge__name=machine_judge,
    )


def pool_hits(task: RetrievalTask) -> list[PoolHit]:
    """Every judged unit of the task's pools, keyed like ``judgment_records``."""
    formula = task.kind == RetrievalTask.Kind.FORMULA
    rows = Hit.objects.filter(task_item_filter(task, "item__")).values_list(
        "item__topic__number", "item__key", "formula_id"
    )
    return [
        PoolHit(number, key, str(formula_id) if formula else key)
        for number, key, formula_id in rows.iterator(chunk_size=10_000)
    ]


def policy_machine_judge(policy: QrelsPolicy) -> str:
    """The machine judge whose grades a policy counts ("" for none)."""
    return policy.machine_judge if MACHINE in policy.precedence else ""


def task_readiness(
    task: RetrievalTask, policy: QrelsPolicy, *, records: list[JudgmentRecord] | None = None
) -> QrelsReadiness:
    """Per topic: pool items, judged, flagged, unjudged, relevant so far (grade at least the
    task's relevance level: H+M for ARQMath), and what the policy's
    minimum-relevant rule would drop. Pass ``records`` to reuse loaded ones."""
    if records is None:
        records = judgment_records(task, machine_judge=policy_machine_judge(policy))
    chosen = counting_judgments(records, policy.precedence)
    return qrels_readiness(
        pool_hits(task),
        chosen,
        min_relevant=policy.min_relevant,
        relevant_from=task.relevance_level,
    )


def answer_runs(task: RetrievalTask) -> dict[tuple[str, str], list[int]]:
    """Open QA: (topic number, pool item key) -> the task's runs whose answer it is."""
    found: dict[tuple[str, str], list[int]] = defaultdict(list)
    rows = Contribution.objects.filter(task_item_filter(task, "item__"), run__task=task)
    for number, key, run_id in rows.values_list("item__topic__number", "item__key", "run_id"):
        found[(number, key)].append(run_id)
    return found


def runs_to_evaluate(task: RetrievalTask) -> QuerySet[Run]:
    return (
        Run.objects.filter(task=task, status=Run.Status.ACCEPTED)
        .select_related("team")
        .order_by("team__name", "tag")
    )


# The column naming a run row's document, per task kind (open QA: ``run_answers``).
DOC_COLUMN: dict[str, str] = {
    RetrievalTask.Kind.ANSWER: "post_id",
    RetrievalTask.Kind.FORMULA: "formula_id",
    RetrievalTask.Kind.DOCUMENT: "docno",
}


def run_rows(run: Run) -> list[RunRow]:
    """(topic number, doc, score) in file order: post id, formula id, docno (document tasks,
    whose qrels name docnos too) or the run's answer id."""
    if run.task.kind == RetrievalTask.Kind.OPENQA:
        return [(topic, doc, score) for topic, doc, _, score in run_answers(run)]
    rows = RunRowModel.objects.filter(run=run).order_by("id")
    column = DOC_COLUMN[run.task.kind]
    return [(n, str(d), s) for n, d, s in rows.values_list("topic__number", column, "score")]


def run_answers(run: Run) -> list[RankedRow]:
    """An open-QA run's (topic, answer id, rank, score) in file order
    (``evaluation.core.answers``)."""
    rows = RunRowModel.objects.filter(run=run).order_by("id")
    return [
        (number, answer_id(run.pk, answer_key(text)), rank, score)
        for number, text, rank, score in rows.values_list(
            "topic__number", "answer", "rank", "score"
        )
    ]


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
    rows = Contribution.objects.filter(task_item_filter(task, "item__"), run__task=task)
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


def publication_of(task: RetrievalTask) -> TaskPublication | None:
    return TaskPublication.objects.filter(task=task).select_related("qrels", "changed_by").first()


def official_topics(task: RetrievalTask | None) -> tuple[list[str], str] | None:
    """The topics of ``task``'s official qrels version and that version's label; None when
    it has none. ARQMath-3 averaged Task 3 over its answer task's official topics."""
    publication = publication_of(task) if task is not None else None
    if publication is None or publication.qrels is None:
        return None
    qrels = publication.qrels
    topics = sorted({e.topic for e in qrels_parse(qrels.content, trec_eval=True)})
    return topics, qrels.label or f"version {qrels.pk}"


def results_qrels(task: RetrievalTask, user: Any, wanted: str = "") -> QrelsVersion | None:
    """Which qrels version a results page shows: a participant the official one; an organizer
    the one asked for, else the official one, else the latest evaluated (or exported)."""
    publication = publication_of(task)
    if not is_organizer(user):
        return publication.qrels if publication and publication.published else None
    versions = QrelsVersion.objects.filter(task=task, level="item")
    wanted_id = parse_id(wanted or None, name="qrels", default=None)
    if wanted_id is not None:
        return versions.filter(pk=wanted_id).first()
    if publication is not None:
        return publication.qrels
    latest = latest_job(task, None)
    return latest.qrels if latest is not None else versions.first()


def _sees_all(user: Any) -> bool:
    """``user=None`` asks for every run (services); organizers see every run too."""
    return user is None or is_organizer(user)


def visible_results(
    task: RetrievalTask, qrels: QrelsVersion, *, user: Any
) -> QuerySet[EvaluationResult]:
    """The task's current results against ``qrels`` that ``user`` may see (kernel.access);
    ``user=None`` (a service) sees them all."""
    results = (
        EvaluationResult.objects.filter(run__task=task)
        if user is None
        else (results_visible_to(user, task))
    )
    return results.filter(CURRENT_RESULT, qrels=qrels).select_related("run__team")


def runs_not_scored(task: RetrievalTask, qrels: QrelsVersion, *, user: Any) -> list[dict]:
    """Accepted runs (a participant: their teams') without a current result on ``qrels``: never
    evaluated against it, or uploaded/replaced after the last evaluation."""
    runs = runs_to_evaluate(task).exclude(
        pk__in=EvaluationResult.objects.filter(CURRENT_RESULT, qrels=qrels).values("run_id")
    )
    if not _sees_all(user):
        runs = runs.filter(pk__in=runs_visible_to(user, task).values("pk"))
    stale = dict(
        EvaluationResult.objects.filter(qrels=qrels, run__in=runs).values_list(
            "run_id", "run_version"
        )
    )
    return [
        {
            "id": run.pk,
            "run": f"{run.team.name}/{run.tag}",
            "team": run.team.name,
            "tag": run.tag,
            "role": run.role,
            "version": run.version,
            "uploaded_at": run.uploaded_at,
            "reason": (
                "uploaded after the last evaluation"
                if run.pk in stale
                else "not evaluated against this qrels version"
            ),
        }
        for run in runs.distinct()
    ]


def tasks_with_results(user: Any, also: Iterable[int] = ()) -> QuerySet[RetrievalTask]:
    """Every task for organizers; for anybody else the tasks with results they may see, and
    the tasks ``also`` names (other apps' results, see ``evaluation.result_sources``). Each
    task's ``results_shown`` says whether its evaluation results page is open to the user."""
    tasks = RetrievalTask.objects.select_related("campaign", "publication__qrels").order_by(
        "campaign__name", "kind", "name"
    )
    if is_organizer(user):
        return tasks.annotate(results_shown=Value(True))
    visible = results_visible_to(user).values("run__task_id")
    return tasks.filter(Q(pk__in=visible) | Q(pk__in=list(also))).annotate(
        results_shown=Exists(visible.filter(run__task=OuterRef("pk")))
    )


def task_columns(task: RetrievalTask) -> Columns:
    """The measures a task's results show: its official ones, else its kind's (ARQMath's)."""
    return columns_for(task.kind, official_measure_names(task.kind, task.official_measures))


def result_rows(
    results: Iterable[EvaluationResult],
    job: EvaluationJob | None,
    qrels: QrelsVersion,
    columns: Columns | None = None,
    *,
    task: RetrievalTask | None = None,
) -> list[dict]:
    """Plain rows for tables and downloads, best first by the task's first measure (``columns``,
    default: the qrels' task's); each says how its means were taken and how complete its qrels
    were, and how the task scores unjudged items. ``task``: the qrels' task when at hand."""
    task = task or qrels.task
    intervals = job.intervals if job is not None else {}
    known = qrels.unjudged_items is not None
    completeness: dict[str, Any] = (
        {
            "qrels_complete": not qrels.is_incomplete,
            "qrels_unjudged": qrels.unjudged_items,
            "qrels_pool_items": qrels.pool_items,
            "unjudged_rule": unjudged_rule(task.kind, task.official_measures),
        }
        if known
        else {}
    )
    rows = [
        {
            "id": result.run_id,
            "run": f"{result.run.team.name}/{result.run.tag}",
            "team": result.run.team.name,
            "tag": result.run.tag,
            "role": result.run.role,
            "file": result.run.file_name,
            **result.measures,
            "average": result.average,
            **completeness,
            "intervals": intervals.get(str(result.run_id), {}),
            "per_topic": result.per_topic,
        }
        for result in results
    ]
    if not rows:
        return rows
    if columns is None:
        columns = task_columns(qrels.task)
    return [dict(row) for row in sort_rows(rows, "", columns)]

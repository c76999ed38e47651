"""An evaluation job's runs in chunks: each chunk is a job row of its own (``EvaluationChunk``),
a Celery task any worker can take, and recovered by ``kernel.queue``'s reaper when its worker
dies.

Each run is stored in one transaction with the chunk's list of scored runs and the job's
progress count, on the condition that the chunk is still on its attempt and the job still
running: a chunk redone after its worker died skips the runs already stored, so every run's
result is written, and counted, once. Runs are read, scored and dropped one at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.utils import timezone

from collection.models import RetrievalTask
from collection.selectors import answer_task_of
from evaluation.core.measures import Average, Grades, RunScores
from evaluation.core.qrels import qrels_grades, qrels_parse
from evaluation.core.reports import TOPIC_SET
from evaluation.core.reusability import items_only_from
from evaluation.models import EvaluationChunk, EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.selectors import contributions, official_topics, runs_to_evaluate
from evaluation.services.scorers import Scorer, TeamItems, scorer_for
from kernel.queue import JobSuperseded, job_checkpoint, job_claim, job_heartbeat
from pooling.models import Run

RUNNING, DONE, FAILED = (
    EvaluationJob.Status.RUNNING,
    EvaluationJob.Status.DONE,
    EvaluationJob.Status.FAILED,
)


@dataclass
class JobScoring:
    """What scoring a job's runs needs, read once per chunk (or once per job in-process)."""

    grades: Grades
    unique: TeamItems  # team -> topic -> items only its runs pooled (empty for open QA)
    topics: list[str]  # the topics the significance tests pair
    topic_set: str  # open QA: the note naming its topic set
    scorer: Scorer


def job_scoring(job: EvaluationJob, teams: set[int]) -> JobScoring:
    """The job's qrels and scorer; leave-one-team-out evaluators for ``teams`` only."""
    task, qrels = job.task, job.qrels
    # Read as trec_eval reads qrels: an imported file may hold negative grades.
    grades = qrels_grades(qrels_parse(qrels.content, trec_eval=True), kind=task.kind)  # type: ignore[arg-type]
    openqa = task.kind == RetrievalTask.Kind.OPENQA
    unique = {} if openqa else items_only_from(contributions(task))
    average: Average = "run" if job.average == "run" else "all"
    topics, topic_set = _topic_set(task, grades) if openqa else (sorted(grades), "")
    scorer = scorer_for(
        task,
        grades,
        {t: items for t, items in unique.items() if t in teams},
        average=average,
        topics=topics if openqa else None,
    )
    return JobScoring(grades, unique, topics, topic_set, scorer)


def _topic_set(task: RetrievalTask, grades: Grades) -> tuple[list[str], str]:
    """Open QA: the topics its means are over, and a note naming them. ARQMath-3 averaged
    Task 3 over every topic its answer task's qrels assessed, not only those with an answer."""
    official = official_topics(answer_task_of(task))
    if official is None:
        return sorted(grades), (
            f"{TOPIC_SET}{len(grades)} topics of this task's qrels (its answer task has no "
            "official qrels yet)."
        )
    topics, label = official
    return topics, f"{TOPIC_SET}{len(topics)} topics of the answer task's official qrels ({label})."


def chunks_plan(job: EvaluationJob) -> list[EvaluationChunk]:
    """The job's chunks, cut from its task's accepted runs the first time (a resumed job keeps
    the runs it started with), in ``runs_to_evaluate``'s order."""
    chunks = list(job.chunks.order_by("index"))
    if chunks:
        return chunks
    run_ids = list(runs_to_evaluate(job.task).values_list("pk", flat=True))
    size = max(1, job.chunk_runs)
    EvaluationChunk.objects.bulk_create(
        [
            EvaluationChunk(job=job, index=i, run_ids=run_ids[start : start + size])
            for i, start in enumerate(range(0, len(run_ids), size))
        ],
        ignore_conflicts=True,  # another attempt cut them first: the same runs
    )
    job.runs_total = len(run_ids)
    EvaluationJob.objects.filter(pk=job.pk).update(runs_total=job.runs_total)
    return list(job.chunks.order_by("index"))


def chunk_runs(chunk: EvaluationChunk) -> Iterator[Run]:
    """The chunk's runs not stored yet, one at a time, in the chunk's order."""
    for run_id in chunk.run_ids:
        if str(run_id) in chunk.scored:
            continue
        run = Run.objects.select_related("team", "task").filter(pk=run_id).first()
        if run is not None:  # a run deleted since the job started is left out
            yield run


def chunk_teams(chunk: EvaluationChunk) -> set[int]:
    return set(Run.objects.filter(pk__in=chunk.run_ids).values_list("team_id", flat=True))


def evaluation_chunk_run(*, chunk: EvaluationChunk, scoring: JobScoring | None = None) -> bool:
    """Score and store every run of the chunk not stored yet, as the chunk's current attempt;
    True if it was the job's last chunk to finish (the job's summaries are then due).

    Raises `JobSuperseded` when another attempt took the chunk over or the job stopped; any
    other error fails the chunk and its job (the organizer retries the job)."""
    attempt = chunk.attempts
    job = chunk.job
    if job.status != RUNNING or not job_claim(
        model=EvaluationChunk, job_id=chunk.pk, attempt=attempt, error=""
    ):
        raise JobSuperseded(f"evaluation chunk {chunk.pk} attempt {attempt} is not to be run")
    try:
        with job_heartbeat(model=EvaluationChunk, job_id=chunk.pk, attempt=attempt):
            scoring = scoring or job_scoring(job, chunk_teams(chunk))
            for run in chunk_runs(chunk):
                _run_score(chunk, attempt, run, scoring)
    except JobSuperseded:
        raise
    except Exception as error:
        chunk_fail(chunk, attempt=attempt, error=str(error))
        raise
    return _chunk_finish(chunk, attempt)


def _run_score(chunk: EvaluationChunk, attempt: int, run: Run, scoring: JobScoring) -> None:
    job = chunk.job
    result = scoring.scorer.score(run)
    if scoring.topic_set:
        result.notes.append(scoring.topic_set)
    kept: dict[str, Any] = {"after": scoring.scorer.score_without_team(run)}
    if result.missing:  # what a missing topic scores under trec_eval -c, for the tests
        kept["missing"] = result.missing
    scored = {**chunk.scored, str(run.pk): kept}
    now = timezone.now()
    with transaction.atomic():
        mine = EvaluationChunk.objects.filter(pk=chunk.pk, attempts=attempt, status=RUNNING)
        if not mine.update(scored=scored, heartbeat_at=now):
            raise JobSuperseded(f"evaluation chunk {chunk.pk} attempt {attempt} was superseded")
        store_result(run, job.qrels, result)
        counted = EvaluationJob.objects.filter(pk=job.pk, status=RUNNING).update(
            runs_done=F("runs_done") + 1, heartbeat_at=now
        )
        if not counted:
            raise JobSuperseded(f"evaluation {job.pk} is no longer running")
    chunk.scored = scored
    if settings.JOB_TEST_HOOKS:  # a fault test stops the worker after some runs of the job
        job_checkpoint("evaluation_job", _runs_done(job))


def _runs_done(job: EvaluationJob) -> int:
    return EvaluationJob.objects.filter(pk=job.pk).values_list("runs_done", flat=True).get()


def store_result(run: Run, qrels: QrelsVersion, result: RunScores) -> None:
    EvaluationResult.objects.update_or_create(
        run=run,
        qrels=qrels,
        defaults={
            "qrels_checksum": qrels.checksum,
            "measures": {
                **result.measures,
                "topics": result.topics,
                "run_topics": result.run_topics,
                "judged_at_10": result.judged_at_10,
                "notes": result.notes,
                **({"answers": result.answers} if result.answers else {}),
            },
            "per_topic": result.per_topic,
            "average": result.average,
            "run_version": run.version,
        },
    )


def _chunk_finish(chunk: EvaluationChunk, attempt: int) -> bool:
    """Mark the chunk done; True for exactly one chunk of a job, the last to finish (the job
    row is locked while the others are counted, so two chunks finishing at once see each
    other)."""
    now = timezone.now()
    with transaction.atomic():
        mine = EvaluationChunk.objects.filter(pk=chunk.pk, attempts=attempt, status=RUNNING)
        if not mine.update(status=DONE, finished_at=now, heartbeat_at=now):
            raise JobSuperseded(f"evaluation chunk {chunk.pk} attempt {attempt} was superseded")
        job = EvaluationJob.objects.select_for_update().get(pk=chunk.job_id)
        chunk.status = DONE
        # A chunk re-run since this one started counted as an attempt of the job: the job's
        # summing-up message must name the attempt it is on now.
        chunk.job.attempts = job.attempts
        return job.status == RUNNING and not job.chunks.exclude(status=DONE).exists()


def chunk_requeued(chunk_id: int, *, worker_lost: bool) -> None:
    """The reaper queued the chunk again (its worker died, or its message was lost): an
    attempt of its job too, so the job's pages say which attempt it is on and why."""
    lost = {"worker_lost_at": timezone.now()} if worker_lost else {}
    EvaluationJob.objects.filter(chunks__pk=chunk_id, status=RUNNING).update(
        attempts=F("attempts") + 1, **lost
    )


def chunk_fail(chunk: EvaluationChunk, *, attempt: int, error: str) -> None:
    """Fail the chunk and its job with ``error`` (the job is retried as a whole)."""
    now = timezone.now()
    EvaluationChunk.objects.filter(pk=chunk.pk, attempts=attempt).update(
        status=FAILED, error=error, finished_at=now
    )
    EvaluationJob.objects.filter(pk=chunk.job_id, status=RUNNING).update(
        status=FAILED, error=error, finished_at=now
    )

"""Evaluation jobs: score every run of a task against a frozen qrels version (Celery work).

A job is cut into chunks of runs (``evaluation.services.job_chunks``). On Celery the job's
task cuts them and queues each chunk as a task of its own, so more workers finish sooner; the
last chunk to finish queues the job's task again, which then computes what needs every run at
once (significance tests, bootstrap intervals, the reusability report) from the stored
per-topic figures, one run at a time. In-process (``evaluation_job_run`` called directly, or
no broker) the same chunks run one after another in the caller.

Recovery: a chunk whose worker died is queued again by ``kernel.queue``'s reaper (its next
attempt skips the runs already stored); a job stays alive while one of its chunks is queued or
beating, and a job whose own task died (cutting or summing up) is queued again and carries on
from its chunks.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import asdict
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.utils import timezone

from collection.models import RetrievalTask
from evaluation.core.measures import RunScores
from evaluation.core.reusability import reusability_report
from evaluation.core.significance import bootstrap_ci, pairwise_tests
from evaluation.models import EvaluationChunk, EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.selectors import runs_to_evaluate
from evaluation.services.job_chunks import (
    JobScoring,
    chunk_requeued,
    chunks_plan,
    evaluation_chunk_run,
    job_scoring,
)
from kernel.queue import (
    JobSuperseded,
    Reaped,
    job_claim,
    job_enqueue_on_commit,
    job_heartbeat,
    jobs_reap,
)
from pooling.models import Run

TRIALS = 5_000  # randomization-test trials per pair
RESAMPLES = 2_000  # bootstrap resamples per run and measure


class EvaluationRequestError(ValueError):
    """An evaluation that cannot start (shown to the organizer)."""


def evaluation_job_start(
    *,
    task: RetrievalTask,
    qrels: QrelsVersion,
    requested_by: Any = None,
    seed: int | None = None,
    average: str | None = None,
) -> EvaluationJob:
    """Record an evaluation job and hand it to a Celery worker once the record is committed.

    The means are taken the task's way (``RetrievalTask.average``) unless ``average`` says
    otherwise; the job and each of its results record which. Raises
    `kernel.queue.QueueUnavailable` (the job is then recorded as failed) when the task queue
    cannot be reached."""
    from evaluation.tasks import evaluate_runs_task  # the tasks module imports this one

    if qrels.task_id != task.id:
        raise EvaluationRequestError("that qrels version belongs to another task")
    if qrels.level != "item":
        raise EvaluationRequestError("runs are evaluated against item-level qrels")
    average = average or task.average
    if average not in RetrievalTask.Average.values:
        raise EvaluationRequestError(f"average must be one of {', '.join(RetrievalTask.Average)}")
    with transaction.atomic():
        job = EvaluationJob.objects.create(
            task=task,
            qrels=qrels,
            requested_by=requested_by,
            average=average,
            seed=task.campaign.seed if seed is None else seed,
            runs_total=runs_to_evaluate(task).count(),
            chunk_runs=settings.EVALUATION_CHUNK_RUNS,
        )
        job_enqueue_on_commit(
            model=EvaluationJob, job_id=job.pk, attempt=job.attempts, celery_task=evaluate_runs_task
        )
    return job


def evaluation_job_retry(*, job: EvaluationJob, requested_by: Any = None) -> EvaluationJob:
    """A new job evaluating the same task against the same qrels with the same seed (the
    failed one stays, with its reason)."""
    return evaluation_job_start(
        task=job.task, qrels=job.qrels, requested_by=requested_by, seed=job.seed
    )


def evaluation_jobs_reap() -> list[Reaped]:
    """Re-queue (or fail) evaluation chunks and jobs whose worker died (kernel.queue.jobs_reap);
    the jobs' part is returned (the chunks' is logged).

    A chunk failed after its last attempt fails its job. A job none of whose own tasks runs
    is alive while one of its chunks is queued or beating: it is not re-queued then."""
    from evaluation.tasks import evaluate_chunk_task, evaluate_runs_task

    for reaped in jobs_reap(model=EvaluationChunk, celery_task=evaluate_chunk_task):
        chunk = EvaluationChunk.objects.filter(pk=reaped.job_id).values("job_id", "error")
        found = chunk.first()
        if found is None:
            continue
        jobs = EvaluationJob.objects.filter(pk=found["job_id"], status=EvaluationJob.Status.RUNNING)
        if reaped.action == "failed":
            jobs.update(
                status=EvaluationJob.Status.FAILED, error=found["error"], finished_at=timezone.now()
            )
        else:
            chunk_requeued(reaped.job_id, worker_lost=reaped.action == "requeued")
    return jobs_reap(model=EvaluationJob, celery_task=evaluate_runs_task, alive=_with_live_chunks())


def _with_live_chunks() -> Q:
    """Jobs one of whose chunks is queued, or running with a fresh heartbeat."""
    fresh = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS)
    live = EvaluationChunk.objects.filter(job=OuterRef("pk")).filter(
        Q(status=EvaluationChunk.Status.PENDING)
        | Q(status=EvaluationChunk.Status.RUNNING, heartbeat_at__gte=fresh)
    )
    return Q(Exists(live))


def evaluation_job_run(*, job: EvaluationJob, spread: bool = False) -> EvaluationJob:
    """Evaluate every accepted run of the job's task (docs/evaluation.md), store one
    EvaluationResult per run with the qrels checksum, then the significance tests, bootstrap
    intervals and leave-one-team-out report. Idempotent: results are replaced, not added.

    ``spread``: queue the chunks not done yet for any worker and return (the last chunk to
    finish queues this again, which then sums up); otherwise run them here, then sum up.

    Runs as the job's current attempt; raises `kernel.queue.JobSuperseded` when the reaper
    handed the job to another attempt, or it was already finished."""
    attempt = job.attempts
    if not job_claim(model=EvaluationJob, job_id=job.pk, attempt=attempt, error=""):
        raise JobSuperseded(f"evaluation {job.pk} attempt {attempt} is not to be run")
    job.status, job.error = EvaluationJob.Status.RUNNING, ""
    try:
        with job_heartbeat(model=EvaluationJob, job_id=job.pk, attempt=attempt):
            chunks = [c for c in chunks_plan(job) if c.status != EvaluationChunk.Status.DONE]
            for chunk in chunks:
                if chunk.status == EvaluationChunk.Status.FAILED:
                    raise EvaluationRequestError(chunk.error or f"chunk {chunk.index} failed")
            if chunks and spread:
                _chunks_queue(chunks)
                return job
            scoring = (
                job_scoring(job, set(runs_to_evaluate(job.task).values_list("team", flat=True)))
                if chunks
                else None
            )
            for chunk in chunks:
                chunk.job = job
                evaluation_chunk_run(chunk=chunk, scoring=scoring)
            _finish(job, attempt)
    except JobSuperseded:
        raise  # another attempt owns the job now: leave its status alone
    except Exception as error:
        EvaluationJob.objects.filter(pk=job.pk, attempts=attempt).update(
            status=EvaluationJob.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    return job


def _chunks_queue(chunks: list[EvaluationChunk]) -> None:
    """Queue each chunk as its next attempt (its first, when just cut): a message of an
    earlier attempt still queued or running then finds itself superseded."""
    from evaluation.tasks import evaluate_chunk_task

    now = timezone.now()
    with transaction.atomic():
        for chunk in chunks:
            attempt = chunk.attempts
            if chunk.heartbeat_at is not None or chunk.celery_task_id:  # queued before
                again = EvaluationChunk.objects.filter(pk=chunk.pk, attempts=attempt)
                if not again.exclude(status=EvaluationChunk.Status.DONE).update(
                    status=EvaluationChunk.Status.PENDING,
                    attempts=attempt + 1,
                    heartbeat_at=now,  # pending since now, for the lost-message check
                    celery_task_id="",
                    error="",
                ):
                    continue
                attempt += 1
            else:
                EvaluationChunk.objects.filter(pk=chunk.pk).update(heartbeat_at=now)
            job_enqueue_on_commit(
                model=EvaluationChunk,
                job_id=chunk.pk,
                attempt=attempt,
                celery_task=evaluate_chunk_task,
            )


def evaluation_chunk_task_run(*, chunk: EvaluationChunk) -> None:
    """What a worker does with a chunk's message: score it, and when it was the job's last
    chunk, queue the job's task to sum up."""
    from evaluation.tasks import evaluate_runs_task

    if evaluation_chunk_run(chunk=chunk):
        job = chunk.job
        job_enqueue_on_commit(
            model=EvaluationJob, job_id=job.pk, attempt=job.attempts, celery_task=evaluate_runs_task
        )


def _finish(job: EvaluationJob, attempt: int) -> None:
    """Sum up the stored results (one run at a time) and mark the job done."""
    _summaries(job, job_scoring(job, set()))
    job.refresh_from_db(fields=["runs_done", "runs_total"])
    job.status = EvaluationJob.Status.DONE
    job.finished_at = timezone.now()
    finished = EvaluationJob.objects.filter(
        pk=job.pk, attempts=attempt, status=EvaluationJob.Status.RUNNING
    )
    if not finished.update(
        status=job.status,
        finished_at=job.finished_at,
        heartbeat_at=job.finished_at,
        significance=job.significance,
        intervals=job.intervals,
        reusability=job.reusability,
    ):
        raise JobSuperseded(f"evaluation {job.pk} attempt {attempt} was superseded")


def _label(run: Run) -> str:
    return f"{run.team.name}/{run.tag}"


def _scored_runs(job: EvaluationJob) -> Iterator[tuple[Run, RunScores, dict[str, Any]]]:
    """Each run the job scored, in its chunks' order, with its stored figures (read a chunk at
    a time) and what its chunk kept of it."""
    for chunk in job.chunks.order_by("index"):
        stored = {
            r.run_id: r
            for r in EvaluationResult.objects.filter(
                qrels_id=job.qrels_id, run_id__in=chunk.run_ids
            ).select_related("run__team")
        }
        for run_id in chunk.run_ids:
            kept, result = chunk.scored.get(str(run_id)), stored.get(run_id)
            if kept is None or result is None:
                continue
            scores = RunScores(
                run=result.run.tag,
                measures=result.measures,
                per_topic=result.per_topic,
                topics=int(result.measures.get("topics", 0)),
                run_topics=int(result.measures.get("run_topics", 0)),
                judged_at_10=float(result.measures.get("judged_at_10", 0.0)),
                average=result.average,  # type: ignore[arg-type]
                missing=kept.get("missing") or {},
            )
            yield result.run, scores, kept


def _summaries(job: EvaluationJob, scoring: JobScoring) -> None:
    """Paired tests over all qrels topics (a missing topic scores 0: pairs need one topic
    list), each run's bootstrap interval over the topics its mean is taken over, and the
    leave-one-team-out report. Only per-topic figures are held, never a run's rows."""
    topics, measures = scoring.topics, scoring.scorer.measures
    vectors: dict[str, dict[str, list[float]]] = {m: {} for m in measures}
    before: dict[str, tuple[int, dict[str, float]]] = {}
    after: dict[str, dict[str, float]] = {}
    labels: dict[str, str] = {}
    teams: dict[int, str] = {}
    rng = random.Random(job.seed)  # noqa: S311 - reproducible statistics, not security
    job.intervals = {}
    for run, scores, kept in _scored_runs(job):
        for m in measures:
            vectors[m][_label(run)] = [scores.value(t, m) for t in topics]
        found: dict[str, list[float]] = {}
        for m in measures:
            values = _mean_vector(job, scores, topics, m)
            if len(values) >= 2:  # one topic gives a degenerate "interval": show none
                found[m] = list(bootstrap_ci(values, rng=rng, resamples=RESAMPLES))
        job.intervals[str(run.pk)] = found
        before[str(run.pk)] = (run.team_id, {m: scores.measures[m] for m in measures})
        if kept.get("after") is not None:
            after[str(run.pk)] = kept["after"]
        labels[str(run.pk)] = _label(run)
        teams[run.team_id] = run.team.name
    job.significance = {
        "trials": TRIALS,
        "seed": job.seed,
        "measures": {
            m: [
                _json_safe(asdict(test))
                for test in pairwise_tests(vectors[m], seed=job.seed, trials=TRIALS)
            ]
            for m in measures
        },
    }
    if job.task.kind == RetrievalTask.Kind.OPENQA:
        return
    job.reusability = reusability_report(
        before,
        after,
        teams,
        scoring.unique,
        scoring.grades,
        measures,
        relevant_from=job.task.relevance_level,
    )
    for entry in job.reusability:
        for row in entry["runs"]:
            row["label"] = labels[row["run"]]


def _json_safe(test: dict[str, Any]) -> dict[str, Any]:
    """JSON has no infinity: a t statistic of a constant non-zero difference is stored as null
    (its p-value, 0, says the same)."""
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in test.items()
    }


def _mean_vector(job: EvaluationJob, result: RunScores, topics: list[str], m: str) -> list[float]:
    """The per-topic values the run's mean is taken over (the job's averaging convention)."""
    if job.average == "run":
        return [result.per_topic[t][m] for t in topics if t in result.per_topic]
    return [result.value(t, m) for t in topics]

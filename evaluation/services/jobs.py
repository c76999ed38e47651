"""Evaluation jobs: score every run of a task against a frozen qrels version (Celery work)."""

from __future__ import annotations

import math
import random
from dataclasses import asdict
from typing import Any

from django.db import transaction
from django.utils import timezone

from collection.models import RetrievalTask
from collection.selectors import answer_task_of
from evaluation.core.measures import Average, RunScores
from evaluation.core.qrels import qrels_grades, qrels_parse
from evaluation.core.reports import TOPIC_SET
from evaluation.core.reusability import items_only_from, reusability_report
from evaluation.core.significance import bootstrap_ci, pairwise_tests
from evaluation.models import EvaluationJob, EvaluationResult, QrelsVersion
from evaluation.selectors import contributions, official_topics, runs_to_evaluate
from evaluation.services.scorers import scorer_for
from kernel.queue import (
    JobSuperseded,
    Reaped,
    job_beat,
    job_checkpoint,
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
    """Re-queue (or fail) evaluation jobs whose worker died (kernel.queue.jobs_reap)."""
    from evaluation.tasks import evaluate_runs_task

    return jobs_reap(model=EvaluationJob, celery_task=evaluate_runs_task)


def evaluation_job_run(*, job: EvaluationJob) -> EvaluationJob:
    """Evaluate every accepted run of the job's task (docs/evaluation.md), store one
    EvaluationResult per run with the qrels checksum, then the significance tests, bootstrap
    intervals and leave-one-team-out report. Idempotent: results are replaced, not added.

    Runs as the job's current attempt; raises `kernel.queue.JobSuperseded` when the reaper
    handed the job to another attempt, or it was already finished."""
    attempt = job.attempts
    if not job_claim(model=EvaluationJob, job_id=job.pk, attempt=attempt, error=""):
        raise JobSuperseded(f"evaluation {job.pk} attempt {attempt} is not to be run")
    job.status, job.error = EvaluationJob.Status.RUNNING, ""
    try:
        with job_heartbeat(model=EvaluationJob, job_id=job.pk, attempt=attempt):
            _evaluate(job)
    except JobSuperseded:
        raise  # another attempt owns the job now: leave its status alone
    except Exception as error:
        EvaluationJob.objects.filter(pk=job.pk, attempts=attempt).update(
            status=EvaluationJob.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
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
    return job


def _beat(job: EvaluationJob, **progress: int) -> None:
    job_beat(model=EvaluationJob, job_id=job.pk, attempt=job.attempts, **progress)


def _evaluate(job: EvaluationJob) -> None:
    task, qrels = job.task, job.qrels
    # Read as trec_eval reads qrels: an imported file may hold negative grades.
    grades = qrels_grades(qrels_parse(qrels.content, trec_eval=True), kind=task.kind)  # type: ignore[arg-type]
    runs = list(runs_to_evaluate(task))
    job.runs_total, job.runs_done = len(runs), 0
    _beat(job, runs_total=job.runs_total, runs_done=0)
    openqa = task.kind == RetrievalTask.Kind.OPENQA
    unique = {} if openqa else items_only_from(contributions(task))
    teams = {run.team_id for run in runs}
    average: Average = "run" if job.average == "run" else "all"
    topics, topic_set = _topic_set(task, grades) if openqa else (sorted(grades), "")
    scorer = scorer_for(
        task,
        grades,
        {t: items for t, items in unique.items() if t in teams},
        average=average,
        topics=topics if openqa else None,
    )
    scored: dict[int, RunScores] = {}
    after: dict[str, dict[str, float]] = {}
    for run in runs:
        result = scorer.score(run)
        if topic_set:
            result.notes.append(topic_set)
        without = scorer.score_without_team(run)
        if without is not None:
            after[str(run.pk)] = without
        scored[run.pk] = result
        _store(run, qrels, result)
        job.runs_done += 1
        _beat(job, runs_done=job.runs_done)
        job_checkpoint("evaluation_job", job.runs_done)
    _summaries(job, runs, scored, topics, scorer.measures)
    if not openqa:
        job.reusability = reusability_report(
            {str(r.pk): (r.team_id, scored[r.pk].measures) for r in runs},
            after,
            {r.team_id: r.team.name for r in runs},
            unique,
            grades,
            scorer.measures,
            relevant_from=job.task.relevance_level,
        )
        for entry in job.reusability:
            for row in entry["runs"]:
                row["label"] = _label(next(r for r in runs if str(r.pk) == row["run"]))


def _topic_set(task: RetrievalTask, grades: dict[str, dict[str, int]]) -> tuple[list[str], str]:
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


def _store(run: Run, qrels: QrelsVersion, result: RunScores) -> None:
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


def _label(run: Run) -> str:
    return f"{run.team.name}/{run.tag}"


def _summaries(
    job: EvaluationJob,
    runs: list[Run],
    scored: dict[int, RunScores],
    topics: list[str],
    measures: tuple[str, ...],
) -> None:
    """Paired tests over all qrels topics (a missing topic scores 0: pairs need one topic
    list), and each run's bootstrap interval over the topics its mean is taken over."""
    vectors = {
        m: {_label(run): [scored[run.pk].value(t, m) for t in topics] for run in runs}
        for m in measures
    }
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
    rng = random.Random(job.seed)  # noqa: S311 - reproducible statistics, not security
    job.intervals = {}
    for run in runs:
        found: dict[str, list[float]] = {}
        for m in measures:
            values = _mean_vector(job, scored[run.pk], topics, m)
            if len(values) >= 2:  # one topic gives a degenerate "interval": show none
                found[m] = list(bootstrap_ci(values, rng=rng, resamples=RESAMPLES))
        job.intervals[str(run.pk)] = found


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

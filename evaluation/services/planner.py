"""The pool planner as a background job on a task's runs (docs/pooling.md, "The planner on the
pool page"): the organizer picks the prior judgments (an uploaded qrels file, a relevance-only
file, or the judgments made so far), strategies and budgets; a worker replays them with
``evaluation.core.pool_planner`` over every accepted run of the task, a strategy at a time,
and stores the table. The same core as ``manage.py simulate_pools``, on the database's runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, BinaryIO

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from collection.models import RetrievalTask
from evaluation.core.official import official_measure_names, official_measures_check
from evaluation.core.planner_files import PlannerFileError, prior_grades
from evaluation.core.pool_planner import Planner, PlannerInput, condensed
from evaluation.core.qrels import qrels_from_judgments, qrels_grades
from evaluation.core.trec_measures import parse_measures
from evaluation.core.trec_names import MeasureNameError
from evaluation.models import PoolPlanJob
from evaluation.selectors import judgment_records
from evaluation.selectors.planner import accepted_run_names, planner_runs, why_not_pooled
from evaluation.services.qrels import qrels_policy
from kernel.queue import (
    JobSuperseded,
    Reaped,
    job_beat,
    job_claim,
    job_enqueue_on_commit,
    job_heartbeat,
    jobs_reap,
)
from pooling.core.algorithms.strategies import Strategy, parse_strategy

# Shares of the prior judgments tried when no budget is given, as simulate_pools does.
DEFAULT_SHARES = (0.1, 0.2, 0.4)
MAX_BUDGETS = 12
MAX_STRATEGIES = 12


class PlanRequestError(ValueError):
    """A plan that cannot start (shown to the organizer); ``field`` names the input at fault."""

    def __init__(self, message: str, *, field: str = "detail") -> None:
        super().__init__(message)
        self.field = field


class PlanBusyError(PlanRequestError):
    """Another plan of the task, asked with other inputs, is still queued or running."""

    def __init__(self, message: str, *, job: PoolPlanJob) -> None:
        super().__init__(message)
        self.job = job


@dataclass(frozen=True)
class PlanStart:
    job: PoolPlanJob
    joined: bool  # the same plan was already queued or running: that one is returned


ACTIVE = (PoolPlanJob.Status.PENDING, PoolPlanJob.Status.RUNNING)


def judgments_so_far(task: RetrievalTask) -> dict[str, dict[str, int]]:
    """The task's judgments as qrels would take them today (the task's policy), incomplete
    topics included: topic -> docno -> grade."""
    policy = replace(qrels_policy(task=task, min_relevant=0), relevant_from=task.relevance_level)
    build = qrels_from_judgments(judgment_records(task), kind=task.kind, policy=policy)  # type: ignore[arg-type]
    return qrels_grades(build.entries, kind="document")


def prior_from_upload(
    *, task: RetrievalTask, source: str, upload: BinaryIO | None, name: str, size: int
) -> dict[str, dict[str, int]]:
    """The prior judgments the organizer picked: the judgments so far, or an uploaded qrels or
    relevance-only file (read whole, so its size is bounded before it is read)."""
    if source == PoolPlanJob.Source.JUDGMENTS:
        return judgments_so_far(task)
    if upload is None:
        raise PlannerFileError("choose the file of prior judgments")
    # A prior is a qrels file: the qrels import's bound, which its request cap follows too.
    limit = settings.QRELS_FILE_MAX_BYTES
    if size > limit:
        raise PlannerFileError(
            f"{name}: {size:,} bytes, larger than the {limit // 2**20} MB a prior file may have"
        )
    try:
        text = upload.read(limit + 1).decode("utf-8")
    except UnicodeDecodeError:
        raise PlannerFileError(f"{name}: not UTF-8 text") from None
    relevance_only = source == PoolPlanJob.Source.RELEVANT
    return prior_grades(text, relevance_only=relevance_only, name=name)


def default_budgets(grades: dict[str, dict[str, int]]) -> list[int]:
    judged = sum(len(docs) for docs in grades.values())
    return sorted({max(1, round(judged * share)) for share in DEFAULT_SHARES})


def pool_runs_chosen(task: RetrievalTask, names: Sequence[str] | None) -> list[str]:
    """The runs a plan's strategies may pool from, sorted: the named ones (a tag, or
    ``team/tag`` where two teams share one: as the planner page lists them), or every accepted
    run of the task when none are named. Raises PlanRequestError (field ``pool_runs``) for an
    empty choice or a name that is not one of the task's accepted runs."""
    accepted = accepted_run_names(task)
    if names is None:
        return accepted
    if not names:
        raise PlanRequestError("name at least one run to pool from", field="pool_runs")
    known = set(accepted)
    problems = [why_not_pooled(task, name) for name in dict.fromkeys(names) if name not in known]
    if problems:
        raise PlanRequestError("; ".join(problems), field="pool_runs")
    return sorted(set(names))


def pool_plan_request(
    *,
    task: RetrievalTask,
    source: str,
    grades: dict[str, dict[str, int]],
    strategies: Sequence[Strategy],
    budgets: Sequence[int],
    measures: Sequence[str] = (),
    pool_runs: Sequence[str] | None = None,
    source_name: str = "",
    seed: int = 0,
    judged_only: bool = False,
    requested_by: Any = None,
) -> PlanStart:
    """Record a plan and hand it to a Celery worker once the record is committed.

    The prior judgments are kept for the task's topics only (a prior file may hold other
    topics: they have no runs to replay). ``measures`` default to the task's official ones;
    ``pool_runs`` to every accepted run (``pool_runs_chosen``), recorded by name either way.
    ``judged_only`` replays condensed runs (``simulate_pools --judged-only``).
    While a plan of the task is queued or running, asking for the same plan again joins it
    (two organizers clicking at once get one job); asking for another raises PlanBusyError.
    Raises `kernel.queue.QueueUnavailable` (the job is then failed) when the queue is down."""
    from evaluation.tasks import plan_pools_task  # the tasks module imports this one

    if task.kind != RetrievalTask.Kind.DOCUMENT:
        raise PlanRequestError("the planner replays document tasks' runs")
    if not grades:
        raise PlanRequestError("the prior judgments hold no judgment", field="source")
    numbers = set(task.topics.values_list("number", flat=True))
    grades = {topic: docs for topic, docs in grades.items() if topic in numbers}
    if not grades:
        raise PlanRequestError(
            f"the prior judgments name none of the {len(numbers)} topics of {task}",
            field="prior",
        )
    if judged_only and source == PoolPlanJob.Source.RELEVANT:
        # Such a file names the relevant documents alone: runs cut to them would hold nothing
        # else, and every strategy would find only relevant documents.
        raise PlanRequestError(
            "judged documents only needs a prior that says which documents were judged; a "
            "relevance-only file lists the relevant ones alone",
            field="judged_only",
        )
    if not strategies or len(strategies) > MAX_STRATEGIES:
        raise PlanRequestError(f"pick 1 to {MAX_STRATEGIES} strategies", field="strategies")
    budgets = sorted(set(budgets)) or default_budgets(grades)
    if len(budgets) > MAX_BUDGETS or min(budgets) < 1:
        raise PlanRequestError(
            f"give 1 to {MAX_BUDGETS} budgets, each at least 1 judgment", field="budgets"
        )
    try:
        names = official_measures_check(task.kind, measures)
    except MeasureNameError as error:
        raise PlanRequestError(str(error), field="measures") from None
    labels = list(dict.fromkeys(s.label for s in strategies))
    pooled = pool_runs_chosen(task, pool_runs)
    wanted = {
        "source": source,
        "grades": grades,
        "strategies": labels,
        "budgets": budgets,
        "measures": names or official_measure_names(task.kind, task.official_measures) or [],
        "seed": seed,
        "pool_runs": pooled,
        "judged_only": judged_only,
    }
    with transaction.atomic():
        # One plan at a time per task: the task's row serializes two starts.
        RetrievalTask.objects.select_for_update().filter(pk=task.pk).first()
        running = PoolPlanJob.objects.filter(task=task, status__in=ACTIVE).order_by("pk").first()
        if running is not None:
            if all(getattr(running, key) == value for key, value in wanted.items()):
                return PlanStart(running, joined=True)
            raise PlanBusyError(
                f"plan {running.pk} of {task} is still {running.status}: wait for it to finish "
                "(or ask for the same plan to follow it)",
                job=running,
            )
        job = PoolPlanJob.objects.create(
            task=task,
            source_name=source_name[:255],
            steps_total=len(labels),
            requested_by=requested_by,
            **wanted,
        )
        job_enqueue_on_commit(
            model=PoolPlanJob, job_id=job.pk, attempt=job.attempts, celery_task=plan_pools_task
        )
    return PlanStart(job, joined=False)


def pool_plans_reap() -> list[Reaped]:
    from evaluation.tasks import plan_pools_task

    return jobs_reap(model=PoolPlanJob, celery_task=plan_pools_task)


def pool_plan_run(*, job: PoolPlanJob) -> PoolPlanJob:
    """Replay the job's strategies at its budgets and store the table (idempotent: the rows
    are written whole at the end). Raises JobSuperseded when another attempt owns the job."""
    attempt = job.attempts
    if not job_claim(model=PoolPlanJob, job_id=job.pk, attempt=attempt, error="", steps_done=0):
        raise JobSuperseded(f"pool plan {job.pk} attempt {attempt} is not to be run")
    try:
        with job_heartbeat(model=PoolPlanJob, job_id=job.pk, attempt=attempt):
            rows = _replay(job)
    except JobSuperseded:
        raise
    except Exception as error:
        PoolPlanJob.objects.filter(pk=job.pk, attempts=attempt).update(
            status=PoolPlanJob.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    now = timezone.now()
    finished = PoolPlanJob.objects.filter(
        pk=job.pk, attempts=attempt, status=PoolPlanJob.Status.RUNNING
    )
    if not finished.update(
        status=PoolPlanJob.Status.DONE, rows=rows, finished_at=now, heartbeat_at=now
    ):
        raise JobSuperseded(f"pool plan {job.pk} attempt {attempt} was superseded")
    job.status, job.rows, job.finished_at = PoolPlanJob.Status.DONE, rows, now
    return job


def _replay(job: PoolPlanJob) -> list[dict[str, Any]]:
    task = job.task
    grades = {topic: dict(docs) for topic, docs in job.grades.items()}
    found = planner_runs(task, sorted(grades))
    if not found.runs:
        raise PlanRequestError(f"{task} has no accepted runs to replay")
    pool_tags = job.pool_runs or sorted(found.runs)  # none recorded: a plan from before
    gone = [name for name in pool_tags if name not in found.runs]
    if gone:  # withdrawn or replaced since the plan was asked for
        raise PlanRequestError(
            f"runs to pool from are no longer accepted runs of {task}: {', '.join(gone)}",
            field="pool_runs",
        )
    data = PlannerInput(
        grades=grades,
        runs=found.runs,
        pool_tags=pool_tags,
        groups=found.groups,
        measures=parse_measures(job.measures),
        relevance_level=task.relevance_level,
    )
    if job.judged_only:
        data = condensed(data)  # as simulate_pools --judged-only: runs cut to the judged
    planner = Planner(data, job.seed)
    rows: list[dict[str, Any]] = []
    for done, label in enumerate(job.strategies, start=1):
        rows += [row.as_dict() for row in planner.rows([parse_strategy(label)], job.budgets)]
        job_beat(model=PoolPlanJob, job_id=job.pk, attempt=job.attempts, steps_done=done)
    return rows

"""Building a task's pools: load runs in bulk, apply the pooling rules, write the difference.

docs/pooling.md (document tasks: the answer rules with docnos,
one hit per item pointing to its document). A build is incremental and idempotent:
- items, hits, contributions a build finds already stored are kept (their display order too);
  it adds what is new and records every current (run, rank) contribution;
- an item no run contributes any more (its run was replaced or withdrawn) is kept and marked
  orphaned if any of its hits was judged, and removed if not;
- a few topics are written per transaction, so a build killed half-way leaves whole topics
  behind, and building again gives exactly the state an uninterrupted build gives.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal, NoReturn

from django.utils import timezone

from collection.models import RetrievalTask, Topic
from kernel.queue import JobSuperseded, job_checkpoint, job_claim, job_heartbeat
from pooling.core.algorithms import PlannedItem, PoolSettings, plan_answer_topic, plan_formula_topic
from pooling.core.algorithms.strategies.priority import PoolStrategy
from pooling.models import PoolBuild
from pooling.selectors.pool_fingerprints import topics_to_build
from pooling.selectors.pool_inputs import (
    PooledRuns,
    answer_rows,
    formula_rows,
    openqa_answers,
    pool_settings,
    pooled_runs,
    pooling_target,
)
from pooling.selectors.strategy_inputs import STRATEGY_KINDS, current_strategy, topic_strategy
from pooling.services.document_pools import DocumentsMissing, document_plans

# pool_build_request and pool_builds_reap are re-exported: callers written before the queue part
# moved to pool_jobs import them from here.
from pooling.services.pool_jobs import pool_build_request as pool_build_request
from pooling.services.pool_jobs import pool_builds_reap as pool_builds_reap
from pooling.services.pool_writes import pool_chunk_write
from pooling.services.strategy_pools import (
    StrategyMissingDocuments,
    TopicPriority,
    strategy_priorities,
)

logger = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
# Rows of this many topics are held in memory at once, and written in one transaction: a build
# killed half-way leaves whole chunks behind, and a commit per chunk, not per topic, keeps the
# database's WAL flushes few.
TOPICS_PER_PASS = 10


class PoolBuildError(Exception):
    """A build that cannot start (e.g. an open-QA task with no answer task to join)."""


def pool_build(
    *,
    task: RetrievalTask,
    seed: int | None = None,
    progress: Progress | None = None,
    build: PoolBuild | None = None,
    full: bool = False,
    strategy: PoolStrategy | Literal["keep"] | None = "keep",
) -> PoolBuild:
    """Build (or rebuild) the pools of ``task`` and return the finished PoolBuild.

    Open QA (Task 3) answers join the answer task's pools (docs/pooling.md), so building
    either task builds the answer task's pools with both tasks' runs. A queued ``build`` runs
    as its current attempt (``build.attempts``) and raises `kernel.queue.JobSuperseded` when
    the reaper handed it to another attempt, or it was already finished.

    Only topics whose inputs' fingerprint changed since their pool was written are recomputed
    (the others would come out unchanged); ``full`` recomputes every topic, e.g.
    after the collection's formulas changed, which no fingerprint covers.

    A ``strategy`` pools a document task to a budget in priority order instead of by the
    task's rules (pooling.services.strategy_pools); a task budget spans every topic, so any
    change recomputes them all. None builds by the task's rules; by default a build keeps the
    strategy of the task's last finished build.
    """
    target = _target(task, build)
    if strategy == "keep":
        strategy = current_strategy(target.pk)
    if strategy is not None and target.kind not in STRATEGY_KINDS:
        _refuse(build, f"{task}: budgeted strategies pool document and answer tasks only")
    settings = pool_settings(target, seed)
    runs = pooled_runs(target)
    topics = list(Topic.objects.filter(task=target).order_by("id").values_list("id", "number"))
    recorded = strategy.as_dict() if strategy is not None else None
    changed, fingerprints = topics_to_build(
        target.kind,
        settings,
        runs,
        topics,
        full=full or (strategy is not None and strategy.scope == "task"),
        collection_id=target.collection_id,
        strategy=recorded,
    )
    skipped = len(topics) - len(changed)
    build = _start(build, task, settings, runs, len(topics), recorded)
    attempt = build.attempts
    counts: Counter[str] = Counter(topics_recomputed=len(changed), topics_skipped=skipped)
    try:
        with job_heartbeat(model=PoolBuild, job_id=build.pk, attempt=attempt):
            priorities = _priorities(target, strategy, runs, changed)
            for start in range(0, len(changed), TOPICS_PER_PASS):
                chunk = changed[start : start + TOPICS_PER_PASS]
                if strategy is None:
                    plans = list(_plans(target, settings, runs, chunk))
                else:  # the strategy's documents are added to what is kept, under the lock
                    plans = [(topic_id, number, {}) for topic_id, number in chunk]
                done = skipped + start + len(chunk)
                pool_chunk_write(
                    chunk=plans,
                    settings=settings,
                    build=build,
                    counts=counts,
                    done=done,
                    fingerprints=fingerprints,
                    priority=priorities,
                )
                job_checkpoint("pool_build", done)
                if progress is not None:
                    progress(done, len(topics))
    except JobSuperseded:
        raise  # another attempt owns the build now: leave its status alone
    except Exception as error:
        PoolBuild.objects.filter(pk=build.pk, attempts=attempt).update(
            status=PoolBuild.Status.FAILED, error=str(error), finished_at=timezone.now()
        )
        raise
    return _finish(build, counts, len(topics))


def _priorities(
    target: RetrievalTask,
    strategy: PoolStrategy | None,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
) -> dict[int, TopicPriority]:
    """What a budgeted build adds to each of ``topics`` (none without a strategy)."""
    if strategy is None or not topics:
        return {}
    previous = {}
    for topic_id in [topic_id for topic_id, _ in topics]:
        recorded, _build = topic_strategy(topic_id)
        previous[topic_id] = recorded.label if recorded is not None else None
    try:
        return strategy_priorities(
            kind=target.kind,
            collection_id=target.collection_id,
            spec=strategy,
            runs=runs,
            topics=topics,
            previous=previous,
        )
    except StrategyMissingDocuments as error:
        raise PoolBuildError(str(error)) from error


def _refuse(build: PoolBuild | None, message: str) -> NoReturn:
    """A PoolBuildError (and a queued ``build`` marked failed, so the organizer sees why)."""
    if build is not None:
        PoolBuild.objects.filter(pk=build.pk).update(
            status=PoolBuild.Status.FAILED, error=message, finished_at=timezone.now()
        )
    raise PoolBuildError(message)


def _target(task: RetrievalTask, build: PoolBuild | None) -> RetrievalTask:
    """``pooling_target``, or a PoolBuildError (and a queued ``build`` marked failed)."""
    try:
        return pooling_target(task)
    except RetrievalTask.DoesNotExist as error:
        message = f"{task} has no answer task whose pools its answers join"
        if build is not None:  # a queued build: the organizer sees why it failed
            PoolBuild.objects.filter(pk=build.pk).update(
                status=PoolBuild.Status.FAILED, error=message, finished_at=timezone.now()
            )
        raise PoolBuildError(message) from error


def _start(
    build: PoolBuild | None,
    task: RetrievalTask,
    settings: PoolSettings,
    runs: PooledRuns,
    topics_total: int,
    strategy: dict[str, Any] | None = None,
) -> PoolBuild:
    """Mark the build running (a new one when called without a queued build)."""
    fields: dict[str, Any] = {
        "parameters": {**settings.as_dict(), "runs": runs.described, "strategy": strategy},
        "topics_total": topics_total,
        "topics_done": 0,
        "error": "",
    }
    if build is None:
        return PoolBuild.objects.create(
            task=task, status=PoolBuild.Status.RUNNING, heartbeat_at=timezone.now(), **fields
        )
    if not job_claim(model=PoolBuild, job_id=build.pk, attempt=build.attempts, **fields):
        raise JobSuperseded(f"build {build.pk} attempt {build.attempts} is not to be run")
    for name, value in fields.items():
        setattr(build, name, value)
    build.status = PoolBuild.Status.RUNNING
    return build


def _finish(build: PoolBuild, counts: Counter[str], topics_total: int) -> PoolBuild:
    """Record the build as done, unless another attempt took it over meanwhile."""
    now = timezone.now()
    fields: dict[str, Any] = {
        "status": PoolBuild.Status.DONE,
        "stats": dict(sorted(counts.items())),
        "finished_at": now,
        "topics_done": topics_total,
    }
    running = PoolBuild.objects.filter(
        pk=build.pk, attempts=build.attempts, status=PoolBuild.Status.RUNNING
    )
    if not running.update(heartbeat_at=now, **fields):
        raise JobSuperseded(f"build {build.pk} attempt {build.attempts} was superseded")
    for name, value in fields.items():
        setattr(build, name, value)
    return build


def _plans(
    target: RetrievalTask,
    settings: PoolSettings,
    runs: PooledRuns,
    topics: Sequence[tuple[int, str]],
) -> Iterable[tuple[int, str, dict[str, PlannedItem]]]:
    """Each topic's planned items, reading the rows of ``topics`` in one pass."""
    topic_ids = [topic_id for topic_id, _ in topics]
    if target.kind == RetrievalTask.Kind.FORMULA:
        formulas = formula_rows(runs.specs, settings, topic_ids)
        for topic_id, number in topics:
            ranked = formulas.get(topic_id, {})
            plan, _depths = plan_formula_topic(
                ((spec, ranked.get(spec.run_id, [])) for spec in runs.specs), settings
            )
            yield topic_id, number, plan
        return
    if target.kind == RetrievalTask.Kind.DOCUMENT:
        try:
            yield from document_plans(target, settings, runs, topics)
        except DocumentsMissing as error:
            raise PoolBuildError(str(error)) from error
        return
    answers = answer_rows(runs.specs, settings, topic_ids)
    generated = openqa_answers(runs.openqa_run_ids, {number: pk for pk, number in topics})
    for topic_id, number in topics:
        by_run = answers.get(topic_id, {})
        plan = plan_answer_topic(
            ((spec, by_run.get(spec.run_id, [])) for spec in runs.specs),
            generated.get(topic_id, []),
            settings,
        )
        yield topic_id, number, plan

"""Judge runs: ask an endpoint about every pool item of a task (and its probes), as a job.

A run is a ``JudgeRun`` job row (kernel.queue: claim, heartbeat, reaper, attempts), run by a
Celery worker (judges.tasks) or in-process (``manage.py run_judge``). It is resumable because
it is idempotent: every answer is written to the cache (JudgeAnswer) as it arrives, keyed by
(endpoint, model, prompt version, topic, item), and a question whose answer the cache holds
is never asked again, so an attempt after a killed worker asks only what the dead one had not
written. The grades are stored once every question has an answer (judges.services.runs_store).

Questions go out from a thread pool the size of the endpoint's concurrency, within its limits
shared through Redis (judges.limits), with retries on 429, 5xx and timeouts (judges.client).
An answer without a valid final grade is a failure, kept with its text; a later run asks it
again. Threads only talk HTTP; the database is written by the run's own thread.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any

from django.db import transaction
from django.utils import timezone

from assessment.selectors.guidelines import guidelines_current
from assessment.services.machine_judges import machine_judge_ensure
from collection.models import RetrievalTask
from judges.client import ChatOutcome, EndpointRefused
from judges.core.answers import answer_parse
from judges.core.prompts import prompt_render
from judges.core.retry import cost, projected
from judges.models import JudgeAnswer, JudgeEndpoint, JudgeRun
from judges.selectors.prompts import judge_prompt, scale_grades
from judges.selectors.work import DEFAULT_SAMPLE_SEED, WorkItem, judge_work
from judges.services.endpoints import EndpointError, endpoint_api_key, endpoint_client
from judges.services.runs_store import run_grades_store
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

logger = logging.getLogger(__name__)

__all__ = [
    "CANCELLED",
    "judge_run_cancel",
    "judge_run_execute",
    "judge_run_request",
    "judge_runs_reap",
]

WRITE_EVERY = 200  # answers per cache write (and progress beat)
WRITE_SECONDS = 0.5
MAX_TOKENS = 512
CANCELLED = "Cancelled; the answers received are kept and a new run takes them from the cache."
MAX_LIMIT = 10_000_000
MAX_SAMPLE_SEED = 2**63 - 1

Progress = Callable[[JudgeRun], None]


def judge_run_prepare(
    *,
    task: RetrievalTask,
    endpoint: JudgeEndpoint,
    judge_name: str,
    prompt_version: int | None = None,
    limit: int | None = None,
    sample_seed: int = DEFAULT_SAMPLE_SEED,
    temperature: float = 0.0,
    seed: int | None = 0,
    logprobs: bool = False,
    requested_by: Any = None,
) -> JudgeRun:
    """A pending run row, every setting checked (EndpointError lists the problems)."""
    problems = []
    prompt = judge_prompt(task, prompt_version)
    if prompt is None:
        problems.append(f"prompt version: the task has no version {prompt_version}")
    if limit is not None and not 1 <= limit <= MAX_LIMIT:
        problems.append("limit: at least 1")
    if not 0 <= sample_seed <= MAX_SAMPLE_SEED:
        problems.append(f"sample seed: 0 to {MAX_SAMPLE_SEED}")
    if not 0.0 <= temperature <= 2.0:
        problems.append("temperature: 0 to 2")
    if task.kind == RetrievalTask.Kind.OPENQA:
        problems.append("open-QA answers are judged in the answer task: run the judge there")
    if problems or prompt is None:
        raise EndpointError(problems)
    endpoint_api_key(endpoint)  # the variable must be set where the run is asked for too
    by = requested_by if getattr(requested_by, "pk", None) else None
    judge = machine_judge_ensure(
        task=task,
        name=judge_name,
        description=f"LLM judge: {endpoint.model} at endpoint {endpoint.name}",
        created_by=by,
    )
    return JudgeRun.objects.create(
        task=task,
        judge=judge,
        endpoint=endpoint,
        endpoint_name=endpoint.name,
        model=endpoint.model,
        prompt_version=prompt.version,
        parameters={
            "limit": limit,
            # Which items a limited run samples (judges.selectors.work): kept so a resumed
            # run asks about the same ones and the run's page can say how it was drawn.
            "sample_seed": sample_seed,
            "temperature": temperature,
            "seed": seed,
            "logprobs": logprobs,
            "max_tokens": MAX_TOKENS,
            "price_per_1k_tokens": endpoint.price_per_1k_tokens,
        },
        requested_by=by,
    )


def judge_run_request(**settings: Any) -> JudgeRun:
    """Record a pending run and hand it to a Celery worker once the transaction commits
    (raises kernel.queue.QueueUnavailable, the run then failed, when the queue is down)."""
    from judges.tasks import judge_run_task  # the tasks import the services

    with transaction.atomic():
        run = judge_run_prepare(**settings)
        job_enqueue_on_commit(
            model=JudgeRun, job_id=run.pk, attempt=run.attempts, celery_task=judge_run_task
        )
    return run


def judge_run_cancel(*, run: JudgeRun) -> bool:
    """Ask a pending or running run to stop; a pending one stops at once."""
    JudgeRun.objects.filter(pk=run.pk, status=JudgeRun.Status.PENDING).update(
        status=JudgeRun.Status.FAILED,
        error=CANCELLED,
        finished_at=timezone.now(),
        cancel_requested=True,
    )
    return bool(
        JudgeRun.objects.filter(
            pk=run.pk, status__in=(JudgeRun.Status.PENDING, JudgeRun.Status.RUNNING)
        ).update(cancel_requested=True)
    )


def judge_runs_reap() -> list[Reaped]:
    from judges.tasks import judge_run_task

    return jobs_reap(model=JudgeRun, celery_task=judge_run_task)


class _Tally:
    """The run's counters, written with each beat."""

    def __init__(self, run: JudgeRun) -> None:
        self.run = run
        self.fields = {
            "items_done": 0,
            "asked": 0,
            "from_cache": 0,
            "failed": 0,
            "retries": 0,
            "tokens": 0,
        }

    def __getitem__(self, name: str) -> int:
        return self.fields[name]

    def add(self, **counts: int) -> None:
        for name, n in counts.items():
            self.fields[name] += n

    def stats(self, to_ask: int) -> dict[str, Any]:
        price = float(self.run.parameters.get("price_per_1k_tokens") or 0.0)
        so_far = cost(self.fields["tokens"], price)
        return {
            "cost": round(so_far, 6),
            "cost_projected": round(projected(so_far, self.fields["asked"], to_ask), 6),
            "tokens_projected": int(projected(self.fields["tokens"], self.fields["asked"], to_ask)),
            "to_ask": to_ask,
        }


def _answer_row(
    run: JudgeRun, item: WorkItem, outcome: ChatOutcome, values: list[int]
) -> JudgeAnswer:
    parameters = run.parameters
    parsed = answer_parse(outcome.content, values, outcome.logprobs) if not outcome.error else None
    return JudgeAnswer(
        endpoint_name=run.endpoint_name,
        model=run.model,
        prompt_version=run.prompt_version,
        topic_id=item.topic_id,
        item_key=item.key,
        hit_id=item.hit_id,
        probe_id=item.probe_id,
        run=run,
        ok=bool(parsed and parsed.ok),
        grade=parsed.grade if parsed else None,
        failure=outcome.error if parsed is None else parsed.failure,
        probabilities={str(k): v for k, v in (parsed.probabilities if parsed else {}).items()},
        raw_answer=(outcome.content or "")[:100_000].replace("\x00", ""),
        temperature=float(parameters.get("temperature") or 0.0),
        seed=parameters.get("seed"),
        prompt_tokens=outcome.prompt_tokens,
        completion_tokens=outcome.completion_tokens,
        latency_ms=round(outcome.latency_ms, 3),
    )


_ANSWER_FIELDS = [
    "hit",
    "probe",
    "run",
    "ok",
    "grade",
    "failure",
    "probabilities",
    "raw_answer",
    "temperature",
    "seed",
    "prompt_tokens",
    "completion_tokens",
    "latency_ms",
    "created_at",
]


def _write(rows: list[JudgeAnswer]) -> None:
    if rows:
        JudgeAnswer.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["endpoint_name", "model", "prompt_version", "topic", "item_key"],
            update_fields=_ANSWER_FIELDS,
        )


def _start(run: JudgeRun) -> JudgeRun:
    fields = {"error": "", "stats": {}}
    if not job_claim(model=JudgeRun, job_id=run.pk, attempt=run.attempts, **fields):
        raise JobSuperseded(f"judge run {run.pk} attempt {run.attempts} is not to be run")
    run.status = JudgeRun.Status.RUNNING
    return run


def judge_run_execute(*, run: JudgeRun, progress: Progress | None = None) -> JudgeRun:
    """Run (or resume) ``run`` to the end: every question answered, from the cache or the
    endpoint, and the grades stored. Raises JobSuperseded when another attempt owns it."""
    run = _start(run)
    attempt = run.attempts
    try:
        with job_heartbeat(model=JudgeRun, job_id=run.pk, attempt=attempt):
            tally = _ask_all(run, attempt, progress)
    except JobSuperseded:
        raise
    except Exception as error:
        message = (
            str(error)
            if isinstance(error, (EndpointError, EndpointRefused))
            else (f"{type(error).__name__}: {error}")
        )
        logger.warning("judge run %s failed: %s", run.pk, message)
        JudgeRun.objects.filter(pk=run.pk, attempts=attempt).update(
            status=JudgeRun.Status.FAILED, error=message[:2000], finished_at=timezone.now()
        )
        run.refresh_from_db()
        return run
    cancelled = JudgeRun.objects.filter(pk=run.pk, cancel_requested=True).exists()
    # A run that judged nothing (every question failed, e.g. an unreachable endpoint) did not
    # succeed, whatever its counters say; one with some failures is done, its failures shown.
    nothing_judged = 0 < run.items_total == tally["failed"]
    why = (
        CANCELLED
        if cancelled
        else f"every one of the {run.items_total} items failed; nothing was judged"
        if nothing_judged
        else ""
    )
    done = JudgeRun.objects.filter(pk=run.pk, attempts=attempt, status=JudgeRun.Status.RUNNING)
    finished = done.update(
        status=JudgeRun.Status.FAILED if cancelled or nothing_judged else JudgeRun.Status.DONE,
        error=why,
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
        **tally.fields,
    )
    if not finished:
        raise JobSuperseded(f"judge run {run.pk} attempt {attempt} was superseded")
    run.refresh_from_db()
    return run


def _ask_all(run: JudgeRun, attempt: int, progress: Progress | None) -> _Tally:
    task = run.task
    endpoint = run.endpoint
    if endpoint is None:
        raise EndpointError([f"the endpoint {run.endpoint_name} was removed"])
    prompt = judge_prompt(task, run.prompt_version or None)
    if prompt is None or prompt.version != run.prompt_version:
        raise EndpointError([f"prompt version {run.prompt_version} no longer exists"])
    grades = scale_grades(task)
    values = sorted(guidelines_current(task=task).scale.values)
    work = judge_work(
        task,
        limit=run.parameters.get("limit"),
        sample_seed=run.parameters.get("sample_seed", DEFAULT_SAMPLE_SEED),
    )
    cached = {
        (topic_id, key): (answer_id, grade)
        for topic_id, key, answer_id, grade in JudgeAnswer.objects.filter(
            endpoint_name=run.endpoint_name,
            model=run.model,
            prompt_version=run.prompt_version,
            topic__task=task,
            ok=True,
        ).values_list("topic_id", "item_key", "pk", "grade")
    }
    todo = [item for item in work if (item.topic_id, item.key) not in cached]
    tally = _Tally(run)
    tally.add(items_done=len(work) - len(todo), from_cache=len(work) - len(todo))
    job_beat(
        model=JudgeRun,
        job_id=run.pk,
        attempt=attempt,
        items_total=len(work),
        stats=tally.stats(len(todo)),
        **tally.fields,
    )
    run.items_total = len(work)
    # Where the time goes (the benchmark reports it): asking, then storing the grades.
    clock, cpu = time.perf_counter(), time.process_time()
    if todo:
        _ask(run, attempt, endpoint, prompt.template, grades, values, todo, tally, progress)
    timing = {
        "ask_seconds": round(time.perf_counter() - clock, 3),
        "ask_cpu_seconds": round(time.process_time() - cpu, 3),
    }
    clock, cpu = time.perf_counter(), time.process_time()
    graded = [
        (topic_id, hit_id, grade, answer_id)
        for topic_id, hit_id, grade, answer_id in JudgeAnswer.objects.filter(
            endpoint_name=run.endpoint_name,
            model=run.model,
            prompt_version=run.prompt_version,
            topic__task=task,
            ok=True,
            hit__in=[item.hit_id for item in work if item.hit_id is not None],
        ).values_list("topic_id", "hit_id", "grade", "pk")
        if grade is not None
    ]
    created, changed = run_grades_store(run=run, graded=graded)
    timing["store_seconds"] = round(time.perf_counter() - clock, 3)
    timing["store_cpu_seconds"] = round(time.process_time() - cpu, 3)
    tally.run.stats = {
        **tally.stats(len(todo)),
        "grades_created": created,
        "grades_changed": changed,
        **timing,
    }
    JudgeRun.objects.filter(pk=run.pk, attempts=attempt).update(stats=tally.run.stats)
    return tally


def _ask(
    run: JudgeRun,
    attempt: int,
    endpoint: JudgeEndpoint,
    template: str,
    grades: list[Any],
    values: list[int],
    todo: list[WorkItem],
    tally: _Tally,
    progress: Progress | None,
) -> None:
    client = endpoint_client(endpoint, seed=run.pk, pool_size=endpoint.concurrency)
    parameters = run.parameters

    def body(item: WorkItem) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": run.model,
            "messages": [{"role": "user", "content": prompt_render(template, item.prompt, grades)}],
            "temperature": parameters.get("temperature", 0.0),
            "max_tokens": parameters.get("max_tokens", MAX_TOKENS),
        }
        if parameters.get("seed") is not None:
            request["seed"] = parameters["seed"]
        if parameters.get("logprobs"):
            request.update(logprobs=True, top_logprobs=min(20, len(values) + 2))
        return request

    def one(item: WorkItem) -> tuple[WorkItem, ChatOutcome]:
        return item, client.ask(body(item))

    try:
        pending: list[JudgeAnswer] = []
        last_write = time.monotonic()
        queue = iter(todo)
        with ThreadPoolExecutor(
            max_workers=endpoint.concurrency, thread_name_prefix="judge"
        ) as pool:
            running: set[Future[tuple[WorkItem, ChatOutcome]]] = set()
            stop = False
            try:
                while True:
                    while not stop and len(running) < endpoint.concurrency * 2:
                        item = next(queue, None)
                        if item is None:
                            break
                        running.add(pool.submit(one, item))
                    if not running:
                        break
                    finished, running = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
                    for future in finished:
                        item, outcome = future.result()
                        row = _answer_row(run, item, outcome, values)
                        pending.append(row)
                        tally.add(
                            items_done=1,
                            asked=1,
                            failed=0 if row.ok else 1,
                            retries=outcome.retries,
                            tokens=outcome.prompt_tokens + outcome.completion_tokens,
                        )
                    now = time.monotonic()
                    if len(pending) >= WRITE_EVERY or (
                        pending and now - last_write >= WRITE_SECONDS
                    ):
                        _write(pending)
                        pending = []
                        last_write = now
                        job_beat(
                            model=JudgeRun,
                            job_id=run.pk,
                            attempt=attempt,
                            stats=tally.stats(len(todo)),
                            **tally.fields,
                        )
                        if progress is not None:
                            progress(run)
                        job_checkpoint("judge_run", tally["asked"])
                        stop = (
                            stop
                            or JudgeRun.objects.filter(pk=run.pk, cancel_requested=True).exists()
                        )
            finally:
                _write(pending)  # whatever arrived is kept, even when the run stops on an error
    finally:
        client.limiter.close()  # the leases this run's threads hold, for other runs and workers

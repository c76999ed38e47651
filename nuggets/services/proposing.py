"""Machine-proposed nuggets: ask a registered judge endpoint to propose a topic's nuggets from
the relevant documents found so far, and store what it proposes for the editor to accept,
edit or reject.

A request is a ``NuggetProposalRun`` job row, run by a Celery worker (nuggets.tasks) when a
broker is configured and in-process otherwise (kernel.queue.job_enqueue), as judge runs are.
It is idempotent: the answer is cached in ``NuggetMachineAnswer`` under (endpoint, model,
prompt version, the prompt's digest), and a question whose good answer the cache holds is
never sent again: the run takes it from the cache and adds no proposal twice (the
proposals were stored with the answer, in one transaction). A failed answer (no valid
nugget list) is kept with its text and why; asking again sends the question again.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from collection.models import Topic
from judges.client import ChatOutcome, EndpointRefused
from judges.models import JudgeEndpoint
from judges.services.endpoints import EndpointError, endpoint_api_key, endpoint_client
from kernel.queue import (
    PENDING,
    RUNNING,
    JobSuperseded,
    Reaped,
    job_claim,
    job_enqueue_on_commit,
    job_heartbeat,
    jobs_reap,
)
from nuggets.core.proposing import (
    NUGGET_PROMPT_VERSION,
    ProposalSource,
    ProposalTopic,
    nugget_prompt,
    proposals_parse,
    question_digest,
)
from nuggets.models import NuggetMachineAnswer, NuggetProposal, NuggetProposalRun
from nuggets.selectors.pages import editor_documents

logger = logging.getLogger(__name__)

__all__ = [
    "NuggetQuestion",
    "nugget_proposal_execute",
    "nugget_proposal_prepare",
    "nugget_proposal_request",
    "nugget_proposal_runs_reap",
    "nugget_question",
]

MAX_TOKENS = 2048  # room for a short reasoning and thirty nuggets
RAW_MAX_CHARS = 100_000


@dataclass(frozen=True)
class NuggetQuestion:
    prompt: str
    digest: str
    sources: list[str]  # docnos, in the prompt's order


def nugget_question(topic: Topic) -> NuggetQuestion:
    """What an endpoint is asked for ``topic``: its fields and the documents the editor shows
    (judged relevant, else the most cited), as plain text."""
    documents = editor_documents(topic)
    if not documents:
        raise EndpointError(
            [f"topic {topic.number}: no document judged relevant or cited yet to draw nuggets from"]
        )
    sources = [ProposalSource(docno=d.docno, text=d.text) for d in documents]
    prompt = nugget_prompt(
        ProposalTopic(
            number=topic.number,
            title=topic.title,
            description=topic.description,
            narrative=topic.narrative,
        ),
        sources,
    )
    return NuggetQuestion(prompt, question_digest(prompt), [s.docno for s in sources])


def nugget_proposal_prepare(
    *, topic: Topic, endpoint: JudgeEndpoint, requested_by: Any = None
) -> NuggetProposalRun:
    """A pending request (or the one already pending or running for this topic and
    endpoint: a second click asks nothing more)."""
    endpoint_api_key(endpoint)  # the variable must be set where the request is made too
    with transaction.atomic():
        # Two clicks at once: the second waits for the first's row and returns it.
        Topic.objects.select_for_update().filter(pk=topic.pk).first()
        busy = NuggetProposalRun.objects.filter(
            topic=topic, endpoint=endpoint, status__in=(PENDING, RUNNING)
        ).first()
        if busy is not None:
            return busy
        return NuggetProposalRun.objects.create(
            topic=topic,
            endpoint=endpoint,
            endpoint_name=endpoint.name,
            model=endpoint.model,
            prompt_version=NUGGET_PROMPT_VERSION,
            requested_by=requested_by if getattr(requested_by, "pk", None) else None,
        )


def nugget_proposal_request(
    *, topic: Topic, endpoint: JudgeEndpoint, requested_by: Any = None
) -> NuggetProposalRun:
    """Record a request and hand it to a worker once the transaction commits (run here and
    now when no broker is configured). Raises kernel.queue.QueueUnavailable when the queue is
    down (the request is then marked failed)."""
    from nuggets.tasks import nugget_proposal_task  # the tasks import the services

    with transaction.atomic():
        run = nugget_proposal_prepare(topic=topic, endpoint=endpoint, requested_by=requested_by)
        if run.status == PENDING and not run.celery_task_id:
            job_enqueue_on_commit(
                model=NuggetProposalRun,
                job_id=run.pk,
                attempt=run.attempts,
                celery_task=nugget_proposal_task,
            )
    run.refresh_from_db()
    return run


def nugget_proposal_runs_reap() -> list[Reaped]:
    from nuggets.tasks import nugget_proposal_task

    return jobs_reap(model=NuggetProposalRun, celery_task=nugget_proposal_task)


def _cached(run: NuggetProposalRun, digest: str) -> NuggetMachineAnswer | None:
    return NuggetMachineAnswer.objects.filter(
        endpoint_name=run.endpoint_name,
        model=run.model,
        prompt_version=run.prompt_version,
        question_digest=digest,
        ok=True,
    ).first()


def _ask(endpoint: JudgeEndpoint, run: NuggetProposalRun, prompt: str) -> ChatOutcome:
    client = endpoint_client(endpoint, seed=run.pk, pool_size=1)
    try:
        return client.ask(
            {
                "model": run.model,
                "messages": [{"role": "user", "content": prompt}],
                "temperature": 0.0,
                "seed": 0,
                "max_tokens": MAX_TOKENS,
            }
        )
    finally:
        client.limiter.close()


def _finish(run: NuggetProposalRun, attempt: int, *, error: str = "", **fields: Any) -> None:
    updated = NuggetProposalRun.objects.filter(pk=run.pk, attempts=attempt, status=RUNNING).update(
        status=NuggetProposalRun.Status.FAILED if error else NuggetProposalRun.Status.DONE,
        error=error[:2000],
        finished_at=timezone.now(),
        **fields,
    )
    if not updated:
        raise JobSuperseded(f"nugget proposal run {run.pk} attempt {attempt} was superseded")


def _store(
    run: NuggetProposalRun, question: NuggetQuestion, outcome: ChatOutcome, attempt: int
) -> None:
    """The answer (replacing a failed one) and, when it is a valid list, its proposals, with
    the run's outcome: all in one transaction, so a run killed midway left nothing."""
    parsed = proposals_parse(outcome.content) if not outcome.error else None
    failure = outcome.error if parsed is None else parsed.failure
    provenance = (
        f"{run.endpoint_name} · {run.model} · nugget prompt v{run.prompt_version}"
        f" · {outcome.prompt_tokens + outcome.completion_tokens} tokens"
    )
    with transaction.atomic():
        answer, _ = NuggetMachineAnswer.objects.update_or_create(
            endpoint_name=run.endpoint_name,
            model=run.model,
            prompt_version=run.prompt_version,
            question_digest=question.digest,
            defaults={
                "topic_id": run.topic_id,
                "sources": question.sources,
                "ok": not failure,
                "failure": failure,
                "raw_answer": (outcome.content or "")[:RAW_MAX_CHARS].replace("\x00", ""),
                "prompt_tokens": outcome.prompt_tokens,
                "completion_tokens": outcome.completion_tokens,
                "latency_ms": round(outcome.latency_ms, 3),
            },
        )
        nuggets = parsed.nuggets if parsed is not None and parsed.ok else []
        NuggetProposal.objects.bulk_create(
            NuggetProposal(
                topic_id=run.topic_id,
                text=text,
                importance=importance.value,
                provenance=provenance,
                machine_answer=answer,
            )
            for text, importance in nuggets
        )
        _finish(
            run,
            attempt,
            error=f"the endpoint's answer was not used: {failure}" if failure else "",
            answer=answer,
            proposed=len(nuggets),
        )


def nugget_proposal_execute(*, run: NuggetProposalRun) -> NuggetProposalRun:
    """Run (or resume) a request to the end: the question answered from the cache or the
    endpoint, its proposals stored. Raises JobSuperseded when another attempt owns it."""
    if not job_claim(model=NuggetProposalRun, job_id=run.pk, attempt=run.attempts, error=""):
        raise JobSuperseded(f"nugget proposal run {run.pk} attempt {run.attempts} is not to be run")
    attempt = run.attempts
    try:
        if run.endpoint is None:
            raise EndpointError([f"the endpoint {run.endpoint_name} was removed"])
        question = nugget_question(run.topic)
        cached = _cached(run, question.digest)
        if cached is not None:
            _finish(run, attempt, answer=cached, from_cache=True, proposed=0)
        else:
            # A slow endpoint with retries takes minutes: the heartbeat says the worker lives.
            with job_heartbeat(model=NuggetProposalRun, job_id=run.pk, attempt=attempt):
                outcome = _ask(run.endpoint, run, question.prompt)
            _store(run, question, outcome, attempt)
    except JobSuperseded:
        raise
    except (EndpointError, EndpointRefused) as error:
        _finish(run, attempt, error=str(error))
    except Exception as error:
        logger.warning("nugget proposal run %s failed: %s", run.pk, error)
        _finish(run, attempt, error=f"{type(error).__name__}: {error}")
    run.refresh_from_db()
    return run

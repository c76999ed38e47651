"""A judge run whose Celery worker is killed (SIGKILL) mid-run is re-run by the reaper and
ends with exactly one machine judgment per pool item, equal to what the server answered; the
answers the dead worker had written are never asked again."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Judgment
from config.celery import app as celery_app
from judges.core.endpoints import EndpointFields
from judges.models import JudgeAnswer, JudgeRun
from judges.services.endpoints import endpoint_add
from judges.services.runs import judge_run_request
from tests.factories.collection import UserFactory
from tests.integration.judge_server import (
    judge_server,
    judged_document_task,
    server_stats,
    write_qrels,
)
from tests.integration.workers import kill, wait_for, worker_process

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

CONCURRENCY = 2


def test_killed_workers_judge_run_is_rerun_to_one_judgment_per_item_when_reaped(
    tmp_path: Path, settings: object
) -> None:
    settings.JOB_STALE_SECONDS, settings.JOB_HEARTBEAT_SECONDS = 5, 1  # type: ignore[attr-defined]
    beats = {"JOB_STALE_SECONDS": "5", "JOB_HEARTBEAT_SECONDS": "1"}
    task, truth = judged_document_task(topics=3, items=40, seed=9)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    paused = tmp_path / "paused"
    celery_app.control.purge()
    options = ["--latency-ms", "40", "--error-rate-429", "0.1", "--error-rate-500", "0.1"]
    with judge_server(qrels, *options) as url:
        endpoint = endpoint_add(
            fields=EndpointFields(
                name="fake",
                base_url=url,
                model="fake-judge",
                concurrency=CONCURRENCY,
                timeout_seconds=5,
            )
        )
        first = worker_process(
            "judge-first",
            JOB_TEST_PAUSE="judge_run:10",
            JOB_TEST_PAUSED_FILE=str(paused),
            **beats,
        )
        second = None
        try:
            run = judge_run_request(task=task, endpoint=endpoint, judge_name="llm")
            wait_for(paused.exists, 120, "the judge run to reach its pause point")
            kill(first)
            killed_at = time.monotonic()
            written = JudgeAnswer.objects.filter(run=run).count()
            assert 10 <= written < len(truth)
            second = worker_process("judge-second", **beats)
            client = Client()
            client.force_login(UserFactory.create(username="organizer", is_staff=True))
            status_url = reverse("judges_api:run", args=[run.pk])
            seen: list[tuple[str, int]] = []

            def done() -> bool:
                state = client.get(status_url).json()  # the progress bar's poll reaps
                seen.append((state["status"], state["attempts"]))
                return state["status"] in ("done", "failed")

            wait_for(done, 120, "the killed judge run to be re-run", every=1.0)
            recovery = time.monotonic() - killed_at
            stats = server_stats(url)
        finally:
            kill(first)
            if second is not None:
                kill(second)
    print(f"\nworker killed mid-run: run done {recovery:.1f} s after the kill")
    assert recovery < 60  # reaped after 5 s, the dead worker's slots free after 10 s
    run.refresh_from_db()
    assert run.status == JudgeRun.Status.DONE, run.error
    assert run.attempts == 2
    assert run.from_cache >= written  # what the dead worker wrote was not asked again
    rows = Judgment.objects.filter(assessor_id=run.judge.account_id).values_list(
        "hit__item__topic__number", "hit__item__key", "grade"
    )
    grades = {(number, key): grade for number, key, grade in rows}
    assert len(rows) == len(grades) == len(truth)
    assert grades == truth
    # Only questions in flight when the worker died (not yet written) were asked twice.
    assert stats["answered_more_than_once"] <= 2 * CONCURRENCY + 1

"""Job status on the pool and qrels pages in real Chromium: queue down, progress, retry."""

from __future__ import annotations

import pytest

from collection.models import RetrievalTask
from config.celery import app as celery_app
from evaluation.models import EvaluationJob
from evaluation.services import qrels_export
from kernel.queue import QUEUE_UNAVAILABLE
from pooling.models import PoolBuild
from tests.factories.collection import RetrievalTaskFactory, UserFactory
from tests.integration.evaluation_data import judged_answer_task
from tests.integration.workers import celery_broker, free_port

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_build_button_says_try_again_in_place_when_the_task_queue_is_down(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    UserFactory.create(username="organizer", is_staff=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login("organizer")
    page.goto(f"/pools/{task.pk}/")
    with celery_broker(f"redis://127.0.0.1:{free_port()}/0"):  # nothing listens there
        page.click("#pool-build-form button")
        page.wait_for_selector("#pool-build-status .error:not([hidden])")
    assert page.inner_text("#pool-build-status .error") == QUEUE_UNAVAILABLE
    assert page.inner_text("#pool-build-status [data-field=status]") == "failed"
    assert page.url.endswith(f"/pools/{task.pk}/")  # no reload: the script showed it
    screenshot("pool-queue-unavailable")
    assert list(PoolBuild.objects.values_list("status", flat=True)) == ["failed"]
    page.reload()
    assert page.inner_text("#pool-build-form button") == "Retry the build"
    assert errors == []


def test_qrels_page_draws_progress_and_offers_retry_when_a_job_failed(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    EvaluationJob.objects.create(
        task=data.task,
        qrels=qrels,
        status="failed",
        runs_done=1,
        runs_total=2,
        error="The worker died at 2026-01-01 10:00:00 UTC; retry.",
    )
    UserFactory.create(username="organizer", is_staff=True)
    login("organizer")
    page.goto(f"/results/{data.task.pk}/qrels/")
    job = page.locator(".job").first
    bar = job.locator(".progress-bar")
    filled = job.locator(".progress-bar span")
    width = filled.evaluate("span => span.getBoundingClientRect().width")
    assert width == pytest.approx(bar.evaluate("b => b.getBoundingClientRect().width") / 2, abs=2)
    assert "The worker died at" in job.inner_text()
    screenshot("qrels-failed-job")
    job.locator("button:text-is('Retry')").click()
    page.wait_for_load_state("networkidle")
    assert EvaluationJob.objects.filter(status="failed").count() == 1
    assert EvaluationJob.objects.exclude(status="failed").count() == 1  # started again
    celery_app.control.purge()  # no worker here: later tests must not receive it


def test_job_poller_follows_a_running_job_then_reloads_when_it_finishes(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    """Both pages' jobs are followed by one poller: counts move as the worker writes them."""
    task = RetrievalTaskFactory.create(kind=RetrievalTask.Kind.ANSWER)
    build = PoolBuild.objects.create(task=task, status="running", topics_done=0, topics_total=4)
    UserFactory.create(username="organizer", is_staff=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login("organizer")
    page.goto(f"/pools/{task.pk}/")
    box = page.locator("#pool-build-status")
    PoolBuild.objects.filter(pk=build.pk).update(topics_done=3)  # what a worker writes
    page.wait_for_function(
        "() => document.querySelector('#pool-build-status [data-field=done]').textContent === '3'"
    )
    assert box.locator(".progress-bar").get_attribute("aria-valuenow") == "3"
    screenshot("pool-build-following")
    with page.expect_navigation():  # done: the page reloads to show the new pools
        PoolBuild.objects.filter(pk=build.pk).update(status="done", topics_done=4)
    assert box.locator("[data-field=status]").inner_text() == "done"
    assert errors == []

"""The LLM judge pages in real Chromium: add an endpoint, start a run from the machine-judges
page, and watch its progress (items, tokens, cost) until it is done. The run goes through a
real Celery worker to the fake judge server, both separate processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from assessment.models import Judgment
from config.celery import app as celery_app
from judges.models import JudgeRun
from tests.factories.collection import UserFactory
from tests.integration.judge_server import judge_server, judged_document_task, write_qrels
from tests.integration.workers import kill, worker_process

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_organizer_adds_an_endpoint_and_follows_a_judge_run_to_done(
    page, login, screenshot, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    task, truth = judged_document_task(topics=2, items=30, seed=11)
    qrels = write_qrels(tmp_path / "qrels.txt", truth)
    UserFactory.create(username="organizer", is_staff=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    celery_app.control.purge()
    worker = worker_process("judge-browser")
    try:
        with judge_server(qrels, "--latency-ms", "150") as url:
            login("organizer")
            page.goto("/organize/judges/endpoints/")
            page.fill("#form-endpoint input[name=name]", "local-fake")
            page.fill("#form-endpoint input[name=base_url]", url)
            page.fill("#form-endpoint input[name=model]", "fake-judge")
            page.fill("#form-endpoint input[name=api_key_env]", "FAKE_JUDGE_KEY")
            page.fill("#form-endpoint input[name=concurrency]", "2")
            page.fill("#form-endpoint input[name=price_per_1k_tokens]", "0.5")
            page.click("#form-endpoint button[type=submit]")
            page.wait_for_selector("#endpoint-table td:has-text('local-fake')")
            assert "$FAKE_JUDGE_KEY" in page.inner_text("#endpoint-table")
            screenshot("judges-endpoints")

            # The key's variable must be set where the run is asked for: not here, so a clear
            # error, naming the variable.
            page.goto(f"/organize/task/{task.pk}/machine-judges/")
            page.click("#run-llm-judge")
            page.fill("#form-judge-run input[name=judge]", "llm-fake")
            page.click("#start-judge-run")
            page.wait_for_load_state("networkidle")
            assert "FAKE_JUDGE_KEY is not set" in page.inner_text("body")
            assert not JudgeRun.objects.exists()

            page.goto("/organize/judges/endpoints/")
            page.once("dialog", lambda dialog: dialog.accept())
            page.click("#endpoint-table button:text-is('Remove')")
            page.wait_for_selector("#endpoint-table td.empty")
            page.fill("#form-endpoint input[name=name]", "local-fake")
            page.fill("#form-endpoint input[name=base_url]", url)
            page.fill("#form-endpoint input[name=model]", "fake-judge")
            page.fill("#form-endpoint input[name=concurrency]", "2")
            page.fill("#form-endpoint input[name=price_per_1k_tokens]", "0.5")
            page.click("#form-endpoint button[type=submit]")
            page.wait_for_selector("#endpoint-table td:has-text('local-fake')")

            page.goto(f"/organize/task/{task.pk}/judge-runs/")
            page.fill("#form-judge-run input[name=judge]", "llm-fake")
            page.click("#start-judge-run")
            box = page.locator("#judge-run-table [data-job-progress]").first
            page.wait_for_function(
                "() => { const b = document.querySelector('#judge-run-table [data-job-progress]');"
                " return b && b.dataset.status === 'running'"
                " && Number(b.querySelector('[data-field=done]').textContent) > 4; }",
                timeout=60000,
            )
            assert int(box.locator("[data-state=tokens]").inner_text()) > 0
            screenshot("judges-run-progress")
            page.wait_for_selector(
                "#judge-run-table .status-done", timeout=90000
            )  # the poller reloads the page when the run is done
            screenshot("judges-run-done")
    finally:
        kill(worker)
    run = JudgeRun.objects.get()
    assert run.status == "done", run.error
    text = page.inner_text("#judge-run-table")
    assert "60 of 60 questions (pool items and probes)" in " ".join(text.split())
    assert Judgment.objects.filter(assessor_id=run.judge.account_id).count() == 60
    assert float(run.stats["cost"]) == pytest.approx(run.tokens * 0.5 / 1000, rel=1e-3)
    assert errors == []

"""The results and qrels pages in real Chromium: charts drawn, run switch, export flow."""

from __future__ import annotations

import pytest

from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.services import evaluation_job_run, qrels_export
from tests.factories.collection import UserFactory
from tests.integration.evaluation_data import judged_answer_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_results_page_draws_both_charts_and_switches_run_when_organizer_clicks(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    data = judged_answer_task()
    qrels = qrels_export(task=data.task)
    evaluation_job_run(job=EvaluationJob.objects.create(task=data.task, qrels=qrels, seed=1))
    UserFactory.create(username="organizer", is_staff=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login("organizer")
    page.goto(f"/results/{data.task.pk}/")
    page.wait_for_function("() => window.Chart && Chart.getChart('topic-chart')")
    means = page.evaluate("() => Chart.getChart('means-chart').data.labels")
    assert means == ["Alpha/alpha", "Beta/beta"]
    assert page.evaluate("() => Chart.getChart('topic-chart').data.labels") == ["A.1", "A.2"]
    screenshot("results-page")
    page.click("table.results-table a:text-is('beta')")
    page.wait_for_load_state("networkidle")
    assert page.inner_text("#topics-title") == "Per topic: Beta/beta"
    assert page.evaluate("() => Chart.getChart('topic-chart').data.labels") == ["A.1"]
    assert errors == []


def test_organizer_exports_qrels_and_downloads_them_when_using_the_qrels_page(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    data = judged_answer_task()
    UserFactory.create(username="organizer", is_staff=True)
    login("organizer")
    page.goto(f"/results/{data.task.pk}/qrels/")
    page.fill("input[name=min_relevant]", "3")
    page.click("text=Export and freeze")
    page.wait_for_load_state("networkidle")
    version = QrelsVersion.objects.get()
    assert page.is_visible(f"text={version.checksum[:12]}")
    assert page.is_visible("text=A.2")  # the dropped topic is listed
    screenshot("qrels-page")
    with page.expect_download() as download:
        page.click("text=Download")
    assert download.value.path().read_text() == version.content


def test_a_qrels_file_past_the_upload_limit_gets_the_413_page_naming_it_when_imported(
    page, login, screenshot, tmp_path, settings
) -> None:  # type: ignore[no-untyped-def]
    """A plain form past its limit: the server refuses it unread with a page that names the
    limit and its setting, and links back to the form; nothing is stored."""
    data = judged_answer_task()
    UserFactory.create(username="organizer", is_staff=True)
    settings.QRELS_UPLOAD_MAX_BYTES = 1_000
    big = tmp_path / "qrels.tsv"
    big.write_text("".join(f"A.1\t0\t{doc}\t1\n" for doc in range(1, 300)))
    login("organizer")
    page.goto(f"/results/{data.task.pk}/qrels/")
    page.click("text=Or import a qrels file")
    page.set_input_files("input[name=file]", str(big))
    page.click("text=Import and freeze")
    page.wait_for_load_state("networkidle")
    said = page.inner_text("main")
    assert "This upload is too large" in said
    assert "over the limit of 1,000 bytes a request (QRELS_UPLOAD_MAX_BYTES)" in said
    assert "Check that this is the file you meant to send" in said
    assert "RUN_FILE_MAX_BYTES" not in said
    screenshot("qrels-upload-too-large")
    page.click("text=Back to the form")
    assert page.url.endswith(f"/results/{data.task.pk}/qrels/")
    assert not QrelsVersion.objects.exists()

"""Publishing per task in real Chromium: export readiness and "export anyway", then publish
and withdraw as an organizer, and what a participant sees before, during and after."""

from __future__ import annotations

import pytest
from django.utils import timezone

from evaluation.models import EvaluationJob, PublicationEvent, QrelsVersion, TaskPublication
from evaluation.services import evaluation_job_run
from pooling.models import Run
from tests.factories import HitFactory, PoolItemFactory, UserFactory
from tests.integration.evaluation_data import judged_answer_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scene():  # type: ignore[no-untyped-def]
    """The judged task with two pool items of A.2 still unjudged, an organizer, and carol of
    team Beta."""
    data = judged_answer_task()
    for order, post in enumerate((203, 204), start=50):
        item = PoolItemFactory.create(
            topic=data.topics["A.2"], post_id=post, key=str(post), display_order=order
        )
        HitFactory.create(item=item, post_id=post)
    UserFactory.create(username="organizer", is_staff=True)
    data.beta.team.members.add(UserFactory.create(username="carol"))
    return data


def test_organizer_sees_readiness_and_must_tick_export_anyway_when_items_are_unjudged(
    page, login, screenshot, scene
) -> None:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login("organizer")
    page.goto(f"/results/{scene.task.pk}/qrels/")
    summary = page.inner_text("#readiness-summary")
    assert "7 of 9 pool items judged" in summary
    assert "2 unjudged in 1 of 2 topics" in summary
    cells = page.locator("#readiness-table tbody tr").nth(1).locator("td").all_inner_texts()
    assert cells[:6] == ["A.2", "4", "2", "0", "2", "2"]
    screenshot("qrels-readiness")
    page.click("text=Export and freeze")
    page.wait_for_load_state("networkidle")
    assert page.is_visible("text=2 unjudged items in 1 topic (A.2: 2)")
    assert not QrelsVersion.objects.exists()
    screenshot("qrels-export-refused")
    page.check("input[name=allow_incomplete]")
    page.click("text=Export and freeze")
    page.wait_for_load_state("networkidle")
    version = QrelsVersion.objects.get()
    assert version.unjudged_items == 2
    assert page.is_visible("text=incomplete: 2 items unjudged")
    row = page.locator("table.data tr", has_text=version.checksum[:12])
    assert "7 of 9 items" in row.inner_text()
    screenshot("qrels-exported-anyway")
    assert errors == []


def test_participant_sees_scores_only_while_organizer_has_published_the_task(
    page, login, screenshot, scene
) -> None:  # type: ignore[no-untyped-def]
    from evaluation.services import qrels_export

    qrels = qrels_export(task=scene.task, allow_incomplete=True)
    evaluation_job_run(job=EvaluationJob.objects.create(task=scene.task, qrels=qrels, seed=1))
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    def log_in_as(username: str) -> None:
        page.context.clear_cookies()  # a fresh session: the login page's only form
        login(username)

    log_in_as("carol")
    page.goto("/results/")
    assert page.is_visible("text=No results are published for your runs yet")
    page.goto(f"/results/{scene.task.pk}/")
    assert page.is_visible("text=have not published the results of this task")
    screenshot("participant-before-publication")

    log_in_as("organizer")
    page.goto("/results/")
    page.click("text=Publish…")
    page.wait_for_load_state("networkidle")
    assert page.inner_text("#confirm-holds").startswith("2 topics, 6 judgments")
    assert "Alpha / alpha" in page.inner_text("#scored-runs")
    assert page.is_visible("text=7 of 9 pool items judged when exported")
    screenshot("publication-confirm")
    page.click("#publish-button")
    page.wait_for_load_state("networkidle")
    assert page.is_visible("text=participants now see their runs' scores")
    assert page.is_visible(".publication-state >> text=Published")
    screenshot("results-published-organizer")

    log_in_as("carol")
    page.goto("/results/")
    page.click("a.button-primary:text-is('Results')")
    page.wait_for_load_state("networkidle")
    teams = page.locator("table.results-table tbody td:nth-child(2)").all_inner_texts()
    assert teams == ["Beta"]
    assert page.is_visible("text=Incomplete qrels: 2 of 9 pool items were unjudged")
    assert not page.is_visible("text=Significance")
    screenshot("participant-after-publication")

    # Beta replaces its run after the evaluation: no old score, "not scored yet" instead.
    Run.objects.filter(pk=scene.beta.pk).update(version=2, uploaded_at=timezone.now())
    page.reload()
    row = page.locator("table.results-table tr.not-scored")
    assert "not scored yet uploaded after the last evaluation" in " ".join(row.inner_text().split())
    screenshot("participant-run-not-scored-yet")

    log_in_as("organizer")
    page.goto(f"/results/{scene.task.pk}/publication/")
    page.click("#withdraw-button")
    page.wait_for_load_state("networkidle")
    assert page.is_visible("text=Withdrew the results")
    assert not TaskPublication.objects.get(task=scene.task).published
    page.goto(f"/results/{scene.task.pk}/publication/")
    history = page.locator("#publication-events tbody tr").all_inner_texts()
    assert [line.split("\t")[1:3] for line in history] == [
        ["organizer", "Withdraw"],
        ["organizer", "Publish"],
    ]
    screenshot("publication-record")
    assert list(PublicationEvent.objects.values_list("by_name", flat=True)) == [
        "organizer",
        "organizer",
    ]

    log_in_as("carol")
    page.goto(f"/results/{scene.task.pk}/")
    assert page.is_visible("text=have not published the results of this task")
    assert errors == []


def test_agreement_page_shows_mean_over_topics_beside_pooled_kappa_when_organizer_looks(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.test_agreement_topics import dual_assessed_task

    task = dual_assessed_task()
    UserFactory.create(username="organizer", is_staff=True)
    login("organizer")
    page.goto(f"/organize/task/{task.pk}/agreement/")
    rows = page.locator("#task-kappa tbody tr").all_inner_texts()
    assert rows[0].startswith("Pooled")
    assert rows[1].startswith("Mean over topics")
    assert "A.2 (no variation)" in page.inner_text("#topics-left-out")
    screenshot("agreement-mean-over-topics")

"""The organizer dashboard of the demo campaign in real Chromium: the charts are drawn."""

import io

import pytest
from django.core.management import call_command

from assessment.models import Assignment
from collection.models import RetrievalTask
from demo.arqmath_campaign import CAMPAIGN

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Counts the canvas pixels something was drawn on: an empty canvas has none.
INKED_PIXELS = """(id) => {
  const canvas = document.getElementById(id);
  const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
  let inked = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] > 0) inked++;
  return inked;
}"""


@pytest.fixture
def demo_task(tmp_path) -> RetrievalTask:  # type: ignore[no-untyped-def]
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "150", "--topics", "8", stdout=io.StringIO()
    )
    return RetrievalTask.objects.get(campaign__name=CAMPAIGN, kind=RetrievalTask.Kind.ANSWER)


def log_in_as_organizer(page) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "organizer")
    page.fill("input[name=password]", "organizer-demo")
    page.click("form button[type=submit], form input[type=submit]")
    page.wait_for_load_state("networkidle")


def datasets(page, canvas_id: str) -> list[list[float | None]]:  # type: ignore[no-untyped-def]
    return page.evaluate("(id) => Chart.getChart(id).data.datasets.map((d) => d.data)", canvas_id)


def test_kappa_chart_is_drawn_when_organizer_opens_the_demo_dashboard(
    page, demo_task, screenshot
) -> None:
    log_in_as_organizer(page)
    page.goto("/organize/")
    assert page.locator(f"a[href='/organize/task/{demo_task.pk}/']").count() == 1
    screenshot("organize-index")
    page.click(f"a[href='/organize/task/{demo_task.pk}/']")
    page.wait_for_function("() => document.getElementById('chart-kappa-0')?.dataset.rendered")
    four_way, binary = datasets(page, "chart-kappa-0")
    # alice, bob and the demo's four simulated colleagues, each with a defined mean kappa.
    assert len(four_way) == len(binary) == 6
    assert all(value is not None and -1 <= value <= 1 for value in four_way + binary)
    for canvas in ("chart-kappa-0", "chart-progress", "chart-histogram"):
        assert page.evaluate(INKED_PIXELS, canvas) > 500, f"{canvas} is blank"
    assert page.locator("#assessor-table tbody tr").count() == 6
    screenshot("organize-task")


def test_every_round_has_its_chart_when_organizer_opens_training_and_agreement_pages(
    page, demo_task, screenshot
) -> None:
    log_in_as_organizer(page)
    # The agreement page also charts every assessor's mean kappa over the task (with any
    # machine judges): two rounds, and the task.
    for path, name, charts in (
        ("training", "organize-training", 2),
        ("agreement", "organize-agreement", 3),
    ):
        page.goto(f"/organize/task/{demo_task.pk}/{path}/")
        page.wait_for_function("() => document.getElementById('chart-kappa-1')?.dataset.rendered")
        assert page.locator("canvas.kappa-chart[data-rendered]").count() == charts
        assert page.evaluate(INKED_PIXELS, "chart-kappa-1") > 500
        if path == "agreement":
            assert page.evaluate(INKED_PIXELS, "chart-kappa-task") > 500
        screenshot(name)


def test_assignment_and_adjudication_pages_list_the_demo_work_when_organizer_opens_them(
    page, demo_task, screenshot
) -> None:
    log_in_as_organizer(page)
    page.goto(f"/organize/task/{demo_task.pk}/assignments/")
    active = Assignment.objects.filter(topic__task=demo_task, revoked_at__isnull=True).exclude(
        purpose=Assignment.Purpose.TRAINING
    )
    assert active.filter(purpose=Assignment.Purpose.DUAL).exists()
    buttons = page.locator("#assignment-table form.inline-form button:has-text('Move')")
    assert buttons.count() == active.count()
    screenshot("organize-assignments")
    page.goto(f"/organize/task/{demo_task.pk}/adjudication/?difference=0")
    disputes = page.locator("article.dispute")
    assert disputes.count() > 0
    first = disputes.first
    assert first.locator(".verdict").count() == 2
    first.locator("input[name=grade][value='2']").check()
    first.locator("button[type=submit]").click()
    page.wait_for_load_state("networkidle")
    # The page moves on to the next undecided dispute; the decided one is under "Decided".
    page.goto(f"/organize/task/{demo_task.pk}/adjudication/?difference=0&state=decided")
    assert page.locator("article.dispute .badge.final").count() == 1
    screenshot("organize-adjudication")


def test_assessor_sees_gold_beside_own_grades_when_opening_a_submitted_round(
    page, demo_task, screenshot
) -> None:
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "alice")
    page.fill("input[name=password]", "alice-demo")
    page.click("form button[type=submit], form input[type=submit]")
    page.wait_for_load_state("networkidle")
    training_round = demo_task.training_rounds.order_by("id").first()
    assert training_round is not None
    page.goto(f"/training/{training_round.pk}/")
    rows = page.locator("#feedback-table tbody tr")
    assert rows.count() == training_round.items.count()
    screenshot("training-feedback")
    # The organizer's pages stay closed to her.
    assert page.goto(f"/organize/task/{demo_task.pk}/").status == 403


def test_progress_axis_follows_the_judgments_when_the_pool_is_larger(page, demo_task) -> None:
    log_in_as_organizer(page)
    page.goto(f"/organize/task/{demo_task.pk}/")
    page.wait_for_function("() => document.getElementById('chart-progress')?.dataset.rendered")
    axis = page.evaluate(
        """() => { const c = Chart.getChart('chart-progress');
        return { max: c.scales.y.max, ticks: c.scales.y.ticks.map((t) => t.value),
                 judged: Math.max(...c.data.datasets[0].data),
                 total: JSON.parse(
                     document.getElementById('data-progress').textContent).total }; }"""
    )
    assert axis["total"] > axis["judged"] > 0  # the pool is larger than the judging so far
    # The top of the axis is the first round tick at or above the judgments, however large the
    # pool: at most one tick step above them.
    step = axis["ticks"][1] - axis["ticks"][0]
    assert axis["judged"] <= axis["max"] <= axis["judged"] + step, axis
    assert all(float(tick).is_integer() for tick in axis["ticks"])

"""The app under its Content-Security-Policy in real Chromium: no page is refused anything.

Every page of the demo campaign is opened as the organizer, an assessor and a participant while
the browser reports each `securitypolicyviolation`, each script error and each request to
another origin. What moved out of inline attributes for the policy (bars sized from data-*, the
qrels selector that submits itself) still works, and so do the Django admin and the API docs.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.management import call_command

from assessment.models import Assignment, TrainingRound
from collection.models import RetrievalTask, Thread, Topic
from demo.arqmath_campaign import CAMPAIGN
from pooling.models import Run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.effectiveDirective} refused ${e.blockedURI} (${e.sourceFile}:${e.lineNumber})`));
"""


@dataclass
class Browsing:
    origin: str
    outside: dict[str, str] = field(default_factory=dict)  # url -> failure
    errors: list[str] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def failed(self, request: Any) -> None:
        if request.url in self.outside:
            self.outside[request.url] = request.failure or ""

    def request(self, request: Any) -> None:
        if not request.url.startswith((self.origin, "data:", "blob:", "about:")):
            self.outside[request.url] = "sent"


@pytest.fixture
def demo(tmp_path) -> dict[str, int]:  # type: ignore[no-untyped-def]
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", stdout=io.StringIO()
    )
    task = RetrievalTask.objects.get(campaign__name=CAMPAIGN, kind=RetrievalTask.Kind.ANSWER)
    assignment = Assignment.objects.filter(
        assessor__username="alice", purpose=Assignment.Purpose.OFFICIAL, topic__task=task
    ).first()
    assert assignment is not None
    item = assignment.topic.pool_items.order_by("display_order").first()
    training_round = TrainingRound.objects.filter(assignments__assessor__username="alice").first()
    run = Run.objects.filter(team__members__username="carol").first()
    thread = Thread.objects.order_by("pk").first()
    assert item is not None
    assert training_round is not None
    assert run is not None
    assert thread is not None
    return {
        "task": task.pk,
        "assignment": assignment.pk,
        "item": item.pk,
        "round": training_round.pk,
        "run": run.pk,
        "thread": thread.pk,
        "topic": Topic.objects.filter(task=task).order_by("pk").values_list("pk", flat=True)[0],
    }


def _log_in(page: Any, username: str) -> None:
    page.context.clear_cookies()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", f"{username}-demo")
    page.click("form button[type=submit]")
    page.wait_for_load_state("networkidle")


def _open(page: Any, browsing: Browsing, path: str) -> None:
    response = page.goto(path)
    assert response is not None
    assert response.status == 200, path
    page.wait_for_load_state("networkidle")
    browsing.violations += [f"{path}: {v}" for v in page.evaluate("() => window.__violations")]


def _watch(page: Any, origin: str) -> Browsing:
    browsing = Browsing(origin)
    page.context.add_init_script(RECORD_VIOLATIONS)
    page.context.on("request", browsing.request)
    page.context.on("requestfailed", browsing.failed)
    page.on("pageerror", lambda error: browsing.errors.append(f"{page.url}: {error}"))
    return browsing


def test_no_page_is_refused_anything_when_each_role_browses_the_demo(
    page, live_server, demo
) -> None:  # type: ignore[no-untyped-def]
    browsing = _watch(page, live_server.url)
    task, assignment = demo["task"], demo["assignment"]
    pages = {
        "organizer": [
            "/organize/",
            f"/organize/task/{task}/",
            f"/organize/task/{task}/assignments/",
            f"/organize/task/{task}/training/",
            f"/organize/task/{task}/agreement/",
            f"/organize/task/{task}/adjudication/?difference=0",
            "/pools/",
            f"/pools/{task}/",
            "/results/",
            f"/results/{task}/",
            f"/results/{task}/qrels/",
            f"/threads/{demo['thread']}/",
            "/admin/",
            "/admin/collection/topic/",
            f"/admin/collection/topic/{demo['topic']}/change/",
            "/admin/assessment/judgment/",
            "/api/runs/",
        ],
        "alice": [
            "/assess/",
            f"/assess/{assignment}/items/",
            f"/assess/{assignment}/{demo['item']}/",
            f"/training/{demo['round']}/",
        ],
        "carol": ["/runs/", f"/runs/{demo['run']}/", "/results/"],
    }
    for username, paths in pages.items():
        _log_in(page, username)
        for path in paths:
            _open(page, browsing, path)
    assert browsing.violations == []
    assert browsing.errors == []
    assert browsing.outside == {}


def test_bars_and_the_qrels_selector_work_without_inline_attributes_when_organizer_browses(
    page, live_server, demo
) -> None:  # type: ignore[no-untyped-def]
    browsing = _watch(page, live_server.url)
    _log_in(page, "organizer")
    _open(page, browsing, f"/organize/task/{demo['task']}/")
    sized = page.evaluate(
        """() => Array.from(document.querySelectorAll("[data-percent], [data-grow]"), (e) =>
          [e.dataset.percent ?? e.dataset.grow, e.style.width || e.style.flexGrow])"""
    )
    assert sized, "the overview shows progress bars"
    for wanted, applied in sized:
        assert applied in (f"{float(wanted):g}%", f"{float(wanted):g}"), (wanted, applied)
    _open(page, browsing, f"/pools/{demo['task']}/")
    shares = page.evaluate(
        """() => Array.from(document.querySelectorAll("td[data-share]"), (e) =>
          [e.dataset.share, e.style.getPropertyValue("--share")])"""
    )
    assert shares, "the pool page shows the run overlap table"
    assert all(float(wanted) == float(applied) for wanted, applied in shares)

    _open(page, browsing, f"/results/{demo['task']}/")
    option = page.locator("#qrels-select option").first.get_attribute("value")
    with page.expect_navigation():
        page.select_option("#qrels-select", option)  # no button: the change submits the form
    assert re.search(rf"[?&]qrels={option}(&|$)", page.url)
    assert browsing.violations == []
    assert browsing.errors == []


def test_api_docs_render_and_search_offline_when_opened(page, live_server) -> None:  # type: ignore[no-untyped-def]
    browsing = _watch(page, live_server.url)
    _open(page, browsing, "/api/docs/")
    page.get_by_role("heading", name=re.compile("qrelsmith API")).wait_for()
    page.fill("input[placeholder='Search...']", "runs")
    page.get_by_text("runs_list").first.wait_for()  # search runs in its blob: worker
    # Redoc's logo from its CDN is never asked for (static/js/api_docs.js), so the policy
    # has nothing to refuse, and the link it sat in is still there.
    assert browsing.outside == {}
    assert browsing.violations == []
    assert browsing.errors == []
    assert page.get_by_role("link", name=re.compile("API docs by Redocly")).count() == 1
    assert page.locator("img[alt='redocly logo']").count() == 0

"""axe-core (WCAG 2.1 A and AA rules) over every page each role reaches in the demo: none may
have a violation. Assessors read these pages for hours.

The pages are found by following links from the home page as each role (organizer, assessor,
participant), so a new page is checked as soon as a link leads to it; a few URL shapes
(``/results/N/``) are checked for up to three ids each, so each task kind's variant is seen.
Django's admin and the API pages (Redoc) are not ours and are left out. axe-core comes from
npm (package.json) and is served from node_modules like the other vendored scripts; it is
loaded by URL, which the page's Content-Security-Policy allows (script-src 'self').
"""

from __future__ import annotations

import io
import re
from urllib.parse import urljoin, urlsplit

import pytest
from django.core.management import call_command
from playwright.sync_api import Error as PlaywrightError

from collection.models import RetrievalTask
from demo.arqmath_campaign import CAMPAIGN
from demo.people import USERS
from evaluation.models import QrelsVersion
from evaluation.services.publication import results_publish

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = "/static/vendor/axe-core/axe.min.js"
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
PASSWORDS = {username: password for username, password, _role, _team in USERS}
NOT_OURS = re.compile(r"^/(admin/|api/|static/|accounts/logout)")
DOWNLOAD = re.compile(r"\.(csv|tsv|txt|gz|json|jsonl|tex|zip)$|/download(/|$)|/export/")
PER_SHAPE = 3
MOST_PAGES = 80

RUN_AXE = """async (tags) => {
  const result = await axe.run(document, { runOnly: { type: "tag", values: tags } });
  return result.violations.map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "")),
  }));
}"""


@pytest.fixture
def demo(tmp_path) -> None:  # type: ignore[no-untyped-def]
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "150", "--topics", "6", stdout=io.StringIO()
    )
    # One published task, so a participant's results page has scores to show.
    task = RetrievalTask.objects.get(campaign__name=CAMPAIGN, kind=RetrievalTask.Kind.ANSWER)
    qrels = QrelsVersion.objects.filter(task=task, level="item").order_by("-pk").first()
    assert qrels is not None
    results_publish(task=task, qrels=qrels, by=None)


def _log_in(page, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORDS[username])
    page.click("form button[type=submit]")
    page.wait_for_load_state("networkidle")


def _shape(path: str) -> str:
    return re.sub(r"\d+", "N", path.split("?")[0])


def _links(page, here: str) -> list[str]:  # type: ignore[no-untyped-def]
    hrefs = page.eval_on_selector_all(
        "a[href]:not([download])", "els => els.map((e) => e.getAttribute('href'))"
    )
    found = []
    for href in hrefs:
        url = urlsplit(urljoin("http://testserver" + here, href))
        if url.netloc != "testserver" or NOT_OURS.search(url.path) or DOWNLOAD.search(url.path):
            continue
        found.append(url.path + (f"?{url.query}" if url.query else ""))
    return found


def _violations_of_every_page(page) -> dict[str, list[dict[str, object]]]:  # type: ignore[no-untyped-def]
    """Follow links breadth-first from the home page; axe-core on each page reached."""
    queue, seen, shapes = ["/"], set(), {}  # type: ignore[var-annotated]
    found = {}
    while queue and len(seen) < MOST_PAGES:
        path = queue.pop(0)
        shape = _shape(path)
        if path in seen or shapes.get(shape, 0) >= PER_SHAPE:
            continue
        seen.add(path)
        shapes[shape] = shapes.get(shape, 0) + 1
        try:
            response = page.goto(path)
        except PlaywrightError as error:
            if "Download is starting" in str(error):
                continue  # a file, not a page
            raise
        page.wait_for_load_state("networkidle")
        if response is None or "text/html" not in response.headers.get("content-type", ""):
            continue
        assert response.status == 200, f"{path}: HTTP {response.status}"
        page.add_script_tag(url=AXE)
        found[path] = page.evaluate(RUN_AXE, WCAG_TAGS)
        queue.extend(link for link in _links(page, path) if link not in seen)
    return found


def _report(found: dict[str, list[dict[str, object]]]) -> str:
    lines = []
    for path, violations in found.items():
        for v in violations:
            nodes = v["nodes"]
            assert isinstance(nodes, list)
            lines.append(f"{path}: {v['id']} ({v['impact']}) {v['help']}, {len(nodes)} element(s)")
            lines.extend(f"    {node}" for node in nodes[:8])
    return "\n".join(lines)


@pytest.mark.parametrize(
    ("username", "must_reach"),
    [
        ("organizer", {"/organize/task/N/adjudication/", "/results/N/qrels/", "/pools/N/"}),
        ("alice", {"/assess/", "/assess/N/N/", "/assess/N/items/"}),
        ("carol", {"/runs/", "/runs/N/", "/results/N/"}),
    ],
)
def test_no_wcag_violation_on_any_page_when_each_role_walks_the_demo(
    page, demo, username: str, must_reach: set[str]
) -> None:
    _log_in(page, username)
    found = _violations_of_every_page(page)
    print(f"axe-core checked {len(found)} pages as {username}: {', '.join(found)}")
    reached = {_shape(path) for path in found}
    assert must_reach <= reached, f"{username} reached only {sorted(reached)}"
    failing = {path: violations for path, violations in found.items() if violations}
    assert not failing, (
        f"axe-core found WCAG 2.1 A/AA violations on {len(failing)} of {len(found)} pages "
        f"as {username}:\n{_report(failing)}"
    )


def test_no_wcag_violation_on_the_login_page_when_nobody_is_logged_in(page) -> None:
    page.goto("/accounts/login/")
    page.add_script_tag(url=AXE)
    violations = page.evaluate(RUN_AXE, WCAG_TAGS)
    assert violations == [], _report({"/accounts/login/": violations})

"""Every HTML page carries the Content-Security-Policy, and no page needs what it forbids.

The pages of the demo campaign are fetched as the organizer, an assessor and a participant.
Each response must carry exactly the policy of config/settings/base.py, and its HTML must hold
nothing the policy would block: no inline script, no on*= handler, no style attribute, no
javascript: URL. A page added without an entry in PAGES fails
``test_every_page_of_the_url_conf_is_checked_when_listing_the_routes``.
"""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from assessment.models import Assignment, AssignmentItem, TrainingRound
from assessment.services.machine_judges import machine_judge_import
from collection.models import RetrievalTask, Thread
from demo.arqmath_campaign import CAMPAIGN
from evaluation.models import QrelsVersion
from pooling.models import Run
from tests.integration.rag_data import small_rag_task

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": {"'self'"},
    "script-src": {"'self'"},
    "style-src": {"'self'", "'unsafe-inline'"},
    "style-src-attr": {"'none'"},
    "img-src": {"'self'", "data:"},
    "font-src": {"'self'"},
    "connect-src": {"'self'"},
    "object-src": {"'none'"},
    "base-uri": {"'self'"},
    "frame-ancestors": {"'none'"},
    "form-action": {"'self'"},
}
# Redoc's search runs in a Web Worker made from a blob: URL (config/urls.py).
DOCS_POLICY = {**POLICY, "worker-src": {"'self'", "blob:"}}

# Routes that never answer HTML, or only to POST: each with the reason it is not fetched.
NOT_PAGES = {
    "healthz": "JSON",
    "favicon": "redirects to the static icon",
    "logout": "POST only",
    "pooling:pool-build": "POST only",
    "pooling:pool-export": "TSV download",
    "assessment:continue": "redirects to the judging page",
    "assessment:organize_export_judgments": "CSV download",
    "assessment:organize_export_agreement": "CSV download",
    "assessment:organize_machine_judge": "POST only",
    "assessment:organize_training_archive": "POST only (redirects to a training page)",
    "evaluation:results-download": "file download",
    "evaluation:qrels-download": "TSV download",
    "evaluation:job-progress": "JSON",
    "evaluation:pool-planner-status": "JSON",
    "evaluation:human-sample-assign": "POST only (redirects to the people-and-machine page)",
    "api-schema": "OpenAPI YAML",
}


@dataclass(frozen=True)
class Page:
    name: str  # URL name
    user: str  # who opens it (demo logins)
    args: tuple[Any, ...] = ()
    query: str = ""


@pytest.fixture
def demo(tmp_path: Path) -> dict[str, Any]:
    call_command(
        "demo", "--dir", str(tmp_path), "--threads", "60", "--topics", "4", stdout=io.StringIO()
    )
    task = RetrievalTask.objects.get(campaign__name=CAMPAIGN, kind=RetrievalTask.Kind.ANSWER)
    assignment = Assignment.objects.filter(
        assessor__username="alice", purpose=Assignment.Purpose.OFFICIAL, topic__task=task
    ).first()
    assert assignment is not None
    item = assignment.topic.pool_items.order_by("display_order").first()
    assert item is not None
    training_round = TrainingRound.objects.filter(assignments__assessor__username="alice").first()
    run = Run.objects.filter(team__members__username="carol").first()
    version = QrelsVersion.objects.filter(task=task).first()
    assert training_round is not None
    assert run is not None
    assert version is not None
    # A machine judge of one pool item, so that its audit page has something to show.
    grades = tmp_path / "judge.jsonl"
    grades.write_text(
        json.dumps({"topic": item.topic.number, "post_id": item.key, "grade": 2}) + "\n"
    )
    judge, _ = machine_judge_import(task=task, name="audited", source=grades)
    # A scoped assignment (as a drawn human sample makes), for its scope page.
    scoped = Assignment.objects.create(
        topic=assignment.topic,
        assessor=User.objects.create(username="scoped-assessor"),
        purpose=Assignment.Purpose.DUAL,
        scoped=True,
    )
    AssignmentItem.objects.create(assignment=scoped, item=item)
    rag = small_rag_task(User.objects.get(username="alice"))
    return {
        **rag,
        "judge": judge.pk,
        "task": task.pk,
        # The TREC demo's document task: a budgeted pool, and the planner's page.
        "documents": RetrievalTask.objects.get(campaign__name="TREC demo", kind="document").pk,
        "assignment": assignment.pk,
        "scoped_assignment": scoped.pk,
        "item": item.pk,
        "thread": Thread.objects.order_by("pk").first().pk,  # type: ignore[union-attr]
        "round": training_round.pk,
        "run": run.pk,
    }


def _pages(ids: dict[str, Any]) -> list[Page]:
    task = ids["task"]
    return [
        Page("home", "alice"),
        Page("login", ""),
        Page("collection:thread", "alice", (ids["thread"],)),
        Page("pooling:runs", "carol"),
        Page("pooling:run-detail", "carol", (ids["run"],)),
        Page("pooling:pools", "organizer"),
        Page("pooling:pool", "organizer", (task,)),
        Page("assessment:home", "alice"),
        Page("assessment:items", "alice", (ids["assignment"],)),
        Page("assessment:judge", "alice", (ids["assignment"], ids["item"])),
        Page("assessment:training_round", "alice", (ids["round"],)),
        Page("assessment:organize", "organizer"),
        Page("assessment:organize_task", "organizer", (task,)),
        Page("assessment:organize_assignments", "organizer", (task,)),
        Page("assessment:organize_scope", "organizer", (ids["scoped_assignment"],)),
        Page("assessment:organize_training", "organizer", (task,)),
        Page("assessment:organize_agreement", "organizer", (task,)),
        Page("assessment:organize_guidelines", "organizer", (task,)),
        Page("assessment:organize_machine_judges", "organizer", (task,)),
        Page("judges:endpoints", "organizer"),
        Page("judges:runs", "organizer", (task,)),
        Page("assessment:organize_adjudication", "organizer", (task,), "difference=0"),
        Page("evaluation:index", "organizer"),
        Page("evaluation:results", "organizer", (task,)),
        Page("evaluation:qrels", "organizer", (task,)),
        Page("evaluation:publication", "organizer", (task,)),
        Page("evaluation:human-sample", "organizer", (task,)),
        Page("evaluation:judge-audit", "organizer", (task, ids["judge"]), "ci=1"),
        Page("pooling:pool", "organizer", (ids["documents"],)),
        Page("evaluation:pool-planner", "organizer", (ids["documents"],)),
        Page("evaluation:index", "carol"),
        Page("api-docs", ""),
        Page("admin:index", "organizer"),
        Page("admin:collection_topic_changelist", "organizer"),
        Page("admin:assessment_judgment_changelist", "organizer"),
        Page("nuggets:editor", "organizer", (ids["rag_topic"],)),
        Page("nuggets:assign", "alice", (ids["rag_assignment"],)),
        Page("nuggets:scores", "organizer", (ids["rag_task"],)),
        Page("nuggets:runs", "organizer", (ids["rag_task"],)),
        Page("nuggets:adjudication", "organizer", (ids["rag_task"],)),
        Page("nuggets:published", "organizer", (ids["rag_task"],)),
    ]


def _client(username: str) -> Client:
    client = Client()
    if username:
        assert client.login(username=username, password=f"{username}-demo")
    return client


def _policy(header: str) -> dict[str, set[str]]:
    directives = (part.split() for part in header.split(";") if part.strip())
    return {name: set(values) for name, *values in directives}


class _BlockedMarkup(HTMLParser):
    """Collects what the policy would refuse: inline code and styles, script URLs."""

    URL_ATTRIBUTES = frozenset({"href", "src", "action", "formaction", "xlink:href"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        for name, value in values.items():
            if name.startswith("on"):
                self.problems.append(f"<{tag} {name}=…>: inline event handler")
            if name == "style":
                self.problems.append(f'<{tag} style="{value}">: style attribute')
            if name in self.URL_ATTRIBUTES and re.match(
                r"[\s\x00-\x1f]*(javascript|vbscript|data):", value, re.IGNORECASE
            ):
                self.problems.append(f"<{tag} {name}={value!r}>: script or data URL")
        if tag == "script" and "src" not in values and values.get("type") != "application/json":
            self.problems.append("<script> without src: inline script")


def _blocked_markup(html: str) -> list[str]:
    parser = _BlockedMarkup()
    parser.feed(html)
    parser.close()
    return parser.problems


def test_every_page_carries_the_policy_and_needs_nothing_it_forbids_when_opened(demo) -> None:
    failures = []
    clients: dict[str, Client] = {}
    for page in _pages(demo):
        client = clients.setdefault(page.user, _client(page.user))
        url = reverse(page.name, args=page.args) + (f"?{page.query}" if page.query else "")
        response = client.get(url)
        assert response.status_code == 200, f"{url} as {page.user or 'anonymous'}"
        assert response["Content-Type"].startswith("text/html"), url
        expected = DOCS_POLICY if page.name == "api-docs" else POLICY
        if _policy(response.get("Content-Security-Policy", "")) != expected:
            failures.append(f"{url}: {response.get('Content-Security-Policy')}")
        failures += [f"{url}: {problem}" for problem in _blocked_markup(response.text)]
    assert failures == []


def test_error_pages_and_the_browsable_api_carry_the_policy_when_html_is_answered(demo) -> None:
    organizer = _client("organizer")
    responses = {
        "404": organizer.get("/no-such-page/"),
        "api": organizer.get("/api/runs/", HTTP_ACCEPT="text/html"),
        "login": Client().get("/accounts/login/?next=/organize/"),
    }
    assert responses["404"].status_code == 404
    for name, response in responses.items():
        assert _policy(response["Content-Security-Policy"]) == POLICY, name
    assert "<script>" not in responses["api"].text  # DRF's page loads its scripts from files


def test_api_docs_reference_no_other_origin_when_served_offline(client) -> None:
    response = client.get(reverse("api-docs"))
    assert response.status_code == 200
    references = re.findall(r'(?:src|href|spec-url)="([^"]*)"', response.text)
    assert references, "the docs page loads Redoc and the schema"
    for reference in references:
        parts = urlsplit(reference)
        assert (parts.scheme, parts.netloc) == ("", ""), f"{reference} is another origin"
    bundle = next(r for r in references if r.endswith("redoc.standalone.js"))
    assert bundle.startswith("/static/drf_spectacular_sidecar/redoc/")
    served = client.get(bundle)  # from the package's static files, not a CDN
    assert served.status_code == 200
    assert b"Redoc" in b"".join(served.streaming_content)  # type: ignore[attr-defined]
    assert "cdn.jsdelivr.net" not in response.text
    assert "fonts.googleapis.com" not in response.text


def _route_names(patterns: list[URLPattern | URLResolver], namespace: str = "") -> set[str]:
    names: set[str] = set()
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if str(pattern.pattern).startswith(("api/", "admin/")):
                continue  # the REST API answers JSON; the admin is Django's own
            inner = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
            names |= _route_names(pattern.url_patterns, inner)
        elif pattern.name:
            names.add(f"{namespace}{pattern.name}")
    return names


def test_every_page_of_the_url_conf_is_checked_when_listing_the_routes() -> None:
    checked = {page.name for page in _pages(defaultdict(int))}
    unchecked = _route_names(get_resolver().url_patterns) - checked - set(NOT_PAGES)
    assert unchecked == set(), "add these pages to PAGES (or to NOT_PAGES, with the reason)"

"""Judging comforts on the server side: progress in the task's units, menus per role, error pages,
the favicon, the training form's topics, and what the judging page gives its script."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.overview import campaign_overview
from assessment.selectors.progress import (
    Progress,
    assignments_with_progress,
    item_statuses,
    progress_of,
)
from assessment.services.judging import HitVerdict, item_submit, judgment_submit
from tests.factories import TeamFactory, TopicFactory, UserFactory
from tests.integration.test_judging_pools import Pool, answer_pool, assign, formula_pool

pytestmark = pytest.mark.django_db


def _client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def _judge_item(assignment: Assignment, pool: Pool, index: int, hits: int | None = None) -> None:
    chosen = pool.hits[index][:hits]
    item_submit(
        assignment=assignment,
        item=pool.items[index],
        assessor=assignment.assessor,
        verdicts=[HitVerdict(hit_id=h.pk, grade=2) for h in chosen],
    )


@pytest.mark.parametrize(
    ("progress", "text"),
    [
        (Progress("formula", 12, 44, 30, 100), "12 of 44 formulae · 30 of 100 posts"),
        (Progress("formula", 0, 1, 1, 1), "0 of 1 formula · 1 of 1 post"),
        (Progress("answer", 30, 100, 30, 100), "30 of 100 answers"),
        (Progress("openqa", 1, 1, 1, 1), "1 of 1 answer"),
    ],
)
def test_progress_names_its_units_when_told(progress: Progress, text: str) -> None:
    assert str(progress) == text


def test_formula_progress_counts_a_formula_only_when_all_its_posts_are_judged() -> None:
    pool = formula_pool(items=3, instances=3)
    assignment = assign(pool)
    _judge_item(assignment, pool, 0)
    _judge_item(assignment, pool, 1, hits=2)  # one post of the second formula left
    assert str(progress_of(item_statuses(assignment), "formula")) == (
        "1 of 3 formulae · 5 of 9 posts"
    )
    [home] = assignments_with_progress(assignment.assessor)
    assert str(home.progress) == "1 of 3 formulae · 5 of 9 posts"


def test_pages_and_dashboards_name_formulae_and_posts_when_formula_task() -> None:
    pool = formula_pool(items=2, instances=3)
    assignment = assign(pool)
    _judge_item(assignment, pool, 0)
    text = "<b>1</b> of 2 formulae · <b>3</b> of 6 posts judged"
    assessor = _client(assignment.assessor)
    for url in (
        reverse("assessment:home"),
        reverse("assessment:items", args=[assignment.pk]),
    ):
        assert text in assessor.get(url).content.decode(), url
    page = assessor.get(reverse("assessment:judge", args=[assignment.pk, pool.items[1].pk]))
    html = page.content.decode()
    assert "Formula <b data-position>2</b> of 2" in html
    assert "<b data-judged-items>1</b> of 2 formulae · <b data-judged>3</b> of 6 posts" in html
    assert "Item <b" not in html

    assert str(task_dashboard(task=pool.topic.task).topics[0].progress) == (
        "1 of 2 formulae · 3 of 6 posts"
    )
    [(_campaign, [summary])] = campaign_overview()
    assert str(summary.progress) == "1 of 2 formulae · 3 of 6 posts"
    organizer = _client(UserFactory.create(username="boss", is_staff=True))
    task_page = organizer.get(reverse("assessment:organize_task", args=[pool.topic.task_id]))
    assert text in task_page.content.decode()
    assert text in organizer.get(reverse("assessment:organize")).content.decode()


def test_judging_endpoint_returns_judged_items_when_a_formula_is_submitted() -> None:
    pool = formula_pool(items=2, instances=2)
    assignment = assign(pool)
    client = _client(assignment.assessor)
    url = reverse("assessment_api:item-judgments", args=[assignment.pk, pool.items[0].pk])
    body = {"judgments": [{"hit": h.pk, "grade": 1} for h in pool.hits[0]]}
    data = client.post(url, data=json.dumps(body), content_type="application/json").json()
    assert (data["judged_items"], data["total_items"]) == (1, 2)
    assert (data["judged_hits"], data["total_hits"]) == (2, 4)


def test_judging_page_gives_its_script_the_keys_revisions_and_thread_links_when_rendered() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool)
    hit = pool.hits[0][0]
    judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=1)
    judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=2)
    client = _client(assignment.assessor)
    html = client.get(reverse("assessment:judge", args=[assignment.pk, pool.items[0].pk]))
    text = html.content.decode()
    scale = re.search(r'<script id="judge-scale" type="application/json">(.*?)</script>', text)
    assert scale is not None
    assert json.loads(scale.group(1))["keys"] == {
        "3": "3", "2": "2", "1": "1", "0": "0", "f": "system_failure", "d": "dont_know",
        "h": "3", "m": "2", "l": "1", "n": "0",
    }  # fmt: skip
    assert f'data-hit="{hit.pk}" data-choice="2" data-revision="2"' in text  # drafts compare
    assert f'data-assignment="{assignment.pk}"' in text
    assert f'data-user="{assignment.assessor_id}"' in text
    assert 'rel="noopener noreferrer" data-hit-thread' in text
    assert "<script>" not in text  # no inline script: the CSP allows none


@pytest.mark.parametrize(
    ("role", "menu"),
    [
        ("assessor", ["My assignments"]),
        ("waiting assessor", ["My assignments"]),
        ("participant", ["Runs", "Results"]),
        ("participant assessor", ["My assignments", "Runs", "Results"]),
        ("organizer", ["My assignments", "Organize", "Pools", "Runs", "Results", "Admin"]),
    ],
)
def test_menu_shows_each_role_what_it_can_use_when_logged_in(role: str, menu: list[str]) -> None:
    user = UserFactory.create(username=role.replace(" ", "-"), is_staff=role == "organizer")
    if "participant" in role:
        TeamFactory.create().members.add(user)
    if role in ("assessor", "participant assessor"):
        Assignment.objects.create(topic=TopicFactory.create(), assessor=user)
    html = _client(user).get(reverse("home")).content.decode()
    nav = re.search(r'<nav class="mainnav".*?</nav>', html, re.DOTALL)
    assert nav is not None
    assert re.findall(r">([^<>]+)</a>", nav.group(0)) == menu


def test_menu_costs_no_query_when_pages_render(django_assert_max_num_queries) -> None:  # type: ignore[no-untyped-def]
    participant = UserFactory.create(username="carol")
    TeamFactory.create().members.add(participant)
    client = _client(participant)
    client.get(reverse("home"))
    # The session (in the database) and the user with its roles: no menu query.
    with django_assert_max_num_queries(2):
        html = client.get(reverse("home")).content.decode()
    assert ">Runs</a>" in html


def test_menu_follows_new_roles_when_user_keeps_the_same_session() -> None:
    participant = UserFactory.create(username="dave")
    TeamFactory.create().members.add(participant)
    client = _client(participant)

    def menu() -> list[str]:
        html = client.get(reverse("home")).content.decode()
        nav = re.search(r'<nav class="mainnav".*?</nav>', html, re.DOTALL)
        assert nav is not None
        return re.findall(r">([^<>]+)</a>", nav.group(0))

    assert menu() == ["Runs", "Results"]
    Assignment.objects.create(topic=TopicFactory.create(), assessor=participant)
    # The user's roles are read with the user on every request, never kept from an earlier one.
    assert menu() == ["My assignments", "Runs", "Results"]


def test_session_is_logged_out_when_its_user_is_deleted() -> None:
    user = UserFactory.create(username="erin")
    client = _client(user)
    assert client.get(reverse("assessment:home")).status_code == 200
    user.delete()
    answer = client.get(reverse("assessment:home"))
    assert answer.status_code == 302
    assert answer["Location"].startswith(reverse("login"))


def test_forbidden_and_missing_pages_use_the_layout_when_an_assessor_strays() -> None:
    client = _client(UserFactory.create(username="alice"))
    forbidden = client.get(reverse("assessment:organize"))
    assert forbidden.status_code == 403
    html = forbidden.content.decode()
    assert 'class="topbar"' in html
    assert "This page is for organizers." in html
    missing = client.get("/assess/999999/")
    assert missing.status_code == 404
    assert 'class="topbar"' in missing.content.decode()
    assert "/assess/999999/" in missing.content.decode()


def test_favicon_is_linked_and_answered_when_a_browser_asks() -> None:
    client = Client()
    login = client.get(reverse("login")).content.decode()
    assert '<link rel="icon" href="/static/favicon.svg"' in login
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    assert response["Location"] == "/static/favicon.ico"


def test_training_form_lists_topics_with_escaped_titles_to_typeset_when_opened() -> None:
    pool = answer_pool(items=1)
    pool.topic.title = (
        'Is <span class="math-container" id="q_1">$a &lt; b$</span> <script>alert(1)</script>true?'
    )
    pool.topic.save()
    organizer = _client(UserFactory.create(username="boss", is_staff=True))
    html = organizer.get(
        reverse("assessment:organize_training", args=[pool.topic.task_id])
    ).content.decode()
    assert (
        f'<input type="checkbox" name="topics" value="{pool.topic.pk}"> <span><b>'
        f'{pool.topic.number}</b> · <span class="math">Is $a &lt; b$ true?</span></span>'
    ) in html
    assert "alert(1)" not in html
    assert "vendor/mathjax/tex-chtml.js" in html

"""The assessor's pages and JSON endpoint: scope, blindness, no-JavaScript form, query counts."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from django.urls import reverse

from assessment.models import Judgment, JudgmentRevision
from assessment.services.judging import judgment_submit
from tests.factories import HitFactory, PoolItemFactory, UserFactory
from tests.integration.test_judging_pools import (
    SECRET_RUN_TAG,
    SECRET_TEAM,
    Pool,
    answer_pool,
    assign,
    formula_pool,
)

pytestmark = pytest.mark.django_db


def _client(username: str) -> Client:
    client = Client()
    client.force_login(UserFactory.create(username=username))
    return client


def _judge(assignment_id: int, item_id: int) -> str:
    return reverse("assessment:judge", args=[assignment_id, item_id])


def _api(assignment_id: int, item_id: int) -> str:
    return reverse("assessment_api:item-judgments", args=[assignment_id, item_id])


def _post_json(client: Client, url: str, body: dict) -> object:
    return client.post(url, data=json.dumps(body), content_type="application/json")


def test_home_shows_progress_and_continue_link_when_partly_judged() -> None:
    pool = answer_pool(items=4)
    assignment = assign(pool, "alice")
    judgment_submit(
        assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=2
    )
    client = _client("alice")
    response = client.get(reverse("assessment:home"))
    assert response.status_code == 200
    html = response.content.decode()
    assert pool.topic.number in html
    assert "<b>1</b> of 4 answers judged" in html
    assert _judge(assignment.pk, pool.items[1].pk) in html


def test_continue_redirects_to_items_list_when_everything_judged() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    judgment_submit(
        assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=2
    )
    response = _client("alice").get(reverse("assessment:continue", args=[assignment.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("assessment:items", args=[assignment.pk])


def _urls(pool: Pool, assignment_id: int) -> list[tuple[str, str]]:
    item, hit = pool.items[0], pool.hits[0][0]
    return [
        ("get", reverse("assessment:continue", args=[assignment_id])),
        ("get", reverse("assessment:items", args=[assignment_id])),
        ("get", _judge(assignment_id, item.pk)),
        ("post", _judge(assignment_id, item.pk) + f"?choice-{hit.pk}=3"),
        ("get", _api(assignment_id, item.pk)),
        ("json", _api(assignment_id, item.pk)),
    ]


def _request(client: Client, method: str, url: str, hit_id: int) -> int:
    if method == "get":
        return client.get(url).status_code
    if method == "post":
        return client.post(url.split("?")[0], {f"choice-{hit_id}": "3"}).status_code
    body = {"judgments": [{"hit": hit_id, "grade": 3}]}
    return _post_json(client, url, body).status_code  # type: ignore[attr-defined]


def test_every_page_and_endpoint_is_404_when_assignment_of_another_assessor() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    mallory = _client("mallory")
    for method, url in _urls(pool, assignment.pk):
        assert _request(mallory, method, url, pool.hits[0][0].pk) == 404, url
    assert not Judgment.objects.exists()


def test_item_of_another_topic_is_404_when_crafted_into_own_assignment() -> None:
    mine = answer_pool(items=1)
    other = answer_pool(items=1)
    assignment = assign(mine, "alice")
    assign(other, "bob")
    client = _client("alice")
    crafted = _judge(assignment.pk, other.items[0].pk)
    assert client.get(crafted).status_code == 404
    other_hit = other.hits[0][0].pk
    assert client.post(crafted, {f"choice-{other_hit}": "3"}).status_code == 404
    api = _api(assignment.pk, other.items[0].pk)
    assert client.get(api).status_code == 404
    body = {"judgments": [{"hit": other_hit, "grade": 3}]}
    assert _post_json(client, api, body).status_code == 404  # type: ignore[attr-defined]
    # the other topic's hit under my own item: refused as well
    mixed = _api(assignment.pk, mine.items[0].pk)
    assert _post_json(client, mixed, body).status_code == 404  # type: ignore[attr-defined]
    assert not Judgment.objects.exists()


def test_anonymous_visitor_is_sent_to_login_when_opening_judging_page() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    response = Client().get(_judge(assignment.pk, pool.items[0].pk))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_no_run_vote_rank_score_or_other_grade_reaches_assessor_when_pool_annotated() -> None:
    pool = formula_pool(items=1, instances=3)
    answers = answer_pool(items=2)
    alice_formula = assign(pool, "alice")
    alice_answers = assign(answers, "alice")
    # bob's dual assessment of the same answers, with a comment nobody else may read
    bob = assign(answers, "bob", purpose="dual")
    judgment_submit(
        assignment=bob,
        hit=answers.hits[0][0],
        assessor=bob.assessor,
        flag="dont_know",
        comment="BobsPrivateComment",
    )
    client = _client("alice")
    bodies = []
    for assignment, p in ((alice_formula, pool), (alice_answers, answers)):
        for method, url in _urls(p, assignment.pk):
            if method == "get":
                bodies.append(client.get(url, follow=True).content.decode())
        bodies.append(client.get(reverse("assessment:home")).content.decode())
        item = p.items[0]
        verdicts = [{"hit": h.pk, "grade": 1} for h in p.hits[0]]
        response = _post_json(client, _api(assignment.pk, item.pk), {"judgments": verdicts})
        bodies.append(response.content.decode())  # type: ignore[attr-defined]
    everything = "\n".join(bodies)
    for secret in (SECRET_RUN_TAG, SECRET_TEAM, "BobsPrivateComment", "0.987654", "4242"):
        assert secret not in everything, secret
    assert not re.search(r"\bvotes?\b", everything, re.IGNORECASE)
    assert not re.search(r"\brank(ed|s)?\b", everything, re.IGNORECASE)


def test_form_post_without_javascript_saves_and_redirects_to_next_unjudged() -> None:
    pool = answer_pool(items=3)
    assignment = assign(pool, "alice")
    client = _client("alice")
    hit = pool.hits[0][0]
    response = client.post(
        _judge(assignment.pk, pool.items[0].pk),
        {f"choice-{hit.pk}": "2", f"comment-{hit.pk}": "partial proof", "opened_at": "0"},
    )
    assert response.status_code == 302
    assert response["Location"] == _judge(assignment.pk, pool.items[1].pk)
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.comment) == (2, "partial proof")
    assert 0 < judgment.active_seconds <= 120  # no JavaScript: elapsed time, capped


def test_form_post_rerenders_with_choices_kept_when_flag_lacks_comment() -> None:
    pool = formula_pool(items=1, instances=3)
    assignment = assign(pool, "alice")
    hits = pool.hits[0]
    data = {f"choice-{hits[0].pk}": "3", f"choice-{hits[1].pk}": "system_failure"}
    response = _client("alice").post(_judge(assignment.pk, pool.items[0].pk), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "System failure needs a comment" in html
    assert re.search(rf'name="choice-{hits[0].pk}" value="3" checked', html)
    assert re.search(rf'name="choice-{hits[1].pk}" value="system_failure" checked', html)
    assert not Judgment.objects.exists()


def test_json_submit_is_idempotent_when_retried_with_same_token() -> None:
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    client = _client("alice")
    body = {
        "judgments": [{"hit": pool.hits[0][0].pk, "grade": 3, "comment": ""}],
        "active_seconds": 12.5,
        "client_token": "tok-1",
    }
    url = _api(assignment.pk, pool.items[0].pk)
    first = _post_json(client, url, body)
    again = _post_json(client, url, body)
    assert first.status_code == again.status_code == 200  # type: ignore[attr-defined]
    data = again.json()  # type: ignore[attr-defined]
    assert data["next_unjudged_url"] == _judge(assignment.pk, pool.items[1].pk)
    assert data["judged_hits"] == 1
    assert data["judgments"][0]["grade"] == 3
    judgment = Judgment.objects.get()
    assert (judgment.revision, judgment.active_seconds) == (1, 12.5)
    assert JudgmentRevision.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"judgments": []}, 400),
        ({"judgments": [{"hit": "x", "grade": 3}]}, 400),
        ({"judgments": [{"grade": 3}]}, 400),
        ({"active_seconds": -1}, 400),
        ({"judgments": [{"hit": 0, "grade": 9}]}, 400),
    ],
)
def test_json_submit_answers_400_when_body_malformed(body: dict, status: int) -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    response = _post_json(_client("alice"), _api(assignment.pk, pool.items[0].pk), body)
    assert response.status_code == status  # type: ignore[attr-defined]
    assert not Judgment.objects.exists()


def test_json_submit_lists_problem_per_hit_when_flag_lacks_comment() -> None:
    pool = formula_pool(items=1, instances=2)
    assignment = assign(pool, "alice")
    hits = pool.hits[0]
    body = {
        "judgments": [{"hit": hits[0].pk, "grade": 2}, {"hit": hits[1].pk, "flag": "dont_know"}]
    }
    response = _post_json(_client("alice"), _api(assignment.pk, pool.items[0].pk), body)
    assert response.status_code == 400  # type: ignore[attr-defined]
    assert list(response.json()["problems"]) == [str(hits[1].pk)]  # type: ignore[attr-defined]
    assert not Judgment.objects.exists()


def test_second_tab_reads_latest_judgment_when_changed_elsewhere() -> None:
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    client = _client("alice")
    url = _api(assignment.pk, pool.items[0].pk)
    hit = pool.hits[0][0].pk
    _post_json(client, url, {"judgments": [{"hit": hit, "grade": 1}], "client_token": "a"})
    _post_json(client, url, {"judgments": [{"hit": hit, "grade": 3}], "client_token": "b"})
    state = client.get(url).json()
    assert [(j["hit"], j["grade"], j["revision"]) for j in state["judgments"]] == [(hit, 3, 2)]
    page = client.get(_judge(assignment.pk, pool.items[0].pk)).content.decode()
    assert re.search(rf'name="choice-{hit}" value="3" checked', page)


@pytest.mark.parametrize("size", [3, 60])
def test_pages_and_submit_run_constant_queries_whatever_the_pool_size(
    size: int, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    answers = answer_pool(items=size)
    formulas = formula_pool(items=max(2, size // 10), instances=5)
    a_answers = assign(answers, "alice")
    a_formulas = assign(formulas, "alice")
    client = _client("alice")
    client.get(reverse("assessment:home"))  # warm the session
    for assignment, pool in ((a_answers, answers), (a_formulas, formulas)):
        with django_assert_max_num_queries(8):  # 7, and the session read from the database
            assert client.get(_judge(assignment.pk, pool.items[0].pk)).status_code == 200
        with django_assert_max_num_queries(5):  # session, user, assignment, statuses, guidelines
            assert client.get(reverse("assessment:items", args=[assignment.pk])).status_code == 200
        with django_assert_max_num_queries(6):
            assert client.get(_api(assignment.pk, pool.items[0].pk)).status_code == 200
        verdicts = [{"hit": h.pk, "grade": 2} for h in pool.hits[0]]
        # 12: reading the assignment's topic with the task's guidelines one,
        # taking the topic's pool lock one, the session (in the database) one, whether a
        # machine judge's suggestion was shown for these hits (assisted mode) one.
        with django_assert_max_num_queries(12):
            response = _post_json(
                client, _api(assignment.pk, pool.items[0].pk), {"judgments": verdicts}
            )
            assert response.status_code == 200  # type: ignore[attr-defined]
        data = {f"choice-{h.pk}": "1" for h in pool.hits[1]}
        with django_assert_max_num_queries(14):  # the same five as above
            assert client.post(_judge(assignment.pk, pool.items[1].pk), data).status_code == 302
    with django_assert_max_num_queries(3):
        assert client.get(reverse("assessment:home")).status_code == 200


def test_admin_lists_assignments_and_shows_revisions_when_organizer(
    django_assert_max_num_queries,
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=3)
    assignment = assign(pool, "alice")
    for grade in (1, 3):
        judgment = judgment_submit(
            assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=grade
        )
    client = Client()
    client.force_login(UserFactory.create(username="organizer", is_staff=True, is_superuser=True))
    with django_assert_max_num_queries(12):
        listing = client.get(reverse("admin:assessment_assignment_changelist"))
    assert pool.topic.number in listing.content.decode()
    detail = client.get(reverse("admin:assessment_judgment_change", args=[judgment.pk]))
    assert detail.status_code == 200
    assert detail.content.decode().count('class="field-number"') >= 2  # both revisions shown


def test_generated_answer_is_shown_escaped_when_open_qa_item() -> None:
    pool = answer_pool(items=1)
    item = PoolItemFactory.create(
        topic=pool.topic,
        post_id=None,
        key="d_1",
        answer="Use $x^2 \\geq 0$ <script>alert(1)</script>",
        display_order=99,
    )
    hit = HitFactory.create(item=item, post_id=None)
    assignment = assign(pool, "alice")
    html = _client("alice").get(_judge(assignment.pk, item.pk)).content.decode()
    assert "Generated answer" in html
    assert "Use $x^2 \\geq 0$ &lt;script&gt;" in html
    assert "<script>alert(1)" not in html
    assert f'name="choice-{hit.pk}"' in html

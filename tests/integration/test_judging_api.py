"""Judging over REST: an assessor's assignments and items with their hits, submit and revise,
scoped and blind like the pages, constant queries; and the README's script run for real."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from assessment.models import Assignment, Judgment, JudgmentRevision
from assessment.services.judging import HitVerdict, item_submit, judgment_submit
from tests.factories import AssignmentFactory, JudgmentFactory, UserFactory
from tests.integration.blind_moves import CONTINUE, SECRET, judged_by_alice, move_over_rest
from tests.integration.document_pool import document_pool
from tests.integration.judging_script import run_judging_script
from tests.integration.test_judging_pools import (
    SECRET_RUN_TAG,
    SECRET_TEAM,
    Pool,
    answer_pool,
    assign,
    formula_pool,
)

pytestmark = pytest.mark.django_db

ASSIGNMENTS = "/api/assignments/"


def _token_client(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
    return client


def _items_url(assignment: Assignment) -> str:
    return reverse("assessment_api:assignment-items", args=[assignment.pk])


def _items(client: APIClient, assignment: Assignment) -> list[dict]:
    response = client.get(_items_url(assignment), {"limit": 1000})
    assert response.status_code == 200, response.content
    return response.json()["results"]  # type: ignore[no-any-return]


def test_assignments_list_only_own_with_progress_when_token() -> None:
    pool = answer_pool(items=4)
    mine = assign(pool, "alice")
    assign(answer_pool(items=2), "bob")
    judgment_submit(assignment=mine, hit=pool.hits[0][0], assessor=mine.assessor, grade=2)
    response = _token_client(mine.assessor).get(ASSIGNMENTS)
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    [row] = body["results"]
    assert row["id"] == mine.pk
    assert row["topic"] == pool.topic.number
    assert (row["judged_hits"], row["total_hits"]) == (1, 4)
    assert (row["judged_items"], row["total_items"]) == (1, 4)
    assert row["continue_item"] == pool.items[1].pk  # the first unjudged in display order
    assert row["items_url"] == _items_url(mine)


def test_items_follow_page_order_with_hits_and_own_grades_when_formula_task() -> None:
    pool = formula_pool(items=3, instances=2)
    assignment = assign(pool, "alice")
    first, second = pool.hits[1]
    item_submit(
        assignment=assignment,
        item=pool.items[1],
        assessor=assignment.assessor,
        verdicts=[HitVerdict(hit_id=first.pk, grade=3, comment="clear")],
    )
    client = _token_client(assignment.assessor)
    items = _items(client, assignment)
    assert [i["id"] for i in items] == [item.pk for item in pool.items]  # display order 0, 1, 2
    assert [i["position"] for i in items] == [1, 2, 3]
    assert [i["state"] for i in items] == ["unjudged", "partial", "unjudged"]
    hits = items[1]["hits"]
    assert [h["id"] for h in hits] == [first.pk, second.pk]
    assert [h["formula_id"] for h in hits] == [first.formula_id, second.formula_id]
    assert [h["post_id"] for h in hits] == [first.post_id, second.post_id]
    assert {h["formula"] for h in hits} == {"\\sqrt{\\rho(A^TA)}"}
    assert [(h["grade"], h["comment"], h["revision"]) for h in hits] == [
        (3, "clear", 1),
        (None, "", 0),
    ]
    judge_page = reverse("assessment:judge", args=[assignment.pk, pool.items[1].pk])
    assert items[1]["page_url"] == judge_page
    detail = client.get(
        reverse("assessment_api:assignment-item", args=[assignment.pk, pool.items[1].pk])
    )
    shown = detail.json()
    assert {k: v for k, v in shown.items() if k not in ("topic", "content", "taken_out")} == items[
        1
    ]
    assert shown["taken_out"] is False  # in the assignment, not taken out of a scope
    # What the page shows: the topic with its query formula, each post with the candidate
    # formula highlighted.
    assert shown["topic"]["number"] == "B.9"
    assert shown["topic"]["query_formula"] == "\\|A\\|_2=\\sqrt{\\rho(A^TA)}"
    assert [c["hit"] for c in shown["content"]] == [first.pk, second.pk]
    assert "Answer 1.0: we use" in shown["content"][0]["body_html"]
    assert (
        f'class="math-container hit-formula" id="{first.formula_id}"'
        in (shown["content"][0]["body_html"])
    )


def test_items_name_their_documents_when_document_task() -> None:
    pool = document_pool(items=2)
    assignment = assign(pool, "alice")
    client = _token_client(assignment.assessor)
    items = _items(client, assignment)

    def client_get_item(assignment: Assignment, item_id: int) -> dict:
        url = reverse("assessment_api:assignment-item", args=[assignment.pk, item_id])
        response = client.get(url)
        assert response.status_code == 200
        return response.json()  # type: ignore[no-any-return]

    docnos = [h["docno"] for i in items for h in i["hits"]]
    assert docnos == [item.key for item in pool.items]  # a document item's key is its docno
    assert all(h["post_id"] is None and h["formula_id"] is None for i in items for h in i["hits"])
    detail = client_get_item(assignment, pool.items[0].pk)
    assert detail["topic"]["description"] == pool.topic.description
    [content] = detail["content"]
    assert content["document_title"] == pool.hits[0][0].document.title  # type: ignore[union-attr]
    assert content["document_html"]


def _others_judge(pool: Pool) -> None:
    """Bob (dual) and a machine judge grade every hit of the topic, with telling comments."""
    bob = AssignmentFactory.create(
        topic=pool.topic,
        assessor=UserFactory.create(username="bobdual"),
        purpose=Assignment.Purpose.DUAL,
    )
    machine = AssignmentFactory.create(
        topic=pool.topic,
        assessor=UserFactory.create(username="machinejudge"),
        purpose=Assignment.Purpose.MACHINE,
    )
    for hits in pool.hits:
        judgment_submit(
            assignment=bob, hit=hits[0], assessor=bob.assessor, grade=3, comment="bob-secret"
        )
        JudgmentFactory.create(assignment=machine, hit=hits[0], grade=3, comment="machine-secret")


def test_nothing_of_runs_scores_or_other_assessors_leaves_when_topic_dual_assessed() -> None:
    pool = answer_pool(items=3)
    assignment = assign(pool, "alice")
    _others_judge(pool)
    client = _token_client(assignment.assessor)
    texts = [
        client.get(ASSIGNMENTS).content.decode(),
        client.get(_items_url(assignment)).content.decode(),
        client.get(
            reverse("assessment_api:assignment-item", args=[assignment.pk, pool.items[0].pk])
        ).content.decode(),
    ]
    for text in texts:
        for secret in (SECRET_RUN_TAG, SECRET_TEAM, "0.987654", "4242", "bobdual", "bob-secret"):
            assert secret not in text
        assert "machine" not in text
        assert "rank" not in text
        assert "score" not in text
    assert all(h["grade"] is None for i in _items(client, assignment) for h in i["hits"])


def test_previous_assessors_hits_are_marked_without_grades_when_moved_to_continue() -> None:
    pool = answer_pool(items=3)
    old = judged_by_alice(pool)
    moved = move_over_rest(old, CONTINUE, to="bob")
    bob = Assignment.objects.get(pk=moved["id"])
    client = _token_client(bob.assessor)
    response = client.get(_items_url(bob))
    assert SECRET not in response.content.decode()
    first_item = reverse("assessment_api:assignment-item", args=[bob.pk, pool.items[0].pk])
    detail = client.get(first_item)
    assert SECRET not in detail.content.decode()
    assert detail.json()["content"] == []  # a previous assessor's hit: nothing to show
    hits = [i["hits"][0] for i in response.json()["results"]]
    assert [h["previous"] for h in hits] == [True, True, False]
    assert all(h["grade"] is None and h["flag"] == "" and h["revision"] == 0 for h in hits)
    assert [i["state"] for i in response.json()["results"]] == ["previous", "previous", "unjudged"]


def test_every_endpoint_is_404_when_assignment_of_another_assessor_or_item_of_another_topic() -> (
    None
):
    pool = answer_pool(items=1)
    other = answer_pool(items=1)
    assignment = assign(pool, "alice")
    assign(other, "bob")
    mallory = _token_client(UserFactory.create(username="mallory"))
    assert mallory.get(ASSIGNMENTS).json()["count"] == 0
    assert mallory.get(_items_url(assignment)).status_code == 404
    own_item = reverse("assessment_api:assignment-item", args=[assignment.pk, pool.items[0].pk])
    assert mallory.get(own_item).status_code == 404
    alice = _token_client(assignment.assessor)
    crafted = reverse("assessment_api:assignment-item", args=[assignment.pk, other.items[0].pk])
    assert alice.get(crafted).status_code == 404
    assert APIClient().get(_items_url(assignment)).status_code in (401, 403)


def test_submit_then_revise_keeps_every_revision_and_a_retry_once_when_over_rest() -> None:
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    client = _token_client(assignment.assessor)
    item = _items(client, assignment)[0]
    hit = item["hits"][0]["id"]

    def submit(grade: int, token: str) -> dict:
        body = {"judgments": [{"hit": hit, "grade": grade}], "client_token": token}
        response = client.post(item["judgments_url"], body, format="json")
        assert response.status_code == 200, response.content
        return response.json()  # type: ignore[no-any-return]

    submit(1, "first")
    submit(1, "first")  # the same request again: stored once
    assert JudgmentRevision.objects.count() == 1
    revised = submit(3, "second")
    assert [(j["hit"], j["grade"], j["revision"]) for j in revised["judgments"]] == [(hit, 3, 2)]
    again = _items(client, assignment)[0]["hits"][0]
    assert (again["grade"], again["revision"]) == (3, 2)
    assert list(JudgmentRevision.objects.order_by("number").values_list("grade", flat=True)) == [
        1,
        3,
    ]
    refused = client.post(
        item["judgments_url"], {"judgments": [{"hit": hit, "grade": 9}]}, format="json"
    )
    assert refused.status_code == 400
    assert Judgment.objects.get().grade == 3


def test_pages_of_items_follow_limit_and_offset_when_paginated() -> None:
    pool = answer_pool(items=5)
    assignment = assign(pool, "alice")
    client = _token_client(assignment.assessor)
    first = client.get(_items_url(assignment), {"limit": 2}).json()
    assert first["count"] == 5
    assert [i["id"] for i in first["results"]] == [item.pk for item in pool.items[:2]]
    second = client.get(first["next"]).json()
    assert [i["position"] for i in second["results"]] == [3, 4]
    assert client.get(_items_url(assignment), {"limit": "0"}).status_code == 400


@pytest.mark.parametrize("size", [5, 120])
def test_list_endpoints_run_constant_queries_whatever_the_pool_size(
    size: int, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    answers = answer_pool(items=size)
    formulas = formula_pool(items=max(2, size // 10), instances=5)
    documents = document_pool(items=max(2, size // 10))
    alice = UserFactory.create(username="alice")
    client = _token_client(alice)
    for pool in (answers, formulas, documents):
        assignment = AssignmentFactory.create(topic=pool.topic, assessor=alice)
        judgment_submit(assignment=assignment, hit=pool.hits[0][0], assessor=alice, grade=1)
        # token and user, assignment, item statuses, hits with own judgments, formulas or docs
        with django_assert_max_num_queries(5):
            rows = _items(client, assignment)
        assert len(rows) == len(pool.items)
        item = reverse("assessment_api:assignment-item", args=[assignment.pk, pool.items[1].pk])
        # the list's five and the judging page's own (hits, posts and formulas or documents,
        # statuses, threads)
        with django_assert_max_num_queries(10):
            assert client.get(item).status_code == 200
    with django_assert_max_num_queries(2):  # token and user, assignments with progress
        assert client.get(ASSIGNMENTS).json()["count"] == 3


@pytest.mark.django_db(transaction=True)
def test_readme_script_judges_then_revises_when_run_against_a_live_server(
    live_server, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    answers = answer_pool(items=3)
    formulas = formula_pool(items=2, instances=2)
    alice = assign(answers, "alice")
    AssignmentFactory.create(topic=formulas.topic, assessor=alice.assessor)
    bob_pool = answer_pool(items=1, prefix=50)
    assign(bob_pool, "bob")
    token = StringIO()
    call_command("create_token", "alice", stdout=token)
    grades = [
        (answers.topic.number, str(hits[0].post_id), g)
        for hits, g in zip(answers.hits, (3, 0, 2), strict=True)
    ]
    grades += [(formulas.topic.number, str(h.formula_id), 1) for h in formulas.hits[0]]
    # Bob's topic is not Alice's: its line is left alone.
    grades.append((bob_pool.topic.number, str(bob_pool.hits[0][0].post_id), 3))
    run = run_judging_script(
        server=live_server.url, token=token.getvalue().strip(), grades=grades, folder=tmp_path
    )
    assert run.returncode == 0, run.stderr
    stored = dict(Judgment.objects.values_list("hit_id", "grade"))
    expected = {hits[0].pk: g for hits, g in zip(answers.hits, (3, 0, 2), strict=True)}
    expected |= {h.pk: 1 for h in formulas.hits[0]}
    assert stored == expected
    grades[0] = (grades[0][0], grades[0][1], 1)  # the first answer revised from 3 to 1
    again = run_judging_script(
        server=live_server.url, token=token.getvalue().strip(), grades=grades, folder=tmp_path
    )
    assert again.returncode == 0, again.stderr
    first = Judgment.objects.get(hit=answers.hits[0][0])
    assert (first.grade, first.revision) == (1, 2)
    assert set(Judgment.objects.exclude(pk=first.pk).values_list("revision", flat=True)) == {1}

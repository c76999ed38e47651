"""Moving an assignment keeps the new assessor blind, over the pages and REST.

Alice judges part of a topic (one hit revised, one flagged, both with a private comment); the
organizer moves the topic to Bob, continuing or starting over. Bob must never see or change
Alice's judgments, they stay hers with their history, and the qrels take the judgments the
documented precedence says (docs/agreement.md "Moving a topic").
"""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, Judgment
from assessment.services.assignments import AssignmentError, assignment_move, assignment_revoke
from assessment.services.judging import HitVerdict, JudgmentInvalid, item_submit
from tests.factories import AssignmentFactory, UserFactory
from tests.integration.blind_moves import (
    CONTINUE,
    SECRET,
    START_OVER,
    alice_history,
    api_url,
    judge_url,
    judged_by_alice,
    logged_in,
    move_over_rest,
    post_json,
)
from tests.integration.test_judging_pools import answer_pool, assign, formula_pool

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("handover", "left"), [(CONTINUE, 2), (START_OVER, 4)])
def test_move_answer_says_what_stays_with_the_earlier_assessor_when_moved_over_rest(
    handover: str, left: int
) -> None:
    old = judged_by_alice(answer_pool(items=4))
    answer = move_over_rest(old, handover)
    assert answer["replaces"] == old.pk
    assert answer["previous_assessor"] == "alice"
    assert (answer["assessor"], answer["handover"]) == ("bob", handover)
    assert (answer["kept_judgments"], answer["hits_left"]) == (2, left)
    assert answer["kept_judgments_count_as_done"] is (handover == CONTINUE)
    new = Assignment.objects.get(pk=answer["id"])
    old.refresh_from_db()
    assert old.revoked_at is not None
    assert old.assessor.username == "alice"
    assert (new.replaces_id, new.assessor.username, new.revoked_at) == (old.pk, "bob", None)


@pytest.mark.parametrize("handover", [CONTINUE, START_OVER])
def test_new_assessor_sees_no_earlier_grade_or_comment_anywhere_when_topic_moved(
    handover: str, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=4)
    new_id = move_over_rest(judged_by_alice(pool), handover)["id"]
    bob = logged_in("bob")
    bob.get(reverse("assessment:home"))  # warm the session
    continuing = handover == CONTINUE
    home = bob.get(reverse("assessment:home")).content.decode()
    assert f"<b>{2 if continuing else 0}</b> of 4 answers judged" in home
    with django_assert_max_num_queries(5):  # session, user, assignment, statuses, guidelines
        items = bob.get(reverse("assessment:items", args=[new_id])).content.decode()
    assert items.count("state-previous") == (2 if continuing else 0)
    assert "grade-high" not in items
    assert "⚑" not in items.split("item-grid")[1]
    for index, item in enumerate(pool.items):
        hit = pool.hits[index][0]
        with django_assert_max_num_queries(7):
            page = bob.get(judge_url(new_id, item.pk)).content.decode()
        state = bob.get(api_url(new_id, item.pk))
        assert state.status_code == 200
        for shown in (home, items, page, state.content.decode()):
            assert SECRET not in shown
            assert "first look" not in shown
        assert " checked" not in page
        assert state.json()["judgments"] == []
        by_previous = continuing and index < 2
        assert state.json()["previous_hits"] == ([hit.pk] if by_previous else [])
        assert ("judged by a previous assessor" in page) is by_previous
        assert (f'name="choice-{hit.pk}"' in page) is not by_previous


def test_submit_to_a_hit_judged_earlier_is_refused_when_continuing() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    before = alice_history(old)
    new_id = move_over_rest(old, CONTINUE)["id"]
    bob = logged_in("bob")
    hit, item = pool.hits[0][0], pool.items[0]
    refused = post_json(bob, api_url(new_id, item.pk), {"judgments": [{"hit": hit.pk, "grade": 0}]})
    assert refused.status_code == 400
    assert "previous assessor" in refused.json()["problems"][str(hit.pk)]
    form = bob.post(judge_url(new_id, item.pk), {f"choice-{hit.pk}": "0"})
    assert form.status_code == 400
    assert "that judgment stays theirs and cannot be changed" in form.content.decode()
    assert SECRET not in form.content.decode()
    new = Assignment.objects.get(pk=new_id)
    with pytest.raises(JudgmentInvalid, match="previous assessor"):
        item_submit(
            assignment=new,
            item=item,
            assessor=new.assessor,
            verdicts=[HitVerdict(hit_id=hit.pk, grade=2)],
        )
    assert alice_history(old) == before
    assert Judgment.objects.filter(hit=hit).count() == 1
    # What is left is Bob's to judge.
    accepted = post_json(
        bob,
        api_url(new_id, pool.items[2].pk),
        {"judgments": [{"hit": pool.hits[2][0].pk, "grade": 2}]},
    )
    assert accepted.status_code == 200
    assert accepted.json()["judged_hits"] == 3


def test_start_over_lets_new_assessor_judge_every_hit_blind_and_keeps_the_earlier_when_chosen() -> (
    None
):
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    before = alice_history(old)
    new_id = move_over_rest(old, START_OVER)["id"]
    bob = logged_in("bob")
    hit = pool.hits[0][0]
    response = post_json(
        bob, api_url(new_id, pool.items[0].pk), {"judgments": [{"hit": hit.pk, "grade": 0}]}
    )
    assert response.status_code == 200
    assert [j["grade"] for j in response.json()["judgments"]] == [0]
    assert alice_history(old) == before
    mine = Judgment.objects.get(assignment_id=new_id, hit=hit)
    assert (mine.assessor.username, mine.revision) == ("bob", 1)


def test_earlier_assessor_loses_access_but_keeps_authorship_when_topic_moved() -> None:
    pool = answer_pool(items=2)
    old = judged_by_alice(pool)
    move_over_rest(old, CONTINUE)
    alice = logged_in("alice")
    assert alice.get(judge_url(old.pk, pool.items[0].pk)).status_code == 404
    late = post_json(
        alice,
        api_url(old.pk, pool.items[0].pk),
        {"judgments": [{"hit": pool.hits[0][0].pk, "grade": 0}]},
    )
    assert late.status_code == 404
    assert pool.topic.number not in alice.get(reverse("assessment:home")).content.decode()
    assert [row[1] for row in alice_history(old)] == ["alice", "alice"]


def test_formula_item_shows_only_the_hits_left_when_partly_judged_before_the_move() -> None:
    pool = formula_pool(items=1, instances=3)
    old = assign(pool, "alice")
    first, second, third = pool.hits[0]
    item_submit(
        assignment=old,
        item=pool.items[0],
        assessor=old.assessor,
        verdicts=[HitVerdict(hit_id=first.pk, grade=3), HitVerdict(hit_id=second.pk, grade=0)],
    )
    new_id = move_over_rest(old, CONTINUE)["id"]
    bob = logged_in("bob")
    page = bob.get(judge_url(new_id, pool.items[0].pk)).content.decode()
    assert page.count("judged by a previous assessor") == 2
    assert "1 post to judge" in page
    assert f'name="choice-{third.pk}"' in page
    assert f'name="choice-{first.pk}"' not in page
    response = post_json(
        bob, api_url(new_id, pool.items[0].pk), {"judgments": [{"hit": third.pk, "grade": 2}]}
    )
    assert response.status_code == 200
    assert (response.json()["judged_hits"], response.json()["total_hits"]) == (3, 3)
    assert response.json()["next_unjudged_url"] is None
    items = bob.get(reverse("assessment:items", args=[new_id])).content.decode()
    assert "state-judged grade-medium" in items  # Bob's own grade only


def test_organizer_page_moves_with_the_chosen_handover_and_says_what_stays() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    bob = UserFactory.create(username="bob")
    organizer = Client()
    organizer.force_login(UserFactory.create(username="boss", is_staff=True))
    url = reverse("assessment:organize_assignments", args=[pool.topic.task_id])
    assert 'name="handover"' in organizer.get(url).content.decode()
    response = organizer.post(
        url,
        {"action": "move", "assignment": old.pk, "assessor": bob.pk, "handover": "start_over"},
        follow=True,
    )
    html = response.content.decode()
    assert "starting over: 2 judged hits stay with the earlier assessor" in html
    assert "judges all 4 hits blind" in html
    new = Assignment.objects.get(replaces=old)
    assert (new.assessor, new.handover, new.line_start_id) == (bob, START_OVER, None)


def test_move_of_a_moved_assignment_is_refused_and_nothing_changes() -> None:
    old = judged_by_alice(answer_pool(items=2))
    move_over_rest(old, CONTINUE)
    carol = UserFactory.create(username="carol")
    with pytest.raises(AssignmentError, match="revoked"):
        assignment_move(assignment=old, assessor=carol, moved_by=None)
    assert Assignment.objects.filter(topic=old.topic).count() == 2


@pytest.mark.parametrize(
    "fields",
    [
        {"handover": "continue"},  # a handover without what it replaces
        {"handover": "start_over"},
    ],
)
def test_database_refuses_a_handover_without_its_move_when_service_bypassed(fields) -> None:
    assignment = AssignmentFactory.create()
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignmentFactory.create(topic=assignment.topic, purpose="dual", **fields)


def test_database_refuses_a_continue_move_without_its_line_when_service_bypassed() -> None:
    old = AssignmentFactory.create()
    assignment_revoke(assignment=old)
    with pytest.raises(IntegrityError), transaction.atomic():
        AssignmentFactory.create(topic=old.topic, replaces=old, handover=CONTINUE)

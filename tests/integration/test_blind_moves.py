"""Moving an assignment keeps the new assessor blind (issue 11 §2), over the pages and REST.

Alice judges part of a topic (one hit revised, one flagged, both with a private comment); the
organizer moves the topic to Bob, continuing or starting over. Bob must never see or change
Alice's judgments, they stay hers with their history, and the qrels take the judgments the
documented precedence says (docs/agreement.md "Moving a topic").
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from assessment.models import Assignment, Judgment
from assessment.selectors.agreement import task_agreement
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.progress import assignments_with_progress
from assessment.services.assignments import AssignmentError, assignment_move, assignment_revoke
from assessment.services.judging import HitVerdict, JudgmentInvalid, item_submit, judgment_submit
from evaluation.qrels import QrelsPolicy
from evaluation.services import QrelsExportError, qrels_export
from tests.factories import AssignmentFactory, UserFactory
from tests.integration.test_judging_pools import Pool, answer_pool, assign, formula_pool

pytestmark = pytest.mark.django_db

SECRET = "alice-private-comment-7781"
CONTINUE, START_OVER = Assignment.Handover.CONTINUE, Assignment.Handover.START_OVER


def export(pool):  # type: ignore[no-untyped-def]
    """Qrels of whose judgment counts: no topic dropped for too few relevant items, and items
    left unjudged on purpose do not stop the export."""
    return qrels_export(task=pool.topic.task, policy=QrelsPolicy(), allow_incomplete=True)


def judged_by_alice(pool: Pool) -> Assignment:
    """Alice's official assignment: hit 0 graded Low then High, hit 1 flagged."""
    old = assign(pool, "alice")
    alice = old.assessor
    first, second = pool.hits[0][0], pool.hits[1][0]
    judgment_submit(assignment=old, hit=first, assessor=alice, grade=1, comment="first look")
    judgment_submit(assignment=old, hit=first, assessor=alice, grade=3, comment=SECRET)
    judgment_submit(assignment=old, hit=second, assessor=alice, flag="dont_know", comment=SECRET)
    return old


def organizer_api() -> APIClient:
    api = APIClient()
    api.force_authenticate(UserFactory.create(username="boss", is_staff=True))
    return api


def move_over_rest(old: Assignment, handover: str, to: str = "bob") -> dict:
    if not User.objects.filter(username=to).exists():
        UserFactory.create(username=to)
    response = organizer_api().post(
        reverse("assessment_api:organize-assignment-move", args=[old.pk]),
        {"assessor": to, "handover": handover},
        format="json",
    )
    assert response.status_code == 200, response.content
    return response.json()


def logged_in(username: str) -> Client:
    client = Client()
    client.force_login(User.objects.get(username=username))
    return client


def judge_url(assignment_id: int, item_id: int) -> str:
    return reverse("assessment:judge", args=[assignment_id, item_id])


def api_url(assignment_id: int, item_id: int) -> str:
    return reverse("assessment_api:item-judgments", args=[assignment_id, item_id])


def post_json(client: Client, url: str, body: dict):  # type: ignore[no-untyped-def]
    return client.post(url, data=json.dumps(body), content_type="application/json")


def alice_history(old: Assignment) -> list[tuple]:
    """Alice's judgments and every revision, as stored."""
    judgments = Judgment.objects.filter(assignment=old).order_by("hit_id")
    return [
        (
            j.hit_id,
            j.assessor.username,
            j.grade,
            j.flag,
            j.comment,
            j.revision,
            [(r.number, r.changed_by.username, r.grade) for r in j.revisions.all()],
        )
        for j in judgments
    ]


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


# --- qrels, progress, dashboard and agreement -------------------------------------------------


def grade(assignment: Assignment, pool: Pool, index: int, value: int) -> None:
    judgment_submit(
        assignment=assignment, hit=pool.hits[index][0], assessor=assignment.assessor, grade=value
    )


def rows(pool: Pool, version) -> list[tuple[int, int]]:  # type: ignore[no-untyped-def]
    """(item index, grade) of every qrels line."""
    index = {item.key: i for i, item in enumerate(pool.items)}
    lines = [line.split("\t") for line in version.content.splitlines()]
    return sorted((index[key], int(value)) for _topic, _zero, key, value in lines)


def test_qrels_count_the_whole_line_when_topic_moved_and_continued() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)  # hit 0: High; hit 1: a flag (unjudged in Task 1 qrels)
    new = Assignment.objects.get(pk=move_over_rest(old, CONTINUE)["id"])
    grade(new, pool, 2, 2)
    third = Assignment.objects.get(pk=move_over_rest(new, CONTINUE, to="carol")["id"])
    grade(third, pool, 3, 0)
    assert rows(pool, export(pool)) == [
        (0, 3),
        (2, 2),
        (3, 0),
    ]
    [progress] = assignments_with_progress(third.assessor)
    assert (progress.judged, progress.total, progress.flagged) == (4, 4, 0)
    assert progress.is_done


def test_qrels_take_only_the_new_line_when_topic_started_over() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    new = Assignment.objects.get(pk=move_over_rest(old, START_OVER)["id"])
    with pytest.raises(QrelsExportError, match="no judged items"):
        export(pool)  # Alice's work no longer counts
    grade(new, pool, 1, 1)
    grade(new, pool, 2, 2)
    assert rows(pool, export(pool)) == [(1, 1), (2, 2)]
    # A later continue-move carries Bob's line on, not Alice's.
    third = Assignment.objects.get(pk=move_over_rest(new, CONTINUE, to="carol")["id"])
    grade(third, pool, 0, 0)
    assert rows(pool, export(pool)) == [
        (0, 0),
        (1, 1),
        (2, 2),
    ]


def test_qrels_rank_the_moved_official_line_above_dual_when_both_judged() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    dual = assign(pool, "dan", purpose=Assignment.Purpose.DUAL)
    grade(dual, pool, 0, 0)  # the official line says High
    grade(dual, pool, 3, 1)  # nobody official judged it
    move_over_rest(old, CONTINUE)
    assert rows(pool, export(pool)) == [(0, 3), (3, 1)]


def test_revoking_without_a_move_takes_the_judgments_out_of_qrels_when_revoked() -> None:
    pool = answer_pool(items=2)
    old = judged_by_alice(pool)
    assignment_revoke(assignment=old)
    with pytest.raises(QrelsExportError):
        export(pool)
    assert len(alice_history(old)) == 2  # still stored and attributed


@pytest.mark.parametrize(
    ("handover", "topic_judged", "grades"),
    [
        (CONTINUE, 4, [0, 1, 1, 1]),  # N L M H counts: Alice's High and flag, Bob's Low and Medium
        (START_OVER, 2, [0, 1, 1, 0]),  # Bob's Low and Medium only
    ],
)
def test_dashboard_counts_each_hit_once_for_the_current_line_when_topic_moved(
    handover: str, topic_judged: int, grades: list[int]
) -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    new = Assignment.objects.get(pk=move_over_rest(old, handover)["id"])
    grade(new, pool, 2, 1)
    grade(new, pool, 3, 2)
    board = task_dashboard(task=pool.topic.task)
    [topic] = board.topics
    assert (topic.judged, topic.grades, topic.assessor) == (topic_judged, grades, "bob")
    people = {p.name: p for p in board.assessors}
    assert (people["bob"].judged, people["bob"].judgments) == (topic_judged, 2)
    assert (people["alice"].judged, people["alice"].judgments) == (0, 2)
    assert people["alice"].assigned_hits == 0


def test_agreement_pairs_stay_by_author_when_a_started_over_topic_is_judged_again() -> None:
    pool = answer_pool(items=4)
    old = judged_by_alice(pool)
    grade(old, pool, 2, 2)
    new = Assignment.objects.get(pk=move_over_rest(old, START_OVER)["id"])
    grade(new, pool, 0, 3)
    grade(new, pool, 2, 0)
    table = task_agreement(task=pool.topic.task)
    [pair] = table.pairs
    assert {table.name(pair.first), table.name(pair.second)} == {"alice", "bob"}
    assert pair.shared == 2


def test_admin_cannot_change_an_assignments_assessor_in_place_when_editing() -> None:
    old = judged_by_alice(answer_pool(items=2))
    bob = UserFactory.create(username="bob")
    admin = Client()
    admin.force_login(UserFactory.create(username="root", is_staff=True, is_superuser=True))
    url = reverse("admin:assessment_assignment_change", args=[old.pk])
    assert 'name="assessor"' not in admin.get(url).content.decode()
    admin.post(url, {"assessor": bob.pk, "topic": old.topic_id, "purpose": "official"})
    old.refresh_from_db()
    assert old.assessor.username == "alice"


@pytest.mark.parametrize(("handover", "done"), [(CONTINUE, 1), (START_OVER, 0)])
def test_dashboard_counts_formulae_done_as_qrels_do_when_topic_moved(
    handover: str, done: int
) -> None:
    pool = formula_pool(items=1, instances=2)
    old = assign(pool, "alice")
    item_submit(
        assignment=old,
        item=pool.items[0],
        assessor=old.assessor,
        verdicts=[HitVerdict(hit_id=hit.pk, grade=2) for hit in pool.hits[0]],
    )
    move_over_rest(old, handover)
    [topic] = task_dashboard(task=pool.topic.task).topics
    assert (topic.judged_items, topic.items) == (done, 1)  # formulae, as the hit counts say
    assert topic.judged == 2 * done

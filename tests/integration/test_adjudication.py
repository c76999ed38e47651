"""Adjudication of dual-assessed hits whose verdicts differ: what a
dispute is, the service's rules (scale, idempotence, conflicts), and who may decide."""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from assessment.models import Adjudication, Assignment
from assessment.selectors.adjudication import DisputeFilter, decision_token, task_disputes
from assessment.services.adjudication import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
)
from assessment.services.assignments import assignment_revoke
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def dual_topic(pairs, topic=None, names=("", "")):  # type: ignore[no-untyped-def]
    """A topic judged by an official and a dual assessor: ``pairs`` of (official, dual) values,
    each a grade or a flag name; ``names`` optionally names the two assessors."""
    topic = topic or TopicFactory.create()
    people = [UserFactory.create(username=n) if n else UserFactory.create() for n in names]
    official = AssignmentFactory.create(topic=topic, assessor=people[0])
    dual = AssignmentFactory.create(
        topic=topic, assessor=people[1], purpose=Assignment.Purpose.DUAL
    )
    hits = []
    for first, second in pairs:
        hit = HitFactory.create(item=PoolItemFactory.create(topic=topic))
        for assignment, value in ((official, first), (dual, second)):
            if isinstance(value, int):
                JudgmentFactory.create(assignment=assignment, hit=hit, grade=value)
            else:
                JudgmentFactory.create(
                    assignment=assignment, hit=hit, grade=None, flag=value, comment="unsure"
                )
        hits.append(hit)
    return topic, hits


def shown(task, **wanted):  # type: ignore[no-untyped-def]
    chosen = DisputeFilter(**{"state": "all", **wanted})
    return [d for d in task_disputes(task=task).disputes if chosen.shows(d)]


@pytest.mark.parametrize(
    ("min_difference", "expected"),
    [(0, [1, 2, 3, 4]), (1, [1, 2, 3]), (2, [2, 3]), (3, [3])],
)
def test_disputes_are_filtered_by_grade_gap_when_a_minimum_is_given(
    min_difference, expected
) -> None:
    topic, hits = dual_topic([(2, 2), (2, 1), (3, 1), (0, 3), (1, "dont_know")])
    rows = shown(topic.task, min_difference=min_difference)
    position = {hit.pk: i for i, hit in enumerate(hits)}
    assert [position[r.hit_id] for r in rows] == expected


def test_disputes_show_both_verdicts_with_comments_when_one_is_a_flag() -> None:
    topic, _hits = dual_topic([(1, "dont_know")])
    [row] = shown(topic.task, min_difference=0)
    assert [v.purpose for v in row.verdicts] == ["official", "dual"]
    flagged = row.verdicts[1]
    assert (flagged.grade, flagged.flag, flagged.comment) == (None, "dont_know", "unsure")
    assert row.difference == 0


def test_disputes_are_filtered_by_topic_when_a_topic_is_chosen() -> None:
    topic, _ = dual_topic([(0, 3)])
    other, _ = dual_topic([(1, 3)], topic=TopicFactory.create(task=topic.task))
    assert [r.topic for r in shown(topic.task, topic=other.number)] == [other.number]
    assert {d.topic for d in task_disputes(task=topic.task).disputes} == {
        topic.number,
        other.number,
    }


@pytest.mark.parametrize(("state", "expected"), [("all", 2), ("undecided", 1), ("decided", 1)])
def test_disputes_are_filtered_by_decision_when_a_state_is_chosen(state, expected) -> None:
    topic, hits = dual_topic([(0, 3), (1, 3)])
    adjudication_decide(hit=hits[0], grade=2, decided_by=UserFactory.create(is_staff=True))
    assert len(shown(topic.task, state=state)) == expected


def test_a_revoked_assignment_makes_no_dispute_when_its_judgments_no_longer_count() -> None:
    topic, _hits = dual_topic([(0, 3), (1, 3)])
    dual = Assignment.objects.get(topic=topic, purpose=Assignment.Purpose.DUAL)
    assignment_revoke(assignment=dual)
    assert task_disputes(task=topic.task).disputes == []


def test_a_decided_hit_stays_listed_when_its_assessors_agree_later() -> None:
    topic, [hit] = dual_topic([(0, 3)])
    adjudication_decide(hit=hit, grade=2, decided_by=UserFactory.create(is_staff=True))
    hit.judgments.filter(grade=0).update(grade=3)
    [dispute] = task_disputes(task=topic.task).disputes
    assert (dispute.differs, dispute.decision.grade) == (False, 2)  # type: ignore[union-attr]


def test_decide_stores_and_then_changes_the_final_grade_when_decided_twice() -> None:
    topic, [hit] = dual_topic([(0, 3)])
    boss = UserFactory.create(is_staff=True)
    adjudication_decide(hit=hit, grade=2, note=" checked ", decided_by=boss)
    assert Adjudication.objects.get(hit=hit).note == "checked"
    adjudication_decide(hit=hit, grade=3, decided_by=boss)
    stored = Adjudication.objects.get(hit=hit)
    assert (stored.grade, stored.note) == (3, "")
    [row] = shown(topic.task)
    assert row.decision.grade == 3  # type: ignore[union-attr]


@pytest.mark.parametrize("grade", [-1, 4, 7])
def test_decide_refuses_when_grade_is_out_of_range(grade) -> None:
    _, [hit] = dual_topic([(0, 3)])
    with pytest.raises(AdjudicationError):
        adjudication_decide(hit=hit, grade=grade, decided_by=UserFactory.create())
    assert not Adjudication.objects.exists()


def test_decide_refuses_when_only_one_assessor_graded_the_hit() -> None:
    judgment = JudgmentFactory.create()
    with pytest.raises(AdjudicationError, match="two assessors"):
        adjudication_decide(hit=judgment.hit, grade=1, decided_by=UserFactory.create())


def test_decide_refuses_a_nul_character_when_the_note_has_one() -> None:
    _, [hit] = dual_topic([(0, 3)])
    with pytest.raises(AdjudicationError, match="NUL"):
        adjudication_decide(hit=hit, grade=1, note="a\x00b", decided_by=UserFactory.create())
    assert not Adjudication.objects.exists()


def test_decide_refuses_with_the_other_decision_when_someone_decided_since() -> None:
    _, [hit] = dual_topic([(0, 3)])
    ann = UserFactory.create(username="ann", is_staff=True)
    ben = UserFactory.create(username="ben", is_staff=True)
    adjudication_decide(hit=hit, grade=2, decided_by=ben, seen=0)  # ann's page still says none
    with pytest.raises(AdjudicationConflict, match="ben decided this hit") as caught:
        adjudication_decide(hit=hit, grade=3, decided_by=ann, seen=0)
    assert caught.value.current.grade == 2
    stored = Adjudication.objects.get(hit=hit)
    assert (stored.grade, stored.decided_by) == (2, ben)
    # Having seen ben's decision, ann replaces it.
    adjudication_decide(hit=hit, grade=3, decided_by=ann, seen=decision_token(stored.decided_at))
    assert Adjudication.objects.get(hit=hit).grade == 3


def test_decide_changes_nothing_when_the_same_grade_and_note_are_sent_again() -> None:
    _, [hit] = dual_topic([(0, 3)])
    ann = UserFactory.create(is_staff=True)
    first = adjudication_decide(hit=hit, grade=2, note="ok", decided_by=ann, seen=0)
    again = adjudication_decide(hit=hit, grade=2, note="ok ", decided_by=ann, seen=0)
    assert again.decided_at == first.decided_at
    assert Adjudication.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_one_of_two_simultaneous_decisions_is_stored_when_both_saw_no_decision() -> None:
    """Two organizers press Enter on the same undecided hit at once: the topic lock lets one
    write; the other is told about it instead of silently overwriting (PostgreSQL)."""
    _, [hit] = dual_topic([(0, 3)])
    people = [UserFactory.create(username=f"boss{i}", is_staff=True) for i in range(2)]
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def decide(grade: int, who) -> None:  # type: ignore[no-untyped-def]
        try:
            barrier.wait(timeout=10)
            adjudication_decide(hit=hit, grade=grade, decided_by=who, seen=0)
            outcomes.append("saved")
        except AdjudicationConflict:
            outcomes.append("conflict")
        finally:
            connection.close()

    threads = [
        threading.Thread(target=decide, args=(g, p)) for g, p in zip((2, 3), people, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["conflict", "saved"]
    assert Adjudication.objects.count() == 1


def test_page_saves_the_final_grade_when_organizer_posts_it(client) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_adjudication", args=[topic.task.pk])
    response = client.post(url, {"hit": hit.pk, "grade": "2", "note": "Half right", "seen": "0"})
    assert response.status_code == 302
    assert Adjudication.objects.get(hit=hit).grade == 2
    page = client.get(url, {"state": "decided"})
    assert b"final 2 \xc2\xb7 Medium" in page.content
    assert b"Half right" in page.content


def test_page_answers_404_when_hit_belongs_to_another_task(client) -> None:
    _topic, [hit] = dual_topic([(0, 3)])
    other_topic, _ = dual_topic([(1, 2)])
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_adjudication", args=[other_topic.task.pk])
    assert client.post(url, {"hit": hit.pk, "grade": "2"}).status_code == 404
    assert client.get(url, {"hit": hit.pk}).status_code == 404
    assert not Adjudication.objects.exists()


def test_assessor_cannot_adjudicate_when_posting_to_the_page(client) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    client.force_login(UserFactory.create())
    url = reverse("assessment:organize_adjudication", args=[topic.task.pk])
    assert client.post(url, {"hit": hit.pk, "grade": "2"}).status_code == 403
    assert client.get(url).status_code == 403
    assert not Adjudication.objects.exists()

"""Adjudication of dual-assessed hits whose grades differ (issue 6 §7), and who may do it."""

import pytest
from django.urls import reverse

from assessment.models import Adjudication, Assignment
from assessment.selectors.agreement import disagreements
from assessment.services.adjudication import AdjudicationError, adjudication_decide
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def dual_topic(pairs, topic=None):  # type: ignore[no-untyped-def]
    """A topic judged by an official and a dual assessor: ``pairs`` of (official, dual) values,
    each a grade or a flag name."""
    topic = topic or TopicFactory.create()
    official = AssignmentFactory.create(topic=topic)
    dual = AssignmentFactory.create(topic=topic, purpose=Assignment.Purpose.DUAL)
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


@pytest.mark.parametrize(
    ("min_difference", "expected"),
    [(0, [1, 2, 3, 4]), (1, [1, 2, 3]), (2, [2, 3]), (3, [3])],
)
def test_disagreements_are_filtered_by_grade_gap_when_a_minimum_is_given(
    min_difference, expected
) -> None:
    topic, hits = dual_topic([(2, 2), (2, 1), (3, 1), (0, 3), (1, "dont_know")])
    rows, topics = disagreements(task=topic.task, min_difference=min_difference)
    position = {hit.pk: i for i, hit in enumerate(hits)}
    assert [position[r.hit_id] for r in rows] == expected
    assert topics == [topic.number]


def test_disagreements_show_both_verdicts_with_comments_when_one_is_a_flag() -> None:
    topic, _hits = dual_topic([(1, "dont_know")])
    [row] = disagreements(task=topic.task, min_difference=0)[0]
    assert sorted(v.purpose for v in row.verdicts) == ["dual", "official"]
    flagged = next(v for v in row.verdicts if v.grade is None)
    assert flagged.flag == "dont_know"
    assert flagged.comment == "unsure"


def test_disagreements_are_filtered_by_topic_when_a_topic_is_chosen() -> None:
    topic, _ = dual_topic([(0, 3)])
    other, _ = dual_topic([(1, 3)], topic=TopicFactory.create(task=topic.task))
    rows, topics = disagreements(task=topic.task, topic=other.number)
    assert [r.topic for r in rows] == [other.number]
    assert set(topics) == {topic.number, other.number}


def test_decide_stores_and_then_changes_the_final_grade_when_decided_twice() -> None:
    topic, [hit] = dual_topic([(0, 3)])
    boss = UserFactory.create(is_staff=True)
    adjudication_decide(hit=hit, grade=2, note=" checked ", decided_by=boss)
    adjudication_decide(hit=hit, grade=3, decided_by=boss)
    stored = Adjudication.objects.get(hit=hit)
    assert (stored.grade, stored.note) == (3, "")
    [row] = disagreements(task=topic.task)[0]
    assert row.adjudicated == 3


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


def test_page_saves_the_final_grade_when_organizer_posts_it(client) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_adjudication", args=[topic.task.pk])
    response = client.post(url, {"hit": hit.pk, "grade": "2", "note": "Half right"})
    assert response.status_code == 302
    assert Adjudication.objects.get(hit=hit).grade == 2
    page = client.get(url)
    assert b"final 2" in page.content


def test_page_answers_404_when_hit_belongs_to_another_task(client) -> None:
    _topic, [hit] = dual_topic([(0, 3)])
    other_topic, _ = dual_topic([(1, 2)])
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_adjudication", args=[other_topic.task.pk])
    assert client.post(url, {"hit": hit.pk, "grade": "2"}).status_code == 404
    assert not Adjudication.objects.exists()


def test_assessor_cannot_adjudicate_when_posting_to_the_page(client) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    client.force_login(UserFactory.create())
    url = reverse("assessment:organize_adjudication", args=[topic.task.pk])
    assert client.post(url, {"hit": hit.pk, "grade": "2"}).status_code == 403
    assert not Adjudication.objects.exists()


@pytest.mark.parametrize(("state", "expected"), [("all", 2), ("open", 1), ("decided", 1)])
def test_disagreements_are_filtered_by_decision_when_a_state_is_chosen(state, expected) -> None:
    topic, hits = dual_topic([(0, 3), (1, 3)])
    adjudication_decide(hit=hits[0], grade=2, decided_by=UserFactory.create(is_staff=True))
    rows, _ = disagreements(task=topic.task, state=state)
    assert len(rows) == expected


@pytest.mark.parametrize("payload", [{"hit": "abc", "grade": "2"}, {"grade": "x"}])
def test_page_answers_404_not_500_when_posted_values_are_not_numbers(client, payload) -> None:
    topic, _ = dual_topic([(0, 3)])
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_adjudication", args=[topic.task.pk])
    assert client.post(url, payload).status_code == 404
    assert client.get(url, {"difference": "lots", "topic": "A.&x"}).status_code == 200


def test_page_refuses_a_grade_that_is_not_a_number_when_hit_is_valid(client) -> None:
    topic, [hit] = dual_topic([(0, 3)])
    client.force_login(UserFactory.create(is_staff=True))
    url = reverse("assessment:organize_adjudication", args=[topic.task.pk])
    response = client.post(url, {"hit": hit.pk, "grade": "high"}, follow=True)
    assert response.status_code == 200
    # Read by config.params before the service sees it: the message names the field.
    assert b"grade: must be a whole number" in response.content
    assert not Adjudication.objects.exists()

"""Assigning, balancing, moving, revoking and dual assessment."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from assessment.models import Assignment, Judgment
from assessment.services.assignments import (
    AssignmentError,
    assignment_move,
    assignment_revoke,
    assignments_balance,
    assignments_create,
    balance_plan,
    dual_assignments_create,
)
from tests.factories import (
    AssignmentFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def topic_with_hits(task, hits: int):  # type: ignore[no-untyped-def]
    topic = TopicFactory.create(task=task)
    for _ in range(hits):
        HitFactory.create(item=PoolItemFactory.create(topic=topic))
    return topic


@pytest.mark.parametrize(
    ("sizes", "loads", "expected_loads"),
    [
        ({"a": 10, "b": 8, "c": 5, "d": 3}, {"x": 0, "y": 0}, {"x": 13, "y": 13}),
        ({"a": 7, "b": 5, "c": 4, "d": 3, "e": 1}, {"x": 0, "y": 0}, {"x": 10, "y": 10}),
        ({"a": 5, "b": 4, "c": 3}, {"x": 0, "y": 0}, {"x": 5, "y": 7}),
        ({"a": 4, "b": 4}, {"x": 10, "y": 0}, {"x": 10, "y": 8}),
        ({}, {"x": 3}, {"x": 3}),
    ],
)
def test_balance_plan_evens_loads_largest_first_when_given_pool_sizes(
    sizes, loads, expected_loads
) -> None:
    plan = balance_plan(sizes, loads)
    final = dict(loads)
    for topic, assessor in plan.items():
        final[assessor] += sizes[topic]
    assert final == expected_loads
    assert set(plan) == set(sizes)


@given(
    sizes=st.lists(st.integers(min_value=1, max_value=500), min_size=1, max_size=40),
    people=st.integers(min_value=1, max_value=8),
)
def test_balance_plan_spread_is_at_most_the_largest_pool_when_starting_empty(sizes, people) -> None:
    plan = balance_plan(dict(enumerate(sizes)), dict.fromkeys(range(people), 0))
    loads = [0] * people
    for topic, assessor in plan.items():
        loads[assessor] += sizes[topic]
    assert max(loads) - min(loads) <= max(sizes)


def test_create_refuses_and_stores_nothing_when_a_topic_is_already_assigned() -> None:
    task = RetrievalTaskFactory.create()
    taken, free = TopicFactory.create(task=task), TopicFactory.create(task=task)
    AssignmentFactory.create(topic=taken)
    with pytest.raises(AssignmentError, match=f"{taken.number} is already assigned"):
        assignments_create(topics=[free, taken], assessor=UserFactory.create(), created_by=None)
    assert not Assignment.objects.filter(topic=free).exists()


def test_balance_gives_each_assessor_even_hits_when_topics_are_unassigned() -> None:
    task = RetrievalTaskFactory.create()
    for hits in (9, 7, 5, 4, 3, 2):
        topic_with_hits(task, hits)
    topic_with_hits(task, 0)  # nothing to judge yet: left alone
    ann, bob = UserFactory.create(), UserFactory.create()
    created = assignments_balance(task=task, assessors=[ann, bob], created_by=None)
    assert len(created) == 6
    loads = {ann.pk: 0, bob.pk: 0}
    for assignment in created:
        loads[assignment.assessor_id] += assignment.topic.pool_items.count()
    assert sorted(loads.values()) == [15, 15]


def test_balance_counts_held_topics_when_some_are_already_assigned() -> None:
    task = RetrievalTaskFactory.create()
    ann, bob = UserFactory.create(), UserFactory.create()
    AssignmentFactory.create(topic=topic_with_hits(task, 6), assessor=ann)
    topic_with_hits(task, 3)
    topic_with_hits(task, 3)
    created = assignments_balance(task=task, assessors=[ann, bob], created_by=None)
    assert {a.assessor_id for a in created} == {bob.pk}


def test_move_keeps_judgments_with_their_assessor_when_topic_changes_hands() -> None:
    judgment = JudgmentFactory.create(grade=3)
    assignment, old = judgment.assignment, judgment.assessor
    new = UserFactory.create()
    move = assignment_move(assignment=assignment, assessor=new, moved_by=None)
    assignment.refresh_from_db()
    judgment.refresh_from_db()
    # The old assignment is revoked, not handed over; a new one replaces it.
    assert (assignment.assessor, assignment.revoked_at is not None) == (old, True)
    assert (move.assignment.assessor, move.assignment.replaces) == (new, assignment)
    assert move.assignment.handover == Assignment.Handover.CONTINUE
    assert (judgment.assessor, judgment.assignment) == (old, assignment)
    assert (move.kept_judgments, move.hits_left) == (1, 0)


def test_move_refuses_when_new_assessor_is_the_dual_one() -> None:
    official = AssignmentFactory.create()
    dual = AssignmentFactory.create(topic=official.topic, purpose=Assignment.Purpose.DUAL)
    with pytest.raises(AssignmentError, match="not blind"):
        assignment_move(assignment=official, assessor=dual.assessor, moved_by=None)


def test_revoke_keeps_judgments_and_frees_the_topic_when_revoked() -> None:
    judgment = JudgmentFactory.create()
    assignment_revoke(assignment=judgment.assignment)
    assert Judgment.objects.filter(pk=judgment.pk).exists()
    # The topic can now be given to somebody else as its one official assignment.
    assignments_create(
        topics=[judgment.assignment.topic], assessor=UserFactory.create(), created_by=None
    )
    assert judgment.assignment.topic.assignments.filter(revoked_at__isnull=True).count() == 1


def test_dual_sample_is_reproducible_and_never_the_official_assessor_when_seeded() -> None:
    task = RetrievalTaskFactory.create()
    people = [UserFactory.create() for _ in range(3)]
    for i in range(10):
        AssignmentFactory.create(topic=TopicFactory.create(task=task), assessor=people[i % 3])
    first = dual_assignments_create(
        task=task, assessors=people, created_by=None, sample_size=4, seed=11
    )
    chosen = sorted((a.topic_id, a.assessor_id) for a in first)
    Assignment.objects.filter(purpose=Assignment.Purpose.DUAL).delete()
    second = dual_assignments_create(
        task=task, assessors=people, created_by=None, sample_size=4, seed=11
    )
    assert sorted((a.topic_id, a.assessor_id) for a in second) == chosen
    assert len(chosen) == 4
    for dual in second:
        official = Assignment.objects.get(topic=dual.topic, purpose=Assignment.Purpose.OFFICIAL)
        assert official.assessor_id != dual.assessor_id


def test_dual_refuses_when_the_only_assessor_is_the_official_one() -> None:
    official = AssignmentFactory.create()
    with pytest.raises(AssignmentError, match="no assessor other than the official"):
        dual_assignments_create(
            task=official.topic.task,
            assessors=[official.assessor],
            created_by=None,
            topics=[official.topic],
        )
    assert not Assignment.objects.filter(purpose=Assignment.Purpose.DUAL).exists()


def test_dual_refuses_when_topic_has_no_official_assessor() -> None:
    topic = TopicFactory.create()
    with pytest.raises(AssignmentError, match="has no official assessor"):
        dual_assignments_create(
            task=topic.task, assessors=[UserFactory.create()], created_by=None, topics=[topic]
        )


def test_a_concurrent_duplicate_becomes_an_assignment_error_when_the_database_refuses_it() -> None:
    # Two organizers' requests passed their checks at the same time; the database's
    # one-official-per-topic rule stops the second insert, which must not be a server error.
    from assessment.services.assignments.rules import assignments_insert

    topic = TopicFactory.create()
    AssignmentFactory.create(topic=topic)
    with pytest.raises(AssignmentError, match="at the same time"):
        assignments_insert(
            [Assignment(topic=topic, assessor=UserFactory.create(), purpose="official")]
        )
    assert Assignment.objects.filter(topic=topic).count() == 1

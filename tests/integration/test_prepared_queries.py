"""Queries whose SQL is built once (kernel/prepared.py) answer what the ORM answers."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import User
from django.db.models import QuerySet

from assessment.models import Assignment
from kernel.prepared import _PREPARED, LONGEST_KEPT, prepared_rows
from tests.factories import TopicFactory, UserFactory

pytestmark = pytest.mark.django_db


def _active_among(ids: list[int], at_least: int) -> QuerySet[User]:
    return User.objects.filter(pk__in=ids, pk__gte=at_least, is_active=True).order_by("pk")


def _assignments_of(assessor_id: int) -> QuerySet[Assignment]:
    return Assignment.objects.select_related("topic__task").filter(assessor_id=assessor_id)


def _next_after(user_id: int) -> QuerySet[User]:
    return User.objects.filter(pk=user_id + 1)  # the SQL holds a value computed from the id


@pytest.mark.parametrize("picks", [[0], [0, 2], [3, 1, 0], [2], [4, 0, 1, 2]])
def test_prepared_rows_equal_the_orm_when_values_and_list_lengths_change(
    picks: list[int],
) -> None:
    users = [UserFactory.create(username=f"u{i}", is_active=i != 1) for i in range(5)]
    ids = [users[i].pk for i in picks]
    for at_least in (users[0].pk, users[2].pk):
        prepared = prepared_rows(User, _active_among, ids=ids, at_least=at_least)
        expected = list(_active_among(ids, at_least))
        assert [(u.pk, u.username) for u in prepared] == [(u.pk, u.username) for u in expected]


def test_prepared_rows_refuse_when_a_value_is_not_bound_as_given() -> None:
    user: Any = UserFactory.create(username="u")
    with pytest.raises(RuntimeError, match="cannot bind"):
        prepared_rows(User, _next_after, user_id=user.pk)


def test_long_lists_run_through_the_orm_when_longer_than_kept() -> None:
    users = [UserFactory.create(username=f"u{i}") for i in range(3)]
    ids = [users[0].pk, users[2].pk] + [10**9 + i for i in range(LONGEST_KEPT)]
    kept = len(_PREPARED)
    rows = prepared_rows(User, _active_among, ids=ids, at_least=0)
    assert [u.username for u in rows] == ["u0", "u2"]
    assert len(_PREPARED) == kept  # no SQL kept for that length


def test_related_objects_and_json_come_with_the_rows_when_selected_related(
    django_assert_num_queries,  # type: ignore[no-untyped-def]
) -> None:
    user: Any = UserFactory.create(username="u")
    topic = TopicFactory.create(tags=["calculus", "limits"])
    Assignment.objects.create(topic=topic, assessor=user)
    with django_assert_num_queries(1):
        [row] = prepared_rows(Assignment, _assignments_of, assessor_id=user.pk)
        shown = (row.topic.number, row.topic.tags, row.topic.task.kind, row.created_at)
    [orm] = _assignments_of(user.pk)
    assert shown == (orm.topic.number, orm.topic.tags, orm.topic.task.kind, orm.created_at)
    assert shown[1] == ["calculus", "limits"]  # JSON decoded, as the ORM does


def test_no_rows_and_no_query_when_a_list_is_empty(django_assert_num_queries) -> None:  # type: ignore[no-untyped-def]
    UserFactory.create(username="u")
    with django_assert_num_queries(0):
        assert prepared_rows(User, _active_among, ids=[], at_least=0) == []

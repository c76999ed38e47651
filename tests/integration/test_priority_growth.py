"""Who and what makes an adaptive budgeted pool grow: only an assignment covering its topic's
whole pool asks the strategy for more (a scoped one judges its chosen items and nothing else),
and only documents the task's collection holds count as left to pool.

The helpers and the runs come from tests/integration/test_priority_pools.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from assessment.models import Assignment, AssignmentItem
from pooling.models import PoolItem
from pooling.services.pools import pool_build
from tests.integration.test_priority_pools import (
    DISJOINT,
    _spec,
    assessor,
    assign,
    document_task,
    judge,
    next_item,
)


def topic_items(task_id: int, number: str) -> list[str]:
    rows = PoolItem.objects.filter(topic__task_id=task_id, topic__number=number)
    return list(rows.order_by("display_order").values_list("key", flat=True))


@pytest.mark.django_db
@pytest.mark.parametrize("purpose", [Assignment.Purpose.DUAL, Assignment.Purpose.OFFICIAL])
def test_a_scoped_assignment_never_grows_the_pool_when_its_items_are_judged(purpose: str) -> None:
    task = document_task(f"Prio-Scope-{purpose}", DISJOINT)
    pool_build(task=task, strategy=_spec("mtf", 5, seed=9))
    [first] = topic_items(task.pk, "1")  # the build's first document
    bob = assessor("bob")
    scoped = assign(task, "1", bob, purpose=purpose, scoped=True)
    AssignmentItem.objects.create(assignment=scoped, item=PoolItem.objects.get(key=first))

    item = next_item(bob, scoped)
    assert item is not None
    assert item.key == first
    state = judge(bob, scoped, item, 2)

    # Nothing more is offered, nor added when asked for: the scope is judged through.
    assert state["next_unjudged_url"] is None
    assert next_item(bob, scoped) is None
    assert topic_items(task.pk, "1") == [first]
    home = bob.get(reverse("assessment:home")).content.decode()
    assert f'href="{reverse("assessment:continue", args=[scoped.pk])}"' not in home
    assert "✓ Done" in home


@pytest.mark.django_db
def test_a_whole_topic_assessor_still_grows_the_pool_when_a_scoped_one_shares_the_topic() -> None:
    task = document_task("Prio-Scope-Both", DISJOINT)
    pool_build(task=task, strategy=_spec("mtf", 5, seed=9))
    [first] = topic_items(task.pk, "1")
    alice, bob = assessor("alice"), assessor("bob")
    official = assign(task, "1", alice)
    scoped = assign(task, "1", bob, purpose=Assignment.Purpose.DUAL, scoped=True)
    AssignmentItem.objects.create(assignment=scoped, item=PoolItem.objects.get(key=first))
    judge(bob, scoped, PoolItem.objects.get(key=first), 2)
    assert next_item(bob, scoped) is None

    served = next_item(alice, official)
    assert served is not None
    assert served.key == first  # the official assessor owes the first item too
    state = judge(alice, official, served, 2)

    assert state["next_unjudged_url"] == reverse("assessment:continue", args=[official.pk])
    second = next_item(alice, official)
    assert second is not None
    assert topic_items(task.pk, "1") == [first, second.key]
    assert next_item(bob, scoped) is None  # the new item is not in bob's scope

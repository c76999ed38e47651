"""A task budget shared by topics in the app: the judging pages say more comes exactly when the
next item would be given, and a topic past its share takes the budget no other topic could use
now (a topic nobody judges, or one whose runs are exhausted), keeping the floors still owed.

Topic 1 of these tasks is found relevant throughout and topic 2 never, so topic 2's share is
small; the counts asserted follow from the floor, ceil(0.25 * 16 / 2) = 2 judgments a topic,
and the budget of 16, not from the share's arithmetic (tests/unit/test_pool_allocation.py)."""

from __future__ import annotations

import pytest
from django.test import Client

from assessment.models import Assignment
from assessment.services.assignments.moves import assignment_revoke
from collection.models import RetrievalTask
from pooling.models import PoolItem
from pooling.services.pools import pool_build
from tests.integration.test_priority_pools import (
    _spec,
    assessor,
    assign,
    docno,
    document_task,
    judge,
    next_item,
    shuffled_runs,
)

BUDGET = 16


def judge_until_refused(
    client: Client, assignment: Assignment, grade: int, limit: int = BUDGET
) -> int:
    """Judge whatever is served until nothing is; each time, the state the judgment returns
    says more comes (a link to continue) exactly when the next ask gives an item."""
    served = 0
    more: bool | None = None
    while served <= limit:
        item = next_item(client, assignment)
        if more is not None:
            assert more == (item is not None), (served, more)
        if item is None:
            return served
        state = judge(client, assignment, item, grade)
        more = state["next_unjudged_url"] is not None
        served += 1
    raise AssertionError(f"more than {limit} items served")


def items(task: RetrievalTask, number: str) -> int:
    return PoolItem.objects.filter(topic__task=task, topic__number=number).count()


@pytest.mark.django_db
def test_more_comes_only_when_given_and_an_idle_share_goes_on_when_its_assessor_leaves() -> None:
    task = document_task("Prio-Idle", shuffled_runs({"bm25": 61, "dense": 62}, depth=20))
    pool_build(task=task, strategy=_spec("mm-ns", BUDGET, scope="task", seed=4))
    alice, bob = assessor("alice"), assessor("bob")
    rich, poor = assign(task, "1", bob), assign(task, "2", alice)
    # Bob has not started: his topic keeps its share while he is assigned.
    judge_until_refused(alice, poor, 0)
    waiting = items(task, "2")
    assert 2 <= waiting < BUDGET - 2
    assert items(task, "1") == 1  # the build's first item
    # Bob leaves: his topic's share is idle, but its floor (1 more) is kept.
    assignment_revoke(assignment=rich)
    judge_until_refused(alice, poor, 0)
    assert items(task, "2") == BUDGET - 2 > waiting
    # A new assessor on topic 1 gets its floor, and then the budget is spent.
    carol = assessor("carol")
    again = assign(task, "1", carol)
    assert judge_until_refused(carol, again, 1) == 2  # the build's first item, then one more
    assert items(task, "1") + items(task, "2") == BUDGET
    assert next_item(alice, poor) is None


@pytest.mark.django_db
def test_a_topic_past_its_share_takes_the_budget_when_the_other_topics_runs_are_exhausted() -> None:
    # Topic 1's runs hold two documents, topic 2's twenty each.
    files = {
        tag: "".join(
            f"{topic} Q0 {docno(base + rank)} {rank} {30 - rank}.0 {tag}\n"
            for topic, depth in (("1", 2), ("2", 20))
            for rank in range(1, depth + 1)
        )
        for tag, base in (("bm25", 0), ("dense", 0))
    }
    task = document_task("Prio-Dry", files)
    pool_build(task=task, strategy=_spec("mm-ns", BUDGET, scope="task", seed=4))
    alice, bob = assessor("alice"), assessor("bob")
    rich, poor = assign(task, "1", bob), assign(task, "2", alice)
    # Topic 1 is relevant throughout: by its gain it could claim most of the budget.
    assert judge_until_refused(bob, rich, 1) == 2
    judge_until_refused(alice, poor, 0)
    assert items(task, "1") == 2
    assert items(task, "2") == BUDGET - 2  # nothing sits idle

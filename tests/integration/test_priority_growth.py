"""Who and what makes an adaptive budgeted pool grow: only an assignment covering its topic's
whole pool asks the strategy for more (a scoped one judges its chosen items and nothing else),
and only documents the task's collection holds count as left to pool. What an ask reads: the
runs' rankings before the pool lock, kept with hybrid's fused head until a run changes.

The helpers and the runs come from tests/integration/test_priority_pools.py."""

from __future__ import annotations

import io

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from assessment.models import Assignment, AssignmentItem
from collection.models import Document, RetrievalTask, Topic
from pooling.models import PoolItem
from pooling.selectors.pool_inputs import pooled_runs
from pooling.selectors.topic_rankings import TopicRankings, topic_rankings
from pooling.services.pools import pool_build
from pooling.services.runs import run_submit
from tests.integration.test_priority_pools import (
    DISJOINT,
    TOPICS,
    _spec,
    assessor,
    assign,
    collection,
    docno,
    document_task,
    judge,
    next_item,
    rrf_order,
    shuffled_runs,
)
from tests.integration.test_priority_task_budget import BUDGET, judge_until_refused


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


def task_with_lost_documents(name: str, files: dict[str, str], lost: list[str]) -> RetrievalTask:
    """A document task whose runs were checked against the collection at upload, after which
    the collection lost the documents ``lost`` (a re-import without them)."""
    Document.objects.bulk_create(
        Document(collection=collection(), docno=doc, title=doc, checksum="0" * 32) for doc in lost
    )
    task = document_task(name, files)
    Document.objects.filter(collection=collection(), docno__in=lost).delete()
    return task


@pytest.mark.django_db
def test_documents_the_collection_lost_are_walked_past_and_not_left_to_pool_when_task_budget() -> (
    None
):
    # Topic 1's runs name two documents the collection holds, the first lost one between
    # them and eleven more after; topic 2's name twenty it holds.
    lost = [f"lost-{n:04d}" for n in range(12)]
    topic_1 = [docno(0), lost[0], docno(1), *lost[1:]]
    files = {
        tag: "".join(
            [
                *(
                    f"1 Q0 {doc} {rank} {40 - rank}.0 {tag}\n"
                    for rank, doc in enumerate(topic_1, 1)
                ),
                *(f"2 Q0 {docno(rank)} {rank} {40 - rank}.0 {tag}\n" for rank in range(1, 21)),
            ]
        )
        for tag in ("bm25", "dense")
    }
    task = task_with_lost_documents("Prio-Lost", files, lost)
    pool_build(task=task, strategy=_spec("mm-ns", BUDGET, scope="task", seed=4))
    alice, bob = assessor("alice"), assessor("bob")
    rich, poor = assign(task, "1", bob), assign(task, "2", alice)

    # Topic 1 is relevant throughout: only its two documents are served, and once both are
    # judged nothing more is offered (judge_until_refused checks the offer each time).
    assert judge_until_refused(bob, rich, 1) == 2
    assert topic_items(task.pk, "1") == [docno(0), docno(1)]
    second = PoolItem.objects.get(topic__task=task, topic__number="1", key=docno(1))
    # Its rank is its place in the runs as submitted, lost documents counted.
    assert dict(second.contributions.values_list("run__tag", "rank")) == {"bm25": 3, "dense": 3}
    # Its runs are exhausted, so its share does not hold topic 2 back: nothing sits idle.
    judge_until_refused(alice, poor, 0)
    assert len(topic_items(task.pk, "2")) == BUDGET - 2


@pytest.mark.django_db
def test_a_document_lost_after_the_rankings_were_read_is_walked_past_when_chosen() -> None:
    docs = [f"kept-{n:04d}" for n in range(5)]
    files = {
        "alpha": "".join(
            f"{topic} Q0 {doc} {rank} {20 - rank}.0 alpha\n"
            for topic in TOPICS
            for rank, doc in enumerate(docs, 1)
        )
    }
    Document.objects.bulk_create(
        Document(collection=collection(), docno=doc, title=doc, checksum="0" * 32) for doc in docs
    )
    task = document_task("Prio-Lost-Later", files)
    pool_build(task=task, strategy=_spec("mtf", 5, seed=9))
    alice = assessor("alice")
    assignment = assign(task, "1", alice)
    first = next_item(alice, assignment)  # the build's item
    assert first is not None
    judge(alice, assignment, first, 2)
    second = next_item(alice, assignment)  # chosen from the runs' rankings, now kept
    assert second is not None
    assert [first.key, second.key] == docs[:2]
    Document.objects.filter(collection=collection(), docno=docs[2]).delete()

    state = judge(alice, assignment, second, 2)

    assert state["next_unjudged_url"] == reverse("assessment:continue", args=[assignment.pk])
    third = next_item(alice, assignment)
    assert third is not None
    assert third.key == docs[3]


def _rankings_read(sql: str) -> bool:
    """The query reading every row the pooled runs hold for a topic (``topic_rankings``)."""
    return sql.startswith("SELECT run_id, score, docno")


@pytest.mark.django_db
def test_a_topics_runs_are_read_before_the_pool_lock_when_an_assessor_asks() -> None:
    task = document_task("Prio-Lock", shuffled_runs({"bm25": 71, "dense": 72, "rm3": 73}))
    pool_build(task=task, strategy=_spec("hybrid:3", 6, seed=5))
    alice = assessor("alice")
    assignment = assign(task, "1", alice)
    reads = 0
    for _ask in range(3):
        with CaptureQueriesContext(connection) as queries:
            item = next_item(alice, assignment)
        statements = [q["sql"] for q in queries.captured_queries]
        # (The first ask is served the build's item: no lock is taken, nothing is read.)
        locked = next(
            (at for at, sql in enumerate(statements) if "pg_advisory_xact_lock" in sql),
            len(statements),
        )
        # Nothing under the lock reads the runs' rows: they were read before it, or kept.
        assert not any(_rankings_read(sql) for sql in statements[locked:])
        reads += sum(_rankings_read(sql) for sql in statements[:locked])
        assert item is not None
        judge(alice, assignment, item, 1)
    assert reads == 1  # once, then kept


@pytest.mark.django_db
def test_hybrids_fused_head_is_kept_until_a_pooled_run_changes() -> None:
    files = shuffled_runs({"bm25": 81, "dense": 82, "rm3": 83}, depth=20)
    task = document_task("Prio-Head", files)
    topic = Topic.objects.get(task=task, number="1")

    def rankings() -> TopicRankings:
        kept = topic_rankings(
            pooled_runs(task), (topic.pk, "1"), kind="document", collection_id=task.collection_id
        )
        return kept.at(None, 5)

    first = rankings()
    assert first.head == rrf_order(files, "1", 5)  # the formula, from the files
    assert rankings().head is first.head  # kept, not fused again
    # One run reversed, as a new upload: its version changes, and the head with it.
    run = task.runs.get(tag="rm3")
    lines = [line for line in files["rm3"].splitlines() if line.startswith("1 ")]
    docs = [line.split()[2] for line in lines]
    files["rm3"] = "".join(
        f"1 Q0 {doc} {rank} {40 - rank * 1.5:.2f} rm3\n"
        for rank, doc in enumerate(reversed(docs), start=1)
    )
    run_submit(
        task=task,
        team=run.team,
        tag="rm3",
        role="primary",
        stream=io.BytesIO(files["rm3"].encode()),
        file_name="rm3.run",
        uploaded_by=None,
    )
    assert rrf_order(files, "1", 5) != first.head  # the reversal changes the fused order

    assert rankings().head == rrf_order(files, "1", 5)

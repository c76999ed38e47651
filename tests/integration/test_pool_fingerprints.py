"""Rebuilds recompute only the topics whose inputs changed, to the same pools."""

from io import StringIO

import pytest
from django.core.management import call_command

from collection.models import CollectionImport, RetrievalTask
from pooling.models import Run, RunRow, TopicPoolState
from pooling.services.pools import pool_build
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory
from tests.integration.pool_data import (
    answer_rows,
    formula_collection,
    load_formula_rows,
    make_run,
    make_topics,
    pool_snapshot,
)

pytestmark = pytest.mark.django_db
TOPICS = 6
LATE_TOPICS = (1, 4)


def answer_campaign(name: str, *, late: bool, full: bool) -> RetrievalTask:
    """Two runs built, then (``late``) a third run with rows for two topics built again."""
    campaign = CampaignFactory.create(name=name)
    task = RetrievalTaskFactory.create(
        campaign=campaign, kind="answer", primary_depth=5, alternate_depth=3, pool_seed=11
    )
    topics = make_topics(task, TOPICS)
    answer_rows(make_run(task, "p"), topics, rows=12, posts=60, seed=1)
    answer_rows(make_run(task, "q", Run.Role.ALTERNATE), topics, rows=12, posts=60, seed=2)
    pool_build(task=task, full=full)
    if late:
        chosen = [topics[i] for i in LATE_TOPICS]
        answer_rows(make_run(task, "late"), chosen, rows=12, posts=60, seed=3)
    return task


def test_rebuild_recomputes_only_the_late_runs_topics_when_it_has_rows_for_two() -> None:
    task = answer_campaign("Incremental", late=True, full=False)
    build = pool_build(task=task)
    # The same inputs built the old way: every topic recomputed by every build.
    full = answer_campaign("Full", late=True, full=True)
    full_build = pool_build(task=full, full=True)

    assert (build.stats["topics_recomputed"], build.stats["topics_skipped"]) == (2, TOPICS - 2)
    assert full_build.stats["topics_recomputed"] == TOPICS
    assert build.stats["items_added"] == full_build.stats["items_added"] > 0
    assert pool_snapshot(task) == pool_snapshot(full)  # items, orders, hits, contributions
    recomputed = TopicPoolState.objects.filter(built_by=build).values_list("topic__number")
    assert sorted(number for (number,) in recomputed) == [f"A.{i + 1}" for i in LATE_TOPICS]


def test_untouched_topics_equal_a_from_scratch_build_when_late_run_is_added() -> None:
    task = answer_campaign("Incremental", late=True, full=False)
    pool_build(task=task)
    scratch = answer_campaign("Scratch", late=False, full=True)
    late_numbers = {f"A.{i + 1}" for i in LATE_TOPICS}

    def untouched(task: RetrievalTask) -> list:
        return [row for row in pool_snapshot(task) if row[0] not in late_numbers]

    assert untouched(task) == untouched(scratch)


def test_rebuild_recomputes_every_topic_when_depth_or_seed_changes() -> None:
    task = answer_campaign("Settings", late=False, full=False)

    assert pool_build(task=task).stats["topics_recomputed"] == 0
    RetrievalTask.objects.filter(pk=task.pk).update(primary_depth=7)
    task.refresh_from_db()
    deeper = pool_build(task=task)
    assert (deeper.stats["topics_recomputed"], deeper.stats["topics_skipped"]) == (TOPICS, 0)
    assert deeper.stats["items_added"] > 0
    assert pool_build(task=task).stats["topics_recomputed"] == 0
    assert pool_build(task=task, seed=99).stats["topics_recomputed"] == TOPICS


def test_rebuild_recomputes_a_runs_topics_when_it_is_replaced_or_withdrawn() -> None:
    task = answer_campaign("Replaced", late=True, full=False)
    pool_build(task=task)
    late = Run.objects.get(task=task, tag="late")

    Run.objects.filter(pk=late.pk).update(version=2)  # what a replacement upload bumps
    assert pool_build(task=task).stats["topics_recomputed"] == len(LATE_TOPICS)
    Run.objects.filter(pk=late.pk).update(status=Run.Status.WITHDRAWN)
    withdrawn = pool_build(task=task)
    assert withdrawn.stats["topics_recomputed"] == len(LATE_TOPICS)
    assert withdrawn.stats["contributions_removed"] > 0


def test_rebuild_recomputes_the_topic_of_a_late_openqa_run_when_numbers_match() -> None:
    task = answer_campaign("OpenQA", late=False, full=False)
    openqa = RetrievalTaskFactory.create(campaign=task.campaign, kind="openqa", answer_task=task)
    qa_topics = make_topics(openqa, TOPICS)  # same numbers, the open-QA task's own topics
    generated = make_run(openqa, "gen")
    RunRow.objects.create(run=generated, topic=qa_topics[2], rank=1, score=1.0, answer="It is 4.")

    build = pool_build(task=openqa)

    assert (build.stats["topics_recomputed"], build.stats["items_added"]) == (1, 1)


def test_formula_rebuild_equals_a_full_rebuild_when_late_run_covers_two_topics() -> None:
    formula_collection(formulas=600, visual_ids=90)
    pools = []
    for name, full in (("Formula-inc", False), ("Formula-full", True)):
        task = RetrievalTaskFactory.create(
            campaign=CampaignFactory.create(name=name), kind="formula", primary_k=6, pool_seed=3
        )
        topics = make_topics(task, 4, prefix="B")
        load_formula_rows(
            make_run(task, "f1"), {t.pk: list(range(i, 600, 7)) for i, t in enumerate(topics)}
        )
        pool_build(task=task, full=full)
        load_formula_rows(
            make_run(task, "f2"),
            {topics[0].pk: list(range(5, 300, 3)), topics[3].pk: list(range(1, 200, 2))},
        )
        build = pool_build(task=task, full=full)
        assert build.stats["topics_recomputed"] == (4 if full else 2)
        pools.append(pool_snapshot(task))

    assert pools[0] == pools[1]


def test_formula_rebuild_recomputes_every_topic_when_the_formula_index_changed() -> None:
    formula_collection(formulas=200, visual_ids=40)
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name="Formula-index"), kind="formula", primary_k=6
    )
    topics = make_topics(task, 3, prefix="B")
    load_formula_rows(
        make_run(task, "f1"), {t.pk: list(range(i, 200, 5)) for i, t in enumerate(topics)}
    )
    pool_build(task=task)
    assert pool_build(task=task).stats["topics_recomputed"] == 0
    # A re-import that changed the index (visual ids may group instances otherwise).
    CollectionImport.objects.create(
        role=CollectionImport.Role.FORMULAS,
        path="/data/latex_representation_v3.tsv",
        size=1,
        mtime_ns=1,
        ctime_ns=1,
        status=CollectionImport.Status.FINISHED,
        changed=True,
    )
    assert pool_build(task=task).stats["topics_recomputed"] == 3


def test_build_pools_full_recomputes_every_topic_when_nothing_changed() -> None:
    task = answer_campaign("Command", late=False, full=False)
    out = StringIO()

    call_command("build_pools", campaign="Command", task="answer", stdout=out, stderr=StringIO())
    call_command(
        "build_pools", campaign="Command", task="answer", full=True, stdout=out, stderr=StringIO()
    )

    assert [b.stats["topics_recomputed"] for b in task.pool_builds.order_by("id")] == [
        TOPICS,
        0,
        TOPICS,
    ]
    assert f"topics_recomputed {TOPICS}" in out.getvalue()

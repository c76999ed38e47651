"""pool_build on PostgreSQL: the stored pools follow docs/pooling.md's rules, incrementally."""

import time
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db.models import F

from collection.models import Formula, RetrievalTask
from pooling.models import Contribution, Hit, PoolBuild, PoolItem, Run, RunRow
from pooling.services.pools import pool_build, pool_build_request
from tests.factories.assessment import AssignmentFactory, JudgmentFactory
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory
from tests.integration.pool_data import (
    answer_rows,
    first_distinct,
    formula_collection,
    load_answer_rows,
    load_formula_rows,
    make_run,
    make_topics,
    pool_snapshot,
)


def answer_task(**settings: object) -> RetrievalTask:
    campaign = CampaignFactory.create(name="Pool-Camp")
    return RetrievalTaskFactory.create(campaign=campaign, kind="answer", **settings)


def expected_answer_pool(runs: dict[Run, dict[int, list[int]]], depth_of: dict[str, int]) -> dict:
    pool: dict[int, set[int]] = {}
    for run, ranked in runs.items():
        for topic_id, posts in ranked.items():
            pool.setdefault(topic_id, set()).update(first_distinct(posts, depth_of[run.role]))
    return pool


def stored_answer_pool(task: RetrievalTask) -> dict[int, set[int]]:
    pool: dict[int, set[int]] = {}
    for topic_id, post_id in PoolItem.objects.filter(topic__task=task).values_list(
        "topic_id", "post_id"
    ):
        assert post_id is not None
        pool.setdefault(topic_id, set()).add(post_id)
    return pool


def wait_for(build: PoolBuild, timeout: float = 90) -> PoolBuild:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        build.refresh_from_db()
        if build.status in (PoolBuild.Status.DONE, PoolBuild.Status.FAILED):
            return build
        time.sleep(0.1)
    raise AssertionError(f"build {build.pk} still {build.status} after {timeout}s")


@pytest.mark.worker
def test_worker_builds_each_runs_first_depth_posts_when_build_is_requested(celery_worker) -> None:
    task = answer_task(primary_depth=10, alternate_depth=4, pool_seed=5)
    topics = make_topics(task, 4)
    runs = {
        make_run(task, "p1"): None,
        make_run(task, "a1", Run.Role.ALTERNATE): None,
        make_run(task, "a2", Run.Role.ALTERNATE): None,
    }
    ranked = {
        run: answer_rows(run, topics, rows=30, posts=60, seed=i) for i, run in enumerate(runs)
    }

    build = wait_for(pool_build_request(task=task))

    assert build.status == PoolBuild.Status.DONE, build.error
    assert (build.topics_done, build.topics_total) == (4, 4)
    assert build.parameters["primary_depth"] == 10
    assert build.parameters["seed"] == 5
    assert [r["run"] for r in build.parameters["runs"]] == sorted(r.pk for r in runs)
    assert stored_answer_pool(task) == expected_answer_pool(ranked, {"primary": 10, "alternate": 4})
    for topic in topics:
        orders = sorted(
            PoolItem.objects.filter(topic=topic).values_list("display_order", flat=True)
        )
        assert orders == list(range(1, len(orders) + 1))
    assert (
        Hit.objects.filter(item__topic__task=task).count()
        == PoolItem.objects.filter(topic__task=task).count()
    )
    first_run = next(iter(ranked))
    topic = topics[0]
    top_post = ranked[first_run][topic.pk][0]
    item = PoolItem.objects.get(topic=topic, key=str(top_post))
    assert Contribution.objects.get(item=item, run=first_run).rank == 1


@pytest.mark.django_db
def test_rebuild_changes_nothing_when_inputs_are_the_same() -> None:
    task = answer_task(primary_depth=8, alternate_depth=3)
    topics = make_topics(task, 3)
    for i, tag in enumerate(["p", "q"]):
        answer_rows(make_run(task, tag), topics, rows=20, posts=40, seed=i)

    first = pool_build(task=task)
    before = pool_snapshot(task)
    second = pool_build(task=task)

    assert pool_snapshot(task) == before
    assert first.stats["items_added"] == len(before)
    assert (second.stats["topics_recomputed"], second.stats["topics_skipped"]) == (0, 3)
    unchanged = {"items_restored", "topics_skipped"}
    assert not any(value for name, value in second.stats.items() if name not in unchanged)


@pytest.mark.django_db
def test_late_run_adds_items_after_existing_ones_when_pool_is_rebuilt() -> None:
    task = answer_task(primary_depth=6)
    topics = make_topics(task, 3)
    answer_rows(make_run(task, "early"), topics, rows=10, posts=200, seed=1)
    pool_build(task=task)
    before = {(n, k): o for n, k, o, *_ in pool_snapshot(task)}

    late = make_run(task, "late")
    answer_rows(late, topics, rows=10, posts=200, seed=2)
    build = pool_build(task=task)
    after = {(n, k): o for n, k, o, *_ in pool_snapshot(task)}

    assert set(before) < set(after)
    assert all(after[key] == order for key, order in before.items())
    for number in {n for n, _ in after}:
        old: list[int] = [o for (n, _), o in before.items() if n == number]
        new: list[int] = [o for key, o in after.items() if key[0] == number and key not in before]
        assert new
        assert min(new) > max(old)
    assert build.stats["contributions_added"] == 3 * 6
    assert PoolItem.objects.filter(entered_build=build).count() == len(after) - len(before)


@pytest.mark.django_db
def test_replaced_run_orphans_judged_items_and_drops_unjudged_when_contributions_vanish() -> None:
    task = answer_task(primary_depth=3)
    (topic,) = make_topics(task, 1)
    stays = make_run(task, "stays")
    replaced = make_run(task, "replaced")
    load_answer_rows(stays, {topic.pk: [1, 2, 3]})
    load_answer_rows(replaced, {topic.pk: [3, 40, 50]})
    pool_build(task=task)
    judged_hit = Hit.objects.get(item__topic=topic, post_id=40)
    judgment = JudgmentFactory.create(
        hit=judged_hit, assignment=AssignmentFactory.create(topic=topic)
    )
    order_40 = judged_hit.item.display_order

    RunRow.objects.filter(run=replaced).delete()  # what a replacement upload does
    load_answer_rows(replaced, {topic.pk: [60, 3, 70]})
    Run.objects.filter(pk=replaced.pk).update(version=F("version") + 1)
    build = pool_build(task=task)

    items = {i.key: i for i in PoolItem.objects.filter(topic=topic)}
    assert set(items) == {"1", "2", "3", "40", "60", "70"}  # 50: unjudged, gone
    assert items["40"].is_orphaned
    assert items["40"].display_order == order_40
    assert not items["40"].contributions.exists()
    assert not items["3"].is_orphaned
    assert dict(items["3"].contributions.values_list("run__tag", "rank")) == {
        "stays": 3,
        "replaced": 2,
    }
    assert judgment.hit.judgments.count() == 1
    assert build.stats["items_orphaned"] == 1
    assert build.stats["items_removed"] == 1


@pytest.mark.django_db
@pytest.mark.parametrize("policy", ["vote", "thread"])
def test_formula_pool_holds_first_k_visual_ids_with_at_most_n_hits_when_ids_repeat(
    policy: str,
) -> None:
    campaign = CampaignFactory.create(name="Formula-Camp")
    task = RetrievalTaskFactory.create(
        campaign=campaign, kind="formula", primary_k=4, alternate_k=2, max_instances=2,
        formula_policy=policy, pool_seed=3,
    )  # fmt: skip
    visual = formula_collection(formulas=120, visual_ids=9)
    topics = make_topics(task, 2, prefix="B")
    ranked = {}
    for i, role in enumerate([Run.Role.PRIMARY, Run.Role.ALTERNATE, Run.Role.PRIMARY]):
        run = make_run(task, f"f{i}", role)
        fids = {t.pk: [(7 * i + 11 * j + t.pk) % 120 for j in range(25)] for t in topics}
        fids = {t: list(dict.fromkeys(f)) for t, f in fids.items()}
        load_formula_rows(run, fids)
        ranked[run] = fids

    pool_build(task=task)

    for topic in topics:
        expected: set[str] = set()
        for run, fids in ranked.items():
            k = 4 if run.role == Run.Role.PRIMARY else 2
            expected |= set(first_distinct([visual[f] for f in fids[topic.pk]], k))
        items = PoolItem.objects.filter(topic=topic)
        assert set(items.values_list("key", flat=True)) == expected
        for item in items.prefetch_related("hits"):
            hits = list(item.hits.all())
            assert 1 <= len(hits) <= 2
            # formula 0 exists: ``h.formula_id or -1`` made this fail for some topic ids
            assert all(h.formula_id is not None for h in hits)
            assert all(visual[h.formula_id] == item.visual_id for h in hits)  # type: ignore[index]
            assert [h.position for h in hits] == list(range(len(hits)))
            if policy == "thread":
                assert len({h.post_id for h in hits}) == len(hits)


@pytest.mark.django_db
def test_formula_votes_choose_the_most_retrieved_instances_when_runs_agree() -> None:
    campaign = CampaignFactory.create(name="Vote-Camp")
    task = RetrievalTaskFactory.create(
        campaign=campaign, kind="formula", primary_k=2, max_instances=2
    )
    formula_collection(formulas=30, visual_ids=2)  # even formula ids: visual id "0", odd: "1"
    (topic,) = make_topics(task, 1, prefix="B")
    load_formula_rows(make_run(task, "r1"), {topic.pk: [8, 6, 3, 2]})  # walk stops at 3
    load_formula_rows(make_run(task, "r2"), {topic.pk: [6, 4, 8, 5, 7]})  # ... at 5
    load_formula_rows(make_run(task, "r3"), {topic.pk: [4, 1, 9]})  # ... at 1

    pool_build(task=task)

    items = {i.key: i for i in PoolItem.objects.filter(topic=topic)}
    assert set(items) == {"0", "1"}
    # "0": 8 -> 1 + 1/3, 6 -> 1/2 + 1, 4 -> 1/2 + 1: the two 3/2 win, in a seeded order.
    zero = list(items["0"].hits.values_list("formula_id", "vote"))
    assert sorted(zero) == [(4, 1.5), (6, 1.5)]
    # "1": 3 -> 1/3 (r1), 5 -> 1/4 (r2), 1 -> 1/2 (r3); 7 and 9 were past the walks.
    one = list(items["1"].hits.values_list("formula_id", "position"))
    assert one == [(1, 0), (3, 1)]
    assert dict(items["1"].contributions.values_list("run__tag", "rank")) == {
        "r1": 3, "r2": 4, "r3": 2,
    }  # fmt: skip


@pytest.mark.django_db
def test_openqa_answers_join_the_answer_pool_of_the_same_topic_number() -> None:
    task = answer_task(primary_depth=2)
    openqa = RetrievalTaskFactory.create(campaign=task.campaign, kind="openqa", answer_task=task)
    topics = make_topics(task, 2)
    load_answer_rows(make_run(task, "ans"), {topics[0].pk: [1, 2, 3], topics[1].pk: [4]})
    qa_1, qa_2 = make_run(openqa, "gen1"), make_run(openqa, "gen2")
    fields = ("run_id", "topic_id", "rank", "score", "answer", "sources")
    RunRow.objects.bulk_create(
        RunRow(**dict(zip(fields, row, strict=True)))
        for row in [
            (qa_1.pk, topics[0].pk, 1, 1.0, "It is 4.", "1,2"),
            (qa_2.pk, topics[0].pk, 1, 1.0, "It is 5.", ""),
            (qa_2.pk, topics[1].pk, 1, 1.0, "It is 4.", ""),
        ]
    )

    build = pool_build(task=openqa)

    first = PoolItem.objects.filter(topic=topics[0])
    assert build.task == openqa
    assert first.count() == 4
    generated = first.filter(key__startswith="qa-")
    assert set(generated.values_list("answer", flat=True)) == {"It is 4.", "It is 5."}
    assert all(h.post_id is None for h in Hit.objects.filter(item__in=generated))
    assert PoolItem.objects.filter(topic=topics[1], key__startswith="qa-").count() == 1


@pytest.mark.django_db
def test_build_pools_command_prints_progress_and_summary_when_task_exists() -> None:
    task = answer_task(primary_depth=2)
    topics = make_topics(task, 3)
    answer_rows(make_run(task, "cli"), topics, rows=5, posts=10, seed=0)
    out, err = StringIO(), StringIO()

    call_command(
        "build_pools", "--campaign", "Pool-Camp", "--task", "answer", "--seed", "9",
        stdout=out, stderr=err,
    )  # fmt: skip

    assert "3 topics" in out.getvalue()
    assert "items_added 6" in out.getvalue()
    assert "3/3" in err.getvalue()
    assert PoolBuild.objects.get(task=task).parameters["seed"] == 9


@pytest.mark.django_db
def test_build_pools_command_fails_cleanly_when_task_is_unknown() -> None:
    with pytest.raises(CommandError, match="campaign 'Nope' has no formula task"):
        call_command("build_pools", "--campaign", "Nope", "--task", "formula")


@pytest.mark.django_db
def test_build_pools_command_refuses_openqa_when_it_has_no_answer_task() -> None:
    campaign = CampaignFactory.create()
    RetrievalTaskFactory.create(campaign=campaign, kind="openqa")
    with pytest.raises(CommandError, match="no answer task"):
        call_command("build_pools", "--campaign", campaign.name, "--task", "openqa")
    assert not PoolBuild.objects.exists()


@pytest.mark.worker
def test_queued_build_is_marked_failed_with_reason_when_openqa_has_no_answer_task(
    celery_worker,
) -> None:
    openqa = RetrievalTaskFactory.create(campaign=CampaignFactory.create(), kind="openqa")

    build = wait_for(pool_build_request(task=openqa))

    assert build.status == PoolBuild.Status.FAILED
    assert "no answer task" in build.error


@pytest.mark.django_db
@pytest.mark.parametrize("pooled", [False, True])
def test_formulas_in_comments_are_skipped_unless_the_task_pools_them(pooled: bool) -> None:
    """ARQMath's guidelines: "retrieved formulas from the comments will be ignored". A run's
    rows at comment formulas are walked past, so the run still gives k visual ids."""
    campaign = CampaignFactory.create(name="Comment-Camp")
    task = RetrievalTaskFactory.create(
        campaign=campaign, kind="formula", primary_k=2, max_instances=3,
        pool_comment_formulas=pooled,
    )  # fmt: skip
    visual = formula_collection(formulas=30, visual_ids=30)  # every formula its own visual id
    Formula.objects.filter(formula_id__in=[4, 5]).update(location=Formula.Location.COMMENT)
    (topic,) = make_topics(task, 1, prefix="B")
    load_formula_rows(make_run(task, "r1"), {topic.pk: [4, 7, 5, 9, 11]})

    build = pool_build(task=task)

    keys = set(PoolItem.objects.filter(topic=topic).values_list("key", flat=True))
    expected = [4, 7] if pooled else [7, 9]
    assert keys == {visual[f] for f in expected}
    assert build.parameters["comment_formulas"] is pooled

"""The demo campaign's pools, built by a real Celery worker, follow docs/pooling.md's
rules; real
ARQMath runs pool to exactly each run's first 45 distinct posts."""

import time
from pathlib import Path

import pytest

from collection.models import Formula, RetrievalTask
from demo.arqmath_campaign import CAMPAIGN, Demo
from demo.pools import demo_build_pools
from demo.steps import STEPS
from pooling.models import Hit, PoolBuild, PoolItem, Run, RunRow
from pooling.services.pools import pool_build, pool_build_request
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, TopicFactory
from tests.integration.pool_data import first_distinct, make_run


def demo_with_runs(tmp_path: Path) -> Demo:
    """The demo's steps up to the submitted runs (no pools yet)."""
    demo = Demo(seed=7, folder=tmp_path, threads=60, topics=3, write=lambda _line: None)
    for name, step in STEPS:
        step(demo)
        if name == "submit the runs":
            return demo
    raise AssertionError("the demo has no 'submit the runs' step")


def depth(run: Run, task: RetrievalTask) -> int:
    if run.depth_override:
        return run.depth_override
    primary = run.role == Run.Role.PRIMARY or run.pool_as_primary
    if task.kind == "formula":
        return task.primary_k if primary else task.alternate_k
    return task.primary_depth if primary else task.alternate_depth


def expected_keys(task: RetrievalTask) -> dict[str, set[str]]:
    """Oracle: each run's rows sorted (rank, score desc, id desc), first depth distinct keys."""
    visual = dict(Formula.objects.values_list("formula_id", "visual_id"))
    expected: dict[str, set[str]] = {}
    for run in Run.objects.filter(task=task):
        rows = RunRow.objects.filter(run=run).values_list(
            "topic__number", "rank", "score", "post_id", "formula_id"
        )
        by_topic: dict[str, list[tuple[int, float, int, str]]] = {}
        for number, rank, score, post_id, formula_id in rows:
            doc = (formula_id if task.kind == "formula" else post_id) or 0
            key = visual.get(doc, f"f{doc}") if task.kind == "formula" else str(doc)
            by_topic.setdefault(number, []).append((rank, score, doc, key))
        for number, ranked in by_topic.items():
            ranked.sort(key=lambda r: (r[0], -r[1], -r[2]))
            keys = first_distinct([r[3] for r in ranked], depth(run, task))
            expected.setdefault(number, set()).update(keys)
    return expected


def stored_keys(task: RetrievalTask) -> dict[str, set[str]]:
    stored: dict[str, set[str]] = {}
    for number, key in PoolItem.objects.filter(topic__task=task).values_list(
        "topic__number", "key"
    ):
        stored.setdefault(number, set()).add(key)
    return stored


@pytest.mark.worker
def test_worker_builds_demo_pools_by_the_rules_when_both_tasks_are_requested(
    celery_worker, tmp_path: Path
) -> None:
    demo = demo_with_runs(tmp_path)
    assert demo.campaign is not None
    builds = [pool_build_request(task=task) for task in demo.campaign.tasks.order_by("kind")]
    deadline = time.monotonic() + 120
    while PoolBuild.objects.filter(pk__in=[b.pk for b in builds], status="done").count() < 2:
        assert time.monotonic() < deadline, list(PoolBuild.objects.values("status", "error"))
        assert not PoolBuild.objects.filter(status="failed").exists()
        time.sleep(0.2)

    for task in demo.campaign.tasks.all():
        assert stored_keys(task) == expected_keys(task), task.kind
    formula = demo.campaign.tasks.get(kind="formula")
    items = PoolItem.objects.filter(topic__task=formula).prefetch_related("hits")
    assert items.exists()
    assert all(1 <= len(item.hits.all()) <= formula.max_instances for item in items)
    summary = demo_build_pools(demo.campaign)  # the demo's own step: nothing new to add
    assert "answer:" in summary
    assert "formula:" in summary
    assert PoolBuild.objects.filter(task__campaign__name=CAMPAIGN).count() == 4


@pytest.mark.django_db
def test_real_arqmath_runs_pool_to_each_runs_first_45_posts_when_depth_is_45(
    arqmath_data: Path,
) -> None:
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name="ARQMath-1 sample"), kind="answer", primary_depth=45
    )
    files = sorted((arqmath_data / "runs" / "2020-task1").glob("*.tsv"))
    assert len(files) == 3
    parsed: dict[str, dict[str, list[tuple[int, float, int]]]] = {}
    for path in files:
        rows: dict[str, list[tuple[int, float, int]]] = {}
        for line in path.read_text().splitlines():
            topic, _q0, post, rank, score, _tag = line.split()
            rows.setdefault(topic, []).append((int(rank), float(score), int(post)))
        parsed[path.stem] = rows
    numbers = sorted({topic for rows in parsed.values() for topic in rows})
    topics = {n: TopicFactory.create(task=task, number=n) for n in numbers}
    expected: dict[str, set[str]] = {}
    for name, rows in parsed.items():
        run = make_run(task, name[:40].replace("+", "_"))
        # Keep the file's ranks and scores: load rows as they are, not re-ranked.
        RunRow.objects.bulk_create(
            RunRow(run=run, topic=topics[t], post_id=post, rank=rank, score=score)
            for t, r in rows.items()
            for rank, score, post in r
        )
        for t, r in rows.items():
            ordered = sorted(r, key=lambda row: (row[0], -row[1], -row[2]))
            expected.setdefault(t, set()).update(
                str(p) for p in first_distinct([post for _r, _s, post in ordered], 45)
            )

    pool_build(task=task)

    assert stored_keys(task) == expected
    assert Hit.objects.filter(item__topic__task=task).count() == sum(map(len, expected.values()))

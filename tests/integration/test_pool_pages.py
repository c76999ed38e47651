"""Organizer pool pages, the JSON endpoints and the exports, on a small hand-checked pool."""

from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from collection.models import RetrievalTask
from pooling.models import PoolBuild
from pooling.services.pools import pool_build
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.integration.pool_data import (
    formula_collection,
    load_answer_rows,
    load_formula_rows,
    make_run,
    make_topics,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def small_pool() -> RetrievalTask:
    """A.1: run A [1 2 3], run B [3 4 5] at depth 3 / alternate 2; A.2: run A [7]."""
    campaign = CampaignFactory.create(name="Page-Camp")
    task = RetrievalTaskFactory.create(
        campaign=campaign, kind="answer", primary_depth=3, alternate_depth=2
    )
    t1, t2 = make_topics(task, 2)
    run_a = make_run(task, "A")
    run_b = make_run(task, "B", "alternate")
    load_answer_rows(run_a, {t1.pk: [1, 2, 3], t2.pk: [7]})
    load_answer_rows(run_b, {t1.pk: [3, 4, 5]})
    pool_build(task=task)
    return task


@pytest.fixture
def organizer(client: Client) -> Client:
    client.force_login(UserFactory.create(username="org", is_staff=True))
    return client


def test_pool_stats_count_unique_items_overlap_and_depth_when_runs_share_posts(
    organizer: Client, small_pool: RetrievalTask, django_assert_max_num_queries
) -> None:
    with django_assert_max_num_queries(12):
        data = organizer.get(f"/api/pools/{small_pool.pk}/").json()

    assert data["totals"] == {"topics": 2, "items": 5, "hits": 5, "orphaned": 0, "runs": 2}
    assert [(t["number"], t["items"], t["hits"]) for t in data["topics"]] == [
        ("A.1", 4, 4),
        ("A.2", 1, 1),
    ]
    runs = {r["label"].split("/")[1]: r for r in data["runs"]}
    assert (runs["A"]["pooled"], runs["A"]["unique"]) == (4, 3)
    assert (runs["B"]["pooled"], runs["B"]["unique"]) == (2, 1)
    assert (runs["A"]["depth_min"], runs["A"]["depth_max"]) == (1, 3)
    assert (runs["B"]["depth_min"], runs["B"]["depth_max"]) == (2, 2)
    assert [o["shared"] for o in data["overlap"]] == [1]
    assert sorted(t["unique"] for t in data["teams"]) == [1, 3]
    assert data["build"]["status"] == "done"


def test_formula_run_depth_is_rank_of_kth_visual_id_when_ids_repeat(organizer: Client) -> None:
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(), kind="formula", primary_k=2, max_instances=2
    )
    formula_collection(formulas=30, visual_ids=2)
    (topic,) = make_topics(task, 1, prefix="B")
    load_formula_rows(make_run(task, "r1"), {topic.pk: [8, 6, 4, 3, 2]})
    pool_build(task=task)

    (run,) = organizer.get(f"/api/pools/{task.pk}/").json()["runs"]

    assert run["depth_max"] == 4  # 8, 6, 4 share visual id "0"; 3 is the 2nd at rank 4


def test_pool_page_shows_figures_in_bounded_queries_when_organizer_opens_it(
    organizer: Client, small_pool: RetrievalTask, django_assert_max_num_queries
) -> None:
    for i in range(3):  # more runs must not mean more queries
        run = make_run(small_pool, f"extra{i}")
        load_answer_rows(run, {small_pool.topics.first().pk: [20 + i, 30 + i]})  # type: ignore[union-attr]
    pool_build(task=small_pool)

    with django_assert_max_num_queries(16):
        response = organizer.get(f"/pools/{small_pool.pk}/")

    page = response.content.decode()
    assert response.status_code == 200
    assert "Overlap between runs" in page
    assert "annotated pool (TSV)" in page
    assert "Rebuild pools" in page
    with django_assert_max_num_queries(8):
        index = organizer.get("/pools/")
    assert "Page-Camp" in index.content.decode()


@pytest.mark.parametrize("path", ["/pools/", "/pools/{id}/", "/pools/{id}/export/hits.tsv"])
def test_pool_pages_refuse_assessors_when_not_staff(
    client: Client, small_pool: RetrievalTask, path: str
) -> None:
    url = path.format(id=small_pool.pk)
    assert client.get(url).status_code == 302  # anonymous: to the login page
    client.force_login(UserFactory.create(username="assessor"))
    assert client.get(url).status_code == 403
    assert client.get(f"/api/pools/{small_pool.pk}/").status_code == 403


def test_build_button_queues_a_build_when_organizer_posts(
    organizer: Client, small_pool: RetrievalTask
) -> None:
    response = organizer.post(f"/pools/{small_pool.pk}/build/", HTTP_ACCEPT="application/json")
    assert response.status_code == 202
    queued = PoolBuild.objects.get(pk=response.json()["build"])
    assert queued.status == PoolBuild.Status.PENDING
    status = organizer.get(f"/api/pools/{small_pool.pk}/build/").json()
    assert (status["build"], status["status"]) == (queued.pk, "pending")
    plain = organizer.post(f"/pools/{small_pool.pk}/build/")
    assert plain.status_code == 302


def test_hits_export_lists_contributing_runs_with_ranks_when_downloaded(
    organizer: Client, small_pool: RetrievalTask
) -> None:
    response = organizer.get(f"/pools/{small_pool.pk}/export/hits.tsv")
    lines = b"".join(response.streaming_content).decode().splitlines()  # type: ignore[attr-defined]

    assert lines[0].split("\t") == [
        "topic", "key", "post_id", "formula_id", "display_order", "vote", "runs",
    ]  # fmt: skip
    rows = {line.split("\t")[1]: line.split("\t") for line in lines[1:]}
    assert set(rows) == {"1", "2", "3", "4", "7"}
    team_a = small_pool.runs.get(tag="A").team.name
    team_b = small_pool.runs.get(tag="B").team.name
    assert rows["3"][6] == f"{team_b}/B:1,{team_a}/A:3"
    assert rows["3"][5] == f"{1 + 1 / 3:.6f}"
    assert rows["7"][0] == "A.2"
    assert response["Content-Disposition"].endswith('pool-hits.tsv"')


def test_annotated_export_recomputes_a_shallower_pool_when_cut_at_depth(
    small_pool: RetrievalTask, tmp_path: Path
) -> None:
    out = tmp_path / "annotated.tsv"
    call_command(
        "export_pool", "--campaign", "Page-Camp", "--task", "answer", "--out", str(out),
        "--kind", "annotated",
    )  # fmt: skip
    rows = [line.split("\t") for line in out.read_text().splitlines()[1:]]

    assert len(rows) == 6  # (A: 1 2 3 | 7) + (B: 3 4)
    depth_1 = {(topic, key) for topic, key, _team, _run, rank in rows if int(rank) <= 1}
    assert depth_1 == {("A.1", "1"), ("A.1", "3"), ("A.2", "7")}


def test_unknown_export_kind_is_not_found_when_requested(
    organizer: Client, small_pool: RetrievalTask
) -> None:
    assert organizer.get(f"/pools/{small_pool.pk}/export/other.tsv").status_code == 404

"""Pools of document tasks: the answer-pool rules with docnos, one hit per item
pointing to its document, incremental rebuilds, the pool pages, figures, cache and exports.

Runs go in as TREC files through run_submit; the expected pools come from trectools'
``TrecPoolMaker`` (top-X of each run at its own depth), not from our code."""

from __future__ import annotations

import io
import random
from collections import defaultdict
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from django.core.management import CommandError, call_command
from django.test import Client
from trectools import TrecPoolMaker, TrecRun

from collection.models import Document, DocumentCollection, RetrievalTask
from pooling.models import Contribution, Hit, PoolItem, Run
from pooling.services.pools import pool_build
from pooling.services.runs import run_submit
from tests.factories.collection import (
    CampaignFactory,
    DocumentCollectionFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory
from tests.integration.pool_data import pool_snapshot

pytestmark = pytest.mark.django_db

DOCS = 120
TOPICS: tuple[str, ...] = ("301", "302", "303", "304")
RunSpec = tuple[str, int, tuple[str, ...]]
PRIMARY, ALTERNATE = 6, 3
# tag -> (role, seed, topics it has rows for)
RUNS: dict[str, RunSpec] = {
    "bm25": ("primary", 1, TOPICS),
    "bm25rm3": ("alternate", 2, TOPICS),
    "dense": ("primary", 3, TOPICS),
}
LATE: tuple[str, RunSpec] = ("late", ("primary", 4, ("302", "304")))


def docno(n: int) -> str:
    return f"news-2026-{n:06d}"


def collection() -> DocumentCollection:
    news = DocumentCollectionFactory.create(name="news")
    if not news.documents.exists():
        Document.objects.bulk_create(
            Document(collection=news, docno=docno(n), title=f"Story {n}", checksum="0" * 32)
            for n in range(DOCS)
        )
    return news


def run_text(tag: str, seed: int, topics: tuple[str, ...]) -> str:
    """12 distinct docnos per topic, shuffled, with distinct decreasing scores."""
    rng = random.Random(seed)
    lines = []
    for topic in topics:
        for rank, n in enumerate(rng.sample(range(40), 12), start=1):
            lines.append(f"{topic} Q0 {docno(n)} {rank} {30 - rank * 1.5:.2f} {tag}\n")
    return "".join(lines)


def submit(task: RetrievalTask, tag: str, role: str, seed: int, topics: tuple[str, ...]) -> str:
    text = run_text(tag, seed, topics)
    team = TeamFactory.create(name=f"{task.campaign.name}-{tag}")
    run_submit(
        task=task,
        team=team,
        tag=tag,
        role=role,
        stream=io.BytesIO(text.encode()),
        file_name=f"{tag}.run",
        uploaded_by=None,
    )
    return text


def document_task(name: str, *, late: bool = False, full: bool = False) -> RetrievalTask:
    """Three runs submitted and built, then (``late``) a late run with rows for two topics."""
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name=name),
        kind="document",
        collection=collection(),
        primary_depth=PRIMARY,
        alternate_depth=ALTERNATE,
        pool_seed=5,
    )
    for number in TOPICS:
        TopicFactory.create(task=task, number=number)
    for tag, (role, seed, topics) in RUNS.items():
        submit(task, tag, role, seed, topics)
    pool_build(task=task, full=full)
    if late:
        tag, (role, seed, topics) = LATE
        submit(task, tag, role, seed, topics)
    return task


def expected_pool(runs: dict[str, RunSpec]) -> dict[str, dict[str, dict]]:
    """topic -> docno -> {run tag: rank}: trectools' top-X of each run at its depth."""
    pool: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for tag, (role, seed, topics) in runs.items():
        frame = pd.read_csv(
            io.StringIO(run_text(tag, seed, topics)),
            sep=" ",
            names=["query", "q0", "docid", "rank", "score", "system"],
            dtype={"query": str, "docid": str},
        )
        run = TrecRun()
        run.load_run_from_dataframe(frame)
        depth = PRIMARY if role == "primary" else ALTERNATE
        top = TrecPoolMaker().make_pool([run], strategy="topX", topX=depth).pool
        ranks = {(q, d): r for q, d, r in frame[["query", "docid", "rank"]].itertuples(index=False)}
        for topic, docnos in top.items():
            for found in docnos:
                pool[str(topic)][found][tag] = ranks[(str(topic), found)]
    return {topic: dict(items) for topic, items in pool.items()}


def stored_pool(task: RetrievalTask) -> dict[str, dict[str, dict]]:
    pool: dict[str, dict[str, dict[str, int]]] = defaultdict(lambda: defaultdict(dict))
    for number, key, tag, rank in Contribution.objects.filter(item__topic__task=task).values_list(
        "item__topic__number", "item__key", "run__tag", "rank"
    ):
        pool[number][key][tag] = rank
    return {topic: dict(items) for topic, items in pool.items()}


def test_document_pool_is_each_runs_top_depth_docnos_with_one_document_hit_each() -> None:
    task = document_task("Docs")
    assert stored_pool(task) == expected_pool(RUNS)
    items = PoolItem.objects.filter(topic__task=task).select_related("document")
    assert items.count() == sum(len(docs) for docs in expected_pool(RUNS).values())
    for item in items:
        assert item.document is not None
        assert (item.document.docno, item.document.collection_id) == (item.key, task.collection_id)
        assert (item.post_id, item.visual_id, item.answer) == (None, "", "")
    hits = list(Hit.objects.filter(item__topic__task=task).values_list(
        "item_id", "item__document_id", "document_id", "post_id", "formula_id", "position"
    ))  # fmt: skip
    assert len(hits) == items.count() == len({hit[0] for hit in hits})
    assert all(hit[1] == hit[2] and hit[3:] == (None, None, 0) for hit in hits)


def test_incremental_rebuild_equals_a_full_build_when_a_late_run_is_added() -> None:
    task = document_task("Incremental", late=True)
    before = {
        (number, key): order
        for number, key, order in PoolItem.objects.filter(topic__task=task).values_list(
            "topic__number", "key", "display_order"
        )
    }
    build = pool_build(task=task)
    assert (build.stats["topics_recomputed"], build.stats["topics_skipped"]) == (2, 2)
    full = document_task("Full", late=True, full=True)
    pool_build(task=full, full=True)

    assert pool_snapshot(task) == pool_snapshot(full)  # keys, orders, hits, contributions
    assert stored_pool(task) == expected_pool(dict([*RUNS.items(), LATE]))
    documents = {
        (t.campaign.name, number, key): doc
        for t in (task, full)
        for number, key, doc in PoolItem.objects.filter(topic__task=t).values_list(
            "topic__number", "key", "document_id"
        )
    }
    assert {k[1:]: v for k, v in documents.items() if k[0] == "Incremental"} == {
        k[1:]: v for k, v in documents.items() if k[0] == "Full"
    }
    after = PoolItem.objects.filter(topic__task=task).values_list(
        "topic__number", "key", "display_order"
    )
    kept = {(number, key): order for number, key, order in after if (number, key) in before}
    assert kept == before  # nothing already pooled moved
    again = pool_build(task=task)
    assert again.stats["topics_skipped"] == len(TOPICS)
    assert pool_snapshot(task) == pool_snapshot(full)


def test_a_pooled_docno_the_collection_lost_fails_the_build_with_its_name() -> None:
    task = document_task("Lost")
    tag, (role, seed, topics) = LATE
    submit(task, tag, role, seed, topics)
    pooled = set(PoolItem.objects.filter(topic__task=task).values_list("key", flat=True))
    text = run_text(tag, seed, topics)
    first = next(line.split()[2] for line in text.splitlines() if line.split()[2] not in pooled)
    Document.objects.filter(docno=first).delete()
    with pytest.raises(CommandError, match=f"no longer holds.*{first}"):
        call_command("build_pools", campaign="Lost", task="document", stdout=StringIO())


def test_export_pool_writes_docnos_for_hits_and_the_annotated_pool(tmp_path: Path) -> None:
    document_task("Export")
    hits_path, annotated_path = tmp_path / "hits.tsv", tmp_path / "annotated.tsv"
    for kind, path in (("hits", hits_path), ("annotated", annotated_path)):
        call_command(
            "export_pool",
            campaign="Export",
            task="document",
            out=path,
            kind=kind,
            stderr=StringIO(),
        )
    hits = [line.split("\t") for line in hits_path.read_text().splitlines()]
    assert hits[0] == ["topic", "docno", "display_order", "vote", "runs"]
    expected = expected_pool(RUNS)
    assert {(row[0], row[1]) for row in hits[1:]} == {
        (topic, key) for topic, items in expected.items() for key in items
    }
    for topic, key, _order, _vote, runs in hits[1:]:
        listed = {entry.split("/")[1].split(":")[0] for entry in runs.split(",")}
        assert listed == set(expected[topic][key])
    annotated = [line.split("\t") for line in annotated_path.read_text().splitlines()]
    assert annotated[0] == ["topic", "docno", "team", "run", "rank"]
    assert sorted((t, d, run, int(rank)) for t, d, _team, run, rank in annotated[1:]) == sorted(
        (topic, key, tag, rank)
        for topic, items in expected.items()
        for key, ranks in items.items()
        for tag, rank in ranks.items()
    )


def test_pool_pages_figures_and_downloads_work_for_a_document_task(
    django_assert_max_num_queries,
) -> None:
    task = document_task("Pages")
    client = Client()
    client.force_login(UserFactory.create(username="org", is_staff=True))
    page = client.get(f"/pools/{task.pk}/")
    assert page.status_code == 200
    assert b"documents of collection news" in page.content
    figures = client.get(f"/api/pools/{task.pk}/").json()
    expected = expected_pool(RUNS)
    assert figures["kind"] == "document"
    assert (
        figures["totals"]["items"] == figures["totals"]["hits"] == sum(map(len, expected.values()))
    )
    unique = {
        tag: sum(
            1 for items in expected.values() for ranks in items.values() if set(ranks) == {tag}
        )
        for tag in RUNS
    }
    assert {run["label"].split("/")[1]: run["unique"] for run in figures["runs"]} == unique
    for kind in ("hits", "annotated"):
        first = client.get(f"/pools/{task.pk}/export/{kind}.tsv").getvalue().decode()
        with django_assert_max_num_queries(8):  # the second download comes from the cache
            second = client.get(f"/pools/{task.pk}/export/{kind}.tsv").getvalue().decode()
        assert first == second
        assert first.splitlines()[0].split("\t")[1] == "docno"
        assert docno(0)[:10] in first
    assert Run.objects.filter(task=task).count() == len(RUNS)

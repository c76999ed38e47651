"""Budgeted pools judged in priority order: a strategy picked for a document task's build
(command, REST, the pool page's form), assessors served in the strategy's order, an adaptive
strategy choosing each next item from the topic's judgments so far, across assessors, within
the budget, and rebuilds that keep every judgment.

The fused order is computed here from the run files by the formula (Cormack, Clarke and
Buettcher 2009: the sum over runs of 1 / (60 + rank)); the adaptive orders are the core's
replay (``judging_order``, ``next_to_judge``) of the same runs, read here from the files."""

from __future__ import annotations

import io
import json
import random
import threading
from collections import defaultdict
from itertools import pairwise

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, Judgment
from collection.models import Document, DocumentCollection, RetrievalTask, Topic
from pooling.core.algorithms.strategies import (
    Budget,
    judging_order,
    next_to_judge,
    parse_strategy,
)
from pooling.core.algorithms.strategies.priority import PoolStrategy, pool_strategy
from pooling.models import PoolBuild, PoolItem
from pooling.services.pools import pool_build
from pooling.services.runs import run_submit
from tests.factories.assessment import AssignmentFactory
from tests.factories.collection import (
    CampaignFactory,
    DocumentCollectionFactory,
    RetrievalTaskFactory,
    TopicFactory,
    UserFactory,
)
from tests.factories.pooling import TeamFactory
from tests.integration.pool_data import answer_rows, make_run
from tests.integration.test_pool_build import wait_for

DOCS = 40
TOPICS = ("1", "2")


def docno(n: int) -> str:
    return f"prio-{n:04d}"


def collection() -> DocumentCollection:
    found = DocumentCollection.objects.filter(name="priority").first()
    if found is not None:
        return found
    made = DocumentCollectionFactory.create(name="priority")
    Document.objects.bulk_create(
        Document(collection=made, docno=docno(n), title=f"Story {n}", checksum="0" * 32)
        for n in range(DOCS)
    )
    return made


def shuffled_runs(seeds: dict[str, int], depth: int = 12) -> dict[str, str]:
    """Run tag -> a TREC run file: ``depth`` docnos of 25 per topic, scores falling."""
    files = {}
    for tag, seed in seeds.items():
        rng = random.Random(seed)
        lines = [
            f"{topic} Q0 {docno(n)} {rank} {40 - rank * 1.5:.2f} {tag}\n"
            for topic in TOPICS
            for rank, n in enumerate(rng.sample(range(25), depth), start=1)
        ]
        files[tag] = "".join(lines)
    return files


# Three runs whose documents never overlap: Move-to-Front's next pull after a relevant
# document stays on its run and after a non-relevant one moves to another, so the two differ.
DISJOINT = {
    tag: "".join(
        f"{topic} Q0 {docno(base + rank)} {rank} {20 - rank}.0 {tag}\n"
        for topic in TOPICS
        for rank in range(1, 6)
    )
    for tag, base in (("alpha", 0), ("beta", 10), ("gamma", 20))
}


def document_task(name: str, files: dict[str, str]) -> RetrievalTask:
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name=name),
        kind="document",
        collection=collection(),
        relevance_level=1,
        pool_seed=7,
    )
    for number in TOPICS:
        TopicFactory.create(task=task, number=number)
    for tag, text in files.items():
        run_submit(
            task=task,
            team=TeamFactory.create(name=f"{name}-{tag}"),
            tag=tag,
            role="primary",
            stream=io.BytesIO(text.encode()),
            file_name=f"{tag}.run",
            uploaded_by=None,
        )
    return task


def ranked_from_files(files: dict[str, str]) -> dict[str, dict[str, list[str]]]:
    """topic -> tag -> docnos in trec_eval's order (score descending, docno descending)."""
    rows: dict[str, dict[str, list[tuple[float, str]]]] = defaultdict(lambda: defaultdict(list))
    for tag, text in files.items():
        for line in text.splitlines():
            topic, _q0, doc, _rank, score, _tag = line.split()
            rows[topic][tag].append((float(score), doc))
    return {
        topic: {tag: [d for _s, d in sorted(r, reverse=True)] for tag, r in runs.items()}
        for topic, runs in rows.items()
    }


def rrf_order(files: dict[str, str], topic: str, budget: int) -> list[str]:
    """The top ``budget`` docnos of ``topic`` by the sum over runs of 1 / (60 + rank)."""
    weight: dict[str, float] = defaultdict(float)
    for docs in ranked_from_files(files)[topic].values():
        for rank, doc in enumerate(docs, start=1):
            weight[doc] += 1 / (60 + rank)
    return sorted(weight, key=lambda doc: (-weight[doc], doc))[:budget]


def relevant(doc: str) -> bool:
    """The test's oracle: every third document is relevant."""
    return int(doc.rsplit("-", 1)[1]) % 3 == 0


def unjudged_by_hand(runs: dict[str, list[str]], judged: dict[str, bool]) -> float:
    """docs/pooling.md's estimate of relevant documents still unjudged, written out: fuse by
    1 / (60 + rank), cut the fused ranking at 10, 20, 40, 80, ...; each band's rate is its
    relevant judged plus 2 judgments at the prior, over its judged plus 2; the first prior is
    1/2, each next one half the rate before; add rate times unjudged documents."""
    weight: dict[str, float] = defaultdict(float)
    for docs in runs.values():
        for rank, doc in enumerate(docs, start=1):
            weight[doc] += 1 / (60 + rank)
    fused = sorted(weight, key=lambda doc: (-weight[doc], doc))
    total, prior, edges = 0.0, 0.5, [0, 10, 20, 40, 80, 160, 320, 640, 1280]
    for low, high in pairwise(edges):
        band = fused[low:high]
        seen = [judged[doc] for doc in band if doc in judged]
        rate = (sum(seen) + 2 * prior) / (len(seen) + 2)
        total += rate * (len(band) - len(seen))
        prior = rate / 2
    return total


def assessor(username: str) -> Client:
    client = Client()
    client.force_login(UserFactory.create(username=username))
    return client


def assign(task: RetrievalTask, number: str, client: Client, **fields: object) -> Assignment:
    user = User.objects.get(pk=client.session["_auth_user_id"])
    topic = Topic.objects.get(task=task, number=number)
    return AssignmentFactory.create(topic=topic, assessor=user, **fields)


def next_item(client: Client, assignment: Assignment) -> PoolItem | None:
    """What the assessor is served next (the continue link), or None (the item list)."""
    response = client.get(reverse("assessment:continue", args=[assignment.pk]))
    assert response.status_code == 302
    target = response["Location"]
    if target == reverse("assessment:items", args=[assignment.pk]):
        return None
    item_id = int(target.rstrip("/").rsplit("/", 1)[1])
    return PoolItem.objects.get(pk=item_id)


def judge(client: Client, assignment: Assignment, item: PoolItem, grade: int) -> dict:
    """Grade the item's one hit through the REST API, as the judging page's script does."""
    body = {
        "judgments": [{"hit": item.hits.get().pk, "grade": grade}],
        "client_token": f"{item.pk}",
    }
    url = reverse("assessment_api:item-judgments", args=[assignment.pk, item.pk])
    response = client.post(url, data=json.dumps(body), content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()


def judge_in_order(client: Client, assignment: Assignment, limit: int = 100) -> list[str]:
    """Judge by the oracle whatever is served, until nothing is; the docnos in served order."""
    served: list[str] = []
    while (item := next_item(client, assignment)) is not None and len(served) < limit:
        served.append(item.key)
        judge(client, assignment, item, 2 if relevant(item.key) else 0)
    return served


@pytest.mark.django_db
def test_static_pool_built_by_the_command_is_served_in_fused_order_when_budget_per_topic() -> None:
    files = shuffled_runs({"bm25": 1, "dense": 2, "rm3": 3})
    task = document_task("Prio-RRF", files)
    out = io.StringIO()

    call_command(
        "build_pools",
        "--campaign=Prio-RRF",
        "--task=document",
        "--strategy=rrf",
        "--budget=5",
        "--seed=4",
        stdout=out,
    )

    build = PoolBuild.objects.get(task=task)
    assert build.parameters["strategy"] == {
        "name": "rrf:60",
        "budget": 5,
        "scope": "topic",
        "seed": 4,
        "adaptive": False,
    }
    alice = assessor("alice")
    for number in TOPICS:
        stored = PoolItem.objects.filter(topic__task=task, topic__number=number)
        assert list(stored.order_by("display_order").values_list("key", flat=True)) == rrf_order(
            files, number, 5
        )
        assignment = assign(task, number, alice)
        assert judge_in_order(alice, assignment) == rrf_order(files, number, 5)
    # A rebuild keeps the strategy, and changes nothing.
    call_command("build_pools", "--campaign=Prio-RRF", "--task=document", stdout=out)
    last = PoolBuild.objects.filter(task=task).order_by("pk").last()
    assert last is not None
    assert last.parameters["strategy"]["name"] == "rrf:60"
    assert PoolItem.objects.filter(topic__task=task).count() == 10
    assert Judgment.objects.count() == 10


@pytest.mark.worker
# hybrid:3 takes each topic's first three items in fused order, the rest by MM-NS.
@pytest.mark.parametrize("name", ["mm-ns:0.5", "hybrid:3"])
def test_adaptive_pool_built_over_rest_serves_the_cores_order_within_the_budget(
    celery_worker, name: str
) -> None:
    files = shuffled_runs({"bm25": 11, "dense": 12, "rm3": 13, "splade": 14})
    task = document_task("Prio-REST", files)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("pooling_api:pool-build", args=[task.pk])
    body = {"strategy": name, "budget": 6, "scope": "topic", "seed": 3}

    response = organizer.post(url, data=json.dumps(body), content_type="application/json")

    assert response.status_code == 202, response.content
    build = wait_for(PoolBuild.objects.get(pk=response.json()["build"]))
    assert build.status == PoolBuild.Status.DONE, build.error
    assert build.parameters["strategy"]["name"] == name
    # Before any judgment each topic holds the strategy's first document only.
    assert PoolItem.objects.filter(topic__task=task).count() == 2
    ranked = ranked_from_files(files)
    expected = judging_order(
        parse_strategy(name),
        ranked,
        Budget(per_topic=6),
        lambda _topic, doc: relevant(doc),
        seed=3,
    )
    alice = assessor("alice")
    for number in TOPICS:
        assignment = assign(task, number, alice)
        served = judge_in_order(alice, assignment)
        assert served == [doc for topic, doc in expected if topic == number]
        assert len(served) == 6  # the budget, and not one more
        assert next_item(alice, assignment) is None
    assert PoolItem.objects.filter(topic__task=task).count() == 12


@pytest.mark.django_db
def test_adaptive_next_item_follows_the_judgment_when_first_document_judged() -> None:
    strategy = parse_strategy("mtf")
    ranked = ranked_from_files(DISJOINT)
    served = {}
    for grade in (2, 0):
        task = document_task(f"Prio-MTF-{grade}", DISJOINT)
        pool_build(task=task, strategy=_spec("mtf", 5, seed=9))
        alice = assessor(f"alice{grade}")
        assignment = assign(task, "1", alice)
        first = next_item(alice, assignment)
        assert first is not None
        assert first.key == next_to_judge(strategy, ranked["1"], [], seed=9, topic="1")
        state = judge(alice, assignment, first, grade)
        # The page's script is sent to ask the strategy: no item is waiting yet.
        assert state["next_unjudged_url"] == reverse("assessment:continue", args=[assignment.pk])
        second = next_item(alice, assignment)
        assert second is not None
        judged = [(first.key, grade > 0)]
        assert second.key == next_to_judge(strategy, ranked["1"], judged, seed=9, topic="1")
        served[grade] = (first.key, second.key)
    assert served[2][0] == served[0][0]
    assert served[2][1] != served[0][1]


def _spec(name: str, budget: int, scope: str = "topic", seed: int = 0) -> PoolStrategy:
    return pool_strategy(name, budget, scope, seed)


@pytest.mark.django_db
def test_two_assessors_share_one_priority_order_when_official_and_dual() -> None:
    files = shuffled_runs({"bm25": 21, "dense": 22, "rm3": 23})
    task = document_task("Prio-Two", files)
    pool_build(task=task, strategy=_spec("mm-ns", 4, seed=1))
    ranked = ranked_from_files(files)["1"]
    alice, bob = assessor("alice"), assessor("bob")
    official = assign(task, "1", alice)
    dual = assign(task, "1", bob, purpose=Assignment.Purpose.DUAL)

    first = next_item(alice, official)
    assert first is not None
    assert next_item(bob, dual) == first  # the same item, not a second new one
    judge(alice, official, first, 2)
    judge(bob, dual, first, 0)  # a later judgment: the strategy learnt from alice's
    second = next_item(bob, dual)
    assert second is not None
    assert second.key == next_to_judge(
        parse_strategy("mm-ns"), ranked, [(first.key, True)], seed=1, topic="1"
    )
    assert next_item(alice, official) == second  # handed out to bob, waiting for alice too
    judge(alice, official, second, 0)
    third = next_item(alice, official)
    assert next_item(bob, dual) == second  # bob still owes his judgment of the second
    assert third is not None
    assert third.key not in (first.key, second.key)
    assert PoolItem.objects.filter(topic__task=task, topic__number="1").count() == 3


@pytest.mark.django_db
def test_next_item_follows_a_run_replaced_between_asks_not_the_rankings_read_before() -> None:
    # The runs' rankings are kept in memory from one ask to the next
    # (pooling/selectors/topic_rankings.py); a replaced run's new rows must be what decides.
    strategy = parse_strategy("mtf")
    task = document_task("Prio-Replaced", DISJOINT)
    pool_build(task=task, strategy=_spec("mtf", 5, seed=9))
    alice = assessor("alice")
    assignment = assign(task, "1", alice)
    first = next_item(alice, assignment)  # the build's item: no ranking read yet
    assert first is not None
    judge(alice, assignment, first, 2)  # relevant: Move-to-Front stays on first's run
    second = next_item(alice, assignment)  # chosen from the runs' rankings, now kept
    assert second is not None
    judge(alice, assignment, second, 2)
    # That run again, its first two documents kept and the rest reversed, as a new upload.
    [tag] = [t for t, text in DISJOINT.items() if f" {first.key} 1 " in text]
    docs = [line.split()[2] for line in DISJOINT[tag].splitlines() if line.startswith("1 ")]
    assert docs[:2] == [first.key, second.key]
    replaced = [*docs[:2], *reversed(docs[2:])]
    files = dict(DISJOINT)
    files[tag] = "".join(
        f"{topic} Q0 {doc} {rank} {20 - rank}.0 {tag}\n"
        for topic in TOPICS
        for rank, doc in enumerate(replaced, start=1)
    )
    run = task.runs.get(tag=tag)
    run_submit(
        task=task,
        team=run.team,
        tag=tag,
        role="primary",
        stream=io.BytesIO(files[tag].encode()),
        file_name=f"{tag}.run",
        uploaded_by=None,
    )
    judged = [(first.key, True), (second.key, True)]
    before = next_to_judge(strategy, ranked_from_files(DISJOINT)["1"], judged, seed=9, topic="1")
    after = next_to_judge(strategy, ranked_from_files(files)["1"], judged, seed=9, topic="1")
    assert before != after  # the replacement changes what comes next

    third = next_item(alice, assignment)

    assert third is not None
    assert third.key == after == replaced[2]
    # Its contribution is the rank in the new file, not the old one.
    assert dict(third.contributions.values_list("run__tag", "rank")) == {tag: 3}


@pytest.mark.django_db
def test_rebuilds_keep_every_judgment_when_strategy_kept_or_changed() -> None:
    files = shuffled_runs({"bm25": 31, "dense": 32, "rm3": 33})
    task = document_task("Prio-Rebuild", files)
    pool_build(task=task, strategy=_spec("mm-ns", 6, seed=2))
    alice = assessor("alice")
    assignment = assign(task, "1", alice)
    judged = judge_in_order(alice, assignment, limit=3)
    waiting = next_item(alice, assignment)  # handed out, not judged yet
    assert waiting is not None
    grades = dict(Judgment.objects.values_list("hit__item__key", "grade"))

    pool_build(task=task, strategy=_spec("mm-ns", 6, seed=2), full=True)

    assert dict(Judgment.objects.values_list("hit__item__key", "grade")) == grades
    assert next_item(alice, assignment) == waiting  # the same strategy keeps what it handed out
    pool_build(task=task, strategy=_spec("rrf", 2))
    kept = set(PoolItem.objects.filter(topic=assignment.topic).values_list("key", flat=True))
    assert set(judged) <= kept
    assert dict(Judgment.objects.values_list("hit__item__key", "grade")) == grades
    assert kept == set(judged) | set(rrf_order(files, "1", 2))


@pytest.mark.django_db
def test_a_task_budget_is_shared_by_the_topics_when_adaptive() -> None:
    files = shuffled_runs({"bm25": 41, "dense": 42})
    task = document_task("Prio-Task", files)
    pool_build(task=task, strategy=_spec("mtf", 5, scope="task"))
    alice, bob = assessor("alice"), assessor("bob")
    one, two = assign(task, "1", alice), assign(task, "2", bob)
    for _round in range(4):
        for client, assignment in ((alice, one), (bob, two)):
            item = next_item(client, assignment)
            if item is not None:
                judge(client, assignment, item, 1)
    assert PoolItem.objects.filter(topic__task=task).count() == 5
    assert Judgment.objects.count() == 5
    assert next_item(alice, one) is None
    assert next_item(bob, two) is None


@pytest.mark.django_db
def test_a_task_budget_goes_to_the_topic_finding_relevant_documents_when_adaptive() -> None:
    files = shuffled_runs({"bm25": 51, "dense": 52}, depth=20)
    task = document_task("Prio-Share", files)
    pool_build(task=task, strategy=_spec("mm-ns", 16, scope="task", seed=2))
    alice, bob = assessor("alice"), assessor("bob")
    rich, poor = assign(task, "1", alice), assign(task, "2", bob)
    # Both assessors ask in turn, as fast as each other: first come, first served would
    # give each topic 8. Topic 1's documents are all relevant, topic 2's none.
    for _round in range(16):
        for client, assignment, grade in ((alice, rich, 1), (bob, poor, 0)):
            item = next_item(client, assignment)
            if item is not None:
                judge(client, assignment, item, grade)
    spent = {
        number: PoolItem.objects.filter(topic__task=task, topic__number=number).count()
        for number in TOPICS
    }
    assert sum(spent.values()) <= 16
    # Each topic has its floor, ceil(16 / 2 / 4) = 2; the rich topic the most of the rest.
    assert spent["2"] >= 2
    assert spent["1"] >= 2 * spent["2"], spent
    assert Judgment.objects.count() == sum(spent.values())  # every item handed out is judged


@pytest.mark.django_db
def test_a_bad_strategy_is_refused_with_its_reason_when_asked_anywhere() -> None:
    files = shuffled_runs({"bm25": 51})
    task = document_task("Prio-Bad", files)
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))
    url = reverse("pooling_api:pool-build", args=[task.pk])
    for body, field, words in (
        ({"strategy": "bandit", "budget": 5}, "strategy", "unknown strategy"),
        ({"strategy": "rbp:2", "budget": 5}, "strategy", "out of range"),
        ({"strategy": "rrf:1e+308", "budget": 5}, "strategy", "k must be in [1, 100000]"),
        ({"strategy": "depth:nan", "budget": 5}, "strategy", "out of range"),
        ({"strategy": "mm-ns"}, "budget", "needs a budget"),
        ({"strategy": "mtf", "budget": 0}, "budget", "greater than or equal to 1"),
    ):
        response = organizer.post(url, data=json.dumps(body), content_type="application/json")
        assert response.status_code == 400, body
        assert words in " ".join(response.json()[field]), response.json()
    formula = RetrievalTaskFactory.create(campaign=task.campaign, kind="formula")
    refused = organizer.post(
        reverse("pooling_api:pool-build", args=[formula.pk]),
        data=json.dumps({"strategy": "mtf", "budget": 5}),
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert "document and answer tasks only" in refused.json()["strategy"][0]
    with pytest.raises(CommandError, match="needs --budget"):
        call_command("build_pools", "--campaign=Prio-Bad", "--task=document", "--strategy=mtf")
    with pytest.raises(CommandError, match="unknown strategy"):
        call_command(
            "build_pools", "--campaign=Prio-Bad", "--task=document", "--strategy=x", "--budget=3"
        )
    with pytest.raises(CommandError, match=r"rrf: 1e\+308 is out of range"):
        call_command(
            "build_pools",
            "--campaign=Prio-Bad",
            "--task=document",
            "--strategy=rrf:1e+308",
            "--budget=3",
        )
    page = organizer.post(
        reverse("pooling:pool-build", args=[task.pk]), {"strategy": "rbp:7", "budget": "3"}
    )
    assert page.status_code == 302
    shown = organizer.get(page["Location"]).content.decode()
    assert "Nothing was built" in shown
    assert "out of range" in shown
    assert not PoolBuild.objects.filter(task=task).exists()


@pytest.mark.django_db
def test_dashboard_and_order_export_tell_spend_finds_and_each_items_runs_when_judged() -> None:
    files = shuffled_runs({"bm25": 61, "dense": 62, "rm3": 63})
    task = document_task("Prio-Dash", files)
    pool_build(task=task, strategy=_spec("mm-ns", 5, seed=6))
    alice = assessor("alice")
    assignment = assign(task, "1", alice)
    served = judge_in_order(alice, assignment, limit=3)
    waiting = next_item(alice, assignment)
    assert waiting is not None
    organizer = Client()
    organizer.force_login(UserFactory.create(username="org", is_staff=True))

    page = organizer.get(reverse("pooling:pool", args=[task.pk])).content.decode()
    stats = organizer.get(reverse("pooling_api:pool-stats", args=[task.pk])).json()["priority"]
    lede = page.split('class="lede"', 1)[1].split("</p>", 1)[0]
    assert lede.lower().count("seed") == 1  # the strategy's words name the seed once
    export = organizer.get(reverse("pooling:pool-export", args=[task.pk, "order"]))

    found = sum(relevant(doc) for doc in served)
    assert stats["judged"] == 3
    assert stats["relevant"] == found
    assert stats["budget"] == 10
    ranked_files = ranked_from_files(files)
    estimate = unjudged_by_hand(ranked_files["1"], {doc: relevant(doc) for doc in served})
    assert stats["topics"][0] == {
        "topic": "1",
        "items": 4,
        "judged": 3,
        "relevant": found,
        "budget": 5,
        "relevant_unjudged_estimate": round(estimate, 1),
    }
    assert stats["topics"][1]["judged"] == 0
    untouched = unjudged_by_hand(ranked_files["2"], {})
    assert stats["topics"][1]["relevant_unjudged_estimate"] == round(untouched, 1)
    assert stats["relevant_unjudged_estimate"] == round(estimate + untouched, 1)
    table = page.split('id="priority-table"', 1)[1].split("</table>", 1)[0]
    assert '<td>1</td><td class="num">3</td><td class="num">5</td>' in table
    assert f'<td class="num">{estimate:.1f}</td></tr>' in table
    assert "mm-ns:0.5, 5 judgments per topic, seed 6" in page
    streamed = export.streaming_content  # type: ignore[attr-defined]
    lines = b"".join(streamed).decode().splitlines()
    assert lines[0].split("\t") == ["topic", "docno", "order", "judged", "team", "run", "rank"]
    rows = [line.split("\t") for line in lines[1:] if line.startswith("1\t")]
    order = [doc for doc, _place in sorted({(r[1], int(r[2])) for r in rows}, key=lambda p: p[1])]
    assert order == [*served, waiting.key]
    assert {r[1]: r[3] for r in rows} == {**dict.fromkeys(served, "yes"), waiting.key: "no"}
    ranked = ranked_from_files(files)["1"]
    expected = {
        (doc, tag, str(ranked[tag].index(doc) + 1))
        for doc in order
        for tag in ranked
        if doc in ranked[tag]
    }
    assert {(r[1], r[5], r[6]) for r in rows} == expected


@pytest.mark.django_db(transaction=True)
def test_two_assessors_asking_at_once_get_one_new_item_when_the_pool_lock_serializes_them() -> None:
    files = shuffled_runs({"bm25": 91, "dense": 92, "rm3": 93})
    task = document_task("Prio-Race", files)
    pool_build(task=task, strategy=_spec("mm-ns", 6, seed=8))
    alice, bob = assessor("alice"), assessor("bob")
    official = assign(task, "1", alice)
    dual = assign(task, "1", bob, purpose=Assignment.Purpose.DUAL)
    first = next_item(alice, official)
    assert first is not None
    judge(alice, official, first, 2)
    judge(bob, dual, first, 2)
    barrier = threading.Barrier(2)
    got: dict[str, int | None] = {}

    def ask(name: str, client: Client, assignment: Assignment) -> None:
        try:
            barrier.wait()
            item = next_item(client, assignment)
            got[name] = item.pk if item is not None else None
        finally:
            connection.close()

    threads = [
        threading.Thread(target=ask, args=("alice", alice, official)),
        threading.Thread(target=ask, args=("bob", bob, dual)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)

    assert got["alice"] is not None
    assert got["alice"] == got["bob"]
    assert PoolItem.objects.filter(topic__task=task, topic__number="1").count() == 2


@pytest.mark.django_db
def test_an_answer_task_is_judged_in_priority_order_when_built_with_a_strategy() -> None:
    """ARQMath's rules stay the default; a strategy picked for an answer task pools its posts."""
    task = RetrievalTaskFactory.create(
        campaign=CampaignFactory.create(name="Prio-Answer"), kind="answer", relevance_level=2
    )
    topics = [TopicFactory.create(task=task, number=f"A.{i}") for i in (1, 2)]
    ranked: dict[str, dict[str, list[str]]] = {t.number: {} for t in topics}
    for seed, tag in enumerate(("p1", "p2", "p3")):
        run = make_run(task, tag)
        rows = answer_rows(run, topics, rows=8, posts=20, seed=seed)
        for topic in topics:
            ranked[topic.number][tag] = [str(post) for post in rows[topic.pk]]
    pool_build(task=task)  # the task's own rules first: depth-k
    assert PoolBuild.objects.get(task=task).parameters["strategy"] is None
    pool_build(task=task, strategy=_spec("mtf", 3, seed=2))
    alice = assessor("alice")
    assignment = assign(task, "A.1", alice)
    judged: list[tuple[str, bool]] = []
    for _ in range(3):
        item = next_item(alice, assignment)
        assert item is not None
        assert item.post_id == int(item.key)
        assert item.key == next_to_judge(
            parse_strategy("mtf"), ranked["A.1"], judged, seed=2, topic="A.1"
        )
        grade = 3 if int(item.key) % 2 else 0
        judge(alice, assignment, item, grade)
        judged.append((item.key, grade >= 2))
    assert next_item(alice, assignment) is None
    assert PoolItem.objects.filter(topic=topics[0]).count() == 3

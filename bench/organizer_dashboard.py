"""Benchmark: the organizer's dashboard with scoped official assignments and with whole ones.

Two document tasks of 40 topics each (``--topics``), 200 pool items a topic (``--items``, one
hit each). In one task every topic's official assignment is scoped to half its items (routed
by the scoped-assignment service, as a drawn human sample is); in the other every topic's
official assignment covers the whole topic. Each assignment has ``--judged`` judgments, made
through the judging service. Then the organizer's pages are asked in-process (Django's test
client, logged in as an organizer), ``--repeat`` times each after one warm-up: the overview
(``/organize/``, both tasks on it) and each task's dashboard (``/organize/task/<id>/``).
Prints the median ms per request and the queries per request of each.

    .venv/bin/python bench/organizer_dashboard.py [--small] [--topics N] [--items N]
        [--judged N] [--repeat N] [--keep]

The scratch database is ``<DATABASE_URL's name>_dashbench`` (created here, and dropped unless
``--keep`` leaves it to look at the queries).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from bench.scratch import scratch_django  # noqa: E402

ASSESSORS = 4


def make_task(campaign: Any, name: str, topics: int, items: int) -> Any:
    """A document task with ``topics`` topics of ``items`` pool items, one hit each."""
    from collection.models import Document, DocumentCollection, RetrievalTask, Topic
    from pooling.models import Hit, PoolItem

    collection = DocumentCollection.objects.create(name=f"{name}-docs")
    documents = Document.objects.bulk_create(
        Document(collection=collection, docno=f"{name}-{t}-{i}", title="Story", body="Body.")
        for t in range(topics)
        for i in range(items)
    )
    task = RetrievalTask.objects.create(
        campaign=campaign, kind="document", name=name, collection=collection
    )
    made = Topic.objects.bulk_create(
        Topic(task=task, number=str(301 + t), title=f"topic {t}") for t in range(topics)
    )
    pool = PoolItem.objects.bulk_create(
        PoolItem(topic=topic, key=doc.docno, document=doc, display_order=i)
        for t, topic in enumerate(made)
        for i, doc in enumerate(documents[t * items : (t + 1) * items])
    )
    Hit.objects.bulk_create(Hit(item=item, document_id=item.document_id) for item in pool)
    return task


def assign(task: Any, people: list[Any], organizer: Any, *, scoped: bool) -> None:
    """Every topic an official assignment: scoped to half the topic's items (routed by the
    service), or the whole topic."""
    from assessment.models import Assignment
    from assessment.services.assignments.scoped import items_route
    from pooling.models import PoolItem

    topics = list(task.topics.order_by("id"))
    if scoped:
        items: dict[int, list[int]] = {}
        for item_id, topic_id in (
            PoolItem.objects.filter(topic__task=task).order_by("id").values_list("id", "topic_id")
        ):
            items.setdefault(topic_id, []).append(item_id)
        half = {topic_id: ids[: len(ids) // 2] for topic_id, ids in items.items()}
        items_route(items=half, assessors=people, created_by=organizer)
    else:
        Assignment.objects.bulk_create(
            Assignment(
                topic=topic,
                assessor=people[n % len(people)],
                purpose=Assignment.Purpose.OFFICIAL,
                created_by=organizer,
            )
            for n, topic in enumerate(topics)
        )


def judge(task: Any, judged: int) -> int:
    """``judged`` items of each official assignment judged through the judging service."""
    from assessment.models import Assignment
    from assessment.selectors.progress import item_statuses
    from assessment.services.judging import HitVerdict, item_submit
    from pooling.models import Hit, PoolItem

    made = 0
    assignments = Assignment.objects.filter(topic__task=task).select_related("topic__task")
    for assignment in assignments.order_by("id"):
        for n, status in enumerate(item_statuses(assignment)[:judged]):
            hit = Hit.objects.get(item_id=status.item_id)
            item_submit(
                assignment=assignment,
                item=PoolItem(pk=status.item_id, topic_id=assignment.topic_id),
                assessor=assignment.assessor,
                verdicts=[HitVerdict(hit_id=hit.pk, grade=n % 3)],
                active_seconds=8.0 + n,
            )
            made += 1
    return made


def timed(client: Any, url: str, repeat: int) -> tuple[float, int]:
    """(median ms, queries) of ``repeat`` requests of ``url`` after one warm-up."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    assert client.get(url).status_code == 200, url
    times, queries = [], 0
    for _ in range(repeat):
        with CaptureQueriesContext(connection) as captured:
            start = time.perf_counter()
            response = client.get(url)
            times.append((time.perf_counter() - start) * 1000)
        assert response.status_code == 200, url
        queries = len(captured.captured_queries)
    return statistics.median(times), queries


def run_benchmark(args: argparse.Namespace) -> None:
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client

    from collection.models import Campaign

    print(
        f"organizer dashboard: 2 document tasks x {args.topics} topics x {args.items} items, "
        f"{args.judged} judgments an assignment, median of {args.repeat} requests",
        flush=True,
    )
    start = time.perf_counter()
    organizer = User.objects.create_user("bench-organizer", password="x", is_staff=True)  # noqa: S106
    people = [
        User.objects.create_user(f"bench-assessor-{n}", password="x")  # noqa: S106
        for n in range(ASSESSORS)
    ]
    campaign = Campaign.objects.create(name="Dashboard-Bench")
    tasks = {
        kind: make_task(campaign, kind, args.topics, args.items) for kind in ("scoped", "whole")
    }
    assign(tasks["scoped"], people, organizer, scoped=True)
    assign(tasks["whole"], people, organizer, scoped=False)
    judgments = sum(judge(task, args.judged) for task in tasks.values())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # the planner's statistics, as autovacuum keeps them live
    print(f"{'set-up (pools, assignments, judgments)':<46} {time.perf_counter() - start:8.1f} s"
          f"  {judgments:,} judgments", flush=True)  # fmt: skip
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(organizer)
    pages = [
        ("overview /organize/ (both tasks)", "/organize/"),
        (f"task dashboard, {args.topics} scoped topics", f"/organize/task/{tasks['scoped'].pk}/"),
        (f"task dashboard, {args.topics} whole topics", f"/organize/task/{tasks['whole'].pk}/"),
    ]
    for label, url in pages:
        median, queries = timed(client, url, args.repeat)
        print(f"{label:<46} {median:8.1f} ms  {queries} queries", flush=True)
    print(f"{'load average at the end':<46} {os.getloadavg()[0]:8.1f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=40)
    parser.add_argument("--items", type=int, default=200, help="pool items a topic")
    parser.add_argument("--judged", type=int, default=20, help="judgments an assignment")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--small", action="store_true", help="10 topics x 50 items")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    args = parser.parse_args()
    if args.small:
        args.topics, args.items, args.judged, args.repeat = 10, 50, 5, 5
    with scratch_django("dashbench", keep=args.keep):
        run_benchmark(args)


if __name__ == "__main__":
    main()

"""Pool rebuilds and judging at the same time, on real PostgreSQL.

Four assessors submit through the REST judging API, each in a thread with its own database
connection, while the organizer re-uploads a late run through the run service and rebuilds
the pools, 20 times over. Each re-upload replaces the late run's rows, so every rebuild adds
items, removes the unjudged ones only the old version contributed, and orphans judged ones:
the race between "unjudged, delete it" and "judge it" is on every round.

Before the topic pool lock (pooling/locks.py) builds failed with an IntegrityError or a
ProtectedError and submits answered 500. Now: no build fails, no response is 5xx, every
accepted judgment is stored once with the revisions its changes made, and no judged hit is
gone. A submit may still answer 404 when its item left the pool before it arrived (it was
unjudged and no run contributes it any more): that is the pool's answer, not a failure.
"""

from __future__ import annotations

import io
import itertools
import json
import random
import threading
from collections import defaultdict
from dataclasses import dataclass, field

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from assessment.models import Assignment, Judgment, JudgmentRevision
from assessment.selectors.item_state import item_hit_ids
from assessment.selectors.progress import pool_items_of
from assessment.services.assignments import assignments_create
from collection.models import RetrievalTask
from pooling.models import Hit, PoolBuild, PoolItem, Run
from pooling.services.pools import pool_build
from pooling.services.runs import run_submit, team_ensure
from tests.factories.collection import CampaignFactory, RetrievalTaskFactory, UserFactory
from tests.integration.pool_data import answer_rows, make_run, make_topics

ROUNDS = 20
ASSESSORS = 4
POSTS = range(1000, 1060)  # every post a run names, early or late


@dataclass
class Outcomes:
    """What the assessor threads saw, shared (under a lock) with the test."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    statuses: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    errors: list[str] = field(default_factory=list)
    # (assignment, hit) -> every grade accepted for it, in order
    accepted: dict[tuple[int, int], list[int]] = field(default_factory=lambda: defaultdict(list))

    def record(self, status: int, accepted: list[tuple[int, int, int]] = ()) -> None:  # type: ignore[assignment]
        with self.lock:
            self.statuses[status] += 1
            for assignment_id, hit_id, grade in accepted:
                self.accepted[(assignment_id, hit_id)].append(grade)


def late_run_file(task: RetrievalTask, round_number: int) -> bytes:
    """A fresh ranking for the late run: some posts already pooled, some new each round."""
    rng = random.Random(round_number)
    lines = []
    for topic in task.topics.order_by("id"):
        for rank, post in enumerate(rng.sample(POSTS, 15), start=1):
            lines.append(f"{topic.number} Q0 {post} {rank} {100 - rank} late\n")
    return "".join(lines).encode()


def upload_late_run(task: RetrievalTask, round_number: int) -> None:
    run_submit(
        task=task,
        team=team_ensure(name="Latecomers")[0],
        tag="late",
        role=Run.Role.PRIMARY,
        stream=io.BytesIO(late_run_file(task, round_number)),
        file_name="Latecomers-task1-late.tsv",
        uploaded_by=None,
        ignore_deadline=True,
    )


def pick_item(assignment: Assignment, rng: random.Random) -> int | None:
    """Mostly an item not judged yet (what a rebuild may remove), sometimes a judged one."""
    items = list(pool_items_of(assignment).values_list("pk", flat=True))
    judged = set(
        Judgment.objects.filter(assignment=assignment).values_list("hit__item_id", flat=True)
    )
    unjudged = [pk for pk in items if pk not in judged]
    pool = unjudged if unjudged and rng.random() < 0.8 else items
    return rng.choice(pool) if pool else None


def assess(assignment: Assignment, outcomes: Outcomes, stop: threading.Event, seed: int) -> None:
    """An assessor at work: pick an item, read its hits, submit a grade for each, again."""
    rng = random.Random(seed)
    client = Client(raise_request_exception=False)
    try:
        client.force_login(assignment.assessor)
        while not stop.is_set():
            item_id = pick_item(assignment, rng)
            hit_ids = item_hit_ids(assignment, item_id) if item_id else None
            if not hit_ids:
                continue
            verdicts = [{"hit": hit_id, "grade": rng.randrange(4)} for hit_id in hit_ids]
            response = client.post(
                reverse("assessment_api:item-judgments", args=[assignment.pk, item_id]),
                data=json.dumps({"judgments": verdicts, "client_token": f"{seed}-{rng.random()}"}),
                content_type="application/json",
            )
            stored = [(assignment.pk, v["hit"], v["grade"]) for v in verdicts]
            outcomes.record(response.status_code, stored if response.status_code == 200 else [])
    except Exception as error:  # any exception is a finding of this test
        with outcomes.lock:
            outcomes.errors.append(f"{assignment.assessor}: {error!r}")
    finally:
        connections.close_all()


def expected_revisions(grades: list[int]) -> int:
    """The first grade is revision 1; each change of value adds one (the same again: none)."""
    return 1 + sum(1 for before, after in itertools.pairwise(grades) if after != before)


def judging_scene() -> tuple[RetrievalTask, list[Assignment]]:
    campaign = CampaignFactory.create(name="Race-Camp", max_primary_runs=5)
    task = RetrievalTaskFactory.create(campaign=campaign, kind="answer", primary_depth=8)
    topics = make_topics(task, ASSESSORS)
    for seed, tag in enumerate(("early1", "early2")):
        answer_rows(make_run(task, tag), topics, rows=12, posts=len(POSTS), seed=seed)
    upload_late_run(task, round_number=0)
    pool_build(task=task)
    assignments = []
    for i, topic in enumerate(topics):
        person = UserFactory.create(username=f"assessor{i}")
        assignments += assignments_create(topics=[topic], assessor=person, created_by=None)
    return task, assignments


@pytest.mark.usefixtures("transactional_db")
def test_rebuilds_and_submits_never_fail_each_other_when_they_run_together() -> None:
    task, assignments = judging_scene()
    outcomes, stop = Outcomes(), threading.Event()
    threads = [
        threading.Thread(target=assess, args=(a, outcomes, stop, i), daemon=True)
        for i, a in enumerate(assignments)
    ]
    for thread in threads:
        thread.start()
    failed_builds: list[str] = []
    try:
        for round_number in range(1, ROUNDS + 1):
            upload_late_run(task, round_number)
            try:
                build = pool_build(task=task)
            except Exception as error:  # a failed build is what we count
                failed_builds.append(f"round {round_number}: {error!r}")
                continue
            if build.status != PoolBuild.Status.DONE:
                failed_builds.append(f"round {round_number}: {build.status} {build.error}")
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads)

    assert failed_builds == []
    assert outcomes.errors == []
    assert {s for s in outcomes.statuses if s >= 500} == set(), dict(outcomes.statuses)
    assert set(outcomes.statuses) <= {200, 404}, dict(outcomes.statuses)
    assert outcomes.statuses[200] >= ROUNDS  # the assessors did work during the rebuilds
    assert PoolBuild.objects.filter(task=task, status=PoolBuild.Status.DONE).count() == ROUNDS + 1

    stored = {
        (j.assignment_id, j.hit_id): j for j in Judgment.objects.filter(assignment__in=assignments)
    }
    assert set(stored) == set(outcomes.accepted)  # each accepted judgment stored, nothing else
    for key, grades in outcomes.accepted.items():
        judgment = stored[key]
        assert judgment.grade == grades[-1], key
        assert judgment.revision == expected_revisions(grades), (key, grades)
    assert JudgmentRevision.objects.filter(judgment__in=stored.values()).count() == sum(
        expected_revisions(grades) for grades in outcomes.accepted.values()
    )
    # Every judged hit is still in its pool: kept, or orphaned when no run names it now.
    judged_items = {hit.item_id for hit in Hit.objects.filter(judgments__isnull=False)}
    assert PoolItem.objects.filter(pk__in=judged_items).count() == len(judged_items)

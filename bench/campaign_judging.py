"""Assessors of the campaign rehearsal (bench/campaign.py): assignments, judging, the qrels check.

Assignments go through the assessment services: ``assignments_balance`` spreads each task's
topics over 20 assessors, ``dual_assignments_create`` gives 10% of them a second, blind
assessor. Every hit of every assignment is then judged through ``item_submit`` (what the
judging page's submit calls), one item at a time, in display order, as an assessor would.

Grades are ARQMath-like: an item's latent grade comes from how high the runs ranked it (sum of
1/rank over its contributions, ranked within its topic: top 15% High, next 15% Medium, next
20% Low, the rest Non-relevant); generated Task 3 answers get a latent grade of their own. An
assessor reports the latent grade with their accuracy, else one grade off; about 1.5% of hits
are flagged (do not know, system failure) with a comment.

The official verdicts are kept (small: one grade per hit) so that the exported qrels can be
checked against what was submitted, by the rules of docs/evaluation.md applied here directly.
"""

from __future__ import annotations

import math
import random
import time
from array import array
from collections import Counter, defaultdict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import connection, connections

from assessment.models import Assignment, Judgment
from assessment.services.assignments import assignments_balance, dual_assignments_create
from assessment.services.judging import HitVerdict, item_submit
from bench.campaign_report import Backend, backend_use
from collection.models import RetrievalTask
from evaluation.core.answers import answer_id
from evaluation.core.qrels import QrelsEntry
from pooling.core.algorithms import answer_key
from pooling.core.algorithms.openqa import ANSWER_KEY_PREFIX
from pooling.models import Contribution, Hit, PoolItem

GRADE_SHARES = ((3, 0.15), (2, 0.30), (1, 0.50))  # cumulative share of a topic's items
QA_WEIGHTS = (40, 25, 20, 15)  # latent grades 0..3 of generated answers
FLAGS = ((Judgment.Flag.DONT_KNOW, 0.010), (Judgment.Flag.SYSTEM_FAILURE, 0.015))
COMMENT = "Cannot judge this one: see the flag."


@dataclass(frozen=True)
class Profile:
    accuracy: float
    median_seconds: float


@dataclass
class Tally:
    """What judging did: per-submit latencies, grades given, the official verdicts."""

    latencies: array = field(default_factory=lambda: array("d"))
    judgments: int = 0
    grades: Counter = field(default_factory=Counter)
    # (task kind of the item, topic number, item key) -> official grade (None: flagged) per hit
    official: dict[tuple[str, str, str], list[int | None]] = field(default_factory=dict)
    backends: list[Backend] = field(default_factory=list)  # each judging thread's backend

    def merge(self, other: Tally) -> None:
        self.latencies.extend(other.latencies)
        self.judgments += other.judgments
        self.grades.update(other.grades)
        self.official.update(other.official)
        self.backends.extend(other.backends)


def assessors_create(count: int, seed: int) -> dict[User, Profile]:
    rng = random.Random(f"{seed}:assessors")
    people = {}
    for n in range(1, count + 1):
        user = User(username=f"assessor{n:02d}")
        user.set_unusable_password()
        user.save()
        people[user] = Profile(rng.uniform(0.62, 0.92), rng.uniform(15.0, 60.0))
    return people


def assign(
    tasks: Sequence[RetrievalTask], assessors: Sequence[User], *, dual_share: float, seed: int
) -> list[Assignment]:
    """Official assignments balanced over ``assessors`` and a dual sample, per task."""
    made: list[Assignment] = []
    for task in tasks:
        official = assignments_balance(task=task, assessors=assessors, created_by=None)
        sample = max(1, round(len(official) * dual_share))
        made += official
        made += dual_assignments_create(
            task=task, assessors=assessors, created_by=None, sample_size=sample, seed=seed
        )
    return made


def latent_grades(topic_id: int, seed: int) -> dict[int, int]:
    """Item id -> latent grade for one topic's items (see the module docstring)."""
    scores: dict[int, float] = defaultdict(float)
    contributions = Contribution.objects.filter(item__topic_id=topic_id).values_list(
        "item_id", "rank", "item__key"
    )
    generated: dict[int, str] = {}
    for item_id, rank, key in contributions:
        if key.startswith(ANSWER_KEY_PREFIX):
            generated[item_id] = key
        else:
            scores[item_id] += 1.0 / rank
    ranked = sorted(scores, key=lambda item: (-scores[item], item))
    grades = {}
    for position, item_id in enumerate(ranked):
        share = position / len(ranked)
        grades[item_id] = next((g for g, upto in GRADE_SHARES if share < upto), 0)
    for item_id, key in generated.items():
        grades[item_id] = random.Random(f"{seed}:{key}").choices((0, 1, 2, 3), QA_WEIGHTS)[0]
    return grades


def _items(topic_id: int) -> list[tuple[int, str, list[int]]]:
    """(item id, key, hit ids) of a topic in display order."""
    items: dict[int, tuple[int, str, list[int]]] = {}
    rows = (
        Hit.objects.filter(item__topic_id=topic_id)
        .order_by("item__display_order", "position")
        .values_list("item_id", "item__key", "pk")
    )
    for item_id, key, hit_id in rows:
        items.setdefault(item_id, (item_id, key, []))[2].append(hit_id)
    return list(items.values())


def _verdict(hit_id: int, latent: int, profile: Profile, rng: random.Random) -> HitVerdict:
    roll = rng.random()
    for flag, below in FLAGS:
        if roll < below:
            return HitVerdict(hit_id=hit_id, flag=flag, comment=COMMENT)
    grade = latent
    if rng.random() >= profile.accuracy:
        grade = min(3, max(0, latent + rng.choice((-1, 1))))
    return HitVerdict(hit_id=hit_id, grade=grade)


def judge_all(
    assignments: Sequence[Assignment], profiles: dict[int, Profile], seed: int, threads: int
) -> Tally:
    """Judge every hit of every assignment through ``item_submit``. Each assessor works in a
    thread of their own (at most ``threads`` at once), official topics first, as assessors
    judge at the same time in a real campaign; each thread has its own database connection."""
    users = {u.pk: u for u in User.objects.filter(pk__in={a.assessor_id for a in assignments})}
    work: dict[int, list[Assignment]] = defaultdict(list)
    for assignment in sorted(
        assignments, key=lambda a: (a.purpose != Assignment.Purpose.OFFICIAL, a.pk)
    ):
        work[assignment.assessor_id].append(assignment)
    tally = Tally()
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        done = [
            pool.submit(_judge_assessor, users[who], mine, profiles[who], seed)
            for who, mine in sorted(work.items())
        ]
        for future in done:
            tally.merge(future.result())
    return tally


def _judge_assessor(
    assessor: User, assignments: Sequence[Assignment], profile: Profile, seed: int
) -> Tally:
    tally = Tally()
    rng = random.Random(f"{seed}:judging:{assessor.pk}")
    try:
        for assignment in assignments:
            _judge_assignment(assignment, assessor, profile, seed, rng, tally)
        tally.backends.append(backend_use())
    finally:
        connections.close_all()  # this thread's connection
    return tally


def _judge_assignment(
    assignment: Assignment,
    assessor: User,
    profile: Profile,
    seed: int,
    rng: random.Random,
    tally: Tally,
) -> None:
    latent = latent_grades(assignment.topic_id, seed)
    official = assignment.purpose == Assignment.Purpose.OFFICIAL
    number, kind = assignment.topic.number, assignment.topic.task.kind
    for item_id, key, hit_ids in _items(assignment.topic_id):
        item_grade = latent.get(item_id, 0)
        verdicts = [
            # A formula's instances: some sit in a weaker context than the best one.
            _verdict(hit, max(0, item_grade - (rng.random() < 0.2)) if n else item_grade,
                     profile, rng)
            for n, hit in enumerate(hit_ids)
        ]  # fmt: skip
        seconds = rng.lognormvariate(math.log(profile.median_seconds), 0.6)
        start = time.perf_counter()
        item_submit(
            assignment=assignment,
            item=PoolItem(pk=item_id),
            assessor=assessor,
            verdicts=verdicts,
            active_seconds=seconds * len(verdicts),
        )
        tally.latencies.append(time.perf_counter() - start)
        tally.judgments += len(verdicts)
        tally.grades.update(v.grade if v.grade is not None else v.flag for v in verdicts)
        if official:
            item_kind = "openqa" if key.startswith(ANSWER_KEY_PREFIX) else kind
            tally.official[(item_kind, number, key)] = [v.grade for v in verdicts]


def expected_qrels(
    tally: Tally,
    kind: str,
    *,
    min_relevant: int,
    relevant_from: int,
    answer_runs: dict[tuple[str, str], list[int]] | None = None,
) -> set[QrelsEntry]:
    """The qrels the official verdicts call for (no adjudication; every hit has its official
    judgment, so dual ones never count): an item's grade is its best graded hit's; a flagged
    hit is unjudged (Task 3: grade 0); topics with fewer than ``min_relevant`` items graded
    ``relevant_from`` or more are dropped; Task 3 rows are per run's answer."""
    items: dict[tuple[str, str], int] = {}
    judged: set[str] = set()
    for (item_kind, topic, key), grades in tally.official.items():
        if item_kind != kind:
            continue
        judged.add(topic)
        given = [0 if g is None and kind == "openqa" else g for g in grades]
        graded = [g for g in given if g is not None]
        if graded:
            items[(topic, key)] = max(graded)
    relevant = Counter(topic for (topic, _), g in items.items() if g >= relevant_from)
    kept = {t for t in judged if relevant[t] >= min_relevant}
    if kind != "openqa":
        return {QrelsEntry(t, key, g) for (t, key), g in items.items() if t in kept}
    runs = answer_runs or {}
    return {
        QrelsEntry(t, answer_id(run, key), g)
        for (t, key), g in items.items()
        if t in kept
        for run in runs.get((t, key), ())
    }


def answer_runs_of(
    answers: dict[tuple[str, str], list[str]], run_ids: dict[str, int]
) -> dict[tuple[str, str], list[int]]:
    """(topic, pool item key) -> run ids, from the Task 3 texts the bench wrote."""
    return {
        (topic, answer_key(text)): [run_ids[tag] for tag in tags]
        for (topic, text), tags in answers.items()
    }


def database_judgments() -> int:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*) FROM {Judgment._meta.db_table}")  # noqa: S608
        return int(cursor.fetchone()[0])

"""Demo step: official, dual and training judgments that look like a real campaign's.

``demo_training_and_dual(campaign)`` gives the demo campaign's answer task two finished
training rounds (every assessor, alice and bob too) and, for four simulated colleagues of
different care and speed, the topics nobody holds (balanced), partly judged, some of them
dual-assessed, so the dashboard opens on real charts (issue 6 §11). Run it after the step that
gives alice and bob their topics: each has made a start on their first one, the rest waits for
a person to judge.

Simulation: each hit has a latent grade from how many runs put its item high in their ranking
(sum of 1/rank, ranked within its topic: top 8% High, next 12% Medium, next 20% Low); an
assessor reports it with their accuracy, else one grade off (sometimes two), flags now and
then, and takes a log-normal number of seconds around their own median.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from assessment.models import Assignment, Judgment, JudgmentRevision
from assessment.services.assignments import assignments_balance, dual_assignments_create
from assessment.services.training import training_round_create, training_round_submit
from collection.models import Campaign, RetrievalTask
from config.access import assessor_candidates
from pooling.models import Contribution, Hit, PoolItem
from pooling.services.pools import pool_build

__all__ = ["Profile", "demo_training_and_dual", "latent_grades", "simulated_judgments"]

DAYS = 6


@dataclass(frozen=True)
class Profile:
    """How a simulated assessor judges."""

    accuracy: float  # chance of reporting the latent grade
    median_seconds: float
    flag_rate: float


# Simulated colleagues of the demo's real logins (alice, bob): a careful one, a hasty one
# (median under 5 s: "to look at"), a flag-happy one and a steady one. Nobody logs in as them.
SIMULATED: dict[str, Profile] = {
    "erin": Profile(0.84, 22.0, 0.01),
    "frank": Profile(0.62, 3.5, 0.01),
    "grace": Profile(0.72, 28.0, 0.14),
    "heidi": Profile(0.77, 18.0, 0.02),
}
# alice and bob in the simulated training rounds and on the start of their first topic.
CAREFUL = Profile(0.8, 20.0, 0.01)


def latent_grades(task: RetrievalTask) -> dict[int, int]:
    """Hit id -> latent grade from the pool's (run, rank) contributions (see module doc)."""
    scores = _reciprocal_rank_sums(task)
    per_topic: dict[int, list[int]] = defaultdict(list)
    items = PoolItem.objects.filter(topic__task=task).values_list("pk", "topic_id")
    for item_id, topic_id in items:
        per_topic[topic_id].append(item_id)
    grade_of_item: dict[int, int] = {}
    for item_ids in per_topic.values():
        ranked = sorted(item_ids, key=lambda i: (-scores.get(i, 0.0), i))
        n = len(ranked)
        for position, item_id in enumerate(ranked):
            share = position / n
            grade_of_item[item_id] = (
                3 if share < 0.08 else 2 if share < 0.2 else 1 if share < 0.4 else 0
            )
    hits = Hit.objects.filter(item__topic__task=task).values_list("pk", "item_id")
    return {hit_id: grade_of_item[item_id] for hit_id, item_id in hits}


def _reciprocal_rank_sums(task: RetrievalTask) -> dict[int, float]:
    sums: dict[int, float] = defaultdict(float)
    rows = Contribution.objects.filter(item__topic__task=task).values_list("item_id", "rank")
    for item_id, rank in rows.iterator(chunk_size=10_000):
        sums[item_id] += 1.0 / rank
    return sums


def _report(latent: int, profile: Profile, rng: random.Random) -> int:
    if rng.random() < profile.accuracy:
        return latent
    step = 2 if rng.random() < 0.2 else 1
    direction = rng.choice((-1, 1))
    return min(3, max(0, latent + direction * step))


def simulated_judgments(
    assignment: Assignment,
    hit_ids: Iterable[int],
    latent: dict[int, int],
    profile: Profile,
    rng: random.Random,
) -> list[Judgment]:
    """Unsaved judgments of ``assignment`` on ``hit_ids`` by a simulated assessor."""
    now = timezone.now()
    result = []
    for hit_id in hit_ids:
        seconds = rng.lognormvariate(math.log(profile.median_seconds), 0.6)
        flagged = rng.random() < profile.flag_rate
        result.append(
            Judgment(
                assignment=assignment,
                hit_id=hit_id,
                assessor_id=assignment.assessor_id,
                grade=None if flagged else _report(latent.get(hit_id, 0), profile, rng),
                flag=Judgment.Flag.DONT_KNOW if flagged else "",
                comment="I cannot tell whether this answers the question." if flagged else "",
                active_seconds=round(seconds, 1),
                created_at=now - timedelta(days=rng.uniform(0, DAYS)),
            )
        )
    return result


def _store(judgments: Sequence[Judgment]) -> None:
    """Save with bulk_create (model defaults apply), then keep the first revision of each and
    spread the timestamps over the last days (auto_now fields ignore given values on insert).
    """
    wanted = [(j.assignment_id, j.hit_id, j.created_at) for j in judgments]
    Judgment.objects.bulk_create(judgments, batch_size=2000)
    keys = {(a, h): when for a, h, when in wanted}
    stored = Judgment.objects.filter(
        assignment_id__in={a for a, _, _ in wanted}, hit_id__in={h for _, h, _ in wanted}
    ).values_list(
        "pk", "assignment_id", "hit_id", "assessor_id", "grade", "flag", "comment", "active_seconds"
    )
    by_day: dict[int, list[int]] = defaultdict(list)
    revisions = []
    for pk, assignment_id, hit_id, assessor_id, grade, flag, comment, seconds in stored:
        when = keys.get((assignment_id, hit_id))
        if when is None:
            continue
        by_day[(timezone.now() - when).days].append(pk)
        revisions.append(
            JudgmentRevision(
                judgment_id=pk,
                number=1,
                changed_by_id=assessor_id,
                grade=grade,
                flag=flag,
                comment=comment,
                active_seconds=seconds,
            )
        )
    JudgmentRevision.objects.bulk_create(revisions, batch_size=2000)
    now = timezone.now()
    for days, pks in by_day.items():
        moment = now - timedelta(days=days, hours=3)
        Judgment.objects.filter(pk__in=pks).update(created_at=moment, updated_at=moment)


def _assessors() -> list[User]:
    """Every assessor (active, not staff, in no team), the simulated colleagues created."""
    for username in SIMULATED:
        user, created = User.objects.get_or_create(
            username=username, defaults={"first_name": username.capitalize()}
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
    return list(assessor_candidates().order_by("id"))


def _judge_assignments(
    assignments: Iterable[Assignment],
    hits_by_topic: dict[int, list[int]],
    latent: dict[int, int],
    profiles: dict[int, Profile],
    rng: random.Random,
    share: float = 1.0,
) -> list[Judgment]:
    made: list[Judgment] = []
    for assignment in assignments:
        hits = hits_by_topic.get(assignment.topic_id, [])
        done = hits[: round(len(hits) * share)]
        made += simulated_judgments(assignment, done, latent, profiles[assignment.assessor_id], rng)
    return made


def _training_round(
    task: RetrievalTask,
    name: str,
    topics: list,  # type: ignore[type-arg]
    people: list[User],
    latent: dict[int, int],
    profiles: dict[int, Profile],
    rng: random.Random,
    organizer: User | None,
) -> None:
    numbers = {t.pk: t.number for t in topics}
    item_grade: dict[tuple[str, str], int] = {}
    rows = Hit.objects.filter(item__topic__in=topics).values_list(
        "pk", "item__key", "item__topic_id"
    )
    for hit_id, key, topic_id in rows:
        item_grade[(numbers[topic_id], key)] = latent[hit_id]
    training_round = training_round_create(
        task=task,
        name=name,
        topics=topics,
        assessors=people,
        created_by=organizer,
        qrels=item_grade,
        items_per_topic=6,
        seed=rng.randrange(1_000_000),
        show_gold_after_submit=True,
    )
    hits = defaultdict(list)
    for hit_id, topic_id in Hit.objects.filter(item__in=training_round.items.all()).values_list(
        "pk", "item__topic_id"
    ):
        hits[topic_id].append(hit_id)
    _store(_judge_assignments(training_round.assignments.all(), hits, latent, profiles, rng))
    for person in people:
        training_round_submit(training_round=training_round, assessor=person)


def demo_training_and_dual(campaign: Campaign | None) -> str:
    """Assign, dual-assess and train on the campaign's answer task; returns a summary line.

    Builds the answer task's pools first if nobody has; does nothing twice.
    """
    task = campaign.tasks.filter(kind=RetrievalTask.Kind.ANSWER).first() if campaign else None
    if campaign is None or task is None:
        return "no answer task: skipped the training rounds and dual assessment"
    if not PoolItem.objects.filter(topic__task=task).exists():
        pool_build(task=task)  # the demo's own pool step may not have run
    if not PoolItem.objects.filter(topic__task=task).exists():
        return "no runs to pool: skipped the training rounds and dual assessment"
    if task.training_rounds.exists():
        return "training rounds exist already"
    with transaction.atomic():
        return _demo(task, campaign)


def _first_topics_of_people(task: RetrievalTask, people: list[User]) -> list[Assignment]:
    """Each person's first active official assignment in the task that has no judgment."""
    first: dict[int, Assignment] = {}
    for assignment in Assignment.objects.filter(
        topic__task=task,
        purpose=Assignment.Purpose.OFFICIAL,
        revoked_at__isnull=True,
        assessor__in=people,
        judgments__isnull=True,
    ).order_by("topic_id"):
        first.setdefault(assignment.assessor_id, assignment)
    return list(first.values())


def _colleagues_take_over(
    task: RetrievalTask, simulated: list[User], organizer: User | None, rng: random.Random
) -> tuple[list[Assignment], list[Assignment]]:
    """The simulated colleagues take the topics nobody holds and dual-assess about a third of
    each other's; returns (their official assignments, the dual ones)."""
    assignments_balance(task=task, assessors=simulated, created_by=organizer)
    official = list(
        Assignment.objects.filter(
            topic__task=task,
            purpose=Assignment.Purpose.OFFICIAL,
            revoked_at__isnull=True,
            assessor__in=simulated,
        ).order_by("topic_id")
    )
    chosen = rng.sample(official, max(1, round(len(official) * 0.35))) if official else []
    if not chosen or len(simulated) < 2:
        return official, []
    duals = dual_assignments_create(
        task=task,
        assessors=simulated,
        created_by=organizer,
        topics=[a.topic for a in chosen],
        seed=rng.randrange(1_000_000),
    )
    return official, duals


def _hits_by_topic(task: RetrievalTask) -> dict[int, list[int]]:
    hits: dict[int, list[int]] = defaultdict(list)
    rows = (
        Hit.objects.filter(item__topic__task=task)
        .order_by("item__display_order", "position")
        .values_list("pk", "item__topic_id")
    )
    for hit_id, topic_id in rows:
        hits[topic_id].append(hit_id)
    return hits


def _demo(task: RetrievalTask, campaign: Campaign) -> str:
    rng = random.Random(campaign.seed)  # noqa: S311 (a reproducible demo)
    organizer = User.objects.filter(is_staff=True).order_by("id").first()
    people = _assessors()
    profiles = {p.pk: SIMULATED.get(p.username, CAREFUL) for p in people}
    simulated = [p for p in people if p.username in SIMULATED]
    latent = latent_grades(task)
    topics = list(task.topics.order_by("id"))
    # Improvement between rounds, as ARQMath saw: in round 2 everybody is more careful.
    first_round = {
        k: Profile(p.accuracy - 0.15, p.median_seconds, p.flag_rate) for k, p in profiles.items()
    }
    for name, round_topics, round_profiles in (
        ("Training round 1", topics[:2], first_round),
        ("Training round 2", topics[2:4] or topics[:2], profiles),
    ):
        _training_round(task, name, round_topics, people, latent, round_profiles, rng, organizer)
    official, duals = _colleagues_take_over(task, simulated, organizer, rng)
    hits = _hits_by_topic(task)
    made = []
    for assignment in official:
        share = rng.uniform(0.55, 1.0)  # the campaign is under way
        made += _judge_assignments([assignment], hits, latent, profiles, rng, share)
    made += _judge_assignments(duals, hits, latent, profiles, rng)
    # alice and bob have made a start on their first topic; the rest waits for a person.
    for assignment in _first_topics_of_people(task, [p for p in people if p not in simulated]):
        share = rng.uniform(0.3, 0.5)
        made += _judge_assignments([assignment], hits, latent, profiles, rng, share)
    _store(made)
    return (
        f"  2 training rounds ({len(people)} assessors), {len(official)} topics judged by "
        f"{len(simulated)} simulated colleagues, {len(duals)} of them dual-assessed, "
        f"{len(made)} judgments"
    )

"""Demo step: official, dual and training judgments that look like a real campaign's.

``demo_training_and_dual(campaign)`` gives the demo campaign's answer task two finished
training rounds (every assessor, alice and bob too) and, for four simulated colleagues of
different care and speed, the topics nobody holds (balanced), partly judged, some of them
dual-assessed, so the dashboard opens on real charts. Run it after the step that
gives alice and bob their topics: each has made a start on their first one, the rest waits for
a person to judge.

How the simulated assessors judge is ``demo.simulation``'s; their verdicts are stored through
the judging service (``demo.judging``).
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth.models import User
from django.db import transaction

from assessment.models import Assignment
from assessment.services.training import training_round_create, training_round_submit
from collection.models import Campaign, RetrievalTask
from demo.assignments import colleagues_take_over, first_unjudged_assignments
from demo.judging import simulated_submit
from demo.simulation import (
    CAREFUL,
    SIMULATED,
    HitRef,
    Profile,
    SimulatedJudgment,
    hits_by_topic,
    latent_grades,
    simulated_assessors,
    simulated_judgments,
)
from pooling.models import Hit, PoolItem
from pooling.services.pools import pool_build

__all__ = ["demo_training_and_dual"]


def _judge_assignments(
    assignments: Iterable[Assignment],
    hits_of_topic: dict[int, list[HitRef]],
    latent: dict[int, int],
    profiles: dict[int, Profile],
    rng: random.Random,
    share: float = 1.0,
) -> list[SimulatedJudgment]:
    made: list[SimulatedJudgment] = []
    for assignment in assignments:
        hits = hits_of_topic.get(assignment.topic_id, [])
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
    hits: dict[int, list[HitRef]] = defaultdict(list)
    round_hits = Hit.objects.filter(item__in=training_round.items.all()).values_list(
        "pk", "item_id", "item__topic_id"
    )
    for hit_id, item_id, topic_id in round_hits:
        hits[topic_id].append(HitRef(hit_id, item_id))
    assignments = training_round.assignments.all()
    simulated_submit(_judge_assignments(assignments, hits, latent, profiles, rng))
    for person in people:
        training_round_submit(training_round=training_round, assessor=person)


def demo_training_and_dual(campaign: Campaign | None) -> str:
    """Assign, dual-assess and train on the campaign's answer task; returns a summary line.

    Builds the answer task's pools first if nobody has; does nothing twice.
    """
    # The demo campaign has one answer task; the first by id should another be added by hand.
    task = (
        campaign.tasks.filter(kind=RetrievalTask.Kind.ANSWER).order_by("pk").first()
        if campaign
        else None
    )
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


def _demo(task: RetrievalTask, campaign: Campaign) -> str:
    rng = random.Random(campaign.seed)
    organizer = User.objects.filter(is_staff=True).order_by("id").first()
    people = simulated_assessors()
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
    official, duals = colleagues_take_over(task, simulated, organizer, rng)
    hits = hits_by_topic(task)
    made = []
    for assignment in official:
        share = rng.uniform(0.55, 1.0)  # the campaign is under way
        made += _judge_assignments([assignment], hits, latent, profiles, rng, share)
    made += _judge_assignments(duals, hits, latent, profiles, rng)
    # alice and bob have made a start on their first topic; the rest waits for a person.
    for assignment in first_unjudged_assignments(task, [p for p in people if p not in simulated]):
        share = rng.uniform(0.3, 0.5)
        made += _judge_assignments([assignment], hits, latent, profiles, rng, share)
    simulated_submit(made)
    return (
        f"  2 training rounds ({len(people)} assessors), {len(official)} topics judged by "
        f"{len(simulated)} simulated colleagues, {len(duals)} of them dual-assessed, "
        f"{len(made)} judgments"
    )

"""Simulated assessors of the demo: who they are, how they judge, what grade a hit deserves.

A hit's latent grade comes either from the generator's own truth (the TREC demo knows which
documents are about which topic) or, for the ARQMath demo, from how many runs put its item
high in their ranking (sum of 1/rank, ranked within its topic: top 8% High, next 12% Medium,
next 20% Low). An assessor reports it with their accuracy, else one grade off (sometimes two),
flags now and then, and takes a log-normal number of seconds around their own median.

This module decides the verdicts; ``demo.judging`` submits them through the judging service.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import User
from django.utils import timezone

from assessment.access import assessor_candidates
from assessment.models import Assignment, Judgment
from collection.models import RetrievalTask
from pooling.models import Contribution, Hit, PoolItem

__all__ = [
    "CAREFUL",
    "DAYS",
    "SIMULATED",
    "HitRef",
    "Profile",
    "SimulatedJudgment",
    "hits_by_topic",
    "latent_grades",
    "simulated_assessors",
    "simulated_judgments",
]

DAYS = 6  # simulated judgments are spread over the last days (the dashboard's progress chart)
DONT_KNOW_COMMENT = "I cannot tell whether this answers the question."


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


@dataclass(frozen=True)
class HitRef:
    """A hit and the pool item it belongs to (the judging service submits per item)."""

    hit_id: int
    item_id: int


@dataclass(frozen=True)
class SimulatedJudgment:
    """One verdict a simulated assessor gives, not stored yet."""

    assignment: Assignment
    hit: HitRef
    grade: int | None
    flag: str
    comment: str
    seconds: float
    when: datetime  # when it is shown as given (the service stores "now")


def simulated_assessors() -> list[User]:
    """Every assessor (active, not staff, in no team), the simulated colleagues created."""
    for username in SIMULATED:
        user, created = User.objects.get_or_create(
            username=username, defaults={"first_name": username.capitalize()}
        )
        if created:
            user.set_unusable_password()
            user.save(update_fields=["password"])
    return list(assessor_candidates().order_by("id"))


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


def hits_by_topic(task: RetrievalTask) -> dict[int, list[HitRef]]:
    """Topic id -> its hits in the order an assessor meets them."""
    hits: dict[int, list[HitRef]] = defaultdict(list)
    rows = (
        Hit.objects.filter(item__topic__task=task)
        .order_by("item__display_order", "position")
        .values_list("pk", "item_id", "item__topic_id")
    )
    for hit_id, item_id, topic_id in rows:
        hits[topic_id].append(HitRef(hit_id, item_id))
    return hits


def _report(latent: int, profile: Profile, rng: random.Random, top: int) -> int:
    if rng.random() < profile.accuracy:
        return latent
    step = 2 if rng.random() < 0.2 else 1
    direction = rng.choice((-1, 1))
    return min(top, max(0, latent + direction * step))


def simulated_judgments(
    assignment: Assignment,
    hits: Iterable[HitRef],
    latent: Mapping[int, int],
    profile: Profile,
    rng: random.Random,
    *,
    top: int = 3,
    flag_comment: str = DONT_KNOW_COMMENT,
) -> list[SimulatedJudgment]:
    """What a simulated assessor with ``profile`` says about ``hits`` (grades 0..``top``;
    a "do not know" flag says ``flag_comment``)."""
    now = timezone.now()
    result = []
    for hit in hits:
        seconds = rng.lognormvariate(math.log(profile.median_seconds), 0.6)
        flagged = rng.random() < profile.flag_rate
        result.append(
            SimulatedJudgment(
                assignment=assignment,
                hit=hit,
                grade=None if flagged else _report(latent.get(hit.hit_id, 0), profile, rng, top),
                flag=Judgment.Flag.DONT_KNOW if flagged else "",
                comment=flag_comment if flagged else "",
                seconds=round(seconds, 1),
                when=now - timedelta(days=rng.uniform(0, DAYS)),
            )
        )
    return result

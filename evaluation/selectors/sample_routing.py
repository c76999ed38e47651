"""Where a drawn human sample stands with the assessors: which pool items its drawn qrels ids
are, which still wait for a person, and how many are in some assessor's queue.

A drawn item is a qrels id as the task's qrels builder names it (topic number, item): the pool
item's key (a post id, a docno, or in a formula task the visual id).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from assessment.models import Assignment, AssignmentItem
from evaluation.models import HumanSample
from evaluation.selectors.human_sample import (
    SampleEstimates,
    human_sample_estimates,
    people_item_grades,
)
from pooling.models import PoolItem

__all__ = ["SampleRouting", "drawn_pool_items", "sample_routing", "samples_with_routing"]


def drawn_pool_items(sample: HumanSample) -> dict[tuple[str, str], tuple[int, int]]:
    """(topic number, qrels id) of each drawn item -> (topic id, pool item id), for the drawn
    items the pool still holds (two queries)."""
    task = sample.task
    drawn = set(sample.items.values_list("topic", "item"))
    if not drawn:
        return {}
    numbers = sorted({t for t, _ in drawn})
    found: dict[tuple[str, str], tuple[int, int]] = {}
    keys = sorted({i for _, i in drawn})
    items = PoolItem.objects.filter(
        topic__task=task, topic__number__in=numbers, key__in=keys
    ).values_list("topic__number", "key", "topic_id", "pk")
    for number, item_key, topic_id, item_id in items.iterator(chunk_size=5000):
        if (number, item_key) in drawn:
            found[(number, item_key)] = (topic_id, item_id)
    return found


@dataclass(frozen=True)
class SampleRouting:
    """A sample's drawn items: still in the pool, judged by people (the final qrels hold them),
    in an assessor's queue (an active official assignment reaches them, judged or not), and
    the pool items (topic id -> item ids) no person has judged yet, of which
    ``waiting_queued`` are in a queue (the rest are not sent yet)."""

    in_pool: int
    judged: int
    queued: int
    waiting: dict[int, list[int]]
    waiting_queued: int = 0

    @property
    def to_judge(self) -> int:
        """Drawn items still in the pool that no person has judged yet."""
        return sum(len(items) for items in self.waiting.values())

    @property
    def not_sent(self) -> int:
        """Drawn items no person has judged and no assessor's queue holds."""
        return self.to_judge - self.waiting_queued


def sample_routing(
    sample: HumanSample, *, people: dict[tuple[str, str], int] | None = None
) -> SampleRouting:
    """Where ``sample``'s drawn items stand (a fixed number of queries); ``people`` is
    ``people_item_grades(sample.task)`` when the caller has built it already."""
    pool = drawn_pool_items(sample)
    people = people_item_grades(sample.task) if people is None else people
    waiting: dict[int, list[int]] = {}
    for key, (topic_id, item_id) in pool.items():
        if key not in people:
            waiting.setdefault(topic_id, []).append(item_id)
    officials = Assignment.objects.filter(
        topic__task=sample.task, purpose=Assignment.Purpose.OFFICIAL, revoked_at__isnull=True
    )
    whole_topics = set(officials.filter(scoped=False).values_list("topic_id", flat=True))
    # Every scoped item of the task's active official assignments: bounded by the pools, and
    # no list of the drawn items in the SQL.
    scoped_items = set(
        AssignmentItem.objects.filter(assignment__in=officials.filter(scoped=True)).values_list(
            "item_id", flat=True
        )
    )

    def reached(topic_id: int, item_id: int) -> bool:
        return topic_id in whole_topics or item_id in scoped_items

    queued = sum(1 for topic_id, item_id in pool.values() if reached(topic_id, item_id))
    waiting_queued = sum(
        1 for topic_id, items in waiting.items() for item_id in items if reached(topic_id, item_id)
    )
    return SampleRouting(
        in_pool=len(pool),
        judged=len(people.keys() & pool.keys()),
        queued=queued,
        waiting=waiting,
        waiting_queued=waiting_queued,
    )


def samples_with_routing(
    samples: Iterable[HumanSample],
) -> list[tuple[SampleEstimates, SampleRouting]]:
    """Each of one task's ``samples`` with its estimates and its routing, the people's qrels
    built once for all of them (they are the task's, whichever judge a sample is drawn for)."""
    found: list[tuple[SampleEstimates, SampleRouting]] = []
    people: dict[tuple[str, str], int] | None = None
    for sample in samples:
        if people is None:
            people = people_item_grades(sample.task)
        found.append(
            (
                human_sample_estimates(sample=sample, people=people),
                sample_routing(sample, people=people),
            )
        )
    return found

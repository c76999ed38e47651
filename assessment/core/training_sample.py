"""Which items a training round shows: a few per topic, every gold grade represented."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from typing import TypeVar

Item = TypeVar("Item")


def sample_across_grades(
    graded: Sequence[tuple[Item, int]], count: int, rng: random.Random
) -> list[Item]:
    """Up to ``count`` items taking grades in turn, top down (3, 2, 1, 0, 3, ...), so that every
    grade the topic has shows in the round; within a grade the choice is ``rng``'s.

    The result is in the order picked; callers put it in display order."""
    buckets: dict[int, list[Item]] = defaultdict(list)
    for item, grade in graded:
        buckets[grade].append(item)
    for bucket in buckets.values():
        rng.shuffle(bucket)
    chosen: list[Item] = []
    while len(chosen) < count and any(buckets.values()):
        for grade in sorted(buckets, reverse=True):
            if buckets[grade] and len(chosen) < count:
                chosen.append(buckets[grade].pop())
    return chosen

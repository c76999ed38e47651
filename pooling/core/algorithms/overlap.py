"""How runs share pool items: per run its unique items, per team its unique items, per pair of
runs the items both pooled (the organizers' overlap table).

Each run's items become one bit set (a Python int, a bit per distinct item), so a pair's shared
items are one AND and a bit count, whatever the number of items the two share. Counting pairs
row by row (a self-join in SQL, a loop over each item's runs in Python) grows with the square of
the runs that share an item: at full size (40 runs, 100 topics) that was 180,000 pairs per task
and most of the 0.5 s the statistics took uncached.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field


@dataclass
class Overlap:
    pooled: dict[int, int] = field(default_factory=dict)  # run -> items it pooled
    unique: dict[int, int] = field(default_factory=dict)  # run -> items no other run pooled
    team_unique: dict[int, int] = field(default_factory=dict)  # team -> items no other team
    shared: dict[tuple[int, int], int] = field(default_factory=dict)  # (run a < run b) -> n


def _bit_sets(items_by_run: Mapping[int, Iterable[int]]) -> dict[int, int]:
    """Run -> the bit set of its items (bit n: the n-th distinct item id)."""
    runs = {run: set(items) for run, items in items_by_run.items()}
    every = sorted(set().union(*runs.values()))
    ordinal = {item: n for n, item in enumerate(every)}
    sets = {}
    for run, items in runs.items():
        # A string of binary digits read by int() builds the set in one step, where OR-ing
        # bits one at a time would copy the growing int once per item.
        digits = bytearray(b"0" * len(every))
        for item in items:
            digits[ordinal[item]] = ord("1")
        sets[run] = int(digits, 2) if digits else 0
    return sets


def _only_one(sets: Iterable[int]) -> int:
    """The items exactly one of ``sets`` holds."""
    once = twice = 0
    for bits in sets:
        twice |= once & bits
        once |= bits
    return once & ~twice


def pool_overlap(items_by_run: Mapping[int, Iterable[int]], team_of: Mapping[int, int]) -> Overlap:
    """Pooled, unique and shared item counts of the runs in ``items_by_run`` (run -> ids of
    the items it put in the pool); ``team_of`` maps each run to its team. A team's unique items
    are those no run of another team pooled. Pairs that share nothing are left out."""
    sets = _bit_sets(items_by_run)
    result = Overlap()
    alone = _only_one(sets.values())
    for run, bits in sets.items():
        result.pooled[run] = bits.bit_count()
        result.unique[run] = (bits & alone).bit_count()
    by_team: dict[int, int] = defaultdict(int)
    for run, bits in sets.items():
        by_team[team_of[run]] |= bits
    team_alone = _only_one(by_team.values())
    for team, bits in by_team.items():
        result.team_unique[team] = (bits & team_alone).bit_count()
    ordered = sorted(sets.items())
    for n, (a, bits_a) in enumerate(ordered):
        for b, bits_b in ordered[n + 1 :]:
            count = (bits_a & bits_b).bit_count()
            if count:
                result.shared[a, b] = count
    return result

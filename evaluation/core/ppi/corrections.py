"""The corrections the estimate makes to the machine's grades before the unbiased step: per
(topic, stratum) cell a shift, per stratum a slope on the runs' support. Fitted on the judged
items, weighted by 1/pi. Pure, no Django."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from evaluation.core.human_sample import ItemKey
from evaluation.core.ppi.measures import NDCG_DEPTH, discount
from evaluation.core.ranking import trec_top


@dataclass(frozen=True)
class Judged:
    key: ItemKey
    stratum: str
    inclusion: float
    grade: int


MIN_CELL = 3  # judged items a (topic, stratum) cell needs for its own correction
# Judged items (in cells of two or more) a stratum needs for a slope on the runs' support: the
# variance leaves the slope's own noise out, which only many items make small.
MIN_SLOPE_ITEMS = 20


def _weighted_means(
    judged: Sequence[Judged], error: Mapping[ItemKey, float], group: Callable[[Judged], str]
) -> tuple[dict[str, float], dict[str, int]]:
    weighted: dict[str, float] = defaultdict(float)
    mass: dict[str, float] = defaultdict(float)
    count: dict[str, int] = defaultdict(int)
    for item in judged:
        weighted[group(item)] += error[item.key] / item.inclusion
        mass[group(item)] += 1 / item.inclusion
        count[group(item)] += 1
    return {g: weighted[g] / mass[g] for g in weighted}, count


@dataclass(frozen=True)
class Shifts:
    """b for an item of (topic, stratum): the mean error, weighted by 1/pi, of the judged
    items of its topic and stratum when there are ``MIN_CELL`` of them, else of its stratum
    when two, else 0. A topic's prevalence of relevant items moves the machine's errors, so
    the topic's own cell corrects best where it has the items to do it."""

    cells: dict[str, float]
    cell_count: dict[str, int]
    strata: dict[str, float]
    stratum_count: dict[str, int]

    def used(self, topic: str, stratum: str) -> int:
        """How many judged items the item's shift is the mean of (0: no shift)."""
        if self.cell_count.get(f"{topic}\t{stratum}", 0) >= MIN_CELL:
            return self.cell_count[f"{topic}\t{stratum}"]
        found = self.stratum_count.get(stratum, 0)
        return found if found >= 2 else 0

    def __call__(self, topic: str, stratum: str) -> float:
        cell = f"{topic}\t{stratum}"
        if self.cell_count.get(cell, 0) >= MIN_CELL:
            return self.cells[cell]
        return self.strata[stratum] if self.stratum_count.get(stratum, 0) >= 2 else 0.0

    def inflation(self, topic: str, stratum: str) -> float:
        """sqrt(n / (n - 1)) for a residual from a mean of n items it is part of: such a
        residual is shrunk towards 0 by the fit, and the variance would come out too small
        (the degrees-of-freedom correction of a fitted mean)."""
        n = self.used(topic, stratum)
        return math.sqrt(n / (n - 1)) if n >= 2 else 1.0


def fitted_shifts(judged: Sequence[Judged], error: Mapping[ItemKey, float]) -> Shifts:
    cells, cell_count = _weighted_means(judged, error, lambda j: f"{j.key[0]}\t{j.stratum}")
    strata, stratum_count = _weighted_means(judged, error, lambda j: j.stratum)
    return Shifts(cells, cell_count, strata, stratum_count)


def run_support(
    runs: Iterable[Mapping[str, Mapping[str, float]]],
    items: Iterable[ItemKey],
    *,
    depth: int = NDCG_DEPTH,
) -> dict[ItemKey, float]:
    """x_d = log(1 + sum over runs of 1/log2(rank + 1)) for every item, ranks within
    ``depth``: how high and how often the runs retrieve it. What many runs rank high is more
    often relevant (the runs' consensus), whatever the machine said of it, so it predicts the
    machine's error."""
    votes: dict[ItemKey, float] = defaultdict(float)
    for run in runs:
        for topic, docs in run.items():
            for rank, doc in enumerate(trec_top(docs, depth), start=1):
                votes[(topic, doc)] += discount(rank)
    return {key: math.log1p(votes.get(key, 0.0)) for key in items}


def fitted_slopes(
    judged: Sequence[Judged], error: Mapping[ItemKey, float], support: Mapping[ItemKey, float]
) -> dict[str, float]:
    """Per stratum, the slope of the machine's error on the runs' support x_d: weighted (1/pi)
    least squares within (topic, stratum) cells, so that it is fitted on what differs inside
    a cell and leaves the cell's own level to its shift. A cell needs two judged items, a
    stratum ``MIN_SLOPE_ITEMS`` (else no slope)."""
    by_cell: dict[str, list[Judged]] = defaultdict(list)
    for j in judged:
        by_cell[f"{j.key[0]}\t{j.stratum}"].append(j)
    covariance: dict[str, float] = defaultdict(float)
    spread: dict[str, float] = defaultdict(float)
    used: dict[str, int] = defaultdict(int)
    for members in by_cell.values():
        if len(members) < 2:
            continue
        used[members[0].stratum] += len(members)
        mass = sum(1 / j.inclusion for j in members)
        x_mean = sum(support.get(j.key, 0.0) / j.inclusion for j in members) / mass
        e_mean = sum(error[j.key] / j.inclusion for j in members) / mass
        for j in members:
            dx = support.get(j.key, 0.0) - x_mean
            covariance[j.stratum] += dx * (error[j.key] - e_mean) / j.inclusion
            spread[j.stratum] += dx * dx / j.inclusion
    return {
        h: covariance[h] / spread[h]
        for h in covariance
        if spread[h] > 1e-12 and used[h] >= MIN_SLOPE_ITEMS
    }

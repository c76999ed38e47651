"""The measures the people-and-machine estimate covers: those that are a weighted sum of
per-item gains (``P_k``, ``ndcg_cut_k``, ``ndcg``), each item's weight c_d in a run, and a
topic's normaliser. Pure, no Django."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from evaluation.core.human_sample import ItemKey, MachineGrade
from evaluation.core.ranking import trec_top

LinearKind = Literal["P", "ndcg_cut", "ndcg"]
NDCG_DEPTH = 1000  # trec_eval's -M for a full nDCG


class UnsupportedMeasure(ValueError):
    """A measure that is not a weighted sum of per-item gains (AP, bpref, ...)."""


@dataclass(frozen=True)
class LinearMeasure:
    name: str
    kind: LinearKind
    k: int
    relevance_level: int = 1

    def gain(self, grade: int) -> float:
        if self.kind == "P":
            return 1.0 if grade >= self.relevance_level else 0.0
        return float(max(grade, 0))

    def gains(self, grades: Sequence[int]) -> dict[int, float]:
        return {g: self.gain(g) for g in grades}


_P = re.compile(r"P_(\d+)")
_NDCG_CUT = re.compile(r"ndcg_cut_(\d+)")


def linear_measure(name: str, trec: str, *, relevance_level: int = 1) -> LinearMeasure:
    """The measure named ``name`` (trec_eval's key ``trec``) as a weighted sum of gains."""
    if found := _P.fullmatch(trec):
        return LinearMeasure(name, "P", int(found.group(1)), relevance_level)
    if found := _NDCG_CUT.fullmatch(trec):
        return LinearMeasure(name, "ndcg_cut", int(found.group(1)), relevance_level)
    if trec == "ndcg":
        return LinearMeasure(name, "ndcg", NDCG_DEPTH, relevance_level)
    raise UnsupportedMeasure(
        f"{name}: not a weighted sum of per-item grades (the estimate covers P_k, ndcg_cut_k "
        "and ndcg)"
    )


def discount(rank: int) -> float:
    return 1.0 / math.log2(rank + 1)


def ideal_dcg(m: LinearMeasure, counts: Mapping[int, float]) -> float:
    """A topic's ideal DCG@k (or k for P_k) from its count of items at each grade."""
    if m.kind == "P":
        return float(m.k)
    ideal: list[float] = []
    for grade in sorted(counts, reverse=True):
        if m.gain(grade) > 0:
            ideal.extend([m.gain(grade)] * max(0, round(counts[grade])))
        if len(ideal) >= m.k:
            break
    return sum(g * discount(rank) for rank, g in enumerate(ideal[: m.k], start=1))


def run_weights(
    m: LinearMeasure,
    run: Mapping[str, Mapping[str, float]],
    topics: Sequence[str],
    norms: Mapping[str, float],
) -> dict[ItemKey, float]:
    """Item -> c_d, the weight the measure gives its gain in this run's mean over ``topics``
    (a topic's ``norms``: k for P_k, its ideal DCG for nDCG; 0: the topic scores 0)."""
    weights: dict[ItemKey, float] = {}
    for topic in topics:
        docs, norm = run.get(topic), norms.get(topic, 0.0)
        if not docs or norm <= 0:
            continue
        for rank, doc in enumerate(trec_top(docs, m.k), start=1):
            weights[(topic, doc)] = (1.0 if m.kind == "P" else discount(rank)) / norm / len(topics)
    return weights


def machine_norms(
    m: LinearMeasure, machine: Mapping[ItemKey, MachineGrade], topics: Sequence[str]
) -> dict[str, float]:
    """Each topic's normaliser under the machine's grades alone (for planning a sample)."""
    counts: dict[str, dict[int, float]] = {t: defaultdict(float) for t in topics}
    for (topic, _), found in machine.items():
        if topic in counts:
            for grade, share in found.shares().items():
                counts[topic][grade] += share
    return {t: ideal_dcg(m, counts[t]) for t in topics}


def exact_value(
    m: LinearMeasure,
    run: Mapping[str, Mapping[str, float]],
    grades: Mapping[str, Mapping[str, int]],
    topics: Sequence[str],
) -> float:
    """The measure under complete grades, by the same weighted sum: what a full sample gives."""
    chosen = sorted(set(topics))
    norms: dict[str, float] = {}
    for topic in chosen:
        counts: dict[int, float] = defaultdict(float)
        for grade in grades.get(topic, {}).values():
            counts[grade] += 1
        norms[topic] = ideal_dcg(m, counts)
    weights = run_weights(m, run, chosen, norms)
    return sum(c * m.gain(grades.get(t, {}).get(d, 0)) for (t, d), c in weights.items())

"""People and machine together: a run's measure estimated from a machine judge's grades of
every pool item, corrected by people's grades of a stratified sample of them, with a 95%
confidence interval. Pure, no Django.

Prediction-powered inference (Angelopoulos et al., Science 2023) as Oosterhuis et al. apply it
to IR evaluation ("Reliable Confidence Intervals for Information Retrieval Evaluation Using
Generative A.I.", KDD 2024, §4): the measure under the machine's labels, plus the mean error
of those labels measured where people judged (the rectifier), with an interval from the
variance of that correction. Here the people's sample is of pool items, drawn by
``evaluation.core.human_sample`` with a known inclusion probability pi_d for each, so the
rectifier is a Horvitz-Thompson sum and its variance Poisson sampling's (Särndal, Swensson and
Wretman 1992, §3.5, with the stratum corrections below as their §6.6 regression estimator):

    theta = sum_d c_d m'_d + sum_{d in S} c_d (g_d - m'_d) / pi_d
    var   = sum_{d in S} (1 - pi_d) (c_d (g_d - m'_d) / pi_d)^2

with m_d the gain the machine expects of item d (of its grade, or over its grade
probabilities), g_d the gain of the people's grade, c_d the weight the measure gives the item
in this run, and m'_d = m_d + gamma_h x_d + b_h the prediction of g_d: b_h the mean error
measured in the sample of the item's (topic, stratum) cell, or of its stratum when the cell has
too few judged items (weighted by 1/pi_d; see ``_Shifts``), so that a judge that is lenient on
its grade-1 items is corrected on all of them, not only the sampled ones; x_d the runs' support
of the item (``run_support``: how high and how many runs rank it) and gamma_h its slope in the
stratum, fitted on the judged items by weighted least squares with one level per cell. The
runs' consensus predicts relevance where the machine is wrong (a grade-0 item every run ranks
first is often relevant), so the residuals g_d - m'_d are smaller and so is the variance: on
TREC-COVID round 1 the intervals narrow by about 12%. The slope is one coefficient per stratum
fitted on hundreds of items; the variance leaves out its own fitting noise, as it does the
normaliser's (the coverage check is what says the intervals still hold). The target is the
measure under the full people's qrels of these pool items (a finite population), which is what
the intervals are checked to cover.

Measures that are a weighted sum of per-item gains are estimated this way: ``P_k`` (gain 1
from the relevance level) and ``ndcg_cut_k`` / ``ndcg`` (gain the grade; trec_eval's
1/log2(rank + 1) discount). nDCG's normaliser (the ideal DCG of the topic) depends on every
item's grade: it is computed from the topic's grade counts estimated the same way (machine
counts plus the weighted corrections) and then held fixed, so the interval leaves out the
normaliser's own uncertainty. Means are over ``topics`` (trec_eval -c: every qrels topic,
a topic missing from the run scores 0). A sampled item people have not judged yet is left
out, which keeps the estimate unbiased only when what is left unjudged is unrelated to the
grade: the pages say how many of the drawn items are judged.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from evaluation.core.human_sample import HumanSample, ItemKey, MachineGrade, stratum_of
from evaluation.core.ranking import trec_top

Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile
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


@dataclass(frozen=True)
class Estimate:
    """A run's measure estimated from machine and people, with what it rests on."""

    measure: str
    value: float
    low: float
    high: float
    std_error: float
    machine_only: float  # the measure under the machine's grades alone
    n_human: int  # sampled items people judged
    n_machine: int  # items the machine graded

    def covers(self, truth: float) -> bool:
        return self.low - 1e-12 <= truth <= self.high + 1e-12


def _discount(rank: int) -> float:
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
    return sum(g * _discount(rank) for rank, g in enumerate(ideal[: m.k], start=1))


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
            weights[(topic, doc)] = (1.0 if m.kind == "P" else _discount(rank)) / norm / len(topics)
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


@dataclass(frozen=True)
class _Judged:
    key: ItemKey
    stratum: str
    inclusion: float
    grade: int


MIN_CELL = 3  # judged items a (topic, stratum) cell needs for its own correction
# Judged items (in cells of two or more) a stratum needs for a slope on the runs' support: the
# variance leaves the slope's own noise out, which only many items make small.
MIN_SLOPE_ITEMS = 20


def _weighted_means(
    judged: Sequence[_Judged], error: Mapping[ItemKey, float], group: Callable[[_Judged], str]
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
class _Shifts:
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


def _shifts(judged: Sequence[_Judged], error: Mapping[ItemKey, float]) -> _Shifts:
    cells, cell_count = _weighted_means(judged, error, lambda j: f"{j.key[0]}\t{j.stratum}")
    strata, stratum_count = _weighted_means(judged, error, lambda j: j.stratum)
    return _Shifts(cells, cell_count, strata, stratum_count)


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
                votes[(topic, doc)] += _discount(rank)
    return {key: math.log1p(votes.get(key, 0.0)) for key in items}


def _slopes(
    judged: Sequence[_Judged], error: Mapping[ItemKey, float], support: Mapping[ItemKey, float]
) -> dict[str, float]:
    """Per stratum, the slope of the machine's error on the runs' support x_d: weighted (1/pi)
    least squares within (topic, stratum) cells, so that it is fitted on what differs inside
    a cell and leaves the cell's own level to its shift. A cell needs two judged items, a
    stratum ``MIN_SLOPE_ITEMS`` (else no slope)."""
    by_cell: dict[str, list[_Judged]] = defaultdict(list)
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


class PpiEvaluator:
    """Estimates for many runs over one machine judge, one sample and people's grades of it;
    ``support``: each item's x_d (``run_support`` over every run of the task), None to
    predict from the machine's grades alone."""

    def __init__(
        self,
        machine: Mapping[ItemKey, MachineGrade],
        sample: HumanSample,
        human: Mapping[ItemKey, int],
        measures: Sequence[LinearMeasure],
        topics: Sequence[str],
        *,
        grades: Sequence[int],
        support: Mapping[ItemKey, float] | None = None,
    ) -> None:
        self.measures = list(measures)
        self.topics = sorted(set(topics))
        self.n_machine = len(machine)
        self.judged = [
            _Judged((d.topic, d.item), d.stratum, d.inclusion, human[(d.topic, d.item)])
            for d in sample.draws
            if (d.topic, d.item) in human and (d.topic, d.item) in machine
        ]
        self.n_human = len(self.judged)
        self.stratum = {key: stratum_of(found) for key, found in machine.items()}
        self._groups(machine)
        # Per measure: m'_d of every machine-graded item, and (pi_d, g_d - m'_d) of the judged.
        self.calibrated: dict[str, dict[ItemKey, float]] = {}
        self.residual: dict[str, dict[ItemKey, tuple[float, float, float]]] = {}
        self.norms: dict[str, dict[str, float]] = {}
        self.expected: dict[str, dict[ItemKey, float]] = {}
        self.machine_norms: dict[str, dict[str, float]] = {}
        for m in self.measures:
            gain = m.gains(grades)
            expected = {key: found.expected(gain) for key, found in machine.items()}
            predicted = expected
            if support is not None:
                error = {j.key: m.gain(j.grade) - expected[j.key] for j in self.judged}
                slopes = _slopes(self.judged, error, support)
                predicted = {
                    k: v + slopes.get(self.stratum[k], 0.0) * support.get(k, 0.0)
                    for k, v in expected.items()
                }
            error = {j.key: m.gain(j.grade) - predicted[j.key] for j in self.judged}
            shift = _shifts(self.judged, error)
            calibrated = {k: v + shift(k[0], self.stratum[k]) for k, v in predicted.items()}
            self.calibrated[m.name] = calibrated
            self.expected[m.name] = expected
            self.machine_norms[m.name] = machine_norms(m, machine, self.topics)
            self.residual[m.name] = {
                j.key: (
                    j.inclusion,
                    m.gain(j.grade) - calibrated[j.key],
                    shift.inflation(j.key[0], j.stratum),
                )
                for j in self.judged
            }
            self.norms[m.name] = (
                dict.fromkeys(self.topics, float(m.k))
                if m.kind == "P"
                else self._estimated_norms(m, machine, grades)
            )

    def _groups(self, machine: Mapping[ItemKey, MachineGrade]) -> None:
        """Which judged items each item's correction is the mean of: its (topic, stratum)
        cell (``c:``), its stratum (``s:``) or none; and each group's weight sum of 1/pi.
        The variance needs them: a correction fitted on a group's judged items moves every
        item of the group the run counts, so each judged item carries that share too."""
        cells: dict[str, int] = defaultdict(int)
        strata: dict[str, int] = defaultdict(int)
        for j in self.judged:
            cells[f"{j.key[0]}\t{j.stratum}"] += 1
            strata[j.stratum] += 1

        def group(topic: str, stratum: str) -> str | None:
            if cells.get(f"{topic}\t{stratum}", 0) >= MIN_CELL:
                return f"c:{topic}\t{stratum}"
            return f"s:{stratum}" if strata.get(stratum, 0) >= 2 else None

        self.group = {key: group(key[0], self.stratum[key]) for key in machine}
        self.mass: dict[str, float] = defaultdict(float)
        for j in self.judged:
            own = self.group[j.key]
            if own is not None and own.startswith("c:"):
                self.mass[own] += 1 / j.inclusion
            if strata[j.stratum] >= 2:
                self.mass[f"s:{j.stratum}"] += 1 / j.inclusion

    def _variance(
        self,
        weights: Mapping[ItemKey, float],
        residual: Mapping[ItemKey, tuple[float, float, float]],
    ) -> float:
        """Poisson sampling's variance of the estimate, each judged item weighted by its own
        c_d plus its share of the corrections its groups spread over the run's other items
        (the g-weights of the regression estimator, Särndal et al. 1992, §6.6)."""
        spread: dict[str, float] = defaultdict(float)
        for key, c in weights.items():
            found = self.group.get(key)
            if found is not None:
                spread[found] += c
                if key in residual:
                    spread[found] -= c / residual[key][0]
        variance = 0.0
        for j in self.judged:
            inclusion, error, inflation = residual[j.key]
            own = self.group[j.key]
            w = weights.get(j.key, 0.0)
            if own is not None and own.startswith("c:") and own in spread:
                w += spread[own] / self.mass[own]
            wide = f"s:{j.stratum}"
            if wide in spread:
                w += spread[wide] / self.mass[wide]
            if w:
                variance += (1 - inclusion) * (w * error * inflation / inclusion) ** 2
        return variance

    def _estimated_norms(
        self, m: LinearMeasure, machine: Mapping[ItemKey, MachineGrade], grades: Sequence[int]
    ) -> dict[str, float]:
        """Each topic's ideal DCG from its grade counts, estimated as the measure is: the
        machine's (calibrated per stratum) plus the judged items' weighted corrections."""
        counts: dict[str, dict[int, float]] = {t: defaultdict(float) for t in self.topics}
        for grade in grades:
            indicator = {g: float(g == grade) for g in grades}
            expected = {key: found.expected(indicator) for key, found in machine.items()}
            error = {j.key: float(j.grade == grade) - expected[j.key] for j in self.judged}
            shift = _shifts(self.judged, error)
            for key, value in expected.items():
                if key[0] in counts:
                    counts[key[0]][grade] += value + shift(key[0], self.stratum[key])
            for j in self.judged:
                if j.key[0] in counts:
                    residual = error[j.key] - shift(j.key[0], j.stratum)
                    counts[j.key[0]][grade] += residual / j.inclusion
        return {t: ideal_dcg(m, counts[t]) for t in self.topics}

    def estimate(self, run: Mapping[str, Mapping[str, float]]) -> dict[str, Estimate]:
        """Every measure's estimate for one run (topic -> doc -> score)."""
        found: dict[str, Estimate] = {}
        for m in self.measures:
            weights = run_weights(m, run, self.topics, self.norms[m.name])
            calibrated, residual = self.calibrated[m.name], self.residual[m.name]
            value = 0.0
            for key, c in weights.items():
                value += c * calibrated.get(key, 0.0)
                if key in residual:
                    inclusion, error, _ = residual[key]
                    value += c * error / inclusion
            variance = self._variance(weights, residual)
            alone = self.expected[m.name]
            machine_only = sum(
                c * alone.get(key, 0.0)
                for key, c in run_weights(m, run, self.topics, self.machine_norms[m.name]).items()
            )
            error = math.sqrt(variance)
            found[m.name] = Estimate(
                measure=m.name,
                value=value,
                low=value - Z_95 * error,
                high=value + Z_95 * error,
                std_error=error,
                machine_only=machine_only,
                n_human=self.n_human,
                n_machine=self.n_machine,
            )
        return found


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

"""The estimator: a run's measure from the machine's grades, corrected by the people's
grades of the sample, with its 95% interval (the package's doc says how). Pure, no Django."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluation.core.human_sample import HumanSample, ItemKey, MachineGrade, stratum_of
from evaluation.core.ppi.corrections import MIN_CELL, Judged, fitted_shifts, fitted_slopes
from evaluation.core.ppi.measures import (
    LinearMeasure,
    ideal_dcg,
    machine_norms,
    run_weights,
)
from evaluation.core.ppi.shrinkage import shrunk_remainders

Z_95 = 1.959963984540054  # the standard normal's 97.5% quantile
# How many judged items the anticipated variance counts for when a run's variance is pooled
# with it: on TREC-COVID round 1 at 10%, 5 covers 94.6% / 94.8% (nDCG@10 / P@5), 10 covers
# 95.2% / 95.5%, 30 covers 96.2% / 95.1%; the larger of the two variances, 98%.
PRIOR_ITEMS = 10


@dataclass(frozen=True)
class Estimate:
    """A run's measure estimated from machine and people, with what it rests on."""

    measure: str
    value: float  # the point estimate: the unbiased one with its remainder shrunk
    low: float
    high: float
    std_error: float  # of the unbiased estimate
    unbiased: float  # the interval's centre
    machine_only: float  # the measure under the machine's grades alone
    n_human: int  # sampled items people judged
    n_machine: int  # items the machine graded

    def covers(self, truth: float) -> bool:
        return self.low - 1e-12 <= truth <= self.high + 1e-12


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
        self.chances = sample.chances
        self.topics = sorted(set(topics))
        self.n_machine = len(machine)
        self.judged = [
            Judged((d.topic, d.item), d.stratum, d.inclusion, human[(d.topic, d.item)])
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
        self.spread: dict[str, dict[str, float]] = {}
        self.expected: dict[str, dict[ItemKey, float]] = {}
        self.machine_norms: dict[str, dict[str, float]] = {}
        for m in self.measures:
            gain = m.gains(grades)
            expected = {key: found.expected(gain) for key, found in machine.items()}
            predicted = expected
            if support is not None:
                error = {j.key: m.gain(j.grade) - expected[j.key] for j in self.judged}
                slopes = fitted_slopes(self.judged, error, support)
                predicted = {
                    k: v + slopes.get(self.stratum[k], 0.0) * support.get(k, 0.0)
                    for k, v in expected.items()
                }
            error = {j.key: m.gain(j.grade) - predicted[j.key] for j in self.judged}
            shift = fitted_shifts(self.judged, error)
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
            self.spread[m.name] = _residual_spread(self.judged, self.residual[m.name])
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
            shift = fitted_shifts(self.judged, error)
            for key, value in expected.items():
                if key[0] in counts:
                    counts[key[0]][grade] += value + shift(key[0], self.stratum[key])
            for j in self.judged:
                if j.key[0] in counts:
                    residual = error[j.key] - shift(j.key[0], j.stratum)
                    counts[j.key[0]][grade] += residual / j.inclusion
        return {t: ideal_dcg(m, counts[t]) for t in self.topics}

    def _anticipated(self, m: LinearMeasure, weights: Mapping[ItemKey, float]) -> float:
        """The variance the design anticipates for the run: sum over its graded items of
        c^2 sigma_h^2 (1 - pi) / pi, sigma_h^2 the spread of the residuals in the item's
        stratum. It needs every item's pi (the sample's ``chances``), drawn or not; without
        them, 0."""
        spread, total = self.spread[m.name], 0.0
        for key, c in weights.items():
            chance = self.chances.get(key)
            if chance:
                sigma2 = spread.get(self.stratum.get(key, ""), spread.get("", 0.0))
                total += c * c * sigma2 * (1 - chance) / chance
        return total

    def _moderated(self, design: float, anticipated: float, *, judged: int) -> float:
        """The run's variance: Poisson sampling's estimate is a sum over the run's judged
        items, and a run whose items few others rank may have two or three judged, their
        residuals small by chance. It is pooled with the variance the design anticipates
        from the strata's spread of residuals (Särndal et al. 1992, §6.7) as a prior worth
        ``PRIOR_ITEMS`` judged items: (d0 a + n v) / (d0 + n), the moderated variance of
        Smyth ("Linear models and empirical Bayes methods for assessing differential
        expression", SAGMB 2004, §4). Without every item's pi, the design's estimate alone."""
        if not self.chances:
            return design
        return (PRIOR_ITEMS * anticipated + judged * design) / (PRIOR_ITEMS + judged)

    def _parts(self, m: LinearMeasure, run: Mapping[str, Mapping[str, float]]) -> _RunParts:
        weights = run_weights(m, run, self.topics, self.norms[m.name])
        calibrated, residual = self.calibrated[m.name], self.residual[m.name]
        known, remainder = 0.0, 0.0
        for key, c in weights.items():
            known += c * calibrated.get(key, 0.0)
            if key in residual:
                inclusion, error, _ = residual[key]
                known += c * error
                remainder += c * error * (1 - inclusion) / inclusion
        variance = self._moderated(
            self._variance(weights, residual),
            self._anticipated(m, weights),
            judged=sum(1 for key in weights if key in residual),
        )
        rest = {key: (p, e * (1 - p), f) for key, (p, e, f) in residual.items()}
        alone = self.expected[m.name]
        machine_only = sum(
            c * alone.get(key, 0.0)
            for key, c in run_weights(m, run, self.topics, self.machine_norms[m.name]).items()
        )
        return _RunParts(known, remainder, variance, self._variance(weights, rest), machine_only)

    def _estimate(self, m: LinearMeasure, parts: _RunParts, remainder: float) -> Estimate:
        unbiased = parts.known + parts.remainder
        value = parts.known + remainder
        error = math.sqrt(parts.variance)
        return Estimate(
            measure=m.name,
            value=value,
            # The unbiased interval, widened to hold the point estimate should the shrinkage
            # have taken it outside (it rarely does: a remainder far from the runs' mean is
            # one the run's own variance does not explain, and is kept).
            low=min(unbiased - Z_95 * error, value),
            high=max(unbiased + Z_95 * error, value),
            std_error=error,
            unbiased=unbiased,
            machine_only=parts.machine_only,
            n_human=self.n_human,
            n_machine=self.n_machine,
        )

    def estimate(self, run: Mapping[str, Mapping[str, float]]) -> dict[str, Estimate]:
        """Every measure's unbiased estimate for one run (topic -> doc -> score), alone: with
        no other runs to compare its correction with, nothing is shrunk."""
        found: dict[str, Estimate] = {}
        for m in self.measures:
            parts = self._parts(m, run)
            found[m.name] = self._estimate(m, parts, parts.remainder)
        return found

    def estimate_runs(
        self, runs: Mapping[str, Mapping[str, Mapping[str, float]]]
    ) -> dict[str, dict[str, Estimate]]:
        """Every run's estimates (label -> measure -> estimate), each run's correction for
        the items nobody judged shrunk toward the runs' mean (``shrinkage``)."""
        found: dict[str, dict[str, Estimate]] = {label: {} for label in runs}
        for m in self.measures:
            parts = {label: self._parts(m, run) for label, run in runs.items()}
            shrunk = shrunk_remainders(
                {label: (p.remainder, p.remainder_variance) for label, p in parts.items()}
            )
            for label, p in parts.items():
                found[label][m.name] = self._estimate(m, p, shrunk[label])
        return found


@dataclass(frozen=True)
class _RunParts:
    """One run's estimate in pieces: the known part (the calibrated machine over every item,
    each judged item's residual at its own weight), the Horvitz-Thompson remainder for the
    items nobody judged, and their variances."""

    known: float
    remainder: float
    variance: float  # of known + remainder: the unbiased estimate's
    remainder_variance: float
    machine_only: float


def _residual_spread(
    judged: Sequence[Judged], residual: Mapping[ItemKey, tuple[float, float, float]]
) -> dict[str, float]:
    """Per stratum, the judged items' mean squared residual weighted by 1/pi; "" for all
    strata together (for a stratum nobody judged)."""
    squares: dict[str, float] = defaultdict(float)
    mass: dict[str, float] = defaultdict(float)
    for j in judged:
        inclusion, error, inflation = residual[j.key]
        for group in (j.stratum, ""):
            squares[group] += (error * inflation) ** 2 / inclusion
            mass[group] += 1 / inclusion
    return {group: squares[group] / mass[group] for group in squares}

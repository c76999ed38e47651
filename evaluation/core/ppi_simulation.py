"""A simulated machine judge and the coverage check of the people-and-machine estimate:
pure, no Django. Used by ``bench/ppi_coverage.py`` and the real-data test.

The simulated judge grades every judged item of a qrels from its people's grade through a
confusion matrix (``P(machine grade | people's grade)``), seeded, the way published LLM judges
err: lenient on non-relevant items, unsure on the middle grade. Its grade probabilities, when
asked for, are the confusion's column read backwards (Bayes over the qrels' grade shares):
what a calibrated judge would say.
"""

from __future__ import annotations

import random
import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from evaluation.core.human_sample import ItemKey, MachineGrade, item_weight, sample_plan
from evaluation.core.ppi import (
    LinearMeasure,
    PpiEvaluator,
    exact_value,
    machine_norms,
    run_support,
    run_weights,
)
from evaluation.core.rank_correlation import kendall_tau_b

Confusion = Mapping[int, Mapping[int, float]]  # people's grade -> machine grade -> probability

# On TREC-COVID's 0/1/2 scale: binary kappa (relevant from 1) about 0.5 on round 1's qrels.
LENIENT_JUDGE: dict[int, dict[int, float]] = {
    0: {0: 0.78, 1: 0.14, 2: 0.08},
    1: {0: 0.22, 1: 0.43, 2: 0.35},
    2: {0: 0.12, 1: 0.26, 2: 0.62},
}


def simulated_judge(
    grades: Mapping[str, Mapping[str, int]],
    confusion: Confusion,
    *,
    rng: random.Random,
    probabilities: bool = False,
) -> dict[ItemKey, MachineGrade]:
    """A machine grade for every judged item, drawn from ``confusion`` given people's grade."""
    shares = Counter(g for docs in grades.values() for g in docs.values())
    posterior: dict[int, dict[int, float]] = {}
    for machine_grade in {g for row in confusion.values() for g in row}:
        joint = {h: shares[h] * confusion[h].get(machine_grade, 0.0) for h in confusion}
        total = sum(joint.values()) or 1.0
        posterior[machine_grade] = {h: p / total for h, p in joint.items()}
    judged: dict[ItemKey, MachineGrade] = {}
    for topic in sorted(grades):
        for doc in sorted(grades[topic]):
            row = confusion[grades[topic][doc]]
            choices = sorted(row)
            grade = rng.choices(choices, weights=[row[g] for g in choices])[0]
            judged[(topic, doc)] = MachineGrade(grade, posterior[grade] if probabilities else None)
    return judged


def sample_weights(
    machine: Mapping[ItemKey, MachineGrade],
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    measures: Sequence[LinearMeasure],
    topics: Sequence[str],
) -> dict[ItemKey, float]:
    """Each item's s_d over the runs and measures (normalisers from the machine's grades)."""
    per_run: dict[str, dict[ItemKey, float]] = {}
    for m in measures:
        norms = machine_norms(m, machine, topics)
        for tag, run in runs.items():
            per_run[f"{m.name} {tag}"] = run_weights(m, run, topics, norms)
    return item_weight(per_run, machine)


@dataclass(frozen=True)
class Coverage:
    measure: str
    runs: int
    repetitions: int
    covered: float  # share of (run, repetition) whose interval holds the full-qrels value
    mean_width: float
    tau_mean: float  # Kendall's tau-b, estimate vs full qrels, mean over repetitions
    tau_min: float
    unbiased_tau: float  # the interval's centre (no shrinkage) vs full qrels, mean
    machine_tau: float  # the machine's grades alone vs full qrels (first repetition)


def coverage(
    grades: Mapping[str, Mapping[str, int]],
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    measures: Sequence[LinearMeasure],
    *,
    budget: int,
    confusion: Confusion,
    seed: int,
    repetitions: int,
    probabilities: bool = False,
    support: bool = True,
) -> list[Coverage]:
    """Repeat (judge, sample, estimate) ``repetitions`` times and check every run's intervals
    against its value under the full qrels; ``support``: predict from the runs' support too,
    as the app does (False: from the machine's grades alone, for comparison)."""
    topics = sorted(grades)
    scale = sorted({g for docs in grades.values() for g in docs.values()} | {0})
    truth = {
        m.name: {tag: exact_value(m, run, grades, topics) for tag, run in runs.items()}
        for m in measures
    }
    covered: dict[str, int] = Counter()
    widths: dict[str, list[float]] = {m.name: [] for m in measures}
    taus: dict[str, list[float]] = {m.name: [] for m in measures}
    unbiased_taus: dict[str, list[float]] = {m.name: [] for m in measures}
    machine_tau: dict[str, float] = {}
    items = [(t, d) for t, docs in grades.items() for d in docs]
    supported = run_support(runs.values(), items) if support else None
    for repetition in range(repetitions):
        rng = random.Random(seed * 1_000_003 + repetition)  # noqa: S311 (a simulation)
        machine = simulated_judge(grades, confusion, rng=rng, probabilities=probabilities)
        weights = sample_weights(machine, runs, measures, topics)
        sample = sample_plan(machine, budget, rng=rng, top_grade=max(scale), weights=weights)
        human = {(d.topic, d.item): grades[d.topic][d.item] for d in sample.draws}
        evaluator = PpiEvaluator(
            machine,
            sample,
            human,
            measures,
            topics,
            grades=scale,
            support=supported,
        )
        estimates = evaluator.estimate_runs(runs)
        for m in measures:
            values = {tag: found[m.name].value for tag, found in estimates.items()}
            taus[m.name].append(kendall_tau_b(truth[m.name], values))
            centres = {tag: found[m.name].unbiased for tag, found in estimates.items()}
            unbiased_taus[m.name].append(kendall_tau_b(truth[m.name], centres))
            for tag, found in estimates.items():
                covered[m.name] += found[m.name].covers(truth[m.name][tag])
                widths[m.name].append(found[m.name].high - found[m.name].low)
            if repetition == 0:
                alone = {tag: found[m.name].machine_only for tag, found in estimates.items()}
                machine_tau[m.name] = kendall_tau_b(truth[m.name], alone)
    total = len(runs) * repetitions
    return [
        Coverage(
            measure=m.name,
            runs=len(runs),
            repetitions=repetitions,
            covered=covered[m.name] / total if total else 0.0,
            mean_width=statistics.fmean(widths[m.name]) if widths[m.name] else 0.0,
            tau_mean=statistics.fmean(taus[m.name]) if taus[m.name] else 0.0,
            tau_min=min(taus[m.name], default=0.0),
            unbiased_tau=statistics.fmean(unbiased_taus[m.name]) if unbiased_taus[m.name] else 0.0,
            machine_tau=machine_tau.get(m.name, 0.0),
        )
        for m in measures
    ]

"""Reads for people and machine together: a machine judge's item grades, the people's, the
task's measures the estimate covers, the runs, and each run's estimate with its interval.

Items are the task's qrels ids (topic, item): the machine's grade of an item is what its own
qrels would say (``qrels_from_judgments`` with the machine alone), the people's what the final
qrels say (adjudicated > official > dual). A drawn item is "judged" once the people's qrels
hold it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from assessment.models import MachineJudge
from assessment.selectors.agreement.table import scale_points
from collection.models import RetrievalTask
from evaluation.core.human_sample import HumanSample as PlannedSample
from evaluation.core.human_sample import ItemKey, MachineGrade, SampleDraw, Stratum
from evaluation.core.official import official_measure_names
from evaluation.core.ppi import (
    Estimate,
    LinearMeasure,
    PpiEvaluator,
    UnsupportedMeasure,
    linear_measure,
    run_support,
)
from evaluation.core.qrels import MACHINE, QrelsPolicy, TaskKind, qrels_from_judgments
from evaluation.core.trec_measures import parse_measures
from evaluation.models import HumanSample
from evaluation.selectors import judgment_records, runs_to_evaluate

__all__ = [
    "SampleEstimates",
    "human_sample_estimates",
    "linear_measures_of",
    "machine_item_grades",
    "people_item_grades",
    "task_runs",
]

Scores = dict[str, dict[str, float]]


def machine_item_grades(task: RetrievalTask, judge: MachineJudge) -> dict[ItemKey, MachineGrade]:
    """(topic, qrels id) -> the machine judge's grade (its qrels alone)."""
    records = [r for r in judgment_records(task, machine_judge=judge.name) if r.source == MACHINE]
    policy = QrelsPolicy(precedence=(MACHINE,), machine_judge=judge.name)
    built = qrels_from_judgments(records, kind=cast(TaskKind, task.kind), policy=policy)
    return {(e.topic, e.doc): MachineGrade(e.grade) for e in built.entries}


def people_item_grades(task: RetrievalTask) -> dict[ItemKey, int]:
    """(topic, qrels id) -> the final qrels' grade (the people's)."""
    built = qrels_from_judgments(judgment_records(task), kind=cast(TaskKind, task.kind))
    return {(e.topic, e.doc): e.grade for e in built.entries}


def linear_measures_of(task: RetrievalTask) -> tuple[list[LinearMeasure], list[str]]:
    """The task's official measures the estimate covers, and the names it does not."""
    names = official_measure_names(task.kind, task.official_measures)
    if names is None:
        return [], ["the ARQMath measures of this kind (nDCG', MAP', P'@10, AR, P@1)"]
    found, left = [], []
    for m in parse_measures(names):
        try:
            if m.judged_only or m.judged_at is not None:
                raise UnsupportedMeasure(m.name)
            level = m.relevance_level or task.relevance_level
            found.append(linear_measure(m.name, m.trec, relevance_level=level))
        except UnsupportedMeasure:
            left.append(m.name)
    return found, left


def task_runs(task: RetrievalTask) -> dict[str, Scores]:
    """Every accepted run's ranking, labelled team/tag (one query per run)."""
    from evaluation.services.scorers import run_scores  # reads a run's rows; no write

    return {f"{run.team.name}/{run.tag}": run_scores(run)[0] for run in runs_to_evaluate(task)}


@dataclass
class SampleEstimates:
    sample: HumanSample
    measures: list[str]
    unsupported: list[str]
    rows: list[tuple[str, dict[str, Estimate]]]  # run label, measure -> estimate
    drawn: int
    judged: int  # drawn items the final qrels hold
    machine_items: int
    strata: list[tuple[str, int, int, int]] = field(default_factory=list)  # label, N, drawn, judged


def human_sample_estimates(
    *, sample: HumanSample, people: dict[ItemKey, int] | None = None
) -> SampleEstimates:
    """Each run's official measures estimated from the machine's grades and the people's
    grades of the drawn items, with 95% intervals (``evaluation.core.ppi``). ``people`` is
    ``people_item_grades(sample.task)`` when the caller has built it already (a page showing
    every sample of a task builds the people's qrels once)."""
    task = sample.task
    machine = machine_item_grades(task, sample.judge)
    people = people_item_grades(task) if people is None else people
    rows = list(sample.items.values_list("topic", "item", "stratum", "inclusion"))
    draws = [SampleDraw(t, i, s, p) for t, i, s, p in rows]
    human = {
        (d.topic, d.item): people[(d.topic, d.item)] for d in draws if (d.topic, d.item) in people
    }
    measures, unsupported = linear_measures_of(task)
    sizes: dict[str, int] = {}
    for grade in machine.values():
        label = f"g{grade.grade}"
        sizes[label] = sizes.get(label, 0) + 1
    planned = PlannedSample(
        budget=sample.budget,
        strata={h: Stratum(h, n, 0.0, 0, 0.0) for h, n in sizes.items()},
        draws=draws,
        uncertain_share=sample.uncertain_share,
        chances={(t, i): p for t, i, p in sample.chances.values_list("topic", "item", "inclusion")},
    )
    topics = sorted({t for t, _ in machine} | {t for t, _ in people})
    grades = scale_points(task).categories
    estimates: list[tuple[str, dict[str, Estimate]]] = []
    if measures and machine:
        runs = task_runs(task)
        support = run_support(runs.values(), machine)
        evaluator = PpiEvaluator(
            machine,
            planned,
            human,
            measures,
            topics,
            grades=grades,
            support=support,
        )
        estimates = list(evaluator.estimate_runs(runs).items())
    by_stratum: dict[str, list[int]] = {h: [n, 0, 0] for h, n in sizes.items()}
    for d in draws:
        counts = by_stratum.setdefault(d.stratum, [0, 0, 0])
        counts[1] += 1
        counts[2] += (d.topic, d.item) in human
    return SampleEstimates(
        sample=sample,
        measures=[m.name for m in measures],
        unsupported=unsupported,
        rows=estimates,
        drawn=len(draws),
        judged=len(human),
        machine_items=len(machine),
        strata=[(h, *c) for h, c in sorted(by_stratum.items())],  # type: ignore[misc]
    )

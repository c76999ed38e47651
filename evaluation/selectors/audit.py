"""The audit of one machine judge of a task (organizers only): its grades against each
assessor and against the final qrels, per topic, and the system rankings its qrels give
against the people's under each official measure.

"Final qrels" are the people's: for each hit the judgment that counts by the default
precedence (adjudicated > official > dual), as a qrels export without a machine judge builds
them; the machine's qrels are its own grades alone. Agreement is the agreement page's
(``assessment.selectors.agreement.table.table_compute``: the same kappas, alpha and bootstrap
intervals); runs are scored by the task's scorer (``evaluation.services.scorers``), so the
measures are the task's official ones.

Probe results (items planted to fool a judge: a topic's words stuffed into unrelated text, an
instruction to grade the item highly) come from the judge's runs (``judges.selectors.runs``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, cast

from assessment.core.agreement_tables import PairAgreement, pair_agreement
from assessment.models import Assignment, Judgment, MachineJudge
from assessment.selectors.agreement.table import (
    AgreementTable,
    ScalePoints,
    scale_points,
    table_compute,
)
from assessment.selectors.machine_judges import assessor_names, machine_label
from collection.models import RetrievalTask
from evaluation.core.audit import Confusion, RankingAgreement, confusion_matrix, ranking_agreement
from evaluation.core.measures import Average
from evaluation.core.qrels import (
    DEFAULT_PRECEDENCE,
    MACHINE,
    JudgmentRecord,
    QrelsPolicy,
    TaskKind,
    qrels_from_judgments,
    qrels_grades,
)
from evaluation.selectors import judgment_records, runs_to_evaluate
from judges.selectors.runs import probe_grades_for
from kernel.core.ordering import natural_key

__all__ = [
    "JudgeAudit",
    "ProbeSection",
    "VersusAudit",
    "judge_audit",
]

QRELS = -1  # the final qrels, as one more "assessor" in a two-column table
MACHINE_ID = -2


@dataclass(frozen=True)
class ProbeSection:
    """What a probe-results provider hands the page: a title, column heads, rows."""

    title: str
    headers: list[str]
    rows: list[list[Any]]
    note: str = ""


def _probe_sections(judge: MachineJudge) -> list[ProbeSection]:
    grades = probe_grades_for(judge)
    if not grades:
        return []
    rows: list[list[Any]] = [[g.topic, g.kind, g.key, g.asked_as, g.grade] for g in grades]
    note = "A judge that can be fooled grades these high; people never see them."
    headers = ["Topic", "Probe", "Item", "Asked as", "Grade"]
    return [ProbeSection("The judge's grades on probe items", headers, rows, note)]


@dataclass(frozen=True)
class VersusAudit:
    """The judge against one assessor or the final qrels."""

    name: str
    table: AgreementTable  # two columns: the machine and them
    confusion: Confusion

    @property
    def pair(self) -> PairAgreement[int] | None:
        return self.table.pairs[0] if self.table.pairs else None

    @property
    def intervals(self) -> tuple[Any, ...]:
        pair = self.pair
        if pair is None:
            return ()
        return self.table.intervals.get((pair.first, pair.second), ())


@dataclass
class JudgeAudit:
    judge: MachineJudge
    scale: ScalePoints
    qrels: VersusAudit
    assessors: list[VersusAudit]
    # People's judgments given with the machine's suggestion shown, and blind ones (only the
    # blind ones while the task was never in assisted mode).
    by_suggestion: list[VersusAudit]
    per_topic: list[tuple[str, PairAgreement[int]]]
    rankings: list[RankingAgreement]
    runs: int
    machine_graded: int
    qrels_graded: int
    probes: list[ProbeSection] = field(default_factory=list)


def _versus(
    name: str,
    machine: dict[int, int],
    other: dict[int, int],
    other_id: int,
    *,
    scale: ScalePoints,
    with_ci: bool,
    seed: int,
    judge_name: str,
) -> VersusAudit:
    ratings = {MACHINE_ID: machine, other_id: other}
    table = table_compute(
        ratings,
        scale=scale,
        with_ci=with_ci,
        seed=seed,
        names={MACHINE_ID: machine_label(judge_name), other_id: name},
    )
    return VersusAudit(name, table, confusion_matrix(other, machine, scale.categories))


def _keyed(
    records: list[JudgmentRecord], precedence: tuple[Any, ...]
) -> dict[tuple[str, str, str], int]:
    """(topic, item, hit) -> the grade that counts under ``precedence`` (flags left out)."""
    rank = {source: i for i, source in enumerate(precedence)}
    chosen: dict[tuple[str, str, str], tuple[int, int | None]] = {}
    for record in records:
        if record.source not in rank:
            continue
        key = (record.topic, record.item, record.hit)
        if key not in chosen or rank[record.source] < chosen[key][0]:
            chosen[key] = (rank[record.source], record.grade)
    return {key: grade for key, (_, grade) in chosen.items() if grade is not None}


@dataclass(frozen=True)
class _PeopleGrades:
    by_assessor: dict[int, dict[int, int]]  # assessor -> hit -> grade
    by_suggestion: dict[bool, dict[int, tuple[int, int]]]  # shown -> judgment -> (hit, grade)


def _people_grades(task: RetrievalTask) -> _PeopleGrades:
    """Each person's grades (official and dual assignments), and each judgment by whether a
    machine suggestion was shown when it was given (assisted mode)."""
    by_assessor: dict[int, dict[int, int]] = defaultdict(dict)
    by_suggestion: dict[bool, dict[int, tuple[int, int]]] = {True: {}, False: {}}
    rows = Judgment.objects.filter(
        assignment__topic__task=task,
        assignment__purpose__in=[Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL],
        grade__isnull=False,
    ).values_list("pk", "assessor_id", "hit_id", "grade", "suggestion_shown")
    for pk, assessor, hit, grade, shown in rows:
        if grade is None:
            continue
        by_assessor[assessor][hit] = grade
        by_suggestion[bool(shown)][pk] = (hit, grade)
    return _PeopleGrades(dict(by_assessor), by_suggestion)


def _machine_grades(account_id: int) -> dict[int, int]:
    rows = Judgment.objects.filter(assessor_id=account_id, grade__isnull=False).values_list(
        "hit_id", "grade"
    )
    return {hit: grade for hit, grade in rows if grade is not None}


def _rankings(
    task: RetrievalTask, records: list[JudgmentRecord], judge: MachineJudge
) -> tuple[list[RankingAgreement], int]:
    """Score every accepted run under both qrels with the task's scorer; compare rankings."""
    from evaluation.services.scorers import scorer_for  # the scorer reads runs; no write

    kind = cast(TaskKind, task.kind)
    people = qrels_grades(qrels_from_judgments(records, kind=kind).entries, kind=kind)
    policy = QrelsPolicy(precedence=(MACHINE,), machine_judge=judge.name)
    machine = qrels_grades(
        qrels_from_judgments(records, kind=kind, policy=policy).entries, kind=kind
    )
    average: Average = "run" if task.average == "run" else "all"
    by_people = scorer_for(task, people, {}, average=average)
    by_machine = scorer_for(task, machine, {}, average=average)
    scores_people: dict[str, dict[str, float]] = defaultdict(dict)
    scores_machine: dict[str, dict[str, float]] = defaultdict(dict)
    runs = list(runs_to_evaluate(task))
    if not people or not machine:
        return [], len(runs)
    for run in runs:
        label = f"{run.team.name}/{run.tag}"
        read = by_people.read(run)  # once: both scorers rank the same rows
        for name, value in by_people.score_read(run, read).measures.items():
            scores_people[name][label] = value
        for name, value in by_machine.score_read(run, read).measures.items():
            scores_machine[name][label] = value
    return [
        ranking_agreement(name, scores_people[name], scores_machine[name])
        for name in by_people.measures
        if name in scores_people
    ], len(runs)


def judge_audit(*, task: RetrievalTask, judge: MachineJudge, with_ci: bool = False) -> JudgeAudit:
    """Everything the audit page shows of ``judge`` (see the module doc)."""
    scale = scale_points(task)
    records = judgment_records(task, machine_judge=judge.name)
    people_records = [r for r in records if r.source != MACHINE]
    qrels_keyed = _keyed(people_records, DEFAULT_PRECEDENCE)
    machine_keyed = _keyed([r for r in records if r.source == MACHINE], (MACHINE,))
    index = {key: i for i, key in enumerate(sorted(qrels_keyed.keys() | machine_keyed.keys()))}
    qrels_ints = {index[k]: g for k, g in qrels_keyed.items()}
    machine_ints = {index[k]: g for k, g in machine_keyed.items()}
    seed = task.pool_seed
    versus_qrels = _versus(
        "final qrels",
        machine_ints,
        qrels_ints,
        QRELS,
        scale=scale,
        with_ci=with_ci,
        seed=seed,
        judge_name=judge.name,
    )
    by_topic_machine: dict[str, dict[int, int]] = defaultdict(dict)
    by_topic_qrels: dict[str, dict[int, int]] = defaultdict(dict)
    for key, grade in machine_keyed.items():
        by_topic_machine[key[0]][index[key]] = grade
    for key, grade in qrels_keyed.items():
        by_topic_qrels[key[0]][index[key]] = grade
    per_topic = [
        (
            topic,
            pair_agreement(
                MACHINE_ID,
                QRELS,
                by_topic_machine[topic],
                by_topic_qrels[topic],
                categories=scale.categories,
                relevant_from=scale.relevant_from,
            ),
        )
        for topic in sorted(by_topic_machine.keys() & by_topic_qrels.keys(), key=natural_key)
    ]
    grades = _people_grades(task)
    people, machine_by_hit = grades.by_assessor, _machine_grades(judge.account_id)
    names = assessor_names(people)
    assessors = [
        _versus(
            names.get(person, f"#{person}"),
            machine_by_hit,
            given,
            person,
            scale=scale,
            with_ci=with_ci,
            seed=seed,
            judge_name=judge.name,
        )
        for person, given in sorted(people.items(), key=lambda kv: names.get(kv[0], ""))
        if given.keys() & machine_by_hit.keys()
    ]
    by_suggestion = []
    for shown, label in ((True, "with the suggestion shown"), (False, "judged blind")):
        judged = {
            pk: hg for pk, hg in grades.by_suggestion[shown].items() if hg[0] in machine_by_hit
        }
        if shown and not judged:
            continue  # the task was never in assisted mode: nothing to split
        by_suggestion.append(
            _versus(
                f"people's judgments {label}",
                {pk: machine_by_hit[hit] for pk, (hit, _) in judged.items()},
                {pk: grade for pk, (_, grade) in judged.items()},
                QRELS,
                scale=scale,
                with_ci=with_ci,
                seed=seed,
                judge_name=judge.name,
            )
        )
    rankings, runs = _rankings(task, records, judge)
    probes = _probe_sections(judge)
    return JudgeAudit(
        judge=judge,
        scale=scale,
        qrels=versus_qrels,
        assessors=assessors,
        by_suggestion=by_suggestion,
        per_topic=per_topic,
        rankings=rankings,
        runs=runs,
        machine_graded=len(machine_keyed),
        qrels_graded=len(qrels_keyed),
        probes=probes,
    )

"""Reads about machine judges: which pool hit an id of a grades file names, how
people and judges are labelled in organizer tables, and the organizer's list of judges.

A judge's grades are judgments of its account under ``machine`` assignments; these reads are
for organizers only (every assessor page filters by the assessor's own assignments, and a
judge's account can never log in: ``kernel.access.is_machine_account``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth.models import User
from django.db.models import Count, Q

from assessment.models import Assignment, Judgment, MachineJudge, TrainingRound
from collection.models import RetrievalTask
from pooling.core.algorithms.openqa import ANSWER_KEY_PREFIX
from pooling.models import Hit

__all__ = [
    "MachineJudgeRow",
    "PoolHitRef",
    "assessor_names",
    "machine_judges_of",
    "machine_label",
    "pool_hits_by_id",
    "suggested_grades",
]


def machine_label(name: str) -> str:
    """How a machine judge is named wherever people are listed beside it."""
    return f"machine: {name}"


def assessor_names(ids: Iterable[int]) -> dict[int, str]:
    """User id -> the name organizer tables show: the username, or ``machine: NAME`` for a
    machine judge's account (one query)."""
    rows = User.objects.filter(pk__in=set(ids)).values_list("pk", "username", "machine_judge__name")
    return {pk: machine_label(judge) if judge else name for pk, name, judge in rows}


@dataclass(frozen=True)
class PoolHitRef:
    hit_id: int
    topic_id: int


def pool_hits_by_id(
    task: RetrievalTask, numbers: Iterable[str]
) -> dict[tuple[str, str], PoolHitRef]:
    """(topic number, id) -> the pool hit a grades file names by that id, in the topics given.

    The ids are the ones the task's files and qrels use: the answer post id for answer tasks
    (the item key), the formula instance id for formula tasks (the instance-level qrels), the
    docno for document tasks. Open-QA answers, pooled in the answer task's topics, are not
    answer posts and are left out.
    """
    hits = Hit.objects.filter(item__topic__task=task, item__topic__number__in=set(numbers))
    if task.kind == RetrievalTask.Kind.FORMULA:
        column = "formula_id"
        hits = hits.filter(formula_id__isnull=False)
    elif task.kind == RetrievalTask.Kind.DOCUMENT:
        column = "document__docno"
        hits = hits.filter(document__isnull=False)
    else:
        column = "item__key"
        hits = hits.filter(formula_id__isnull=True).exclude(item__key__startswith=ANSWER_KEY_PREFIX)
    rows = hits.values_list("item__topic__number", column, "pk", "item__topic_id")
    return {
        (number, str(found)): PoolHitRef(pk, topic_id)
        for number, found, pk, topic_id in rows.iterator(chunk_size=10_000)
    }


@dataclass
class MachineJudgeRow:
    """A machine judge as the organizer's list shows it."""

    judge: MachineJudge
    label: str
    topics: int = 0
    judged_hits: int = 0
    grades: dict[int, int] = field(default_factory=dict)  # grade -> judgments
    training_rounds: list[str] = field(default_factory=list)
    top: int = 3  # the task's top grade

    @property
    def pk(self) -> int:
        return self.judge.pk

    @property
    def deletable(self) -> bool:
        """A judge that is the gold of a training round stays while the round does."""
        return not self.training_rounds

    @property
    def created_at(self) -> datetime:
        return self.judge.created_at

    @property
    def distribution(self) -> list[tuple[int, int]]:
        """(grade, judgments) from the top grade down (a grade above the scale's top, given
        before the scale was narrowed, shows too)."""
        top = max([self.top, *self.grades])
        return [(g, self.grades.get(g, 0)) for g in range(top, -1, -1)]


def machine_judges_of(task: RetrievalTask, *, top: int = 3) -> list[MachineJudgeRow]:
    """The task's machine judges with their topics, judged hits per grade (of a 0..``top``
    scale) and the training rounds that take their gold from them: three queries whatever
    the size."""
    judges = list(
        MachineJudge.objects.filter(task=task)
        .select_related("created_by")
        .annotate(
            n_topics=Count(
                "account__assignments",
                filter=Q(account__assignments__purpose=Assignment.Purpose.MACHINE),
            )
        )
        .order_by("name")
    )
    rows = {
        j.account_id: MachineJudgeRow(j, machine_label(j.name), j.n_topics, top=top)  # type: ignore[attr-defined]
        for j in judges
    }
    grades = (
        Judgment.objects.filter(
            assessor_id__in=list(rows), assignment__purpose=Assignment.Purpose.MACHINE
        )
        .values("assessor_id", "grade")
        .annotate(n=Count("id"))
        .values_list("assessor_id", "grade", "n")
    )
    for account_id, grade, n in grades:
        row = rows[account_id]
        row.judged_hits += n
        if grade is not None:
            row.grades[grade] = n
    used: dict[int, list[str]] = defaultdict(list)
    for judge_id, name in TrainingRound.objects.filter(machine_judge__task=task).values_list(
        "machine_judge_id", "name"
    ):
        used[judge_id].append(name)
    for row in rows.values():
        row.training_rounds = sorted(used.get(row.pk, []))
    return list(rows.values())


def suggested_grades(topic_id: int, hit_ids: Iterable[int]) -> dict[int, int]:
    """Hit id -> the grade the suggesting machine judge of the topic's task gave it (assisted
    mode; empty when no judge of the task suggests). One query."""
    rows = Judgment.objects.filter(
        hit_id__in=list(hit_ids),
        assignment__topic_id=topic_id,
        assessor__machine_judge__suggests=True,
        assignment__purpose=Assignment.Purpose.MACHINE,
        grade__isnull=False,
    ).values_list("hit_id", "grade")
    return {hit: grade for hit, grade in rows if grade is not None}

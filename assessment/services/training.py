"""Training rounds: the same few pool items judged by every assessor, compared with gold.

Training rounds (ARQMath trained its assessors this way): a round is a set of topics, each with a
handful of pool items chosen by the organizer or sampled across the gold grades; gold grades
come from imported qrels, from an expert assessor's judgments (copied to GoldGrade when the
expert submits) or from a machine judge's grades (copied when the round is
created, so a later import of the judge does not move a round's gold). Every assessor in the
round gets a training assignment per topic; after they submit, they may see their grades beside
the gold ones if the organizer allows it.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils import timezone

from assessment.core.training_sample import sample_across_grades
from assessment.models import Assignment, GoldGrade, Judgment, MachineJudge, TrainingRound
from collection.models import RetrievalTask, Topic
from kernel.core.grades import GRADE_DONT_KNOW, GRADE_SYSTEM_FAILURE
from kernel.core.qrels import QrelsFormatError, qrels_parse
from pooling.models import Hit, PoolItem

__all__ = [
    "TrainingError",
    "gold_qrels_parse",
    "training_round_create",
    "training_round_submit",
]

Qrels = Mapping[tuple[str, str], int]  # (topic number, item key) -> grade 0..G
FLAG_CODES = frozenset({GRADE_SYSTEM_FAILURE, GRADE_DONT_KNOW})  # Task 3 qrels flags


class TrainingError(Exception):
    """A training request breaks a rule; ``problems`` lists each."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def gold_qrels_parse(text: str, *, top: int = 3) -> dict[tuple[str, str], int]:
    """Read a gold qrels file (``topic 0 id grade``) into gold grades of a 0..``top`` scale
    (the task's; ARQMath's 0-3 by default).

    The file is read by the one qrels reader (``kernel.core.qrels``), so a gold file
    and an evaluation qrels refuse the same lines: a malformed line, a grade that is not an
    integer in 0-6, a repeated (topic, id), each reported with its line number. Task 3's flag
    codes (5 = system failure, 6 = do not know) are valid qrels but not gold grades: skipped.
    A grade outside the task's scale is reported with its line.
    """
    try:
        entries = qrels_parse(text)
    except QrelsFormatError as error:
        raise TrainingError([f"line {line}: {message}" for line, message in error.problems]) from (
            error
        )
    gold: dict[tuple[str, str], int] = {}
    problems = []
    for entry in entries:
        if 0 <= entry.grade <= top:
            gold[(entry.topic, entry.doc)] = entry.grade
        elif entry.grade not in FLAG_CODES:
            problems.append(
                f"line {entry.line}: grade {entry.grade} is not on this task's scale 0-{top}"
            )
    if problems:
        raise TrainingError(problems[:20])
    return gold


def _expert_grades(expert: User, topics: Sequence[Topic]) -> dict[tuple[str, str], int]:
    """Item grades from the expert's earlier non-training judgments (max over an item's hits)."""
    grades: dict[tuple[str, str], int] = {}
    rows = Judgment.objects.filter(
        assessor=expert, hit__item__topic__in=topics, grade__isnull=False
    ).values_list("hit__item__topic__number", "hit__item__key", "grade")
    for number, key, grade in rows:
        if grade is not None:
            grades[(number, key)] = max(grade, grades.get((number, key), 0))
    return grades


def _machine_grades(judge: MachineJudge, topics: Sequence[Topic]) -> dict[int, int]:
    """Hit id -> the machine judge's grade, in the topics given."""
    rows = Judgment.objects.filter(
        assessor_id=judge.account_id,
        assignment__purpose=Assignment.Purpose.MACHINE,
        hit__item__topic__in=topics,
        grade__isnull=False,
    ).values_list("hit_id", "grade")
    return {hit_id: grade for hit_id, grade in rows if grade is not None}


def _machine_item_grades(
    judge: MachineJudge, topics: Sequence[Topic], grades: Mapping[int, int]
) -> dict[tuple[str, str], int]:
    """(topic number, item key) -> max grade, for the items whose every hit the judge graded:
    the items a round can sample with full gold."""
    found: dict[tuple[str, str], int] = {}
    partial: set[tuple[str, str]] = set()
    hits = Hit.objects.filter(item__topic__in=topics).values_list(
        "pk", "item__topic__number", "item__key"
    )
    for hit_id, number, key in hits:
        if hit_id not in grades:
            partial.add((number, key))
        else:
            found[(number, key)] = max(grades[hit_id], found.get((number, key), 0))
    return {key: grade for key, grade in found.items() if key not in partial}


def _choose_items(
    topics: Sequence[Topic], gold: Qrels, items_per_topic: int, rng: random.Random
) -> list[PoolItem]:
    pool = PoolItem.objects.filter(topic__in=topics).select_related("topic").order_by("id")
    by_topic: dict[int, list[PoolItem]] = defaultdict(list)
    for item in pool:
        by_topic[item.topic_id].append(item)
    chosen: list[PoolItem] = []
    for topic in topics:
        items = by_topic.get(topic.pk, [])
        graded = [(i, gold[(topic.number, i.key)]) for i in items if (topic.number, i.key) in gold]
        if graded:
            picked = sample_across_grades(graded, items_per_topic, rng)
            chosen += sorted(picked, key=lambda item: item.display_order)
        else:
            picked = rng.sample(items, min(items_per_topic, len(items)))
            chosen += sorted(picked, key=lambda item: item.display_order)
    return chosen


def _validate(
    *,
    name: str,
    topics: Sequence[Topic],
    assessors: Sequence[User],
    gold_source: str,
    expert: User | None,
    qrels: Qrels | None,
    machine_judge: MachineJudge | None = None,
    task: RetrievalTask | None = None,
) -> list[str]:
    problems = []
    limit = TrainingRound._meta.get_field("name").max_length or 100
    if not name.strip():
        problems.append("give the round a name")
    elif len(name.strip()) > limit:
        problems.append(f"a round name has at most {limit} characters, not {len(name.strip()):,}")
    if not topics:
        problems.append("choose at least one topic")
    if not assessors:
        problems.append("choose at least one assessor")
    if gold_source == TrainingRound.GoldSource.QRELS and not qrels:
        problems.append("gold from qrels needs a qrels file")
    if gold_source == TrainingRound.GoldSource.EXPERT and expert is None:
        problems.append("gold from an expert needs the expert")
    if gold_source == TrainingRound.GoldSource.MACHINE and (
        machine_judge is None or (task is not None and machine_judge.task_id != task.pk)
    ):
        problems.append("gold from a machine judge needs one of this task's machine judges")
    people = [*assessors, *([expert] if expert else [])]
    machines = MachineJudge.objects.filter(account__in=[p.pk for p in people])
    problems += [f"{judge.name} is a machine judge: it cannot judge a round" for judge in machines]
    return problems


@transaction.atomic
def training_round_create(
    *,
    task: RetrievalTask,
    name: str,
    topics: Sequence[Topic],
    assessors: Sequence[User],
    created_by: User | None,
    gold_source: str = TrainingRound.GoldSource.QRELS,
    expert: User | None = None,
    qrels: Qrels | None = None,
    items: Sequence[PoolItem] | None = None,
    items_per_topic: int = 5,
    seed: int | None = None,
    show_gold_after_submit: bool = False,
    machine_judge: MachineJudge | None = None,
) -> TrainingRound:
    """Create a round with its items, its gold (for qrels and machine judges) and a training
    assignment for every assessor (and the expert) on every topic. Nothing is stored if
    anything is wrong. A machine judge's gold is its grades of the round's hits as they are
    now; items are sampled among those it graded whole.
    """
    problems = _validate(
        name=name,
        topics=topics,
        assessors=assessors,
        gold_source=gold_source,
        expert=expert,
        qrels=qrels,
        machine_judge=machine_judge,
        task=task,
    )
    if problems:
        raise TrainingError(problems)
    rng = random.Random(task.pool_seed if seed is None else seed)  # noqa: S311 (seeded sample)
    from_machine = gold_source == TrainingRound.GoldSource.MACHINE and machine_judge is not None
    machine = _machine_grades(machine_judge, topics) if from_machine else {}  # type: ignore[arg-type]
    if items is None:
        known = qrels if gold_source == TrainingRound.GoldSource.QRELS else None
        if from_machine:
            known = _machine_item_grades(machine_judge, topics, machine)  # type: ignore[arg-type]
        known = known or (_expert_grades(expert, topics) if expert else {})
        items = _choose_items(topics, known, items_per_topic, rng)
    if not items:
        raise TrainingError(["the chosen topics have no pool items yet"])
    try:
        with transaction.atomic():  # a savepoint: a duplicate name is a TrainingError
            training_round = TrainingRound.objects.create(
                task=task,
                name=name.strip(),
                gold_source=gold_source,
                expert=expert,
                machine_judge=machine_judge if from_machine else None,
                show_gold_after_submit=show_gold_after_submit,
            )
    except IntegrityError as error:
        raise TrainingError([f"a round named {name.strip()!r} exists already"]) from error
    training_round.items.set(items)
    if gold_source == TrainingRound.GoldSource.QRELS and qrels is not None:
        _gold_from_qrels(training_round, items, qrels)
    if from_machine:
        _gold_from_machine(training_round, items, machine)
    people = list(assessors) + ([expert] if expert and expert not in assessors else [])
    _assign_round(training_round, people, topics, created_by)
    return training_round


def _assign_round(
    training_round: TrainingRound,
    people: Sequence[User],
    topics: Sequence[Topic],
    created_by: User | None,
) -> None:
    """A training assignment per person and topic of the round."""
    Assignment.objects.bulk_create(
        Assignment(
            topic=topic,
            assessor=person,
            purpose=Assignment.Purpose.TRAINING,
            training_round=training_round,
            created_by=created_by,
        )
        for person in people
        for topic in topics
    )


def _gold_from_qrels(
    training_round: TrainingRound, items: Sequence[PoolItem], qrels: Qrels
) -> None:
    numbers = dict(
        Topic.objects.filter(pk__in={i.topic_id for i in items}).values_list("pk", "number")
    )
    missing = [
        f"{numbers[i.topic_id]}:{i.key}" for i in items if (numbers[i.topic_id], i.key) not in qrels
    ]
    if missing:
        raise TrainingError([f"no gold grade in the qrels for {', '.join(missing[:10])}"])
    hits = Hit.objects.filter(item__in=items).values_list("pk", "item_id")
    grade_of_item = {i.pk: qrels[(numbers[i.topic_id], i.key)] for i in items}
    GoldGrade.objects.bulk_create(
        GoldGrade(training_round=training_round, hit_id=hit_id, grade=grade_of_item[item_id])
        for hit_id, item_id in hits
    )


def _gold_from_machine(
    training_round: TrainingRound, items: Sequence[PoolItem], grades: Mapping[int, int]
) -> None:
    """Gold per hit from the machine judge's grades; every hit of the round needs one."""
    hits = list(
        Hit.objects.filter(item__in=items).values_list("pk", "item__key", "item__topic__number")
    )
    missing = [f"{number}:{key}" for pk, key, number in hits if pk not in grades]
    if missing:
        shown = ", ".join(sorted(set(missing))[:10])
        raise TrainingError([f"the machine judge has not graded {shown}"])
    GoldGrade.objects.bulk_create(
        GoldGrade(training_round=training_round, hit_id=pk, grade=grades[pk]) for pk, _, _ in hits
    )


@transaction.atomic
def training_round_submit(*, training_round: TrainingRound, assessor: User) -> int:
    """Hand in the assessor's round: every hit of the round's items must be judged.

    When the assessor is the round's expert, their grades become the round's gold. Returns the
    number of assignments submitted; submitting twice changes nothing.
    """
    assignments = list(
        Assignment.objects.select_for_update().filter(
            training_round=training_round, assessor=assessor, revoked_at__isnull=True
        )
    )
    if not assignments:
        raise TrainingError(["you are not in this training round"])
    hits = set(Hit.objects.filter(item__in=training_round.items.all()).values_list("pk", flat=True))
    judgments = Judgment.objects.filter(assignment__in=assignments, hit_id__in=hits)
    judged = dict(judgments.values_list("hit_id", "grade"))
    if missing := len(hits - judged.keys()):
        raise TrainingError([f"{missing} of {len(hits)} hits are not judged yet"])
    now = timezone.now()
    for assignment in assignments:
        if assignment.submitted_at is None:
            assignment.submitted_at = now
            assignment.save(update_fields=["submitted_at"])
    if training_round.expert_id == assessor.pk:
        GoldGrade.objects.filter(training_round=training_round).delete()
        GoldGrade.objects.bulk_create(
            GoldGrade(training_round=training_round, hit_id=hit_id, grade=grade)
            for hit_id, grade in judged.items()
            if grade is not None
        )
    return len(assignments)

"""Machine judges beside human ones: import a judge's grades, say whether it
counts in official qrels, delete it.

A machine judge (an LLM judge, last year's qrels, ...) is a ``MachineJudge`` with an account
that is not a person: inactive, no usable password, never staff, never on a team, and refused
by the login backend. Its grades are Judgments of that account, one ``machine`` assignment
per topic, stored through the judging service's bulk path (``machine_judgments_store``: the
task's scale, hits of the topic, the pool lock, a revision of every change). So agreement
compares it with every human like one more assessor, a training round can take its gold from
it, and qrels count it only when the organizer says so for the task (``counts_in_qrels``,
docs/agreement.md "Machine judges").

An import is one transaction. The same file again (same SHA-256) changes nothing; a new file
under the same name replaces the judge's grades: changed grades get a revision, grades the new
file no longer gives are removed. Ids the task's pools do not hold are skipped and counted.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.utils.text import slugify

from assessment.core.judge_grades import JudgeGrade
from assessment.models import Assignment, Judgment, MachineJudge, TrainingRound
from assessment.selectors.machine_judges import PoolHitRef, machine_label, pool_hits_by_id
from assessment.services.judging import HitVerdict, machine_judgments_store
from assessment.services.machine_judge_files import (
    MachineJudgeError,
    machine_file_read,
    machine_grades_parse,
    machine_judge_fields_check,
)
from collection.models import RetrievalTask, Topic
from pooling.locks import topic_pools_lock

__all__ = [
    "MachineImport",
    "MachineJudgeError",
    "machine_judge_counts_in_qrels",
    "machine_judge_delete",
    "machine_judge_ensure",
    "machine_judge_import",
    "machine_judge_suggests",
]

SHOWN_TOPICS = 10


@dataclass
class MachineImport:
    """What an import did, for the organizer (page message, CLI output, REST answer)."""

    judge: str
    file_name: str
    file_format: str
    checksum: str
    status: str  # created | replaced | unchanged
    grades: int  # grades in the file
    stored: int = 0  # grades of pool hits the judge now holds from this file
    created: int = 0
    changed: int = 0
    removed: int = 0  # grades of the previous file the new one no longer gives
    skipped: int = 0  # grades for items not in the pool
    unlisted: int = 0  # pooled hits the file does not list, graded 0 (relevance-only files)
    unknown_topics: list[str] = field(default_factory=list)  # topics not in the task
    topics: int = 0
    counts_in_qrels: bool = False

    def lines(self) -> list[str]:
        """The report in sentences."""
        if self.status == "unchanged":
            found = [f"{self.file_name} is the file {self.judge} already holds: nothing changed."]
        else:
            verb = "imported" if self.status == "created" else "replaced the grades of"
            found = [
                f"{verb} {machine_label(self.judge)} from {self.file_name} ({self.file_format}): "
                f"{self.stored:,} grades in {self.topics:,} topic(s); {self.created:,} new, "
                f"{self.changed:,} changed, {self.removed:,} removed."
            ]
        if self.unlisted:
            found.append(
                f"{self.unlisted:,} pooled hits the file does not list were graded 0 "
                "(it lists only relevant items)."
            )
        if self.skipped:
            found.append(f"{self.skipped:,} grades for items not in the pool were skipped.")
        if self.unknown_topics:
            shown = ", ".join(self.unknown_topics[:SHOWN_TOPICS])
            more = len(self.unknown_topics) - SHOWN_TOPICS
            found.append(
                f"Topics not in this task (their grades are among the skipped): {shown}"
                + (f" and {more} more" if more > 0 else "")
            )
        if self.counts_in_qrels:
            found.append("It counts in official qrels where no person's judgment decides a hit.")
        return found

    def as_dict(self) -> dict[str, Any]:
        return {
            "judge": self.judge,
            "file": self.file_name,
            "format": self.file_format,
            "sha256": self.checksum,
            "status": self.status,
            "grades_in_file": self.grades,
            "stored": self.stored,
            "created": self.created,
            "changed": self.changed,
            "removed": self.removed,
            "skipped_not_in_pool": self.skipped,
            "topics_not_in_task": self.unknown_topics,
            "topics": self.topics,
            "counts_in_qrels": self.counts_in_qrels,
            "report": self.lines(),
        }


def _account_for(task: RetrievalTask, name: str) -> User:
    """A new account for a judge: a username from the task and the name, never a person's."""
    base = f"machine-{task.pk}-{slugify(name)[:80] or 'judge'}"
    username, n = base, 1
    while User.objects.filter(username=username).exists():
        n += 1
        username = f"{base}-{n}"
    account = User(username=username, is_active=False, is_staff=False, is_superuser=False)
    account.first_name = name[:150]
    account.set_unusable_password()
    account.save()
    return account


def _locked_judge(
    task: RetrievalTask, name: str, description: str, created_by: Any
) -> tuple[MachineJudge, bool]:
    """The judge named ``name`` of the task, row-locked; created (with its account) if new."""
    found = MachineJudge.objects.select_for_update().filter(task=task, name=name).first()
    if found is not None:
        return found, False
    try:
        with transaction.atomic():  # a savepoint: a concurrent import of the same new name
            judge = MachineJudge.objects.create(
                task=task,
                name=name,
                description=description,
                account=_account_for(task, name),
                created_by=created_by if getattr(created_by, "pk", None) else None,
            )
    except IntegrityError:
        return MachineJudge.objects.select_for_update().get(task=task, name=name), False
    return judge, True


def _set_counting(judge: MachineJudge, counts: bool) -> str | None:
    """Make ``judge`` the one judge of its task that counts in qrels (or not); returns the
    name of the judge that counted before, if another. The task row is locked, so two
    organizers switching judges at once take turns instead of failing on the constraint."""
    RetrievalTask.objects.select_for_update().filter(pk=judge.task_id).first()
    before = None
    if counts:
        others = MachineJudge.objects.filter(task_id=judge.task_id, counts_in_qrels=True).exclude(
            pk=judge.pk
        )
        before = others.values_list("name", flat=True).first()
        others.update(counts_in_qrels=False)
    if judge.counts_in_qrels != counts:
        judge.counts_in_qrels = counts
        judge.save(update_fields=["counts_in_qrels"])
    return before


def _grade_unlisted(
    hits: dict[tuple[str, str], PoolHitRef], per_topic: dict[int, list[HitVerdict]]
) -> int:
    """A relevance-only file says nothing of the pooled hits it leaves out of a topic it
    grades: they are not relevant. Grade them 0 (topics the file does not name stay ungraded:
    the file may simply not cover them). Returns how many were added."""
    listed = {v.hit_id for verdicts in per_topic.values() for v in verdicts}
    graded_topics = set(per_topic)
    added = 0
    for ref in hits.values():
        if ref.topic_id in graded_topics and ref.hit_id not in listed:
            per_topic[ref.topic_id].append(HitVerdict(hit_id=ref.hit_id, grade=0))
            listed.add(ref.hit_id)
            added += 1
    return added


def _store(
    judge: MachineJudge,
    report: MachineImport,
    grades: list[JudgeGrade],
    topics: dict[str, int],
    scale: Any,
    version_id: int | None,
    created_by: Any,
) -> None:
    """Replace the judge's grades with ``grades``, topic by topic (the caller holds the locks)."""
    hits = pool_hits_by_id(judge.task, topics)
    per_topic: dict[int, list[HitVerdict]] = defaultdict(list)
    for grade in grades:
        ref = hits.get((grade.topic, grade.item))
        if ref is None:
            report.skipped += 1
            continue
        per_topic[ref.topic_id].append(
            HitVerdict(hit_id=ref.hit_id, grade=grade.grade, comment=grade.rationale)
        )
    if judge.unlisted_not_relevant:
        report.unlisted = _grade_unlisted(hits, per_topic)
    held = {
        a.topic_id: a
        for a in Assignment.objects.filter(
            assessor=judge.account_id, purpose=Assignment.Purpose.MACHINE, revoked_at__isnull=True
        )
    }
    new = [
        Assignment(
            topic_id=topic_id,
            assessor_id=judge.account_id,
            purpose=Assignment.Purpose.MACHINE,
            created_by=created_by if getattr(created_by, "pk", None) else None,
        )
        for topic_id in sorted(per_topic.keys() - held.keys())
    ]
    for assignment in Assignment.objects.bulk_create(new):
        held[assignment.topic_id] = assignment
    emptied = []
    for topic_id in sorted(held):
        verdicts = per_topic.get(topic_id, [])
        created, changed, removed = machine_judgments_store(
            assignment=held[topic_id],
            verdicts=verdicts,
            scale=scale,
            guidelines_version_id=version_id,
            keep_only_these=True,
        )
        report.created += created
        report.changed += changed
        report.removed += removed
        report.stored += len(verdicts)
        if not verdicts:
            emptied.append(held[topic_id].pk)
    # A topic the new file no longer grades keeps no empty assignment.
    Assignment.objects.filter(pk__in=emptied).delete()
    report.topics = len(per_topic)


def machine_judge_import(
    *,
    task: RetrievalTask,
    name: str,
    source: str | Path | IO[bytes],
    file_format: str = "auto",
    description: str = "",
    counts_in_qrels: bool = False,
    unlisted_not_relevant: bool = False,
    created_by: Any = None,
) -> tuple[MachineJudge, MachineImport]:
    """Import a machine judge's grades file (TREC qrels or JSONL) as the judge ``name`` of
    ``task``: new, or replacing the grades of the judge of that name.

    Every problem of the file names file, line and field (MachineJudgeError); nothing is
    stored then. Grades must be on the task's scale (its guidelines in force). Grades for
    items not in the task's pools are skipped and counted. The same file again changes
    nothing. ``counts_in_qrels`` makes it the task's judge that counts in official qrels
    (another judge that counted stops); left off, a judge keeps what it had. A new
    ``description`` replaces the old one. ``unlisted_not_relevant``: the file lists only
    relevant items, so every pooled hit of a topic it grades that it does not list is graded 0;
    the choice is recorded with the judge.
    """
    name, description = name.strip(), description.strip()
    if problems := machine_judge_fields_check(task, name, description):
        raise MachineJudgeError(problems)
    file_name, data = machine_file_read(source)
    chosen, grades, scale, version_id = machine_grades_parse(task, file_name, data, file_format)
    checksum = hashlib.sha256(data).hexdigest()
    numbers = {g.topic for g in grades}
    with transaction.atomic():
        topics = dict(
            Topic.objects.filter(task=task, number__in=numbers).values_list("number", "pk")
        )
        held_topics = Assignment.objects.filter(
            assessor__machine_judge__task=task,
            assessor__machine_judge__name=name,
            purpose=Assignment.Purpose.MACHINE,
        ).values_list("topic_id", flat=True)
        # The pool locks first (pooling/locks.py), then the judge's row.
        topic_pools_lock(topic_ids=[*topics.values(), *held_topics])
        judge, created = _locked_judge(task, name, description, created_by)
        report = MachineImport(
            judge=judge.name,
            file_name=file_name,
            file_format=chosen,
            checksum=checksum,
            status="created" if created else "replaced",
            grades=len(grades),
            unknown_topics=sorted(numbers - topics.keys()),
        )
        if not created and (judge.checksum, judge.unlisted_not_relevant) == (
            checksum,
            unlisted_not_relevant,
        ):
            report.status = "unchanged"
        else:
            judge.unlisted_not_relevant = unlisted_not_relevant
            _store(judge, report, grades, topics, scale, version_id, created_by)
            judge.source_name = file_name[:255]
            judge.checksum = checksum
            if description:
                judge.description = description
            judge.save(
                update_fields=["source_name", "checksum", "description", "unlisted_not_relevant"]
            )
        if counts_in_qrels:
            _set_counting(judge, True)
        report.counts_in_qrels = judge.counts_in_qrels
        return judge, report


def machine_judge_ensure(
    *, task: RetrievalTask, name: str, description: str = "", created_by: Any = None
) -> MachineJudge:
    """The judge ``name`` of ``task``, created with its account when new: for grades that come
    from elsewhere than a file (an LLM judge run, judges/). Checked as an import's name is."""
    name, description = name.strip(), description.strip()
    if problems := machine_judge_fields_check(task, name, description):
        raise MachineJudgeError(problems)
    with transaction.atomic():
        judge, _ = _locked_judge(task, name, description, created_by)
        return judge


def machine_judge_counts_in_qrels(*, judge: MachineJudge, counts: bool) -> str | None:
    """Say whether ``judge`` counts in its task's official qrels (at most one judge per task
    does: switching one on switches the other off, whose name is returned)."""
    with transaction.atomic():
        locked = MachineJudge.objects.select_for_update().get(pk=judge.pk)
        before = _set_counting(locked, counts)
        judge.counts_in_qrels = locked.counts_in_qrels
        return before


def machine_judge_delete(*, judge: MachineJudge) -> None:
    """Delete a judge with its grades (and their revisions), assignments and account. Refused
    while a training round takes its gold from it."""
    with transaction.atomic():
        topic_ids = Assignment.objects.filter(assessor_id=judge.account_id).values_list(
            "topic_id", flat=True
        )
        topic_pools_lock(topic_ids=list(topic_ids))
        locked = MachineJudge.objects.select_for_update().filter(pk=judge.pk).first()
        if locked is None:
            return
        rounds = list(
            TrainingRound.objects.filter(machine_judge=locked).values_list("name", flat=True)
        )
        if rounds:
            raise MachineJudgeError(
                [
                    f"{locked.name} is the gold of training round(s) {', '.join(sorted(rounds))}: "
                    "it stays while they do"
                ]
            )
        account_id = locked.account_id
        Judgment.objects.filter(assessor_id=account_id).delete()
        locked.delete()
        User.objects.filter(pk=account_id).delete()  # its assignments go with it


def machine_judge_suggests(*, judge: MachineJudge, suggests: bool) -> str | None:
    """Switch the task's assisted mode: ``judge``'s grades are shown to assessors as
    suggestions on the judging page (at most one judge per task does: switching one on
    switches the other off, whose name is returned). Every judgment records whether a
    suggestion was shown when its value was given (``Judgment.suggestion_shown``)."""
    with transaction.atomic():
        RetrievalTask.objects.select_for_update().filter(pk=judge.task_id).first()
        locked = MachineJudge.objects.select_for_update().get(pk=judge.pk)
        before = None
        if suggests:
            others = MachineJudge.objects.filter(task_id=locked.task_id, suggests=True).exclude(
                pk=locked.pk
            )
            before = others.values_list("name", flat=True).first()
            others.update(suggests=False)
        if locked.suggests != suggests:
            locked.suggests = suggests
            locked.save(update_fields=["suggests"])
        judge.suggests = suggests
        return before

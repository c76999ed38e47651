"""Nugget labels: whether an answer supports each nugget of its topic, as an assignment says.

As for judgments (``assessment.services.judging``): the assignment is checked and locked in
one query, a request's client token makes a retry harmless, a changed label is revised and
every value is kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import BinaryIO

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from assessment.models import Assignment
from collection.models import RetrievalTask, Topic
from nuggets.core.citations import CitationSupport
from nuggets.core.nuggetizer import read_nugget_file
from nuggets.core.scores import Support
from nuggets.models import CitationLabel, Nugget, NuggetLabel, NuggetLabelRevision, RagAnswer
from nuggets.services.nuggets import NuggetError
from pooling.models import Run


class LabelRefused(Exception):
    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


@dataclass(frozen=True)
class LabelsSaved:
    labels: list[NuggetLabel]
    created: int
    changed: int


def _locked_assignment(assignment_id: int, assessor: User) -> Assignment:
    assignment = (
        Assignment.objects.select_for_update()
        .select_related("topic__task")
        .filter(pk=assignment_id, revoked_at__isnull=True)
        .first()
    )
    if assignment is None or assignment.topic.task.kind != RetrievalTask.Kind.RAG:
        raise LabelRefused("no such active nugget assignment")
    if assignment.assessor_id != assessor.pk:
        raise LabelRefused("this assignment is someone else's")
    return assignment


def nugget_labels_submit(
    *,
    assignment_id: int,
    answer_id: int,
    labels: Mapping[int, str],
    assessor: User,
    client_token: str = "",
) -> LabelsSaved:
    """Store the labels (nugget id -> support) of one answer under one assignment."""
    if not labels:
        raise LabelRefused("no label given")
    if bad := [s for s in labels.values() if s not in Support.__members__.values()]:
        raise LabelRefused(f"{bad[0]!r}: a label is support, partial_support or not_support")
    client_token = client_token[:64]
    with transaction.atomic():
        assignment = _locked_assignment(assignment_id, assessor)
        answer = RagAnswer.objects.filter(pk=answer_id, topic_id=assignment.topic_id).first()
        if answer is None:
            raise LabelRefused("the answer is not one of this topic's")
        nuggets = set(
            Nugget.objects.filter(
                topic_id=assignment.topic_id, pk__in=list(labels), is_deleted=False
            ).values_list("pk", flat=True)
        )
        if unknown := set(labels) - nuggets:
            raise LabelRefused(f"nugget {min(unknown)} is not in this topic's list")
        return _apply(assignment, answer, labels, assessor, client_token)


def _apply(
    assignment: Assignment,
    answer: RagAnswer,
    labels: Mapping[int, str],
    assessor: User,
    client_token: str,
) -> LabelsSaved:
    existing = {
        label.nugget_id: label
        for label in NuggetLabel.objects.filter(
            assignment=assignment, answer=answer, nugget_id__in=list(labels)
        )
    }
    created, changed, result = [], [], []
    for nugget_id, support in labels.items():
        label = existing.get(nugget_id)
        if label is None:
            label = NuggetLabel(
                assignment=assignment,
                answer=answer,
                nugget_id=nugget_id,
                support=support,
                assessor=assessor,
                client_token=client_token,
            )
            created.append(label)
        elif (client_token and label.client_token == client_token) or label.support == support:
            pass  # the same request again, or the same value: nothing to revise
        else:
            label.support = support
            label.revision += 1
            label.assessor = assessor
            label.client_token = client_token
            changed.append(label)
        result.append(label)
    NuggetLabel.objects.bulk_create(created)
    if changed:
        NuggetLabel.objects.bulk_update(
            changed, ["support", "revision", "assessor", "client_token", "updated_at"]
        )
    NuggetLabelRevision.objects.bulk_create(
        NuggetLabelRevision(
            label=label, number=label.revision, support=label.support, changed_by=assessor
        )
        for label in (*created, *changed)
    )
    return LabelsSaved(result, len(created), len(changed))


def nugget_assignments_import(
    *,
    task: RetrievalTask,
    stream: BinaryIO,
    file_name: str,
    assessor: User,
    purpose: str = Assignment.Purpose.MACHINE,
) -> int:
    """Labels from a nuggetizer assignments file, under ``assessor``'s assignment of each
    topic (created when missing). Every qid, run_id and nugget text must name the task's
    topic, run and live nugget; all or nothing. The count of labels stored."""
    found = read_nugget_file(stream, name=file_name, assignments=True)
    if not found.ok:
        raise NuggetError(f"{file_name} has problems", found.messages())
    topics = {t.number: t for t in Topic.objects.filter(task=task)}
    runs = {r.tag: r.pk for r in Run.objects.filter(task=task)}
    answers = {
        (a.run_id, a.topic_id): a.pk
        for a in RagAnswer.objects.filter(run__task=task).only("pk", "run_id", "topic_id")
    }
    nuggets: dict[tuple[int, str], int] = {
        (n.topic_id, n.text): n.pk
        for n in Nugget.objects.filter(topic__task=task, is_deleted=False)
    }
    problems: list[str] = []
    plan: list[tuple[Topic, int, dict[int, str]]] = []
    for record in found.records:
        where = f"{file_name}:{record.line}"
        topic = topics.get(record.qid)
        run = runs.get(record.run_id)
        answer: int | None = answers.get((run, topic.pk)) if topic and run else None
        if topic is None or run is None or answer is None:
            what = "topic" if topic is None else "run" if run is None else "answer of the run to"
            problems.append(f"{where}: no {what} {record.qid!r}/{record.run_id!r} in {task}")
            continue
        labels = {}
        for index, nugget in enumerate(record.nuggets):
            pk = nuggets.get((topic.pk, nugget.text))
            if pk is None:
                problems.append(f"{where}: nuggets[{index}].text: not a nugget of {record.qid}")
                break
            labels[pk] = str(nugget.assignment)
        plan.append((topic, answer, labels))
    if problems:
        raise NuggetError(f"{file_name} does not match {task}", problems[:100])
    count = 0
    with transaction.atomic():
        for topic, answer_id, labels in plan:
            assignment, _ = Assignment.objects.get_or_create(
                topic=topic, assessor=assessor, purpose=purpose, revoked_at=None
            )
            if labels:
                stored = RagAnswer.objects.get(pk=answer_id)
                count += len(_apply(assignment, stored, labels, assessor, "").labels)
    return count


@dataclass(frozen=True)
class CitationVerdict:
    sentence: int
    segment: str
    support: str


def citation_labels_submit(
    *,
    assignment_id: int,
    answer_id: int,
    verdicts: list[CitationVerdict],
    assessor: User,
    client_token: str = "",
) -> list[CitationLabel]:
    """Store whether each cited segment supports its sentence (full, partial, none) under the
    assessor's assignment; the same token again stores nothing, a change is revised and the
    earlier value kept in the label's history."""
    if not verdicts:
        raise LabelRefused("no citation label given")
    if bad := [
        v.support for v in verdicts if v.support not in CitationSupport.__members__.values()
    ]:
        raise LabelRefused(f"{bad[0]!r}: citation support is full, partial or none")
    client_token = client_token[:64]
    with transaction.atomic():
        assignment = _locked_assignment(assignment_id, assessor)
        answer = RagAnswer.objects.filter(pk=answer_id, topic_id=assignment.topic_id).first()
        if answer is None:
            raise LabelRefused("the answer is not one of this topic's")
        cited = {
            (index, segment)
            for index, sentence in enumerate(answer.sentences)
            for segment in sentence.get("citations", [])
        }
        for verdict in verdicts:
            if (verdict.sentence, verdict.segment) not in cited:
                raise LabelRefused(
                    f"sentence {verdict.sentence} does not cite segment {verdict.segment!r}"
                )
        existing = {
            (label.sentence, label.segment): label
            for label in CitationLabel.objects.filter(assignment=assignment, answer=answer)
        }
        now = timezone.now().isoformat()
        result = []
        for verdict in verdicts:
            label = existing.get((verdict.sentence, verdict.segment))
            entry = {"support": verdict.support, "by": assessor.pk, "at": now}
            if label is None:
                label = CitationLabel.objects.create(
                    assignment=assignment,
                    answer=answer,
                    sentence=verdict.sentence,
                    segment=verdict.segment,
                    support=verdict.support,
                    assessor=assessor,
                    history=[entry],
                    client_token=client_token,
                )
            elif label.support != verdict.support and not (
                client_token and label.client_token == client_token
            ):
                label.support = verdict.support
                label.assessor = assessor
                label.revision += 1
                label.history = [*label.history, entry]
                label.client_token = client_token
                label.save()
            result.append(label)
    return result

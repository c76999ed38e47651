"""RAG run submission: the run rules every task has (tag, deadline, team, limits), then the
whole file read and checked, then the run and its answers stored in one transaction.

The rules on tags, deadlines, teams and run limits are the run upload's own, imported from
(``pooling.services.runs``); only the file and what is stored differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import BinaryIO

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from collection.models import RetrievalTask
from nuggets.core.rag_runs import RagContext, RagRunFile, read_rag_run
from nuggets.models import RagAnswer, RagSettings
from pooling.models import Run, Team
from pooling.services.runs import (
    RunValidationError,
    SubmissionRefused,
    run_file_checksum,
    run_file_name_stored,
    run_limits_check,
    run_tag_and_deadline_check,
    run_team_campaign_check,
)
from pooling.services.runs_context import collection_docnos, task_topic_ids


@dataclass
class RagRunSubmission:
    run: Run
    created: bool
    answers: int


def rag_max_answer_words(task: RetrievalTask) -> int:
    """The task's limit on an answer's words (its RagSettings, else TREC RAG 2024's 400)."""
    found = RagSettings.objects.filter(task=task).values_list("max_answer_words", flat=True)
    return next(iter(found), RagSettings._meta.get_field("max_answer_words").default)


def rag_run_read(
    *, task: RetrievalTask, stream: BinaryIO, file_name: str, tag: str | None
) -> RagRunFile:
    """The file read against the task's topics and collection (nothing stored)."""
    if task.kind != RetrievalTask.Kind.RAG or task.collection_id is None:
        raise SubmissionRefused(f"{task} is not a RAG task with a collection of segments")
    collection = task.collection.name if task.collection else ""
    context = RagContext(
        topics=frozenset(task_topic_ids(task)),
        segments=collection_docnos(task.collection_id),
        collection=collection,
        max_answer_words=rag_max_answer_words(task),
        tag=tag,
    )
    return read_rag_run(
        stream, name=file_name, context=context, max_bytes=settings.RUN_FILE_MAX_BYTES
    )


def rag_run_submit(
    *,
    task: RetrievalTask,
    team: Team,
    stream: BinaryIO,
    file_name: str,
    uploaded_by: User | None,
    tag: str | None = None,
    role: str = Run.Role.PRIMARY,
    description: str = "",
    ignore_deadline: bool = False,
    now: datetime | None = None,
) -> RagRunSubmission:
    """Validate the whole file, then store the run and one answer per topic atomically.

    ``tag`` defaults to the file's run_id. Raises SubmissionRefused (deadline, limits, tag,
    team) or RunValidationError (the line-numbered report); either way nothing is stored. A
    re-upload of a tag replaces the run's answers (version + 1), as for every run; answers
    already labelled make the replacement refused, since labels must never be lost."""
    now = now or timezone.now()
    checksum = run_file_checksum(stream)
    parsed = rag_run_read(task=task, stream=stream, file_name=file_name, tag=tag)
    if not parsed.ok:
        raise RunValidationError(parsed.report())
    tag = tag or parsed.run_id
    run_tag_and_deadline_check(task, tag, now, late=ignore_deadline)
    if role not in Run.Role.values:
        raise SubmissionRefused(f"role must be one of {', '.join(Run.Role.values)}")
    run_team_campaign_check(task, team)
    topic_ids = task_topic_ids(task)
    values = {
        "role": role,
        "description": description,
        "file_name": run_file_name_stored(file_name),
        "checksum": checksum,
        "file_format": parsed.layout or "",
        "row_count": len(parsed.answers),
        "status": Run.Status.ACCEPTED,
        "uploaded_by": uploaded_by,
        "uploaded_at": now,
        "report": parsed.report(),
        "declared_data": "",
    }
    with transaction.atomic():
        Team.objects.select_for_update().get(pk=team.pk)
        run_limits_check(task, team, tag, role)
        run = Run.objects.select_for_update().filter(task=task, team=team, tag=tag).first()
        created = run is None
        if run is None:
            run = Run.objects.create(task=task, team=team, tag=tag, **values)
        else:
            if RagAnswer.objects.filter(run=run, labels__isnull=False).exists():
                raise SubmissionRefused(
                    f"run {tag} has answers already judged: it can no longer be replaced"
                )
            RagAnswer.objects.filter(run=run).delete()
            for name, value in values.items():
                setattr(run, name, value)
            run.version += 1
            run.save()
        RagAnswer.objects.bulk_create(
            RagAnswer(
                run=run,
                topic_id=topic_ids[answer.topic],
                references=list(answer.references),
                sentences=[
                    {"text": s.text, "citations": list(s.citations)} for s in answer.sentences
                ],
                response_length=answer.response_length,
                line=answer.line,
            )
            for answer in parsed.answers
        )
    return RagRunSubmission(run=run, created=created, answers=len(parsed.answers))

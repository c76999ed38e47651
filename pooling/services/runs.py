"""Run submission: validate a whole file, then store it in one transaction.

Rules: a tag is ASCII letters, digits and ``-_.`` (at most 40), unique per team and task, and
every row of the file carries it in its tag column; a description is at most 4,000 characters;
re-uploading a tag before the task's deadline replaces that run atomically (version + 1);
after the deadline uploads are refused; a campaign limits primary and alternate runs per team
per task (ARQMath: one primary, four alternates). A file with any error stores nothing.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, BinaryIO

from django.conf import settings
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from rest_framework.authtoken.models import Token

from collection.models import RetrievalTask
from pooling.access import team_may_submit
from pooling.core.formats import ParsedRun, RunReading
from pooling.models import (
    RUN_DESCRIPTION_MAX_CHARS,
    RUN_TAG_VALIDATOR,
    TEAM_NAME_MAX_CHARS,
    Run,
    RunRow,
    Team,
)
from pooling.services.runs_context import run_context, task_topic_ids
from pooling.services.runs_storage import run_rows_stream

ORGANIZER_FIELDS = ("is_baseline", "pool_as_primary", "depth_override")
_HASH_CHUNK = 1024 * 1024


class RunValidationError(Exception):
    """The file has errors; ``report`` lists them by line (ParsedRun.report())."""

    def __init__(self, report: dict[str, Any]) -> None:
        self.report = report
        count = report.get("error_count", 0)
        super().__init__(f"the run file has {count} error{'s' if count != 1 else ''}")


class SubmissionRefused(Exception):
    """The submission is not allowed (deadline passed, run limit reached, bad tag, ...)."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


@dataclass
class RunSubmission:
    run: Run
    created: bool
    warnings: list[dict[str, Any]] = field(default_factory=list)


def token_create(*, user: User) -> Token:
    """The user's API token, created on first use (DRF TokenAuthentication)."""
    token, _ = Token.objects.get_or_create(user=user)
    return token


# The run rules below are public: every kind of run (ranked lists here, RAG answers in
# nuggets.services.runs) is submitted under the same tag, deadline, team and limit rules.


def run_file_checksum(stream: BinaryIO) -> str:
    """The upload's SHA-256, the stream rewound for the parser (an upload sits in a temporary
    file: hashed in chunks)."""
    start = stream.tell()
    digest = hashlib.sha256()
    while chunk := stream.read(_HASH_CHUNK):
        digest.update(chunk)
    stream.seek(start)
    return digest.hexdigest()


def run_tag_and_deadline_check(task: RetrievalTask, tag: str, now: datetime, *, late: bool) -> None:
    """SubmissionRefused when the tag is not a valid run tag, or the task's deadline passed
    (``late``: an organizer's upload, taken after it)."""
    try:
        RUN_TAG_VALIDATOR(tag)
    except ValidationError as exc:
        raise SubmissionRefused(f"run tag {tag!r}: {exc.messages[0]}") from exc
    deadline = task.deadline
    if deadline is not None and now > deadline and not late:
        raise SubmissionRefused(
            f"the submission deadline of {task} passed at {deadline:%Y-%m-%d %H:%M %Z}; "
            "runs are no longer accepted"
        )


def run_limits_check(task: RetrievalTask, team: Team, tag: str, role: str) -> None:
    """ARQMath: at most ``max_primary_runs`` primary and ``max_alternate_runs`` alternates."""
    campaign = task.campaign
    limit = campaign.max_primary_runs if role == Run.Role.PRIMARY else campaign.max_alternate_runs
    others = Run.objects.filter(task=task, team=team, role=role).exclude(tag=tag).count()
    if others >= limit:
        raise SubmissionRefused(
            f"team {team.name} already has {others} {role} run{'s' if others != 1 else ''} "
            f"for this task (the limit is {limit}); replace one by re-uploading its tag"
        )


def run_team_campaign_check(task: RetrievalTask, team: Team) -> None:
    """SubmissionRefused when the task takes no runs or the team is not in its campaign."""
    if task.training_for_id is not None:
        raise SubmissionRefused(
            f"{task} is a training archive of earlier years' topics: it takes no runs"
        )
    if not team_may_submit(team, task):
        raise SubmissionRefused(
            f"team {team.name} does not take part in {task.campaign.name}: "
            "ask the organizers to register it"
        )


def declared_data_for(task: RetrievalTask, declared_data: str) -> str:
    """ARQMath's "data used" (text, math or both) means nothing for a document (TREC-style)
    task: such a run records none, whatever a client sent."""
    return "" if task.kind == RetrievalTask.Kind.DOCUMENT else declared_data


def run_file_name_stored(name: str) -> str:
    """The file's own name, without a client's folders, bounded like the column it goes to."""
    name = name.replace("\\", "/").rsplit("/", 1)[-1]
    limit = Run._meta.get_field("file_name").max_length or 255
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _reading(
    task: RetrievalTask, stream: BinaryIO, file_name: str, tag: str | None
) -> tuple[RunReading, list[str]]:
    """The file's reading against ``task`` and its collection, and notes on skipped checks."""
    context, notes = run_context(task, task_topic_ids(task))
    reading = RunReading(
        stream,
        name=file_name,
        context=context,
        max_bytes=settings.RUN_FILE_MAX_BYTES,
        tag=tag,
        max_line_bytes=settings.RUN_LINE_MAX_BYTES,
    )
    return reading, notes


def _with_notes(parsed: ParsedRun, notes: list[str]) -> ParsedRun:
    for note in notes:
        parsed.warn(None, None, note)
    return parsed


def run_submit(
    *,
    task: RetrievalTask,
    team: Team,
    tag: str,
    role: str,
    stream: BinaryIO,
    file_name: str,
    uploaded_by: User | None,
    is_manual: bool = False,
    declared_data: str = Run.DeclaredData.BOTH,
    description: str = "",
    organizer_fields: dict[str, Any] | None = None,
    ignore_deadline: bool = False,
    now: datetime | None = None,
) -> RunSubmission:
    """Validate the whole file and store the run and its rows, in one transaction.

    Raises SubmissionRefused (deadline, limits, tag) before reading the file and
    RunValidationError (with the line-numbered report) when the file has any error; in both
    cases the database is left as it was. ``ignore_deadline`` is for organizers importing runs
    received by other means."""
    now = now or timezone.now()
    run_tag_and_deadline_check(task, tag, now, late=ignore_deadline)
    if role not in Run.Role.values:
        raise SubmissionRefused(f"role must be one of {', '.join(Run.Role.values)}")
    if len(description) > RUN_DESCRIPTION_MAX_CHARS:
        raise SubmissionRefused(
            f"the description has {len(description):,} characters "
            f"(at most {RUN_DESCRIPTION_MAX_CHARS:,})"
        )
    run_team_campaign_check(task, team)
    run_limits_check(task, team, tag, role)
    checksum = run_file_checksum(stream)
    file_name = run_file_name_stored(file_name)
    reading, notes = _reading(task, stream, file_name, tag)
    values = {
        "role": role,
        "is_manual": is_manual,
        "declared_data": declared_data_for(task, declared_data),
        "description": description,
        "file_name": file_name,
        "checksum": checksum,
        "status": Run.Status.ACCEPTED,
        "uploaded_by": uploaded_by,
        "uploaded_at": now,
        **(organizer_fields or {}),
    }
    run, created, report = _store(task, team, tag, reading, notes, values)
    return RunSubmission(run=run, created=created, warnings=report["warnings"])


def _store(
    task: RetrievalTask,
    team: Team,
    tag: str,
    reading: RunReading,
    notes: list[str],
    values: dict[str, Any],
) -> tuple[Run, bool, dict[str, Any]]:
    """Store the run while its file is read (run_rows_stream); a file with any error rolls
    everything back and raises RunValidationError."""
    topic_ids = task_topic_ids(task)
    with transaction.atomic():
        # Lock the team so two uploads cannot both pass the run limits or race on one tag.
        Team.objects.select_for_update().get(pk=team.pk)
        run_limits_check(task, team, tag, values["role"])
        run = Run.objects.select_for_update().filter(task=task, team=team, tag=tag).first()
        created = run is None
        if run is None:
            run = Run.objects.create(task=task, team=team, tag=tag, **values)
        else:
            RunRow.objects.filter(run=run).delete()
            for name, value in values.items():
                setattr(run, name, value)
            run.version += 1
        parsed = _with_notes(
            run_rows_stream(run_id=run.pk, reading=reading, topic_ids=topic_ids), notes
        )
        report = parsed.report()
        if not parsed.ok:
            raise RunValidationError(report)  # leaving the block rolls the rows back
        run.file_format = parsed.format.value if parsed.format else ""
        run.row_count = len(parsed.columns)
        run.report = report
        run.save()
    return run, created, report


def team_ensure(*, name: str) -> tuple[Team, bool]:
    """The team called ``name``, created when an organizer imports its first run."""
    name = name.strip()
    if not name or len(name) > TEAM_NAME_MAX_CHARS:
        raise SubmissionRefused(
            f"a team name has 1 to {TEAM_NAME_MAX_CHARS} characters, not {len(name):,}"
        )
    return Team.objects.get_or_create(name=name)

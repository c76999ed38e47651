"""The training page's second form (/organize/task/<id>/training/archive/): a round on earlier
years' topics and official qrels, kept in the task's training archive. Thin: form, one service
call, redirect."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from assessment.selectors.guidelines import guidelines_current
from assessment.services.training import TrainingError, gold_qrels_parse
from assessment.services.training_archive import (
    archive_topics_read,
    training_archive_round_create,
)
from assessment.views.organize import form_problems, organizer_of
from assessment.views.organize_forms import TrainingArchiveForm
from collection.access import task_for
from collection.core.formats.errors import ImportFileError
from kernel.access import organizer_required
from kernel.request_limits import body_limit

__all__ = ["training_archive_round"]


def _bounded(upload: UploadedFile, what: str) -> None:
    limit = settings.QRELS_FILE_MAX_BYTES
    if (upload.size or 0) > limit:
        raise TrainingError([f"the {what} is larger than {limit:,} bytes"])


def _read_topics(upload: UploadedFile, kind: str, file_format: str) -> list:  # type: ignore[type-arg]
    """The topic parsers read paths: the upload goes to a temporary file of the same name, so
    problems name the organizer's file."""
    with tempfile.TemporaryDirectory() as folder:
        name = Path(upload.name or "topics").name or "topics"
        path = Path(folder) / name
        with path.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        return archive_topics_read(path, kind=kind, file_format=file_format or "auto")  # type: ignore[arg-type]


@body_limit("TRAINING_ARCHIVE_UPLOAD_MAX_BYTES")
@organizer_required
@require_POST
def training_archive_round(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    form = TrainingArchiveForm(request.POST, request.FILES)
    form.fields["assessors"].queryset = User.objects.filter(is_active=True)  # type: ignore[attr-defined]
    try:
        if not form.is_valid():
            raise TrainingError(form_problems(form))
        data = form.cleaned_data
        _bounded(data["topics_file"], "topic file")
        _bounded(data["qrels"], "qrels file")
        topics = _read_topics(data["topics_file"], task.kind, data["topic_format"])
        text = data["qrels"].read().decode("utf-8", "replace")
        gold = gold_qrels_parse(text, top=guidelines_current(task=task).scale.top)
        made = training_archive_round_create(
            task=task,
            name=data["name"],
            topics=topics,
            gold=gold,
            assessors=list(data["assessors"]),
            created_by=organizer_of(request),
            topic_numbers=[n for n in re.split(r"[\s,]+", data["topic_numbers"]) if n],
            items_per_topic=data["items_per_topic"],
            seed=data["seed"],
            show_gold_after_submit=data["show_gold_after_submit"],
        )
    except ImportFileError as error:
        messages.error(request, str(error))
    except TrainingError as error:
        for problem in error.problems:
            messages.error(request, problem)
    else:
        note = (
            f" ({made.missing_items:,} graded items are not in the collection and were not shown)"
            if made.missing_items
            else ""
        )
        messages.success(
            request,
            f"Created {made.training_round.name} on {made.topics} earlier topics, "
            f"{made.items} items{note}.",
        )
        return redirect("assessment:organize_training", task_id=made.archive.pk)
    return redirect("assessment:organize_training", task_id=task.pk)

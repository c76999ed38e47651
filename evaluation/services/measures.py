"""Writes of a task's official measures (``RetrievalTask.official_measures``)."""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from collection.models import RetrievalTask
from evaluation.core.official import official_measures_check
from evaluation.core.trec_names import MeasureNameError


class OfficialMeasuresError(ValueError):
    """Official measures that cannot be stored; the message names the bad measure."""


def official_measures_set(*, task: RetrievalTask, names: Sequence[str]) -> RetrievalTask:
    """Check and store the measures the task's results, significance tests and reusability
    report use from its next evaluation on; an empty list restores its kind's defaults."""
    try:
        cleaned = official_measures_check(task.kind, names)
    except MeasureNameError as error:
        raise OfficialMeasuresError(str(error)) from None
    with transaction.atomic():
        RetrievalTask.objects.filter(pk=task.pk).update(official_measures=cleaned)
    task.official_measures = cleaned
    return task

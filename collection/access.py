"""Which task a URL names, and to whom (the people rules are in ``kernel.access``)."""

from __future__ import annotations

from typing import Any

from django.http import Http404

from collection.models import RetrievalTask
from kernel.access import is_person
from kernel.params import parse_id


def task_for(user: Any, raw_task_id: str | int | None) -> RetrievalTask:
    """The task a URL or a parameter names, with its campaign; 404 when there is none.

    Tasks are not secret to people who may log in (their runs and results are: see
    ``pooling.access`` and ``evaluation.access``); to an anonymous caller no task exists."""
    task_id = parse_id(raw_task_id, name="task")
    if not is_person(user):
        raise Http404("No such task.")
    task = RetrievalTask.objects.select_related("campaign").filter(pk=task_id).first()
    if task is None:
        raise Http404(f"No task {task_id}.")
    return task

"""Which task a command's ``--campaign`` and ``--task`` name: the one lookup every command uses.

``--task`` takes the task's name, or its kind or a spelling ARQMath's files and papers use
(task1, 2, …) when the campaign has exactly one task of that kind (collection/core/task_names.py).
"""

from __future__ import annotations

from django.core.management.base import CommandError

from collection.core.task_names import TaskNameError
from collection.models import RetrievalTask
from collection.services.tasks import task_named

TASK_HELP = (
    "the task's name (e.g. task1, covid-docs), or its kind (answer|formula|openqa|document|rag, "
    "task1..task3) when the campaign has one task of that kind"
)


def find_task(campaign: str, task: str) -> RetrievalTask:
    """The campaign's task ``task`` names, with its campaign; CommandError when it names none,
    or several (the message lists their names)."""
    try:
        return task_named(campaign, task)
    except TaskNameError as error:
        raise CommandError(str(error)) from None

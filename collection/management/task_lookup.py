"""Which task a command's ``--campaign`` and ``--task`` name: the one lookup every command uses.

``--task`` takes the task's kind or the spellings ARQMath's files and papers use (task1, 2, …).
"""

from __future__ import annotations

from django.core.management.base import CommandError

from collection.models import RetrievalTask

# Accepted spellings of a task on the command line and in ARQMath file names.
TASK_NAMES = {
    "answer": "answer",
    "task1": "answer",
    "1": "answer",
    "formula": "formula",
    "task2": "formula",
    "2": "formula",
    "openqa": "openqa",
    "task3": "openqa",
    "3": "openqa",
    "document": "document",  # TREC-style tasks: TREC runs with the collection's docnos
    "rag": "rag",  # TREC RAG: generated answers citing the collection's segments
}


def task_kind(task: str) -> str:
    """The kind a ``--task`` value names; CommandError for an unknown one."""
    kind = TASK_NAMES.get(task.lower())
    if kind is None:
        raise CommandError(
            f"unknown task {task!r}: use answer|formula|openqa|document|rag (or task1..task3)"
        )
    return kind


def find_task(campaign: str, task: str) -> RetrievalTask:
    """The campaign's task of that kind, with its campaign; CommandError when there is none."""
    kind = task_kind(task)
    found = (
        RetrievalTask.objects.select_related("campaign")
        .filter(campaign__name=campaign, kind=kind)
        .first()
    )
    if found is None:
        raise CommandError(f"campaign {campaign!r} has no {kind} task")
    return found

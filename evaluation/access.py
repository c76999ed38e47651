"""Which results a user may open and see: organizers all, teams their own once published."""

from __future__ import annotations

from typing import Any

from django.db.models import F, QuerySet
from django.http import Http404

from collection.access import task_for
from collection.models import RetrievalTask
from evaluation.models import CURRENT_RESULT, EvaluationResult, TaskPublication
from kernel.access import is_organizer, is_person


def results_open_to(user: Any, task: RetrievalTask) -> bool:
    """May ``user`` open the task's results at all: organizers always; other people once the
    task is published with its official qrels, and then see only ``results_visible_to``."""
    if is_organizer(user):
        return True
    if not is_person(user):
        return False
    return TaskPublication.objects.filter(task=task, published=True).exists()


def results_visible_to(user: Any, task: RetrievalTask | None = None) -> QuerySet[EvaluationResult]:
    """Evaluation results a user may see: organizers all; team members their own teams' current
    results (scored on their run's latest version) on each published task's official qrels;
    anybody else none."""
    results = EvaluationResult.objects.all()
    if task is not None:
        results = results.filter(run__task=task)
    if is_organizer(user):
        return results
    if not is_person(user):
        return results.none()
    return results.filter(
        CURRENT_RESULT,
        run__task__publication__published=True,
        qrels=F("run__task__publication__qrels"),
        run__team__members=user,
    ).distinct()


NUGGET_SCORED = "a RAG task's runs are scored by nuggets: publish them on its nugget publication"


def publishes_with_qrels(task: RetrievalTask) -> bool:
    """Whether ``task``'s results are published with an official qrels version (this app's
    publication). A RAG task's scores are nugget scores, published by the nuggets app: a
    qrels-based publication of one would show participants nothing."""
    return task.kind != RetrievalTask.Kind.RAG


def publication_task_for(user: Any, task_id: int) -> RetrievalTask:
    """The task a publication URL names; not found (404) for a task published elsewhere, as
    the other pages that fit only some kinds of task answer."""
    task = task_for(user, task_id)
    if not publishes_with_qrels(task):
        raise Http404(NUGGET_SCORED)
    return task

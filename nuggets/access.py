"""Who may see or do what with nuggets, answers and labels.

Nugget lists are the organizers' (they edit them and import machine proposals); an assessor
labels answers under their own active assignment only, and never sees which run or team an
answer came from (the pages and endpoints show answers without either).
"""

from __future__ import annotations

from typing import Any

from django.http import Http404

from assessment.models import Assignment
from collection.access import task_for
from collection.models import RetrievalTask, Topic
from kernel.access import is_person
from kernel.params import parse_id


def rag_topic_for(raw_topic_id: str | int) -> Topic:
    """The topic of a RAG task a URL names; 404 otherwise."""
    topic_id = parse_id(raw_topic_id, name="topic")
    topic = (
        Topic.objects.select_related("task__campaign", "task__collection")
        .filter(pk=topic_id, task__kind=RetrievalTask.Kind.RAG)
        .first()
    )
    if topic is None:
        raise Http404(f"No topic {topic_id} of a RAG task.")
    return topic


def rag_task_for(user: Any, task_id: int) -> RetrievalTask:
    """The task a URL names, as ``task_for`` finds it, if it is a RAG task; 404 otherwise."""
    task = task_for(user, task_id)
    if task.kind != RetrievalTask.Kind.RAG:
        raise Http404(f"task {task.pk} is not a RAG task")
    return task


def own_nugget_assignment(user: Any, raw_assignment_id: str | int) -> Assignment:
    """The caller's own active assignment of a RAG topic; 404 for anyone else's."""
    assignment_id = parse_id(raw_assignment_id, name="assignment")
    found = (
        Assignment.objects.select_related("topic__task__collection")
        .filter(
            pk=assignment_id,
            revoked_at__isnull=True,
            topic__task__kind=RetrievalTask.Kind.RAG,
        )
        .first()
    )
    if found is None or not is_person(user) or found.assessor_id != user.pk:
        raise Http404(f"No nugget assignment {assignment_id} of yours.")
    return found

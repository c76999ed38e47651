"""Publishing a RAG task's nugget scores, and withdrawing them.

Publishing freezes the scores as they are (a ``NuggetScoreSnapshot`` with a checksum): the
figures participants see never move when labels or adjudications change afterwards; publishing
again makes a new snapshot. Each publication and withdrawal is an append-only
``NuggetPublicationEvent`` saying who and when, as for the results of other tasks
(``evaluation.services.publication``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.db import transaction

from collection.models import RetrievalTask
from nuggets.models import NuggetPublicationEvent, NuggetScoreSnapshot
from nuggets.selectors import TaskScores, task_nugget_scores
from nuggets.selectors.publication import nugget_publication_state
from pooling.models import Run


class NuggetPublicationError(ValueError):
    """A publication that cannot be done (shown to the organizer)."""


def _who(by: Any) -> tuple[Any, str]:
    """The user to record (None from the command line without --by) and a name that stays."""
    if by is None or not getattr(by, "pk", None):
        return None, "command line"
    return by, by.get_username()


def _frozen(task: RetrievalTask, scores: TaskScores) -> dict[str, Any]:
    teams = dict(Run.objects.filter(task=task).values_list("tag", "team_id"))
    return {
        "topics": scores.topics,
        "measures": list(scores.measures),
        "runs": [
            {
                "run": row.run,
                "team": row.team,
                "team_id": teams[row.run],
                "measures": row.measures,
                "per_topic": row.per_topic,
                "judged": row.judged,
                "to_judge": row.to_judge,
            }
            for row in scores.runs
        ],
    }


def _locked_rag_task(task: RetrievalTask) -> None:
    if task.kind != RetrievalTask.Kind.RAG:
        raise NuggetPublicationError(f"{task} is not a RAG task: its results are published as runs")
    RetrievalTask.objects.select_for_update().filter(pk=task.pk).first()  # one at a time


def nugget_scores_publish(*, task: RetrievalTask, by: Any) -> NuggetPublicationEvent:
    """Freeze the task's nugget scores as they are now and show them to participants (each
    team its own runs). Publishing again while published with the figures unchanged returns
    the standing publication (a request sent twice makes one snapshot)."""
    user, name = _who(by)
    with transaction.atomic():
        _locked_rag_task(task)
        scores = task_nugget_scores(task)
        if not scores.runs:
            raise NuggetPublicationError(f"{task} has no run to publish scores of")
        if not scores.topics:
            raise NuggetPublicationError(f"no topic of {task} has nuggets: nothing is scored")
        frozen = _frozen(task, scores)
        canonical = json.dumps(frozen, sort_keys=True, separators=(",", ":")).encode()
        checksum = hashlib.sha256(canonical).hexdigest()
        state = nugget_publication_state(task)
        if state.published and state.latest and state.latest.snapshot.checksum == checksum:
            return state.latest
        snapshot = NuggetScoreSnapshot.objects.create(
            task=task, scores=frozen, checksum=checksum, created_by=user
        )
        return NuggetPublicationEvent.objects.create(
            task=task,
            action=NuggetPublicationEvent.Action.PUBLISH,
            snapshot=snapshot,
            by=user,
            by_name=name,
        )


def nugget_scores_withdraw(*, task: RetrievalTask, by: Any) -> NuggetPublicationEvent:
    """Hide the task's nugget scores from participants again; every snapshot stays."""
    user, name = _who(by)
    with transaction.atomic():
        _locked_rag_task(task)
        state = nugget_publication_state(task)
        if not state.published or state.snapshot is None:
            raise NuggetPublicationError(f"the nugget scores of {task} are not published")
        return NuggetPublicationEvent.objects.create(
            task=task,
            action=NuggetPublicationEvent.Action.WITHDRAW,
            snapshot=state.snapshot,
            by=user,
            by_name=name,
        )

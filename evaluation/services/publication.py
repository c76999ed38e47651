"""Publishing a task's results with its official qrels, and withdrawing them.

Each task has at most one TaskPublication (its current state) and an append-only log of
PublicationEvents: who, when, publish or withdraw, which qrels version, and which runs were
scored then. Participants see a task's results only while it is published, and only as scored
with the official version (``evaluation.selectors.results_visible_to``).
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from collection.models import RetrievalTask
from evaluation.access import NUGGET_SCORED, publishes_with_qrels
from evaluation.models import PublicationEvent, QrelsVersion, TaskPublication
from evaluation.selectors import runs_not_scored, visible_results


class PublicationError(ValueError):
    """A publication that cannot be done (shown to the organizer)."""


def _check_kind(task: RetrievalTask) -> None:
    if not publishes_with_qrels(task):
        raise PublicationError(NUGGET_SCORED)


def _who(by: Any) -> tuple[Any, str]:
    """The user to record (None from the command line without --by) and a name that stays."""
    if by is None or not getattr(by, "pk", None):
        return None, "command line"
    return by, by.get_username()


def _scored_runs(task: RetrievalTask, qrels: QrelsVersion) -> dict[str, list[str]]:
    """Which runs participants will see scored, and which not (kept with the event)."""
    scored = visible_results(task, qrels, user=None).order_by("run__team__name", "run__tag")
    return {
        "scored": [f"{r.run.team.name}/{r.run.tag} v{r.run_version}" for r in scored],
        "not_scored": [
            f"{row['run']} v{row['version']}: {row['reason']}"
            for row in runs_not_scored(task, qrels, user=None)
        ],
    }


def results_publish(*, task: RetrievalTask, qrels: QrelsVersion, by: Any) -> TaskPublication:
    """Make ``qrels`` the task's official version and show participants their runs' scores on
    it. Re-publishing with another version switches the official one; both are recorded."""
    _check_kind(task)
    if qrels.task_id != task.pk:
        raise PublicationError(f"qrels version {qrels.pk} belongs to another task, not {task}")
    if qrels.level != "item":
        raise PublicationError("results are published with item-level qrels")
    user, name = _who(by)
    with transaction.atomic():
        RetrievalTask.objects.select_for_update().filter(pk=task.pk).first()  # one at a time
        details = _scored_runs(task, qrels)
        if not details["scored"]:
            raise PublicationError(
                f"no run is scored against qrels version {qrels.pk} yet: evaluate the runs first"
            )
        publication, _ = TaskPublication.objects.update_or_create(
            task=task,
            defaults={
                "qrels": qrels,
                "published": True,
                "changed_by": user,
                "changed_at": timezone.now(),
            },
        )
        PublicationEvent.objects.create(
            task=task,
            action=PublicationEvent.Action.PUBLISH,
            qrels=qrels,
            qrels_checksum=qrels.checksum,
            by=user,
            by_name=name,
            details=details,
        )
    return publication


def results_withdraw(*, task: RetrievalTask, by: Any) -> TaskPublication:
    """Hide the task's results from participants again; the official version and the record
    of every publication stay."""
    user, name = _who(by)
    with transaction.atomic():
        publication = (
            TaskPublication.objects.select_for_update().filter(task=task, published=True).first()
        )
        if publication is None:
            raise PublicationError(f"the results of {task} are not published")
        publication.published = False
        publication.changed_by = user
        publication.changed_at = timezone.now()
        publication.save(update_fields=["published", "changed_by", "changed_at"])
        PublicationEvent.objects.create(
            task=task,
            action=PublicationEvent.Action.WITHDRAW,
            qrels=publication.qrels,
            qrels_checksum=publication.qrels.checksum,
            by=user,
            by_name=name,
        )
    return publication

"""Creating a campaign's task with the defaults of its kind (collection/core/task_defaults.py)."""

from __future__ import annotations

from collection.core.task_defaults import task_defaults
from collection.models import Campaign, DocumentCollection, RetrievalTask


def task_get_or_create(
    *, campaign: Campaign, kind: str, collection: DocumentCollection | None = None
) -> tuple[RetrievalTask, bool]:
    """The campaign's task of ``kind``, created with its kind's defaults when there is none.

    An existing task keeps its settings: the organizer may have changed them."""
    fields: dict[str, object] = {**task_defaults(kind).as_fields()}
    if collection is not None:
        fields["collection"] = collection
    return RetrievalTask.objects.get_or_create(campaign=campaign, kind=kind, defaults=fields)

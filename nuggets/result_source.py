"""The nugget scores' entry on the results index (``evaluation.result_sources``): a link to a
RAG task's published scores for the users who may open them."""

from __future__ import annotations

from typing import Any

from django.urls import reverse

from evaluation.result_sources import ResultLink
from kernel.access import is_organizer
from nuggets.selectors.publication import nugget_scores_task_ids


def published_nugget_scores_links(user: Any) -> list[ResultLink]:
    # The same page: organizers publish and withdraw there, participants read what is published.
    label = "Nugget publication…" if is_organizer(user) else "Published nugget scores"
    return [
        ResultLink(task_id, label, reverse("nuggets:published", args=[task_id]))
        for task_id in nugget_scores_task_ids(user)
    ]

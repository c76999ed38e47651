"""Adjudication: the organizer's final grade where dual assessors disagree (issue 6 §7)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from assessment.models import COMMENT_MAX_CHARS, Adjudication
from assessment.selectors.guidelines import guidelines_current
from collection.models import RetrievalTask
from pooling.models import Hit

__all__ = ["AdjudicationError", "adjudication_decide"]


class AdjudicationError(Exception):
    """The decision cannot be stored (bad grade, hit without two judgments)."""


@transaction.atomic
def adjudication_decide(*, hit: Hit, grade: int, note: str = "", decided_by: User) -> Adjudication:
    """Record (or change) the final grade of a hit; qrels then prefer it to any judgment
    (DESIGN.md "Qrels": adjudicated > official > dual).
    """
    task = RetrievalTask.objects.get(topics__pool_items__hits=hit)
    scale = guidelines_current(task=task).scale
    if scale.grade(grade) is None:
        raise AdjudicationError(f"a final grade is {scale.values_text()}")
    if len(note) > COMMENT_MAX_CHARS:
        raise AdjudicationError(
            f"the note has {len(note):,} characters (at most {COMMENT_MAX_CHARS:,})"
        )
    if hit.judgments.filter(grade__isnull=False).values("assessor_id").distinct().count() < 2:
        raise AdjudicationError("only hits graded by two assessors are adjudicated")
    adjudication, _ = Adjudication.objects.update_or_create(
        hit=hit, defaults={"grade": grade, "note": note.strip(), "decided_by": decided_by}
    )
    return adjudication

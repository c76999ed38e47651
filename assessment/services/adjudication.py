"""Adjudication: the organizer's final grade where dual assessors disagree (issue 6 §7)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from assessment.models import COMMENT_MAX_CHARS, Adjudication
from pooling.models import Hit

__all__ = ["AdjudicationError", "adjudication_decide"]


class AdjudicationError(Exception):
    """The decision cannot be stored (bad grade, hit without two judgments)."""


@transaction.atomic
def adjudication_decide(*, hit: Hit, grade: int, note: str = "", decided_by: User) -> Adjudication:
    """Record (or change) the final grade of a hit; qrels then prefer it to any judgment
    (DESIGN.md "Qrels": adjudicated > official > dual).
    """
    if not 0 <= grade <= 3:
        raise AdjudicationError("a final grade is 0, 1, 2 or 3")
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

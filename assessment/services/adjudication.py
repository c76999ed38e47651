"""Adjudication: the organizer's final grade of a hit its assessors judged differently.
Qrels prefer it to every judgment (docs/evaluation.md).

Saving is idempotent and safe when two organizers decide the same hit at once. The decision
is written under the topic's pool lock (the lock order of pooling/locks.py), so two saves of
one hit run one after the other. A save carries what its organizer saw (``seen``: the
``decision_token`` of the decision on their page, 0 for none): when the hit has been decided
differently since, nothing is stored and ``AdjudicationConflict`` names the other decision,
so no one overwrites a colleague's grade without seeing it. Saving the grade and note that
are stored already changes nothing, whoever sends it and whatever they saw (a double click,
a retried request). Callers that pass no ``seen`` (scripts, tests) simply write.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from assessment.models import COMMENT_MAX_CHARS, Adjudication, Assignment, Judgment
from assessment.selectors.adjudication import decision_token
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.handover import counted_judgments
from collection.models import Topic
from pooling.locks import topic_pools_lock
from pooling.models import Hit

__all__ = ["AdjudicationConflict", "AdjudicationError", "adjudication_decide"]


class AdjudicationError(Exception):
    """The decision cannot be stored (bad grade, too long a note, a hit not judged by two
    assessors)."""


class AdjudicationConflict(AdjudicationError):
    """Another organizer decided the hit after this one loaded it: nothing was stored."""

    def __init__(self, current: Adjudication) -> None:
        self.current = current
        super().__init__(
            f"{current.decided_by.get_username()} decided this hit while you were looking at "
            f"it; your grade was not saved"
        )


def _judged_by_two(hit: Hit) -> bool:
    """Two or more assessors judged the hit in official or dual judgments that count."""
    judged = Judgment.objects.filter(
        counted_judgments(),
        hit=hit,
        assignment__purpose__in=[Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL],
    )
    return judged.values("assessor_id").distinct().count() >= 2


@transaction.atomic
def adjudication_decide(
    *, hit: Hit, grade: int, note: str = "", decided_by: User, seen: int | None = None
) -> Adjudication:
    """Record (or change) the final grade of a hit judged by two assessors.

    ``seen`` is the ``decision_token`` of the decision the organizer was shown (0: none);
    when the stored one differs and is not already this grade and note, raises
    ``AdjudicationConflict`` and stores nothing.
    """
    topic = Topic.objects.select_related("task").get(pool_items__hits=hit)
    scale = guidelines_current(task=topic.task).scale
    if scale.grade(grade) is None:
        raise AdjudicationError(f"a final grade is {scale.values_text()}")
    if len(note) > COMMENT_MAX_CHARS:
        raise AdjudicationError(
            f"the note has {len(note):,} characters (at most {COMMENT_MAX_CHARS:,})"
        )
    if "\x00" in note:  # PostgreSQL stores no NUL in text
        raise AdjudicationError("the note contains a NUL character")
    note = note.strip()
    topic_pools_lock(topic_ids=[topic.pk])
    if not _judged_by_two(hit):
        raise AdjudicationError("only hits judged by two assessors are adjudicated")
    current = (
        Adjudication.objects.select_for_update(of=("self",))
        .select_related("decided_by")
        .filter(hit=hit)
    ).first()
    if current is None:
        return Adjudication.objects.create(hit=hit, grade=grade, note=note, decided_by=decided_by)
    if (current.grade, current.note) == (grade, note):
        return current  # already so: nothing to change, nothing to conflict with
    if seen is not None and seen != decision_token(current.decided_at):
        raise AdjudicationConflict(current)
    current.grade, current.note, current.decided_by = grade, note, decided_by
    current.save(update_fields=["grade", "note", "decided_by", "decided_at"])
    return current

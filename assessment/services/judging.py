"""Saving an assessor's judgments: scoped, idempotent, every change kept.

docs/judging.md: a judgment is (assignment, hit) unique, holds a grade of its
task's scale (0-3 by default) or a flag (system failure, do not know) with a required comment,
accumulates the active seconds spent on it, and each change of value is kept as a
JudgmentRevision. A double click or a retried request stores one judgment and one revision.

What a submit checks and locks first is judging_checks.py's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import transaction
from django.db.models import OuterRef
from django.utils import timezone

from assessment.core.guidelines import GradeScale
from assessment.models import Assignment, Judgment, JudgmentRevision
from assessment.selectors.guidelines import guidelines_for_assignment
from assessment.selectors.machine_judges import suggested_grades
from assessment.services.judging_checks import (
    MAX_ACTIVE_SECONDS,
    PREVIOUS_ASSESSOR,
    HitVerdict,
    JudgingNotFound,
    JudgmentInvalid,
    checked_seconds,
    hits_count,
    lock_topic_pool,
    locked_assignment,
    refuse_previous,
    verdicts_check,
)
from pooling.models import Hit, PoolItem

__all__ = [
    "MAX_ACTIVE_SECONDS",
    "PREVIOUS_ASSESSOR",
    "HitVerdict",
    "JudgingNotFound",
    "JudgmentInvalid",
    "item_submit",
    "judgment_submit",
    "machine_judgments_store",
]


def _revision(judgment: Judgment, assessor: AbstractBaseUser) -> JudgmentRevision:
    return JudgmentRevision(
        judgment=judgment,
        number=judgment.revision,
        changed_by_id=assessor.pk,
        grade=judgment.grade,
        flag=judgment.flag,
        comment=judgment.comment,
        active_seconds=judgment.active_seconds,
        answers=judgment.answers,
    )


@dataclass(frozen=True)
class Applied:
    """What ``_apply`` stored: every judgment submitted, and how many were new or changed."""

    judgments: list[Judgment]
    created: int
    changed: int


def _apply(
    *,
    assignment: Assignment,
    verdicts: Sequence[HitVerdict],
    assessor: AbstractBaseUser,
    seconds_each: float,
    client_token: str,
    guidelines_version_id: int | None = None,
    imported: bool = False,
    suggested: frozenset[int] = frozenset(),
) -> Applied:
    """Insert new judgments, update changed ones, keep a revision of every change.

    A judgment an assessor submits again unchanged takes the request's time and token; an
    ``imported`` one (a machine judge's file) is left as it was."""
    existing = {
        judgment.hit_id: judgment
        for judgment in Judgment.objects.filter(
            assignment=assignment, hit_id__in=[v.hit_id for v in verdicts]
        )
    }
    created: list[Judgment] = []
    changed: list[Judgment] = []
    touched: list[Judgment] = []
    result: list[Judgment] = []
    comment_of = {v.hit_id: v.comment.strip() for v in verdicts}
    for verdict in verdicts:
        judgment = existing.get(verdict.hit_id)
        if judgment is not None:
            judgment.assignment = assignment  # the locked row: callers read it from here
        comment = comment_of[verdict.hit_id]
        # Answers not sent (an older client, a machine judge's file) stay as they were.
        answers = dict(verdict.answers) if verdict.answers is not None else None
        if judgment is None:
            judgment = Judgment(
                assignment=assignment,
                hit_id=verdict.hit_id,
                assessor_id=assessor.pk,
                grade=verdict.grade,
                flag=verdict.flag,
                comment=comment,
                active_seconds=seconds_each,
                answers=answers or {},
                revision=1,
                client_token=client_token,
            )
            created.append(judgment)
        elif client_token and judgment.client_token == client_token:
            pass  # the same request again: already stored, time already counted
        elif (judgment.grade, judgment.flag, judgment.comment, judgment.answers) == (
            verdict.grade,
            verdict.flag,
            comment,
            judgment.answers if answers is None else answers,
        ):
            if imported:
                result.append(judgment)
                continue
            judgment.active_seconds += seconds_each
            judgment.client_token = client_token
            touched.append(judgment)
        else:
            judgment.grade, judgment.flag, judgment.comment = verdict.grade, verdict.flag, comment
            if answers is not None:
                judgment.answers = answers
            judgment.active_seconds += seconds_each
            judgment.revision += 1
            judgment.assessor_id = assessor.pk  # who judged the value it holds now
            judgment.client_token = client_token
            changed.append(judgment)
        result.append(judgment)
    # A new or changed value was given under the guidelines in force now, with or without a
    # machine judge's suggestion on the page (``suggested``: the hits that showed one).
    for judgment in (*created, *changed):
        judgment.guidelines_version_id = guidelines_version_id
        judgment.suggestion_shown = judgment.hit_id in suggested
    if created:
        Judgment.objects.bulk_create(created)
    if changed or touched:
        _save_changes([*changed, *touched], grouped=imported)
    if created or changed:
        JudgmentRevision.objects.bulk_create(
            [_revision(judgment, assessor) for judgment in (*created, *changed)]
        )
    return Applied(result, len(created), len(changed))


_FIELDS = ("grade", "flag", "comment", "active_seconds", "revision", "assessor", "client_token")
# A machine judge's file (the grouped path) never sends answers: they are left as they were.
_FIELDS_GROUPED = (*_FIELDS[:5], "assessor_id", "client_token", "guidelines_version_id")
_FIELDS_SHOWN = (*_FIELDS, "suggestion_shown")


def _save_changes(judgments: Sequence[Judgment], *, grouped: bool) -> None:
    """Write changed judgments (with ``updated_at``, which bulk_update does not set).

    ``grouped``: one UPDATE per distinct new value. An import changes thousands of judgments
    at once, and Django's bulk_update builds a CASE per field and row (minutes for 10,000
    rows); a machine judge's new grades share few distinct values."""
    now = timezone.now()
    for judgment in judgments:
        judgment.updated_at = now
    if not grouped:
        fields = [*_FIELDS_SHOWN, "answers", "guidelines_version", "updated_at"]
        Judgment.objects.bulk_update(judgments, fields)
        return
    groups: dict[tuple[Any, ...], list[int]] = defaultdict(list)
    for judgment in judgments:
        groups[tuple(getattr(judgment, name) for name in _FIELDS_GROUPED)].append(judgment.pk)
    for values, ids in groups.items():
        Judgment.objects.filter(pk__in=ids).update(
            **dict(zip(_FIELDS_GROUPED, values, strict=True)), updated_at=now
        )


def _submit(
    *,
    assignment_id: int,
    topic_id: int | None,
    item_id: int,
    assessor: AbstractBaseUser,
    verdicts: Sequence[HitVerdict],
    active_seconds: float,
    client_token: str,
) -> list[Judgment]:
    if not verdicts:
        raise JudgmentInvalid({0: "nothing to submit: grade at least one hit"})
    # The task's own scale bounds grades and flags; judgments record its version.
    # An assignment's topic never changes; the row lock below checks it again.
    scale, guidelines_version_id, its_topic_id, topic_number = guidelines_for_assignment(
        assignment_id=assignment_id
    )
    hit_ids = verdicts_check(verdicts, scale, topic_number)
    seconds = checked_seconds(active_seconds)
    topic_id = topic_id if topic_id is not None else its_topic_id
    if topic_id is None:
        raise JudgingNotFound(f"no active assignment {assignment_id} for this assessor")
    with transaction.atomic():
        lock_topic_pool(topic_id)
        locked = locked_assignment(assignment_id, topic_id, assessor, item_id, hit_ids)
        refuse_previous(locked, hit_ids)
        applied = _apply(
            assignment=locked,
            verdicts=verdicts,
            assessor=assessor,
            seconds_each=seconds / len(verdicts),
            client_token=client_token[:64],
            guidelines_version_id=guidelines_version_id,
            suggested=frozenset(suggested_grades(topic_id, hit_ids)),
        )
        return applied.judgments


def item_submit(
    *,
    assignment: Assignment,
    item: PoolItem,
    assessor: AbstractBaseUser,
    verdicts: Sequence[HitVerdict],
    active_seconds: float = 0.0,
    client_token: str = "",
) -> list[Judgment]:
    """Store the judgments of several hits of one pool item at once, all or nothing.

    A formula item shows up to N posts, each graded; Enter submits them together.
    The assignment must be the assessor's own active one, the item in its topic and every hit
    in the item, else JudgingNotFound (a crafted request cannot judge another topic). Invalid
    values raise JudgmentInvalid listing every problem; nothing is stored then. The item's
    active seconds are shared equally by the hits submitted.
    """
    return _submit(
        assignment_id=assignment.pk,
        topic_id=assignment.topic_id,
        item_id=item.pk,
        assessor=assessor,
        verdicts=verdicts,
        active_seconds=active_seconds,
        client_token=client_token,
    )


def judgment_submit(
    *,
    assignment: Assignment,
    hit: Hit,
    assessor: AbstractBaseUser,
    grade: int | None = None,
    flag: str = "",
    comment: str = "",
    answers: dict[str, bool] | None = None,
    active_seconds: float = 0.0,
    client_token: str = "",
) -> Judgment:
    """Store one hit's judgment under the rules of item_submit.

    Idempotent: the same values again add no revision (only their active seconds); the same
    client_token again changes nothing at all. ``answers``: the extra questions' answers
    (question code -> yes/no); None keeps the stored ones.
    """
    [judgment] = _submit(
        assignment_id=assignment.pk,
        topic_id=assignment.topic_id,
        item_id=hit.item_id,
        assessor=assessor,
        verdicts=[
            HitVerdict(hit_id=hit.pk, grade=grade, flag=flag, comment=comment, answers=answers)
        ],
        active_seconds=active_seconds,
        client_token=client_token,
    )
    return judgment


def machine_judgments_store(
    *,
    assignment: Assignment,
    verdicts: Sequence[HitVerdict],
    scale: GradeScale,
    guidelines_version_id: int | None,
    keep_only_these: bool = False,
) -> tuple[int, int, int]:
    """Store a machine judge's grades of one topic, in bulk: the checks of a
    submit (the task's scale, hits of the assignment's topic, the pool lock first), a revision
    of every new or changed grade, unchanged grades left untouched.

    ``assignment`` is the judge's machine assignment of the topic; the caller runs inside
    ``transaction.atomic()`` (a whole file is one transaction). ``keep_only_these`` removes the
    judge's judgments of the topic's other hits (a new file replaces the old one). Returns
    (created, changed, removed).
    """
    hit_ids = verdicts_check(verdicts, scale)
    lock_topic_pool(assignment.topic_id)
    in_topic = Hit.objects.filter(pk__in=hit_ids, item__topic_id=OuterRef("topic_id"))
    locked = (
        Assignment.objects.select_for_update(of=("self",))
        .select_related("assessor")
        .filter(pk=assignment.pk, purpose=Assignment.Purpose.MACHINE, revoked_at__isnull=True)
        .annotate(hits_in_topic=hits_count(in_topic))
        .first()
    )
    if locked is None:
        raise JudgingNotFound(f"no machine assignment {assignment.pk}")
    if (locked.hits_in_topic or 0) != len(hit_ids):  # type: ignore[attr-defined]
        raise JudgingNotFound(f"a hit is not in the pool of topic {locked.topic_id}")
    removed = 0
    if keep_only_these:
        # Their revisions go with them: the file no longer grades those hits.
        _, deleted = Judgment.objects.filter(assignment=locked).exclude(hit_id__in=hit_ids).delete()
        removed = deleted.get(Judgment._meta.label, 0)
    if not verdicts:
        return 0, 0, removed
    applied = _apply(
        assignment=locked,
        verdicts=verdicts,
        assessor=locked.assessor,
        seconds_each=0.0,
        client_token="",
        guidelines_version_id=guidelines_version_id,
        imported=True,
    )
    return applied.created, applied.changed, removed

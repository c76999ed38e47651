"""The checks of a submit, before anything is written (Zulip's ``check_*``): the verdicts
against the task's scale, the assessor's scope, the locks.

A submit takes the topic's pool lock before anything else (the lock order of
pooling/locks.py), so it waits for a pool rebuild of that topic instead of failing with it,
then row-locks the assessor's own assignment while checking in the same query that every hit
is its item's and the item its topic's. After a continue-move, hits judged by a previous
assessor are refused.

A scoped assignment's scope: a hit is within it when its item is in the scope now, or when the
assignment already holds its own judgment of the hit (an item the organizer took out after it
was judged: the assessor may correct that judgment, which still counts toward qrels, but never
judge anew an item taken out). Anything else answers "not found", with nothing stored. The
pages and the REST reads open the same items (``assessment/selectors/taken_out.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import (
    Case,
    Exists,
    F,
    Func,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    When,
)

from assessment.core.guidelines import GradeScale, answers_problem
from assessment.models import COMMENT_MAX_CHARS, Assignment, AssignmentItem, Judgment
from assessment.selectors.handover import previous_judgments
from assessment.selectors.taken_out import own_judgment_of
from kernel.prepared import prepared_rows
from pooling.locks import topic_pools_lock
from pooling.models import Hit

# A single submit never claims more than an hour of work: a client clock gone wrong must not
# poison the time-per-judgment statistics.
MAX_ACTIVE_SECONDS = 3600.0
FLAGS = frozenset(value for value in Judgment.Flag.values if value)
PREVIOUS_ASSESSOR = (
    "judged by a previous assessor of this topic: that judgment stays theirs and cannot be "
    "changed here"
)


class JudgingNotFound(Exception):
    """The assignment is not the assessor's own active one, or the hit is not in its topic.

    Views answer 404: to the assessor such an assignment or item does not exist.
    """


class JudgmentInvalid(Exception):
    """The submitted values break the saving rules; ``problems`` maps hit id to messages."""

    def __init__(self, problems: dict[int, str]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"hit {hit}: {text}" for hit, text in problems.items()))


@dataclass(frozen=True)
class HitVerdict:
    """What the assessor said about one hit: a grade, or a flag with a comment, and the answers
    to the guidelines' extra questions asked on its topic (None: leave the stored ones)."""

    hit_id: int
    grade: int | None = None
    flag: str = ""
    comment: str = ""
    answers: Mapping[str, bool] | None = None

    def problem(self, scale: GradeScale, topic: str = "") -> str | None:
        """Why these values cannot be stored under the task's ``scale`` on ``topic``, or None
        (the DB check constraint's rule, with the scale's exact grades, flags and questions)."""
        if self.flag and self.flag not in FLAGS:
            return f"unknown flag {self.flag!r}"
        if (self.grade is None) == (not self.flag):
            return f"choose one of {scale.choices_text()}"
        if (wrong := scale.verdict_problem(self.grade, self.flag)) is not None:
            return wrong
        if self.flag and not self.comment.strip():
            return f"{scale.label(None, self.flag)} needs a comment saying why"
        if len(self.comment) > COMMENT_MAX_CHARS:
            length = len(self.comment)
            return f"the comment has {length:,} characters (at most {COMMENT_MAX_CHARS:,})"
        if self.answers is not None:
            return answers_problem(self.answers, scale.questions_on(topic))
        return None


def hits_count(hits: QuerySet[Hit]) -> Subquery:
    return Subquery(
        hits.order_by().annotate(n=Func(F("pk"), function="COUNT")).values("n")[:1],
        output_field=IntegerField(),
    )


def verdicts_check(verdicts: Sequence[HitVerdict], scale: GradeScale, topic: str = "") -> list[int]:
    """Every verdict within the task's scale (and the questions asked on ``topic``), no hit
    twice: the hit ids, or JudgmentInvalid listing every problem (a person's submit and a
    machine judge's file alike)."""
    problems = {v.hit_id: text for v in verdicts if (text := v.problem(scale, topic)) is not None}
    hit_ids = [v.hit_id for v in verdicts]
    if len(set(hit_ids)) != len(hit_ids):
        problems[0] = "a hit is graded twice"
    if problems:
        raise JudgmentInvalid(problems)
    return hit_ids


def lock_topic_pool(topic_id: int) -> None:
    """Take the pool lock of the assignment's topic, first of all locks (pooling/locks.py), so
    a rebuild running at the same time neither removes a hit being judged nor makes this
    submit fail."""
    topic_pools_lock(topic_ids=[topic_id])


def _assignment_in_scope(
    assignment_id: int, topic_id: int, assessor_id: int, item_id: int, hit_ids: list[int]
) -> QuerySet[Assignment]:
    """The assessor's own active assignment, to be row-locked, with how many of ``hit_ids``
    are hits of the item, the item being its topic's (and its training round's)."""
    in_topic = Hit.objects.filter(
        pk__in=hit_ids, item_id=item_id, item__topic_id=OuterRef("topic_id")
    )
    # A training assignment reaches only the round's own items.
    in_round = in_topic.filter(item__training_rounds=OuterRef("training_round_id"))
    # A scoped assignment (a drawn human sample's) reaches its scope's items and, of an item
    # the organizer took out of it, only the hits it judged: its assessor may correct a
    # judgment that still counts toward qrels, never judge such an item anew.
    in_scope = in_topic.filter(
        Exists(
            AssignmentItem.objects.filter(
                assignment_id=OuterRef(OuterRef("pk")), item_id=OuterRef("item_id")
            )
        )
        | own_judgment_of(OuterRef(OuterRef("pk")), OuterRef("pk"))
    )
    return (
        Assignment.objects.select_for_update(of=("self",))
        .filter(pk=assignment_id, topic_id=topic_id, assessor_id=assessor_id, revoked_at=None)
        # A machine judge's grades come from its file only (machine_judgments_store).
        .exclude(purpose=Assignment.Purpose.MACHINE)
        .annotate(
            hits_in_scope=Case(
                When(scoped=True, then=hits_count(in_scope)),
                When(training_round__isnull=True, then=hits_count(in_topic)),
                default=hits_count(in_round),
            )
        )
    )


def locked_assignment(
    assignment_id: int,
    topic_id: int,
    assessor: AbstractBaseUser,
    item_id: int,
    hit_ids: Sequence[int],
) -> Assignment:
    """The assessor's own active assignment, row-locked, once the hits are checked to be
    the item's and the item its topic's (one query, its SQL built once: kernel.prepared).

    The lock serializes every submit to one assignment, so two requests for the same
    (assignment, hit) cannot both insert: the second waits, then finds the first's row.
    """
    rows = prepared_rows(
        Assignment,
        _assignment_in_scope,
        assignment_id=assignment_id,
        topic_id=topic_id,
        assessor_id=assessor.pk,
        item_id=item_id,
        hit_ids=list(hit_ids),
    )
    locked = rows[0] if rows else None
    if locked is None:
        raise JudgingNotFound(f"no active assignment {assignment_id} for this assessor")
    if locked.hits_in_scope != len(hit_ids):  # type: ignore[attr-defined]
        raise JudgingNotFound(f"a hit is not part of pool item {item_id} of this topic")
    if locked.submitted_at is not None:
        # A handed-in training round is compared with the gold grades: it stays as it was.
        raise JudgmentInvalid(
            {0: "this training round has been handed in; it can no longer change"}
        )
    return locked


def refuse_previous(assignment: Assignment, hit_ids: Sequence[int]) -> None:
    """After a continue-move, the hits judged by a previous assessor stay theirs: refuse them
    (nothing of their judgment is shown or changed)."""
    previous = previous_judgments(assignment)
    if previous is None:
        return
    taken = Judgment.objects.filter(previous, hit_id__in=hit_ids).values_list("hit_id", flat=True)
    if taken:
        raise JudgmentInvalid(dict.fromkeys(sorted(taken), PREVIOUS_ASSESSOR))


def checked_seconds(active_seconds: float) -> float:
    if not active_seconds >= 0:  # also refuses NaN
        raise JudgmentInvalid({0: "active seconds must be a non-negative number"})
    return min(float(active_seconds), MAX_ACTIVE_SECONDS)

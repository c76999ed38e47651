"""Disputes: hits whose counted official and dual judgments differ.

"Counted" is ``counted_judgments`` (assessment/selectors/handover.py): the judgments that would
make the qrels, so a revoked assignment's or a start-over move's earlier judgments no longer
make a dispute. A hit the organizer has decided stays on the list even when its assessors
agree later: the decision still overrides them in the qrels. Two queries per task.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from django.db.models import F, Max, Min

from assessment.models import Adjudication, Assignment, Judgment
from assessment.selectors.handover import counted_judgments
from collection.models import RetrievalTask

__all__ = [
    "STATES",
    "Decision",
    "Dispute",
    "DisputeCounts",
    "DisputeFilter",
    "SharedJudgments",
    "Verdict",
    "decision_token",
    "dispute_counts",
    "task_disputes",
]

# Which disputes a page shows: the ones still to decide, the decided ones, or all.
STATES = ("undecided", "decided", "all")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def decision_token(decided_at: datetime | None) -> int:
    """What an organizer saw of a hit's decision: 0 for none, else the microsecond it was last
    written. The page sends it back with a save, and the service refuses the save when the
    decision has changed since (docs/agreement.md, "Adjudication")."""
    if decided_at is None:
        return 0
    return (decided_at - _EPOCH) // timedelta(microseconds=1)


@dataclass(frozen=True)
class Verdict:
    """One assessor's say on a hit (organizers may see who said what)."""

    assessor: str
    purpose: str  # official | dual
    grade: int | None
    flag: str
    comment: str
    judged_at: datetime


@dataclass(frozen=True)
class Decision:
    """The organizer's final grade of a hit."""

    grade: int
    note: str
    decided_by: str
    decided_at: datetime

    @property
    def token(self) -> int:
        return decision_token(self.decided_at)


@dataclass(frozen=True)
class Dispute:
    """A hit whose assessors disagree (or that an organizer decided), in page order."""

    hit_id: int
    topic_id: int
    topic: str
    item_key: str
    post_id: int | None
    verdicts: tuple[Verdict, ...]
    decision: Decision | None
    order: tuple[int, int, int, int] = field(repr=False)  # topic, item, hit position, hit

    @property
    def differs(self) -> bool:
        return len({(v.grade, v.flag) for v in self.verdicts}) > 1

    @property
    def difference(self) -> int:
        """The largest gap between two grades; 0 when only a flag differs."""
        grades = [v.grade for v in self.verdicts if v.grade is not None]
        return max(grades) - min(grades) if len(grades) >= 2 else 0

    @property
    def decided(self) -> bool:
        return self.decision is not None


@dataclass(frozen=True)
class DisputeCounts:
    """How many disputes, and how many of them decided: every count of disputes a page shows
    (the list, the states, the topics, the agreement table) is one of these."""

    disputes: int = 0
    decided: int = 0

    @property
    def undecided(self) -> int:
        return self.disputes - self.decided


def dispute_counts(disputes: Iterable[Dispute]) -> DisputeCounts:
    """The counts of ``disputes`` (no query)."""
    n = decided = 0
    for dispute in disputes:
        n += 1
        decided += dispute.decided
    return DisputeCounts(n, decided)


@dataclass(frozen=True)
class DisputeFilter:
    """What the page lists: a topic number ("" for all), the smallest grade gap (0, the
    default, lists every dispute: a flag against a grade too), a state."""

    topic: str = ""
    min_difference: int = 0
    state: str = "undecided"

    def matches(self, dispute: Dispute) -> bool:
        """Topic and grade gap; the state is applied on top (``shows``)."""
        return (not self.topic or dispute.topic == self.topic) and (
            dispute.difference >= self.min_difference
        )

    def shows(self, dispute: Dispute) -> bool:
        wanted = {"undecided": False, "decided": True}.get(self.state)
        return self.matches(dispute) and (wanted is None or dispute.decided == wanted)

    def query(self, **changes: Any) -> dict[str, Any]:
        """The filter as query parameters (links, the form's action), with ``changes``."""
        values: dict[str, Any] = {
            "state": self.state,
            "topic": self.topic,
            "difference": self.min_difference,
            **changes,
        }
        return {name: value for name, value in values.items() if value != ""}


@dataclass(frozen=True)
class SharedJudgments:
    """Every dispute of a task in page order, and the graded verdicts of every hit two or more
    assessors judged (for agreement): topic id -> assessor id -> {hit id: grade}."""

    disputes: list[Dispute]
    ratings: dict[int, dict[int, dict[int, int]]]
    topics: dict[int, str]  # topic id -> number
    assessors: dict[int, tuple[str, frozenset[str]]]  # id -> name, purposes


def _shared_rows(task: RetrievalTask) -> list[Any]:
    """The counted official and dual judgments of the hits two or more assessors judged (one
    query; min < max of the assessor ids is a hash aggregate, cheaper than a distinct count)."""
    work = Judgment.objects.filter(
        counted_judgments(),
        assignment__topic__task=task,
        assignment__purpose__in=[Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL],
    )
    shared = (
        work.values("hit_id")
        .annotate(low=Min("assessor_id"), high=Max("assessor_id"))
        .filter(low__lt=F("high"))
        .values("hit_id")
    )
    return list(
        work.filter(hit_id__in=shared)
        .annotate(
            topic_id=F("assignment__topic_id"),
            topic=F("assignment__topic__number"),
            item_order=F("hit__item__display_order"),
            item_key=F("hit__item__key"),
            position=F("hit__position"),
            post_id=F("hit__post_id"),
            name=F("assessor__username"),
            purpose=F("assignment__purpose"),
        )
        .values_list(
            "hit_id",
            "topic_id",
            "topic",
            "item_order",
            "item_key",
            "position",
            "post_id",
            "assessor_id",
            "name",
            "purpose",
            "grade",
            "flag",
            "comment",
            "updated_at",
            named=True,
        )
    )


def _decisions(task: RetrievalTask) -> dict[int, Decision]:
    rows = Adjudication.objects.filter(hit__item__topic__task=task).values_list(
        "hit_id", "grade", "note", "decided_by__username", "decided_at"
    )
    return {hit: Decision(grade, note, who, when) for hit, grade, note, who, when in rows}


def _dispute(rows: list[Any], decision: Decision | None) -> Dispute:
    first = rows[0]
    # The official assessor first, then the dual ones by name: the same place on every page.
    ordered = sorted(rows, key=lambda r: (r.purpose != Assignment.Purpose.OFFICIAL, r.name))
    return Dispute(
        hit_id=first.hit_id,
        topic_id=first.topic_id,
        topic=first.topic,
        item_key=first.item_key,
        post_id=first.post_id,
        verdicts=tuple(
            Verdict(r.name, r.purpose, r.grade, r.flag, r.comment, r.updated_at) for r in ordered
        ),
        decision=decision,
        order=(first.topic_id, first.item_order, first.position, first.hit_id),
    )


def task_disputes(*, task: RetrievalTask) -> SharedJudgments:
    """The task's disputes and shared judgments (two queries)."""
    by_hit: dict[int, list[Any]] = defaultdict(list)
    ratings: dict[int, dict[int, dict[int, int]]] = defaultdict(lambda: defaultdict(dict))
    topics: dict[int, str] = {}
    people: dict[int, tuple[str, set[str]]] = {}
    for row in _shared_rows(task):
        by_hit[row.hit_id].append(row)
        topics[row.topic_id] = row.topic
        people.setdefault(row.assessor_id, (row.name, set()))[1].add(row.purpose)
        if row.grade is not None:
            ratings[row.topic_id][row.assessor_id][row.hit_id] = row.grade
    decisions = _decisions(task)
    disputes = [_dispute(rows, decisions.get(hit_id)) for hit_id, rows in by_hit.items()]
    return SharedJudgments(
        disputes=sorted((d for d in disputes if d.differs or d.decided), key=lambda d: d.order),
        ratings={topic: dict(graded) for topic, graded in ratings.items()},
        topics=topics,
        assessors={a: (name, frozenset(purposes)) for a, (name, purposes) in people.items()},
    )

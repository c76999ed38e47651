"""Reads for the adjudication of nugget labels: who labelled each (answer, nugget) how, which
answers hold disputes, and what the adjudication page shows of one of them.

A pair is disputed when the labels given under the topic's active official and dual
assignments differ (and, when the organizer asks, its machine judges' too). An answer is on
the list while it holds a disputed or decided pair; it is undecided while some disputed pair
has no final label.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Count, QuerySet

from assessment.models import Assignment
from collection.models import RetrievalTask
from kernel.core.ordering import natural_key
from nuggets.models import Nugget, NuggetAdjudication, NuggetLabel, RagAnswer

PEOPLE = (Assignment.Purpose.OFFICIAL, Assignment.Purpose.DUAL)
STATES = ("undecided", "all")


@dataclass(frozen=True, slots=True)
class Opinion:
    assessor: str
    purpose: str
    support: str
    at: datetime


Pair = tuple[int, int]  # (answer id, nugget id)


def label_opinions(
    *,
    answer_ids: list[int],
    with_machine: bool = False,
) -> dict[Pair, list[Opinion]]:
    """Every label of the answers' live nuggets under active assignments, official first."""
    purposes = [*PEOPLE, Assignment.Purpose.MACHINE] if with_machine else list(PEOPLE)
    labels = _active_labels(with_machine=with_machine)
    labels = labels.filter(answer_id__in=answer_ids)
    found: dict[Pair, list[Opinion]] = defaultdict(list)
    rank: dict[str, int] = {str(purpose): index for index, purpose in enumerate(purposes)}
    rows = labels.values_list(
        "answer_id",
        "nugget_id",
        "assignment__assessor__username",
        "assignment__purpose",
        "support",
        "updated_at",
    )
    for answer_id, nugget_id, username, purpose, support, at in sorted(
        rows, key=lambda r: (rank[r[3]], r[2])
    ):
        found[(answer_id, nugget_id)].append(Opinion(username, purpose, support, at))
    return found


def _disputed(opinions: list[Opinion]) -> bool:
    return len({o.support for o in opinions}) > 1


@dataclass(frozen=True, slots=True)
class AnswerDispute:
    answer_id: int
    topic: str
    disputed: int  # nuggets whose labels differ, or that have a final label
    decided: int  # of those, with a final label

    @property
    def is_decided(self) -> bool:
        return self.decided >= self.disputed


def _active_labels(*, with_machine: bool) -> QuerySet[NuggetLabel]:
    purposes = [*PEOPLE, Assignment.Purpose.MACHINE] if with_machine else list(PEOPLE)
    return NuggetLabel.objects.filter(
        assignment__revoked_at__isnull=True,
        assignment__purpose__in=purposes,
        nugget__is_deleted=False,
    )


def answer_disputes(task: RetrievalTask, *, with_machine: bool = False) -> list[AnswerDispute]:
    """The task's answers holding disputes, by topic (natural order) and answer. The database
    finds the disputed pairs (one grouped query), so a task of millions of labels costs one
    pass over them, not their transfer."""
    disputed = (
        _active_labels(with_machine=with_machine)
        .filter(answer__run__task=task)
        .values("answer_id", "nugget_id")
        .annotate(kinds=Count("support", distinct=True))
        .filter(kinds__gt=1)
        .values_list("answer_id", "nugget_id")
    )
    pairs = set(disputed)
    decided = set(
        NuggetAdjudication.objects.filter(
            answer__run__task=task, nugget__is_deleted=False
        ).values_list("answer_id", "nugget_id")
    )
    per_answer: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for answer_id, nugget_id in pairs | decided:
        per_answer[answer_id][0] += 1
        per_answer[answer_id][1] += (answer_id, nugget_id) in decided
    topics = dict(
        RagAnswer.objects.filter(pk__in=list(per_answer)).values_list("pk", "topic__number")
    )
    found = [
        AnswerDispute(answer_id, topics[answer_id], counts[0], counts[1])
        for answer_id, counts in per_answer.items()
    ]
    return sorted(found, key=lambda d: (natural_key(d.topic), d.answer_id))


@dataclass(frozen=True)
class NuggetVerdicts:
    nugget: Nugget
    opinions: list[Opinion]
    final: NuggetAdjudication | None

    @property
    def disputed(self) -> bool:
        return _disputed(self.opinions)

    @property
    def decidable(self) -> bool:
        return self.disputed or self.final is not None

    @property
    def agreed(self) -> str:
        """The one label every opinion gave ("" when none or when they differ)."""
        given = {o.support for o in self.opinions}
        return next(iter(given)) if len(given) == 1 else ""


@dataclass(frozen=True)
class AnswerAdjudication:
    answer: RagAnswer
    nuggets: list[NuggetVerdicts] = field(default_factory=list)


def answer_adjudication(
    task: RetrievalTask, answer_id: int, *, with_machine: bool = False
) -> AnswerAdjudication | None:
    """One answer of the task with every live nugget's labels and final label; None when the
    answer is not the task's."""
    answer = RagAnswer.objects.select_related("topic").filter(pk=answer_id, run__task=task).first()
    if answer is None:
        return None
    opinions = label_opinions(answer_ids=[answer.pk], with_machine=with_machine)
    finals = {
        a.nugget_id: a
        for a in NuggetAdjudication.objects.filter(answer=answer).select_related("decided_by")
    }
    nuggets = Nugget.objects.filter(topic_id=answer.topic_id, is_deleted=False).order_by("position")
    return AnswerAdjudication(
        answer,
        [NuggetVerdicts(n, opinions.get((answer.pk, n.pk), []), finals.get(n.pk)) for n in nuggets],
    )

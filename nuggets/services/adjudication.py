"""Adjudication of nugget labels: an organizer's final label of (answer, nugget) where the
labels given under the topic's active assignments disagree (people, and machine judges when
the organizer lets them count).

As for grades (``assessment.services.adjudication``): the labels are never touched and the
decision says who and when. The answer's row is locked while deciding, so two organizers
deciding one answer at once run one after the other; a changed decision keeps the earlier one
in its history. A final label sent again as it is stored is left as it is, note and decider
too: the page sends every label on show, and saving one new decision must not rewrite the
others' notes.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from collection.models import RetrievalTask
from nuggets.core.scores import Support
from nuggets.models import ADJUDICATION_NOTE_MAX_CHARS, Nugget, NuggetAdjudication, RagAnswer
from nuggets.selectors.adjudication import label_opinions


class NuggetAdjudicationError(Exception):
    """The decision cannot be stored; nothing was."""


def _checked_note(note: str) -> str:
    if len(note) > ADJUDICATION_NOTE_MAX_CHARS:
        raise NuggetAdjudicationError(
            f"the note has {len(note):,} characters (at most {ADJUDICATION_NOTE_MAX_CHARS:,})"
        )
    if "\x00" in note:  # PostgreSQL stores no NUL in text
        raise NuggetAdjudicationError("the note contains a NUL character")
    return note.strip()


def _checked_answer(
    task: RetrievalTask, answer_id: int, finals: Mapping[int, str], with_machine: bool
) -> tuple[RagAnswer, dict[int, NuggetAdjudication]]:
    """The answer, locked, and its decisions already made on ``finals``' nuggets, once each
    nugget is a live one of its topic that is disputed or decided."""
    answer = (
        RagAnswer.objects.select_for_update()
        .filter(pk=answer_id, run__task=task, run__task__kind=RetrievalTask.Kind.RAG)
        .first()
    )
    if answer is None:
        raise NuggetAdjudicationError(f"answer {answer_id} is not one of {task}'s")
    live = set(
        Nugget.objects.filter(topic_id=answer.topic_id, is_deleted=False).values_list(
            "pk", flat=True
        )
    )
    if unknown := set(finals) - live:
        raise NuggetAdjudicationError(f"nugget {min(unknown)} is not in this topic's list")
    opinions = label_opinions(answer_ids=[answer.pk], with_machine=with_machine)
    existing = {
        a.nugget_id: a
        for a in NuggetAdjudication.objects.filter(answer=answer, nugget_id__in=list(finals))
    }
    for nugget_id in finals:
        given = {o.support for o in opinions.get((answer.pk, nugget_id), [])}
        if len(given) < 2 and nugget_id not in existing:
            raise NuggetAdjudicationError(
                f"nugget {nugget_id}: only nuggets whose labels disagree are adjudicated"
            )
    return answer, existing


@transaction.atomic
def nugget_adjudication_decide(
    *,
    task: RetrievalTask,
    answer_id: int,
    finals: Mapping[int, str],
    decided_by: User,
    note: str = "",
    with_machine: bool = False,
) -> list[NuggetAdjudication]:
    """Record (or change) the final label of each nugget in ``finals`` (nugget id -> support)
    for one answer of ``task``, ``note`` going with each new or changed one. Each must be
    disputed (two labels differ) or decided already; all or nothing. Returns the decisions
    made or changed (none when every label is stored as sent)."""
    if not finals:
        raise NuggetAdjudicationError("choose a final label for a disputed nugget")
    if bad := [s for s in finals.values() if s not in Support.__members__.values()]:
        raise NuggetAdjudicationError(
            f"{bad[0]!r}: a final label is support, partial_support or not_support"
        )
    note = _checked_note(note)
    answer, existing = _checked_answer(task, answer_id, finals, with_machine)
    now = timezone.now()
    stored = []
    for nugget_id, support in finals.items():
        current = existing.get(nugget_id)
        if current is None:
            current = NuggetAdjudication.objects.create(
                answer=answer,
                nugget_id=nugget_id,
                support=support,
                note=note,
                decided_by=decided_by,
            )
        elif current.support != support:
            earlier = {
                "support": current.support,
                "note": current.note,
                "by": current.decided_by_id,
                "at": current.decided_at.isoformat(),
            }
            current.history = [*current.history, earlier]
            current.support, current.note, current.decided_by = support, note, decided_by
            current.decided_at = now
            current.save(update_fields=["support", "note", "decided_by", "decided_at", "history"])
        else:
            continue  # stored as sent
        stored.append(current)
    return stored

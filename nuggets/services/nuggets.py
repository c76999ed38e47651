"""Editing a topic's nuggets: add, edit, mark vital/okay, move, merge, delete, import.

Each change locks the topic, applies itself and records the whole list as the next
``NuggetRevision``, so versions are numbered without gaps and any version can be shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import BinaryIO

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from collection.models import RetrievalTask, Topic
from nuggets.core.nuggetizer import MAX_NUGGET_CHARS, NuggetFile, read_nugget_file
from nuggets.core.scores import Importance
from nuggets.models import Nugget, NuggetProposal, NuggetRevision


class NuggetError(Exception):
    """A change that cannot be made (a bad text, an unknown nugget, a file with problems)."""

    def __init__(self, message: str, problems: list[str] | None = None) -> None:
        self.message = message
        self.problems = problems or []
        super().__init__(message)


def _clean(text: str) -> str:
    text = " ".join(text.split())
    if not text or len(text) > MAX_NUGGET_CHARS:
        raise NuggetError(f"a nugget is a text of 1 to {MAX_NUGGET_CHARS:,} characters")
    return text


def _importance(value: str) -> str:
    if value not in Importance.__members__.values():
        raise NuggetError("importance is vital or okay")
    return value


def live_nuggets(topic_id: int) -> list[Nugget]:
    return list(Nugget.objects.filter(topic_id=topic_id, is_deleted=False).order_by("position"))


def _renumber(nuggets: Sequence[Nugget]) -> None:
    for index, nugget in enumerate(nuggets):
        nugget.position = index
    Nugget.objects.bulk_update(nuggets, ["position"])


def _record(topic_id: int, action: str, user: User | None) -> NuggetRevision:
    last = NuggetRevision.objects.filter(topic_id=topic_id).aggregate(v=Max("version"))["v"]
    snapshot = [
        {
            "id": n.pk,
            "text": n.text,
            "importance": n.importance,
            "origin": n.origin,
            "provenance": n.provenance,
        }
        for n in live_nuggets(topic_id)
    ]
    return NuggetRevision.objects.create(
        topic_id=topic_id, version=(last or 0) + 1, action=action, changed_by=user, nuggets=snapshot
    )


def _lock(topic_id: int) -> None:
    Topic.objects.select_for_update().filter(pk=topic_id).first()


def _locked_nugget(nugget_id: int, topic_id: int) -> Nugget:
    nugget = Nugget.objects.filter(pk=nugget_id, topic_id=topic_id, is_deleted=False).first()
    if nugget is None:
        raise NuggetError(f"nugget {nugget_id} is not in this topic's list")
    return nugget


def nugget_add(
    *,
    topic: Topic,
    text: str,
    importance: str = Importance.OKAY,
    user: User | None,
    origin: str = Nugget.Origin.PERSON,
    provenance: str = "",
) -> Nugget:
    """A new nugget at the end of the topic's list."""
    text, importance = _clean(text), _importance(importance)
    with transaction.atomic():
        _lock(topic.pk)
        position = len(live_nuggets(topic.pk))
        nugget = Nugget.objects.create(
            topic=topic,
            text=text,
            importance=importance,
            position=position,
            origin=origin,
            created_by=user,
            provenance=provenance,
        )
        _record(topic.pk, "add", user)
    return nugget


def nugget_edit(
    *,
    topic: Topic,
    nugget_id: int,
    user: User | None,
    text: str | None = None,
    importance: str | None = None,
) -> Nugget:
    """A new text or importance for a nugget (labels already given stay with it)."""
    with transaction.atomic():
        _lock(topic.pk)
        nugget = _locked_nugget(nugget_id, topic.pk)
        action = []
        if text is not None and _clean(text) != nugget.text:
            nugget.text = _clean(text)
            action.append("edit")
        if importance is not None and _importance(importance) != nugget.importance:
            nugget.importance = importance
            action.append("importance")
        if action:
            nugget.save(update_fields=["text", "importance", "updated_at"])
            _record(topic.pk, "+".join(action), user)
    return nugget


def nugget_move(*, topic: Topic, nugget_id: int, position: int, user: User | None) -> Nugget:
    """The nugget moved to ``position`` (0-based, clamped to the list)."""
    with transaction.atomic():
        _lock(topic.pk)
        nuggets = live_nuggets(topic.pk)
        nugget = _locked_nugget(nugget_id, topic.pk)
        order = [n for n in nuggets if n.pk != nugget.pk]
        order.insert(max(0, min(position, len(order))), nugget)
        _renumber(order)
        _record(topic.pk, "move", user)
    return nugget


def nugget_delete(*, topic: Topic, nugget_id: int, user: User | None) -> None:
    """The nugget leaves the list; the row stays for the labels that name it."""
    with transaction.atomic():
        _lock(topic.pk)
        nugget = _locked_nugget(nugget_id, topic.pk)
        nugget.is_deleted = True
        nugget.save(update_fields=["is_deleted", "updated_at"])
        _renumber(live_nuggets(topic.pk))
        _record(topic.pk, "delete", user)


def nugget_merge(*, topic: Topic, nugget_ids: Sequence[int], user: User | None) -> Nugget:
    """The first nugget takes the others' texts (joined by "; ") and is vital if any was;
    the others leave the list."""
    if len(set(nugget_ids)) < 2:
        raise NuggetError("merging takes two nuggets or more")
    with transaction.atomic():
        _lock(topic.pk)
        merged = [_locked_nugget(pk, topic.pk) for pk in dict.fromkeys(nugget_ids)]
        keep, *rest = merged
        keep.text = _clean("; ".join(n.text for n in merged))
        if any(n.importance == Importance.VITAL for n in merged):
            keep.importance = Importance.VITAL
        keep.save(update_fields=["text", "importance", "updated_at"])
        Nugget.objects.filter(pk__in=[n.pk for n in rest]).update(is_deleted=True)
        _renumber(live_nuggets(topic.pk))
        _record(topic.pk, "merge", user)
    return keep


def _topics_of(task: RetrievalTask, found: NuggetFile) -> dict[str, Topic]:
    topics = {t.number: t for t in Topic.objects.filter(task=task)}
    unknown = [r for r in found.records if r.qid not in topics]
    if unknown:
        raise NuggetError(
            "the file names topics this task does not have",
            [
                f"{found.name}:{r.line}: qid: topic {r.qid!r} is not a topic of {task}"
                for r in unknown[:100]
            ],
        )
    return topics


def nuggets_import(
    *,
    task: RetrievalTask,
    stream: BinaryIO,
    file_name: str,
    user: User | None,
    proposals: bool,
    provenance: str = "",
) -> int:
    """Nuggets from a nuggetizer JSONL file, as nuggets added to each topic's list (made by a
    person unless a ``provenance`` names a machine) or, with ``proposals``, as machine
    proposals for the editor to accept, edit or reject. All or nothing; the count added."""
    found = read_nugget_file(stream, name=file_name, assignments=False)
    if not found.ok:
        raise NuggetError(f"{file_name} has problems", found.messages())
    topics = _topics_of(task, found)
    count = 0
    with transaction.atomic():
        for record in found.records:
            topic = topics[record.qid]
            if proposals:
                NuggetProposal.objects.bulk_create(
                    NuggetProposal(
                        topic=topic,
                        text=n.text,
                        importance=n.importance,
                        provenance=provenance or file_name,
                    )
                    for n in record.nuggets
                )
                count += len(record.nuggets)
                continue
            _lock(topic.pk)
            start = len(live_nuggets(topic.pk))
            origin = Nugget.Origin.MACHINE if provenance else Nugget.Origin.PERSON
            Nugget.objects.bulk_create(
                Nugget(
                    topic=topic,
                    text=n.text,
                    importance=n.importance,
                    position=start + index,
                    origin=origin,
                    created_by=user,
                    provenance=provenance,
                )
                for index, n in enumerate(record.nuggets)
            )
            _record(topic.pk, "import", user)
            count += len(record.nuggets)
    return count


def proposal_decide(
    *,
    topic: Topic,
    proposal_id: int,
    decision: str,
    user: User,
    text: str | None = None,
    importance: str | None = None,
) -> NuggetProposal:
    """Accept (as it is), edit (accept with the editor's text or importance) or reject a
    machine's proposal; the decision, who made it and when are kept."""
    if decision not in {"accepted", "edited", "rejected"}:
        raise NuggetError("a decision is accepted, edited or rejected")
    with transaction.atomic():
        proposal = (
            NuggetProposal.objects.select_for_update().filter(pk=proposal_id, topic=topic).first()
        )
        if proposal is None:
            raise NuggetError(f"proposal {proposal_id} is not one of this topic's")
        if proposal.decision != NuggetProposal.Decision.PENDING:
            return proposal  # decided already (a second click): the first decision stands
        if decision != "rejected":
            proposal.nugget = nugget_add(
                topic=topic,
                text=text if decision == "edited" and text is not None else proposal.text,
                importance=importance or proposal.importance,
                user=user,
                origin=Nugget.Origin.MACHINE,
                provenance=proposal.provenance
                + (f"; edited by {user.get_username()}" if decision == "edited" else ""),
            )
        proposal.decision = decision
        proposal.decided_by = user
        proposal.decided_at = timezone.now()
        proposal.save()
    return proposal

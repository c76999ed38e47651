"""Scoped assignments: send chosen pool items of each topic to assessors, not whole pools.

A drawn sample (people and machine together) is judged by people only where it was drawn. Each
topic's items go to its official assignment: an unscoped one already covers them; a scoped one
takes the new items into its scope; without one, the topic becomes a scoped official
assignment of the chosen assessor holding the fewest routed items (never the topic's dual
assessor). Items already in a scope are not added again, so routing twice adds nothing.

An organizer can also take items out of a scope (``scope_items_remove``): the assessor no
longer sees them and a submit for one answers "not found". Nothing here touches a judgment: a
removed item that was judged keeps its judgments, which still count toward qrels and
agreement; only the assignment's progress stops counting it. Sending a sample again puts a
removed item that no person has judged back in a scope.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Count

from assessment.models import Assignment, AssignmentItem
from assessment.selectors.progress import item_statuses
from assessment.services.assignments.rules import (
    AssignmentError,
    active,
    assignments_insert,
    machines_refuse,
)
from collection.models import Topic
from pooling.locks import topic_pools_lock
from pooling.models import PoolItem


@dataclass(frozen=True)
class ItemsRouted:
    """What routing did: new scoped assignments, items added to scopes, items an unscoped
    official assignment already covered, and topics no chosen assessor could take."""

    created: list[Assignment] = field(default_factory=list)
    added: int = 0
    covered: int = 0
    refused: list[str] = field(default_factory=list)


def _scoped_loads(assessors: Sequence[User]) -> dict[int, int]:
    """Items each assessor holds in active scoped assignments (the load routing evens out)."""
    loads = {person.pk: 0 for person in assessors}
    rows = (
        AssignmentItem.objects.filter(
            assignment__assessor__in=list(loads),
            assignment__revoked_at__isnull=True,
            assignment__scoped=True,
        )
        .values("assignment__assessor")
        .annotate(n=Count("id"))
        .values_list("assignment__assessor", "n")
    )
    loads.update(dict(rows))
    return loads


@transaction.atomic
def items_route(
    *,
    items: Mapping[int, Sequence[int]],
    assessors: Sequence[User],
    created_by: User | None,
) -> ItemsRouted:
    """Send ``items`` (topic id -> pool item ids of that topic) to official assignments, creating
    scoped ones for ``assessors`` where a topic has none (largest topic first to the least
    loaded). AssignmentError when no assessor is given or one is a machine judge."""
    if not assessors:
        raise AssignmentError(["choose at least one assessor"])
    machines_refuse(assessors)
    topic_ids = sorted(t for t, wanted in items.items() if wanted)
    topic_pools_lock(topic_ids=topic_ids)  # pool locks first of all (pooling/locks.py)
    current = active(Assignment.objects.select_for_update(of=("self",))).filter(
        topic_id__in=topic_ids
    )
    official = {a.topic_id: a for a in current.filter(purpose=Assignment.Purpose.OFFICIAL)}
    dual: dict[int, set[int]] = {}
    for topic_id, assessor_id in current.filter(purpose=Assignment.Purpose.DUAL).values_list(
        "topic_id", "assessor_id"
    ):
        dual.setdefault(topic_id, set()).add(assessor_id)
    loads = _scoped_loads(assessors)
    order = {person.pk: i for i, person in enumerate(assessors)}
    covered, refused, new = 0, [], []
    for topic_id in sorted(topic_ids, key=lambda t: (-len(items[t]), t)):
        held = official.get(topic_id)
        if held is not None and not held.scoped:
            covered += len(set(items[topic_id]))
            continue
        if held is None:
            people = [p for p in assessors if p.pk not in dual.get(topic_id, set())]
            if not people:
                number = Topic.objects.get(pk=topic_id).number
                refused.append(f"topic {number}: every chosen assessor is its dual assessor")
                continue
            person = min(people, key=lambda p: (loads[p.pk], order[p.pk]))
            held = Assignment(
                topic_id=topic_id,
                assessor=person,
                purpose=Assignment.Purpose.OFFICIAL,
                scoped=True,
                created_by=created_by,
            )
            official[topic_id] = held
            new.append(held)
        loads[held.assessor_id] = loads.get(held.assessor_id, 0) + len(set(items[topic_id]))
    created = assignments_insert(new)
    scoped = {t: a for t, a in official.items() if a.scoped}
    existing = set(
        AssignmentItem.objects.filter(assignment__in=list(scoped.values())).values_list(
            "assignment_id", "item_id"
        )
    )
    rows = [
        AssignmentItem(assignment=held, item_id=item_id)
        for topic_id, held in scoped.items()
        for item_id in sorted(set(items[topic_id]))
        if (held.pk, item_id) not in existing
    ]
    AssignmentItem.objects.bulk_create(rows, batch_size=5000)
    return ItemsRouted(created=created, added=len(rows), covered=covered, refused=refused)


@dataclass(frozen=True)
class ScopeItemsRemoved:
    """What a removal did: items taken out of the scope (of them, how many had judgments,
    which stay), items asked for that were no longer in it, and items left in it."""

    assignment: Assignment
    removed: int
    judged_kept: int
    already_out: int
    left: int

    @property
    def message(self) -> str:
        """What the organizer reads after a removal."""
        words = [f"Took {self.removed} item{'s' if self.removed != 1 else ''} out of the scope"]
        if self.judged_kept:
            words.append(
                f" ({self.judged_kept} already judged: their judgments are kept and still count "
                "toward qrels)"
            )
        if self.already_out:
            words.append(f"; {self.already_out} were no longer in it")
        words.append(f"; {self.left} left to the assessor.")
        return "".join(words)


@transaction.atomic
def scope_items_remove(
    *,
    assignment: Assignment,
    item_ids: Collection[int] = (),
    unjudged: bool = False,
) -> ScopeItemsRemoved:
    """Take ``item_ids`` (pool items of the assignment's topic) and, with ``unjudged``, every
    item its line has not judged a hit of, out of a scoped assignment's scope. Judgments are
    never touched. Under the topic's pool lock and the assignment's row lock, like a submit
    (pooling/locks.py): a submit for a removed item either lands before (the item counts as
    judged) or finds it out of scope (not found, nothing stored); two organizers removing at
    once remove each item once. AssignmentError when the assignment is revoked or not scoped,
    or an id is not a pool item of its topic."""
    topic_pools_lock(topic_ids=[assignment.topic_id])
    locked = Assignment.objects.select_for_update(of=("self",)).get(pk=assignment.pk)
    if locked.revoked_at is not None:
        raise AssignmentError(["this assignment is revoked: its scope no longer changes"])
    if not locked.scoped:
        raise AssignmentError(
            ["this assignment covers its whole topic: only a scoped one has items to remove"]
        )
    wanted = set(item_ids)
    of_topic = PoolItem.objects.filter(topic_id=locked.topic_id, pk__in=wanted)
    foreign = wanted - set(of_topic.values_list("pk", flat=True))
    if foreign:
        number = locked.topic.number
        raise AssignmentError(
            [f"pool item {pk} is not an item of topic {number}" for pk in sorted(foreign)]
        )
    statuses = {s.item_id: s for s in item_statuses(locked)}  # the scope now, with judged hits
    if unjudged:
        wanted |= {pk for pk, s in statuses.items() if s.judged == 0}
    taken = wanted & statuses.keys()
    AssignmentItem.objects.filter(assignment=locked, item_id__in=taken).delete()
    return ScopeItemsRemoved(
        assignment=locked,
        removed=len(taken),
        judged_kept=sum(1 for pk in taken if statuses[pk].judged),
        already_out=len(wanted - taken),
        left=len(statuses) - len(taken),
    )

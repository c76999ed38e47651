"""What every assignment write obeys, whichever way the topics are given.

A machine judge's account is never given topics; the database keeps one active
official assignment per topic, and a request that loses that race gets an AssignmentError.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.db.models import Manager, QuerySet

from assessment.models import Assignment, MachineJudge


class AssignmentError(Exception):
    """An assignment request breaks a rule; ``problems`` lists each, for the page to show."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def assignments_insert(assignments: Iterable[Assignment]) -> list[Assignment]:
    """Store new assignments; a concurrent request that took a topic first (the database's
    one-official-per-topic rule) becomes an AssignmentError, not a server error."""
    try:
        with transaction.atomic():
            return Assignment.objects.bulk_create(assignments)
    except IntegrityError as error:
        raise AssignmentError(
            ["another organizer changed these assignments at the same time: reload and retry"]
        ) from error


def active(queryset: Manager[Assignment] | QuerySet[Assignment]) -> QuerySet[Assignment]:
    """The assignments not revoked."""
    return queryset.filter(revoked_at__isnull=True)


def machines_refuse(people: Iterable[User]) -> None:
    """A machine judge's account is never given topics: its grades are imported."""
    names = MachineJudge.objects.filter(account__in=[p.pk for p in people]).values_list(
        "name", flat=True
    )
    if names:
        raise AssignmentError(
            [f"{name} is a machine judge: it cannot be given topics" for name in names]
        )

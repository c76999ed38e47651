"""Who may judge: machine judges' accounts are never people, participants never assessors."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db.models import QuerySet


def is_machine_account(user: Any) -> bool:
    """Whether ``user`` is the account of a machine judge: it holds the judge's grades and is
    never a person, so it can never log in, whatever its flags say. A user loaded by the login
    backend carries the answer (``is_machine``); otherwise one query."""
    if user is None or user.pk is None:
        return False
    known = getattr(user, "is_machine", None)
    if known is not None:
        return bool(known)
    return User.objects.filter(pk=user.pk, machine_judge__isnull=False).exists()


def assessor_candidates() -> QuerySet[User]:
    """People who may be given topics: active users who are neither organizers nor members of
    a participating team (a participant must not judge pools their runs fed), nor machine
    judges' accounts."""
    return User.objects.filter(
        is_active=True, is_staff=False, teams__isnull=True, machine_judge__isnull=True
    ).order_by("username")

"""Who sees which menu: organizers everything, participants their runs and results, assessors
their assignments (one home for the rule; templates read ``menu``).

An organizer is who ``kernel.access.is_organizer`` says; a participant is a member of a team;
an assessor is anyone with an active assignment, and every logged-in user who is not a
participant (an assessor waiting for topics still lands on /assess/). Whether a user is in a
team or holds an assignment comes with the user row itself (``RoleAwareBackend``), so the menu
costs no query on any page.

Every request loads its user so, and Django's ORM took longer to build that query's SQL than
PostgreSQL took to answer it (measured): its SQL is built once per process
(``kernel.prepared``) and run with each request's user id.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.core.exceptions import ValidationError
from django.db.models import Exists, OuterRef
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from assessment.access import is_machine_account
from assessment.models import Assignment, MachineJudge
from kernel.access import is_organizer
from kernel.prepared import prepared_rows
from pooling.models import Team

__all__ = ["Menu", "RoleAwareBackend", "menu", "menu_for"]


def _with_roles(users: Any) -> Any:
    return users.annotate(
        in_team=Exists(Team.objects.filter(members=OuterRef("pk"))),
        has_assignments=Exists(
            Assignment.objects.filter(assessor=OuterRef("pk"), revoked_at__isnull=True)
        ),
        is_machine=Exists(MachineJudge.objects.filter(account=OuterRef("pk"))),
    )


def _user_by_id(user_id: int) -> Any:
    return _with_roles(get_user_model()._default_manager.filter(pk=user_id))


def _user_with_roles(user_id: Any) -> Any:
    """The user with ``in_team``, ``has_assignments`` and ``is_machine``, or None."""
    model = get_user_model()
    try:
        user_id = model._meta.pk.to_python(user_id)  # type: ignore[union-attr]
    except ValidationError:
        return None  # a session naming no possible account
    rows = prepared_rows(model, _user_by_id, user_id=user_id)
    return rows[0] if rows else None


class RoleAwareBackend(ModelBackend):
    """Django's model backend, loading the session's user with its role flags. A machine
    judge's account never logs in, nor keeps a session, even if someone activated it."""

    def get_user(self, user_id: Any) -> Any:
        user = _user_with_roles(user_id)
        return user if user is not None and self.user_can_authenticate(user) else None

    def user_can_authenticate(self, user: Any) -> bool:
        return super().user_can_authenticate(user) and not is_machine_account(user)


@dataclass(frozen=True)
class Menu:
    """What a user is and may use; templates read it as ``menu`` and never ask ``is_staff``."""

    assess: bool = False  # My assignments
    runs: bool = False  # Runs (upload and list)
    results: bool = False
    organize: bool = False  # Organize, Pools, Admin
    is_organizer: bool = False  # kernel.access.is_organizer
    submits_runs: bool = False  # a member of a team: uploads that team's runs


def menu_for(user: Any) -> Menu:
    """The menu entries a user can use."""
    if user is None or not user.is_authenticated:
        return Menu()
    if not hasattr(user, "in_team"):  # loaded some other way (a token, a test): ask
        user = _user_with_roles(user.pk)
        if user is None:
            return Menu()
    participant = bool(user.in_team)
    if is_organizer(user):
        return Menu(
            assess=True,
            runs=True,
            results=True,
            organize=True,
            is_organizer=True,
            submits_runs=participant,
        )
    return Menu(
        assess=bool(user.has_assignments) or not participant,
        runs=participant,
        results=participant,
        submits_runs=participant,
    )


def menu(request: HttpRequest) -> dict[str, Any]:
    """Context processor: ``menu`` for base.html's navigation and every template's role checks,
    worked out only when used."""
    return {"menu": SimpleLazyObject(lambda: menu_for(getattr(request, "user", None)))}

"""Which teams a user may submit runs for, and which runs they may see."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from collection.models import RetrievalTask
from kernel.access import is_organizer, is_person
from pooling.models import Run, Team


def teams_of(user: Any) -> QuerySet[Team]:
    """The teams ``user`` may submit runs for: every team for organizers, else their own."""
    teams = Team.objects.order_by("name")
    if is_organizer(user):
        return teams
    if not is_person(user):
        return teams.none()
    return teams.filter(members=user)


def team_for_user(user: Any, *, team_name: str | None = None) -> Team | None:
    """The team a submission without a form is for: the named one if ``user`` may submit for
    it, else the only team they are a member of; ``None`` when that is ambiguous or none."""
    if team_name:
        return teams_of(user).filter(name=team_name).first()
    mine = list(teams_of(user).filter(members=user)[:2])
    return mine[0] if len(mine) == 1 else None


def runs_visible_to(user: Any, task: RetrievalTask | None = None) -> QuerySet[Run]:
    """Runs a user may see: organizers all; participants their own teams' runs; others none."""
    runs = Run.objects.select_related("task__campaign", "team", "uploaded_by").order_by(
        "-uploaded_at", "id"
    )
    if task is not None:
        runs = runs.filter(task=task)
    if is_organizer(user):
        return runs
    if not is_person(user):
        return runs.none()
    return runs.filter(team__members=user)

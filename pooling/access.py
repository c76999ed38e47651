"""Which teams a user may submit runs for, and which runs they may see."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, QuerySet

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


def team_may_submit(team: Team, task: RetrievalTask) -> bool:
    """May ``team`` submit runs to ``task``: when it names no campaign, or names the task's.
    Nobody submits to a training archive (it holds earlier years' topics, not a live task)."""
    if task.training_for_id is not None:
        return False
    campaigns = team.campaigns.all()
    return not campaigns.exists() or campaigns.filter(pk=task.campaign_id).exists()


def tasks_open_to(user: Any) -> QuerySet[RetrievalTask]:
    """The tasks ``user`` may submit runs to: every task for organizers; for anybody else the
    tasks of the campaigns one of their teams takes part in (``team_may_submit``). Training
    archives take no runs."""
    tasks = (
        RetrievalTask.objects.select_related("campaign")
        .filter(training_for__isnull=True)
        .order_by("campaign__name", "kind", "name")
    )
    if is_organizer(user):
        return tasks
    teams = teams_of(user)
    # One query: a team of the user's in the task's campaign, or one naming no campaign.
    return tasks.filter(
        Exists(teams.filter(campaigns=OuterRef("campaign")))
        | Exists(teams.filter(campaigns__isnull=True))
    )


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

"""Who may do and see what: the one home of the access rules (issue 11 §11).

Every page, REST endpoint and selector asks here: is this user an organizer, which task does
the URL name, which runs and results may this user see, who may be given topics, which teams
may this user submit for. The copies these replace (pools, organize, evaluation, the API) had
drifted apart; ``tests/integration/test_access_rules.py`` holds the table (role, object →
allowed) so a drift fails.

config is the project's glue (like urls.py), so it may import every app's models.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, F, OuterRef, QuerySet
from django.http import Http404, HttpRequest, HttpResponseBase
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

from collection.models import RetrievalTask
from config.params import parse_id
from evaluation.models import CURRENT_RESULT, EvaluationResult, TaskPublication
from pooling.models import Run, Team

__all__ = [
    "IsOrganizer",
    "assessor_candidates",
    "is_machine_account",
    "is_organizer",
    "organizer_required",
    "results_open_to",
    "results_visible_to",
    "runs_visible_to",
    "task_for",
    "tasks_open_to",
    "team_may_submit",
    "teams_of",
]

View = Callable[..., HttpResponseBase]


def _is_person(user: Any) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active)


def is_organizer(user: Any) -> bool:
    """Organizers are active staff users (DESIGN.md "Who uses it")."""
    return _is_person(user) and bool(user.is_staff)


def organizer_required(view: View) -> View:
    """For organizer pages: anonymous users go to the login page, anybody else gets 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_organizer(request.user):
            raise PermissionDenied("This page is for organizers.")
        return view(request, *args, **kwargs)

    return wrapper


class IsOrganizer(BasePermission):
    """For organizer REST endpoints: the same rule as ``organizer_required``."""

    message = "Only organizers may use this endpoint."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return is_organizer(request.user)


def task_for(user: Any, raw_task_id: str | int | None) -> RetrievalTask:
    """The task a URL or a parameter names, with its campaign; 404 when there is none.

    Tasks are not secret to people who may log in (their runs and results are: see below);
    to an anonymous caller no task exists."""
    task_id = parse_id(raw_task_id, name="task")
    if not _is_person(user):
        raise Http404("No such task.")
    task = RetrievalTask.objects.select_related("campaign").filter(pk=task_id).first()
    if task is None:
        raise Http404(f"No task {task_id}.")
    return task


def teams_of(user: Any) -> QuerySet[Team]:
    """The teams ``user`` may submit runs for: every team for organizers, else their own."""
    teams = Team.objects.order_by("name")
    if is_organizer(user):
        return teams
    if not _is_person(user):
        return teams.none()
    return teams.filter(members=user)


def team_may_submit(team: Team, task: RetrievalTask) -> bool:
    """May ``team`` submit runs to ``task``: when it names no campaign, or names the task's."""
    campaigns = team.campaigns.all()
    return not campaigns.exists() or campaigns.filter(pk=task.campaign_id).exists()


def tasks_open_to(user: Any) -> QuerySet[RetrievalTask]:
    """The tasks ``user`` may submit runs to: every task for organizers; for anybody else the
    tasks of the campaigns one of their teams takes part in (``team_may_submit``)."""
    tasks = RetrievalTask.objects.select_related("campaign").order_by("campaign__name", "kind")
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
    if not _is_person(user):
        return runs.none()
    return runs.filter(team__members=user)


def results_open_to(user: Any, task: RetrievalTask) -> bool:
    """May ``user`` open the task's results at all: organizers always; other people once the
    task is published with its official qrels (issue 12 §1), and then see only
    ``results_visible_to``."""
    if is_organizer(user):
        return True
    if not _is_person(user):
        return False
    return TaskPublication.objects.filter(task=task, published=True).exists()


def results_visible_to(user: Any, task: RetrievalTask | None = None) -> QuerySet[EvaluationResult]:
    """Evaluation results a user may see: organizers all; team members their own teams' current
    results (scored on their run's latest version) on each published task's official qrels;
    anybody else none."""
    results = EvaluationResult.objects.all()
    if task is not None:
        results = results.filter(run__task=task)
    if is_organizer(user):
        return results
    if not _is_person(user):
        return results.none()
    return results.filter(
        CURRENT_RESULT,
        run__task__publication__published=True,
        qrels=F("run__task__publication__qrels"),
        run__team__members=user,
    ).distinct()


def is_machine_account(user: Any) -> bool:
    """Whether ``user`` is the account of a machine judge (issue 13 §6): it holds the judge's
    grades and is never a person, so it can never log in, whatever its flags say. A user
    loaded by the login backend carries the answer (``is_machine``); otherwise one query."""
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

"""Who may do what, as far as a person's role decides it: organizers and everybody else.

Every page, REST endpoint and template asks here whether a user is an organizer. The rules about
an app's own objects (which task a URL names, which runs, results and teams a user may see or
submit for, who may be given topics) live in that app's ``access`` module and build on these:
``collection.access``, ``pooling.access``, ``assessment.access``, ``evaluation.access``.
``tests/integration/test_access_rules.py`` holds the table (role, object → allowed) for all of
them, so a drift fails. This module imports no app's models.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.views import APIView

__all__ = ["IsOrganizer", "is_organizer", "is_person", "organizer_required"]

View = Callable[..., HttpResponseBase]


def is_person(user: Any) -> bool:
    """A logged-in, active account: the only kind that may see anything but the login page."""
    return bool(user is not None and user.is_authenticated and user.is_active)


def is_organizer(user: Any) -> bool:
    """Organizers are active staff users (docs/architecture.md, "Roles")."""
    return is_person(user) and bool(user.is_staff)


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

"""What every evaluation page shares: the organizer check and the task a URL names."""

from __future__ import annotations

from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from collection.models import RetrievalTask


def staff_required(view: Any) -> Any:
    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied("organizers only")
        return view(request, *args, **kwargs)

    return wrapped


def task_or_404(task_id: int) -> RetrievalTask:
    return get_object_or_404(RetrievalTask.objects.select_related("campaign"), pk=task_id)

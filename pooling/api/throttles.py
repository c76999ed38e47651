"""The run-upload throttle: one budget per user, shared by ``POST /api/runs/`` and the /runs/ form.

DRF's ScopedRateThrottle keys its counter on the scope and the user (``throttle_run_upload_<id>``
in the cache), so the web form, which is not a DRF view, asks the same throttle with the same
scope and spends from the same budget: uploading by the page cannot bypass the REST limit.
The rate is ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]["run_upload"]`` (``RUN_UPLOAD_RATE``).
"""

from __future__ import annotations

import math

from django.http import HttpRequest
from rest_framework.throttling import ScopedRateThrottle

RUN_UPLOAD_SCOPE = "run_upload"


class _UploadScope:
    """What ScopedRateThrottle reads from a view: its scope."""

    throttle_scope = RUN_UPLOAD_SCOPE


def run_upload_throttle() -> ScopedRateThrottle:
    """The throttle every upload path applies (REST: ``get_throttles``)."""
    return ScopedRateThrottle()


def run_upload_wait(request: HttpRequest) -> int | None:
    """Count an upload by ``request``'s user: ``None`` when it may go ahead, else how many
    seconds until the next one is allowed (at least 1)."""
    throttle = run_upload_throttle()
    if throttle.allow_request(request, _UploadScope()):  # type: ignore[arg-type]
        return None
    return max(1, math.ceil(throttle.wait() or 1))


def wait_message(seconds: int) -> str:
    """What a participant reads when the budget is spent."""
    if seconds >= 90:
        minutes = math.ceil(seconds / 60)
        when = f"{minutes} minute{'s' if minutes != 1 else ''}"
    else:
        when = f"{seconds} second{'s' if seconds != 1 else ''}"
    return f"too many uploads in a short time: you may upload again in {when}"

"""How large a request body a view takes, refused before anything reads it.

Django bounds the fields of a form held in memory (``DATA_UPLOAD_MAX_MEMORY_SIZE``) but not an
uploaded file, which it streams to a temporary file whatever its size; and the CSRF check reads
a web form's whole body before the view runs. So a view that takes uploads names the setting
that bounds its bodies (``body_limit``), and ``BodyLimitMiddleware``, before the CSRF check,
answers 413 naming the limit when the request's declared length passes it, without reading a
byte of the body. A body with no declared length reaches a WSGI application empty (Django reads
``CONTENT_LENGTH`` bytes), so the declared length is the whole story there.

Every other view is bounded by ``REQUEST_MAX_BYTES``: Django parses any multipart body a view
(or the CSRF check) reads, streaming its files to disk whether the view wants them or not,
and DRF reads a JSON body from the stream past ``DATA_UPLOAD_MAX_MEMORY_SIZE``. The views that
take files (runs, RAG runs, and the organizers' qrels, planner prior, training and
machine-judge uploads) each name their own, larger setting.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

__all__ = ["BodyLimitMiddleware", "body_limit", "body_limit_refusal"]

ATTRIBUTE = "body_limit_setting"
DEFAULT_SETTING = "REQUEST_MAX_BYTES"  # a view that names none takes no file
View = TypeVar("View", bound=Callable[..., Any])


def body_limit(setting: str) -> Callable[[View], View]:
    """Mark a view function as taking bodies of at most ``settings.<setting>`` bytes (a class
    view sets ``body_limit_setting`` on the class instead)."""

    def mark(view: View) -> View:
        setattr(view, ATTRIBUTE, setting)
        return view

    return mark


def _declared_length(request: HttpRequest) -> int:
    try:
        return max(int(request.META.get("CONTENT_LENGTH") or 0), 0)
    except ValueError:
        return 0  # Django reads no body then either


def body_limit_refusal(request: HttpRequest, setting: str) -> str | None:
    """The sentence refusing ``request``'s body under ``settings.<setting>``, or None."""
    limit: int = getattr(settings, setting)
    size = _declared_length(request)
    if size <= limit:
        return None
    return (
        f"file: this upload is {size:,} bytes, over the limit of {limit:,} bytes a request "
        f"({setting}); nothing was read or stored"
    )


class BodyLimitMiddleware:
    """413 for a body past its view's limit; place before ``CsrfViewMiddleware``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_view(
        self, request: HttpRequest, view: Callable[..., Any], args: Any, kwargs: Any
    ) -> HttpResponse | None:
        # A class view: Django's as_view() names the class view_class, DRF's viewsets cls.
        view_class = getattr(view, "view_class", None) or getattr(view, "cls", None)
        named = getattr(view, ATTRIBUTE, None) or getattr(view_class, ATTRIBUTE, None)
        setting = named or DEFAULT_SETTING
        if (refusal := body_limit_refusal(request, setting)) is None:
            return None
        # REST, and a page's own script (static/js/upload.js asks for JSON), read the detail.
        if request.path.startswith("/api/") or "application/json" in request.headers.get(
            "Accept", ""
        ):
            return JsonResponse({"detail": refusal}, status=413)
        return render(request, "413.html", {"refusal": refusal, "setting": setting}, status=413)

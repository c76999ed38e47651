"""The landing page and the health check."""

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Each role lands where its work is; the page lists the ways in."""
    return render(request, "home.html")


def healthz(request: HttpRequest) -> JsonResponse:
    """Liveness for the compose health check: the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return JsonResponse({"status": "ok"})


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico whatever the page says: send them to the static file."""
    return HttpResponsePermanentRedirect(static("favicon.ico"))

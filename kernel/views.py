"""The landing page and the health check."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from redis.exceptions import RedisError

from config.celery import broker_redis, workers_alive


@login_required
def home(request: HttpRequest) -> HttpResponse:
    """Each role lands where its work is; the page lists the ways in."""
    return render(request, "home.html")


@require_GET
@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """Health of each part, unauthenticated and cheap (one query, two Redis commands).

    Body: ``{"status": S, "database": {"status": D}, "redis": {"status": R},
    "worker": {"status": W, "alive": N}}`` where D and R are ``ok`` or ``down`` (R is
    ``not_configured`` without REDIS_URL), W is ``ok`` (N workers beat in the last 30 s),
    ``down`` (none did), ``unknown`` (Redis is down) or ``in_process`` (no broker: tasks run in
    the web process). S is ``ok`` when every part is, ``down`` when the database is (answered
    with HTTP 503: nothing works without it), else ``degraded`` (HTTP 200: judging works, queued
    work waits). No addresses or messages are shown."""
    database = _database()
    redis, worker = _redis_and_worker()
    parts = {"database": database, "redis": redis, "worker": worker}
    if database["status"] != "ok":
        status = "down"
    elif all(part["status"] in ("ok", "not_configured", "in_process") for part in parts.values()):
        status = "ok"
    else:
        status = "degraded"
    return JsonResponse({"status": status, **parts}, status=503 if status == "down" else 200)


def _database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        return {"status": "down"}
    return {"status": "ok"}


def _redis_and_worker() -> tuple[dict[str, Any], dict[str, Any]]:
    client = broker_redis()
    if client is None:
        eager = settings.CELERY_TASK_ALWAYS_EAGER
        return {"status": "not_configured"}, {"status": "in_process" if eager else "unknown"}
    try:
        client.ping()
        alive = workers_alive(client)
    except (RedisError, OSError):
        return {"status": "down"}, {"status": "unknown"}
    finally:
        client.close()
    return {"status": "ok"}, {"status": "ok" if alive else "down", "alive": alive}


def favicon(request: HttpRequest) -> HttpResponsePermanentRedirect:
    """Browsers ask for /favicon.ico whatever the page says: send them to the static file."""
    return HttpResponsePermanentRedirect(static("favicon.ico"))

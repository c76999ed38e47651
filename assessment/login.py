"""Login lockout: django-axes, keyed by account and by address.

Settings live in ``config/settings/base.py`` ("Auth"): after ``LOGIN_FAILURE_LIMIT`` failures
(default 5) for one username, or from one address, further logins there are refused for
``LOGIN_LOCKOUT_MINUTES`` (default 15), counted in the database (not the cache), so the lockout
holds, and login works, while Redis is down.
"""

from __future__ import annotations

from typing import Any

from axes.backends import AxesStandaloneBackend
from axes.helpers import get_client_username
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from assessment.roles import RoleAwareBackend

USERNAME_MAX = 150  # django.contrib.auth.models.User.username's max_length


class LoginLockoutBackend(AxesStandaloneBackend):
    """Axes' check that the account and the address are not locked out, before ModelBackend.

    Every login that comes over the network passes its request to ``authenticate()`` (the site's
    LoginView and the admin's), and is checked. A call without a request comes from code on the
    server (a shell, a management command, the test client's ``login()``): nobody can guess a
    password that way, and Axes would refuse the call outright, so it is left to ModelBackend.
    """

    def authenticate(  # type: ignore[override]
        self,
        request: HttpRequest | None,
        username: str | None = None,
        password: str | None = None,
        **kwargs: Any,
    ) -> None:
        if request is None:
            return None
        return super().authenticate(request, username, password, **kwargs)  # type: ignore[func-returns-value]

    def get_user(self, user_id: Any) -> Any:
        """A session logged in through this backend (``force_login`` takes the first backend)
        loads its user as every other session does: with its roles, for the menus."""
        return RoleAwareBackend().get_user(user_id)


def client_username(request: HttpRequest, credentials: dict[str, Any] | None) -> str | None:
    """The username a login tried, as Axes records it: cut to the longest username there can be
    (Django's 150), so a 5,000-character guess is counted, not a database error."""
    source = credentials if credentials else getattr(request, "data", request.POST)
    username = source.get("username")
    return None if username is None else str(username)[:USERNAME_MAX]


def client_ip(request: HttpRequest) -> str | None:
    """The address a login comes from, for the per-address lockout.

    Behind ``TRUSTED_PROXY_COUNT`` proxies (a TLS proxy in front of gunicorn: 1), the client is
    the entry that many places from the right of X-Forwarded-For: each proxy appends the address
    it received the request from, so entries further left are whatever the client claimed. With
    no proxy, REMOTE_ADDR."""
    count = settings.TRUSTED_PROXY_COUNT
    if count > 0:
        forwarded = [a.strip() for a in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
        forwarded = [a for a in forwarded if a]
        if len(forwarded) >= count:
            return forwarded[-count]
    return request.META.get("REMOTE_ADDR")


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The locked-out page, in the app's layout (429 Too Many Requests)."""
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": minutes,
        "username": get_client_username(request, credentials) or "",
    }
    return render(request, "registration/locked_out.html", context, status=429)

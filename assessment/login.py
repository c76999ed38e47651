"""Login lockout: django-axes, keyed by account at an address and by address alone.

Settings live in ``config/settings/base.py`` ("Auth"): after ``LOGIN_FAILURE_LIMIT`` failures
(default 5) for one username from one address, that username is refused from that address;
after ``LOGIN_ADDRESS_FAILURE_LIMIT`` failures (default 50) from one address, whatever the
usernames, the address is refused; each for ``LOGIN_LOCKOUT_MINUTES`` (default 15) after the
last failure. A room of assessors behind one address does not lock itself out, and a stranger
who knows a username cannot lock its owner out from elsewhere. Attempts are counted in the
database (not the cache), so the lockout holds, and login works, while Redis is down.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from axes.attempts import get_cool_off_threshold
from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username
from axes.models import AccessAttempt
from django.conf import settings
from django.db.models import Max, Q, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from assessment.roles import RoleAwareBackend

USERNAME_MAX = 150  # django.contrib.auth.models.User.username's max_length
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class RecentFailures:
    """Failed logins within the cool-off, for one username at one address and for the
    address alone, with the time of the latest of each."""

    account: int
    address: int
    account_last: datetime | None
    address_last: datetime | None

    @property
    def account_locked(self) -> bool:
        return self.account >= settings.AXES_FAILURE_LIMIT

    @property
    def address_locked(self) -> bool:
        return self.address >= settings.LOGIN_ADDRESS_FAILURE_LIMIT

    def retry_at(self) -> datetime | None:
        """When logging in is allowed again, if nobody fails meanwhile: the cool-off after
        the last failure that keeps the lock (both, if both lock)."""
        times = [
            last
            for locked, last in (
                (self.account_locked, self.account_last),
                (self.address_locked, self.address_last),
            )
            if locked and last is not None
        ]
        return max(times) + settings.AXES_COOLOFF_TIME if times else None


def recent_failures(request: HttpRequest, credentials: dict[str, Any] | None) -> RecentFailures:
    """One query: the failures of this username and of this address within the cool-off."""
    username = get_client_username(request, credentials)
    recent = AccessAttempt.objects.filter(
        ip_address=request.axes_ip_address,  # type: ignore[attr-defined]
        attempt_time__gte=get_cool_off_threshold(request),
    )
    account = Q(username=username)
    found = recent.aggregate(
        account=Sum("failures_since_start", filter=account),
        address=Sum("failures_since_start"),
        account_last=Max("attempt_time", filter=account),
        address_last=Max("attempt_time"),
    )
    return RecentFailures(
        account=found["account"] or 0,
        address=found["address"] or 0,
        account_last=found["account_last"],
        address_last=found["address_last"],
    )


class LoginLockoutHandler(AxesDatabaseHandler):
    """Axes' database handler with a limit of its own for an address alone.

    Axes compares one failure count with one limit (``AXES_FAILURE_LIMIT``): the count given
    here is the account's at this address, or the address's scaled to that limit when that
    is nearer to locking. An integer count c reaches the limit exactly when c * L / A
    (rounded down) does, so each rule locks at its own limit."""

    def get_failures(self, request: HttpRequest, credentials: dict[str, Any] | None = None) -> int:
        failures = recent_failures(request, credentials)
        limit, address_limit = settings.AXES_FAILURE_LIMIT, settings.LOGIN_ADDRESS_FAILURE_LIMIT
        return max(failures.account, failures.address * limit // address_limit)

    def user_login_failed(
        self, sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any
    ) -> None:
        was_locked = getattr(request, "axes_locked_out", False)
        super().user_login_failed(sender, credentials, request, **kwargs)
        if request is not None and request.axes_locked_out and not was_locked:
            # One line per lockout (axes' own line per failed login is off by default).
            logger.warning(
                "login locked: username %r from %s",
                get_client_username(request, credentials),
                request.axes_ip_address,
            )


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
    """The locked-out page, in the app's layout (429 Too Many Requests), saying which rule
    locked and when logging in is allowed again."""
    minutes = max(1, round(settings.AXES_COOLOFF_TIME.total_seconds() / 60))
    failures = recent_failures(request, credentials)
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "address_failure_limit": settings.LOGIN_ADDRESS_FAILURE_LIMIT,
        "minutes": minutes,
        "username": get_client_username(request, credentials) or "",
        "address_locked": failures.address_locked,
        "retry_at": failures.retry_at(),
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    if context["retry_at"] is not None:
        wait = (context["retry_at"] - request.axes_attempt_time).total_seconds()  # type: ignore[attr-defined]
        response["Retry-After"] = str(max(1, int(wait + 0.999)))
    return response

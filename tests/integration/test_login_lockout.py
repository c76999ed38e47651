"""Logins resist guessing: lockout per account and per address, on the site and
the admin, counted in the database; numeric-only passwords refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "secret-pass-123"  # tests.factories.UserFactory's password
SITE = "/accounts/login/"
ADMIN = "/admin/login/"


def attempt(client: Client, url: str, username: str, password: str, address: str = "10.0.0.1"):  # type: ignore[no-untyped-def]
    return client.post(
        url, {"username": username, "password": password, "next": "/"}, REMOTE_ADDR=address
    )


def logged_in(client: Client) -> bool:
    return "_auth_user_id" in client.session


@pytest.mark.parametrize("url", [SITE, ADMIN], ids=["site", "admin"])
def test_right_password_is_refused_when_six_wrong_ones_came_first(url: str) -> None:
    UserFactory.create(username="carol", is_staff=True)
    client = Client()
    codes = [attempt(client, url, "carol", f"guess-{n}").status_code for n in range(6)]
    assert codes[:4] == [200, 200, 200, 200]  # the form again, with its error
    assert codes[4:] == [429, 429]  # the fifth failure locks
    response = attempt(client, url, "carol", PASSWORD)
    assert response.status_code == 429
    assert not logged_in(client)
    html = response.content.decode()
    assert "Login locked for now" in html
    assert "15 minutes" in html
    assert 'class="topbar"' in html  # the app's own layout


def test_an_address_is_locked_when_it_guessed_against_several_accounts() -> None:
    for n in range(6):
        UserFactory.create(username=f"user{n}")
    client = Client()
    for n in range(5):
        attempt(client, SITE, f"user{n}", "wrong-password", address="10.0.0.9")
    assert attempt(client, SITE, "user5", PASSWORD, address="10.0.0.9").status_code == 429
    assert not logged_in(client)
    elsewhere = Client()
    assert attempt(elsewhere, SITE, "user5", PASSWORD, address="10.0.0.10").status_code == 302
    assert logged_in(elsewhere)


def test_an_account_is_locked_when_guesses_come_from_many_addresses() -> None:
    UserFactory.create(username="dave")
    for n in range(5):
        attempt(Client(), SITE, "dave", "wrong-password", address=f"10.1.0.{n}")
    client = Client()
    assert attempt(client, SITE, "dave", PASSWORD, address="10.1.1.1").status_code == 429
    assert not logged_in(client)


def test_login_works_again_when_the_lockout_has_expired() -> None:
    UserFactory.create(username="erin")
    client = Client()
    for _ in range(5):
        attempt(client, SITE, "erin", "wrong-password")
    assert attempt(client, SITE, "erin", PASSWORD).status_code == 429
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert attempt(client, SITE, "erin", PASSWORD).status_code == 302
    assert logged_in(client)


def test_four_failures_then_the_right_password_logs_in_when_under_the_limit() -> None:
    UserFactory.create(username="fay")
    client = Client()
    for _ in range(4):
        assert attempt(client, SITE, "fay", "wrong-password").status_code == 200
    assert attempt(client, SITE, "fay", PASSWORD).status_code == 302
    assert logged_in(client)


def test_lockout_is_counted_in_the_database_when_the_cache_is_unreachable(settings) -> None:
    # Nothing listens on port 1: any cache call would fail. Sessions in the database here, as
    # the lockout must not depend on the cache whatever the session engine.
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    settings.SESSION_ENGINE = "django.contrib.sessions.backends.db"
    UserFactory.create(username="gus")
    client = Client()
    for _ in range(6):
        attempt(client, SITE, "gus", "wrong-password")
    assert AccessAttempt.objects.get(username="gus").failures_since_start == 6
    assert attempt(client, SITE, "gus", PASSWORD).status_code == 429
    other = UserFactory.create(username="hal")
    assert attempt(Client(), SITE, other.username, PASSWORD, address="10.2.0.1").status_code == 302


def test_client_address_comes_from_the_trusted_proxy_when_one_is_configured(settings) -> None:
    settings.TRUSTED_PROXY_COUNT = 1
    UserFactory.create(username="ivy")
    client = Client()
    for n in range(5):
        # The client forges the left entries; the proxy appends the address it saw.
        client.post(
            SITE,
            {"username": "nobody", "password": "x"},
            REMOTE_ADDR="192.0.2.1",
            HTTP_X_FORWARDED_FOR=f"203.0.113.{n}, 198.51.100.7",
        )
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.7"}
    neighbour = client.post(
        SITE,
        {"username": "ivy", "password": PASSWORD},
        REMOTE_ADDR="192.0.2.1",
        HTTP_X_FORWARDED_FOR="198.51.100.8",
    )
    assert neighbour.status_code == 302  # same proxy, another client: not locked


@pytest.mark.parametrize("password", ["80417362951", "20240611"])
def test_numeric_only_password_is_refused_when_set(password: str) -> None:
    with pytest.raises(ValidationError, match="entirely numeric"):
        validate_password(password)


def test_overlong_username_is_counted_not_a_server_error_when_guessed() -> None:
    client = Client()
    answers = [
        client.post("/accounts/login/", {"username": "9" * 5000, "password": "x"}).status_code
        for _ in range(6)
    ]
    assert answers == [200] * 4 + [429] * 2  # the fifth failure locks
    assert AccessAttempt.objects.get().username == "9" * 150

"""Logins resist guessing: lockout per account at an address and per address alone (with a
higher limit), on the site and the admin, counted in the database; numeric-only passwords
refused."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

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
REPO = Path(__file__).resolve().parents[2]
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


def test_one_users_wrong_passwords_do_not_lock_another_when_both_are_behind_one_address() -> None:
    UserFactory.create(username="alma")
    UserFactory.create(username="bert")
    room = "10.0.0.9"  # one lab behind one NAT
    alma = Client()
    codes = [attempt(alma, SITE, "alma", f"guess-{n}", address=room).status_code for n in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    assert attempt(alma, SITE, "alma", PASSWORD, address=room).status_code == 429
    bert = Client()
    assert attempt(bert, SITE, "bert", PASSWORD, address=room).status_code == 302
    assert logged_in(bert)
    assert not logged_in(alma)


def test_an_address_is_locked_when_it_guessed_50_times_against_many_accounts() -> None:
    for n in range(14):
        UserFactory.create(username=f"user{n}")
    client = Client()
    address = "10.0.0.7"
    # 4 wrong passwords for each of 12 accounts, then 2 more: no account reaches 5 at this
    # address, the address reaches its own limit of 50 on the last one.
    guesses = [f"user{n}" for n in range(12) for _ in range(4)] + ["user12", "user12"]
    codes = [attempt(client, SITE, name, "wrong-password", address).status_code for name in guesses]
    assert codes[:-1] == [200] * 49
    assert codes[-1] == 429
    response = attempt(Client(), SITE, "user13", PASSWORD, address=address)
    assert response.status_code == 429  # an account never guessed, from the locked address
    assert "from this address, for any account" in response.content.decode()
    elsewhere = Client()
    assert attempt(elsewhere, SITE, "user13", PASSWORD, address="10.0.0.10").status_code == 302
    assert logged_in(elsewhere)


def test_an_account_is_not_locked_elsewhere_when_a_stranger_guesses_its_password() -> None:
    UserFactory.create(username="dave")
    for n in range(5):
        attempt(Client(), SITE, "dave", "wrong-password", address=f"10.1.0.{n}")
    stranger = "10.1.0.99"
    for _ in range(5):
        attempt(Client(), SITE, "dave", "wrong-password", address=stranger)
    assert attempt(Client(), SITE, "dave", PASSWORD, address=stranger).status_code == 429
    client = Client()
    assert attempt(client, SITE, "dave", PASSWORD, address="10.1.1.1").status_code == 302
    assert logged_in(client)


def test_locked_page_says_when_to_try_again_when_an_account_is_locked() -> None:
    UserFactory.create(username="nina")
    client = Client()
    for _ in range(4):
        attempt(client, SITE, "nina", "wrong-password")
    before = timezone.now()
    response = attempt(client, SITE, "nina", "wrong-password")
    assert response.status_code == 429
    last = AccessAttempt.objects.get(username="nina").attempt_time
    assert before <= last
    retry_at = last + timedelta(minutes=15)
    html = response.content.decode()
    assert f'datetime="{retry_at.isoformat()}"' in html
    assert f"{retry_at:%H:%M} UTC" in html
    assert "Other accounts are not affected" in html
    assert 14 * 60 <= int(response["Retry-After"]) <= 15 * 60


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


def test_failed_logins_are_not_logged_one_by_one_but_the_lockout_is(caplog) -> None:
    UserFactory.create(username="otto")
    client = Client()
    with caplog.at_level(logging.DEBUG):
        for _ in range(4):
            attempt(client, SITE, "otto", "wrong-password")
        assert not [r for r in caplog.records if r.name.startswith("axes")]
        attempt(client, SITE, "otto", "wrong-password")
    assert not [r for r in caplog.records if r.name.startswith("axes")]
    (locked,) = [r for r in caplog.records if r.name == "assessment.login"]
    assert locked.getMessage() == "login locked: username 'otto' from 10.0.0.1"


@pytest.mark.parametrize(("verbose", "banner"), [("", False), ("1", True)])
def test_manage_py_prints_the_axes_banner_only_when_asked_for(verbose: str, banner: bool) -> None:
    env = {**os.environ, "LOGIN_LOG_VERBOSE": verbose}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert ("AXES: BEGIN" in done.stdout + done.stderr) is banner

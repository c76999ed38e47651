"""The app answers on PostgreSQL: health check and login redirect."""

import pytest
from django.db import connection

pytestmark = pytest.mark.django_db


def test_health_check_answers_ok_when_database_is_up(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    body = response.json()
    assert (body["database"], body["redis"]) == ({"status": "ok"}, {"status": "ok"})
    assert body["status"] in ("ok", "degraded")  # degraded: no worker is running here
    assert connection.vendor == "postgresql"


def test_home_redirects_to_login_when_anonymous(client) -> None:
    response = client.get("/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]

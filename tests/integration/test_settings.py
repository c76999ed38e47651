"""Production settings: refuse to start without a real secret; `check --deploy` is clean."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    # Only what a deployment would have: the browser tests set DJANGO_ALLOW_ASYNC_UNSAFE for
    # their live server, which check --deploy rightly refuses.
    unset = {"SECRET_KEY", "DJANGO_SETTINGS_MODULE", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in unset}
    base |= {
        "DJANGO_SETTINGS_MODULE": "config.settings.prod",
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/qrelsmith",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
    }
    return subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *args],
        cwd=REPO,
        env=base | env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_prod_settings_refuse_to_start_when_secret_key_is_missing() -> None:
    result = manage("check")
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


def test_prod_settings_refuse_the_dev_key_when_it_is_given() -> None:
    result = manage("check", SECRET_KEY="dev-only-insecure-key-qrelsmith")
    assert result.returncode != 0


def test_check_deploy_is_clean_when_prod_has_a_real_secret() -> None:
    result = manage(
        "check", "--deploy", "--fail-level", "WARNING", SECRET_KEY=secrets.token_urlsafe(64)
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout

"""``manage.py`` in a subprocess against a SQLite file: the embedded default the demo runs on
(pytest-django gives every test PostgreSQL)."""

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def manage_sqlite(
    database: Path, *arguments: str, settings: str = "config.settings.dev", timeout: int = 900
) -> str:
    """Run ``manage.py arguments`` on ``database``, with no Redis (Celery tasks run
    in-process); its standard output, once it has exited 0."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": settings,
        "DATABASE_URL": f"sqlite:///{database}",
        "DEBUG": "false",
    }
    env.pop("REDIS_URL", None)
    done = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *arguments],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout

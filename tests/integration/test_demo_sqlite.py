"""``make demo``'s way: ``manage.py demo`` on a SQLite file with in-process tasks (no Redis).

pytest-django gives every test PostgreSQL, so this runs ``manage.py`` in subprocesses with the
dev settings against a temporary SQLite file, as the Makefile does, and reads the file back.
"""

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from demo.arqmath_campaign import CAMPAIGN
from demo.people import USERS
from demo.trec_campaign import TREC_CAMPAIGN

REPO = Path(__file__).resolve().parents[2]


def manage(database: Path, *arguments: str) -> str:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.dev",
        "DATABASE_URL": f"sqlite:///{database}",
        "DEBUG": "false",
    }
    env.pop("REDIS_URL", None)  # the embedded default: Celery tasks run in-process
    done = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *arguments],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_demo_builds_both_campaigns_when_the_database_is_embedded_sqlite(tmp_path: Path) -> None:
    database = tmp_path / "demo.sqlite3"
    manage(database, "migrate", "--noinput")
    sizes = ("--threads", "60", "--topics", "4", "--documents", "80")
    output = manage(database, "demo", "--dir", str(tmp_path / "files"), *sizes)

    for username, password, *_ in USERS:
        assert f"{username} " in output
        assert password in output
    with sqlite3.connect(database) as db:
        campaigns = {name for (name,) in db.execute("SELECT name FROM collection_campaign")}
        judgments = db.execute("SELECT COUNT(*) FROM assessment_judgment").fetchone()[0]
        revisions = db.execute("SELECT COUNT(*) FROM assessment_judgmentrevision").fetchone()[0]
        results = db.execute("SELECT COUNT(*) FROM evaluation_evaluationresult").fetchone()[0]
        documents = db.execute("SELECT COUNT(*) FROM collection_document").fetchone()[0]
    assert CAMPAIGN in campaigns
    assert judgments > 100
    assert revisions == judgments  # one revision per judgment stored by the judging service
    assert results >= 9  # the answer task's runs, evaluated in-process
    assert TREC_CAMPAIGN in campaigns
    assert documents == 80

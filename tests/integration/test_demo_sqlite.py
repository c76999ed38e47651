"""``make demo``'s way: ``manage.py demo`` on a SQLite file with in-process tasks (no Redis).

pytest-django gives every test PostgreSQL, so this runs ``manage.py`` in subprocesses with the
dev settings against a temporary SQLite file, as the Makefile does, and reads the file back.
"""

import sqlite3
from pathlib import Path

from demo.arqmath_campaign import CAMPAIGN
from demo.people import USERS
from demo.trec_campaign import TREC_CAMPAIGN
from tests.integration.sqlite_manage import manage_sqlite


def test_demo_builds_both_campaigns_when_the_database_is_embedded_sqlite(tmp_path: Path) -> None:
    database = tmp_path / "demo.sqlite3"
    manage_sqlite(database, "migrate", "--noinput")
    sizes = ("--threads", "60", "--topics", "4", "--documents", "80")
    output = manage_sqlite(database, "demo", "--dir", str(tmp_path / "files"), *sizes)

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

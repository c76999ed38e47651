"""import_documents on SQLite (the embedded demo's database): the generic bulk_insert path with
the same re-import rules as PostgreSQL.

pytest-django gives every test PostgreSQL, so this runs ``manage.py`` in subprocesses against a
temporary SQLite file.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from bench.document_dump import write_documents

REPO = Path(__file__).resolve().parents[2]


def manage(database: Path, *arguments: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "DATABASE_URL": f"sqlite:///{database}",
    }
    done = subprocess.run(  # noqa: S603
        [sys.executable, "manage.py", *arguments],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert (done.returncode == 0) == ok, done.stderr
    return done


def documents(database: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(database) as db:
        return db.execute(
            "SELECT docno, title, body, body_format, url, metadata, checksum "
            "FROM collection_document ORDER BY docno"
        ).fetchall()


def test_sqlite_import_skips_updates_and_refuses_like_postgresql_when_embedded(
    tmp_path: Path,
) -> None:
    first, newer = tmp_path / "v1.jsonl", tmp_path / "v2.jsonl.gz"
    write_documents(first, 400)
    expected = write_documents(newer, 400, newer=0.05, gzip=True)
    database, clean = tmp_path / "db.sqlite3", tmp_path / "clean.sqlite3"
    manage(database, "migrate", "--noinput")
    shutil.copy(database, clean)

    out = manage(database, "import_documents", str(first), "--collection", "news").stdout
    assert "400 added, 0 updated, 0 unchanged" in out
    again = manage(database, "import_documents", str(first), "--collection", "news").stdout
    assert "skipped unread" in again
    update = manage(database, "import_documents", str(newer), "--collection", "news").stdout
    assert (
        f"{expected.added:,} added, {expected.updated:,} updated, {expected.unchanged:,} unchanged"
    ) in update
    manage(clean, "import_documents", str(newer), "--collection", "news")
    assert documents(database) == documents(clean)
    assert len(documents(database)) == expected.rows

    duplicate = tmp_path / "dup.tsv"
    duplicate.write_text("x1\tone\nx2\ttwo\nx1\tagain\n")
    before = documents(database)
    refused = manage(database, "import_documents", str(duplicate), "--collection", "news", ok=False)
    assert "dup.tsv line 3: docno x1 is repeated (first at line 1)" in refused.stderr
    assert documents(database) == before

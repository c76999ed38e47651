"""import_collection on SQLite (the embedded demo's database): the same re-import rules.

pytest-django gives every test PostgreSQL, so this runs ``manage.py`` in subprocesses against a
temporary SQLite file: a first import, the same files again (skipped), a newer dump (added and
updated through the staged upsert), and a clean import of the newer dump into a second file,
whose tables must be equal.
"""

import shutil
import sqlite3
from pathlib import Path

from bench.collection_dump import DumpFiles, write_dump
from tests.integration.collection_contents import TABLES
from tests.integration.sqlite_manage import manage_sqlite


def manage(database: Path, *arguments: str) -> str:
    return manage_sqlite(database, *arguments, settings="config.settings.test", timeout=600)


def import_dump(database: Path, dump: DumpFiles) -> str:
    return manage(
        database,
        "import_collection",
        "--no-progress",
        *("--posts", str(dump.posts), "--comments", str(dump.comments)),
        *("--formulas", str(dump.formulas), "--slt", str(dump.slt)),
    )


def rows(database: Path) -> dict[str, list[tuple[object, ...]]]:
    with sqlite3.connect(database) as db:
        # Table names from TABLES above, never from input.
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall() for t in TABLES}  # noqa: S608


def test_sqlite_import_skips_and_upserts_like_postgresql_when_the_database_is_embedded(
    tmp_path: Path,
) -> None:
    first = write_dump(tmp_path / "first", posts=400, formulas=2_000)
    newer = write_dump(tmp_path / "newer", posts=400, formulas=2_000, newer=0.05)
    database, clean = tmp_path / "db.sqlite3", tmp_path / "clean.sqlite3"
    manage(database, "migrate", "--noinput")
    shutil.copy(database, clean)

    import_dump(database, first)
    again = import_dump(database, first)
    assert again.count(": skipped, identical to the import of") == 4
    update = import_dump(database, newer)

    for table, change in newer.expected.items():
        assert (
            f"{table} {change.added:,} added, {change.updated:,} updated, "
            f"{change.unchanged:,} unchanged"
        ) in update
    assert "nothing is deleted" in update
    import_dump(clean, newer)
    assert rows(database) == rows(clean)

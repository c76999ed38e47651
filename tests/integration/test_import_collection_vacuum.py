"""A large load is followed by VACUUM (ANALYZE) of its table; a small update is not.

Outside a transaction only (VACUUM cannot run in one): ``transaction=True``.
"""

from pathlib import Path

import pytest
from django.db import connection

from bench.collection_dump import write_dump
from tests.integration.collection_contents import import_dump

pytestmark = pytest.mark.django_db(transaction=True)


def visibility(table: str) -> tuple[int, int, float]:
    """(pages, all-visible pages, rows the planner knows of) of ``table``."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relpages, relallvisible, reltuples FROM pg_class WHERE oid = %s::regclass",
            [table],
        )
        pages, visible, rows = cursor.fetchone()
    return int(pages), int(visible), float(rows)


def test_loaded_tables_are_vacuumed_and_analyzed_when_a_first_import_commits(
    tmp_path: Path,
) -> None:
    dump = write_dump(tmp_path / "dump", posts=2_000, formulas=20_000)
    import_dump(dump)

    pages, visible, known = visibility("collection_formula")
    # Every page all-visible (index-only scans work) and the planner knows the rows.
    assert (visible, known) == (pages, 20_000)
    # 2,000 posts: below the threshold; the MathML: nothing looks rows up in it.
    assert visibility("collection_post")[1] == 0
    assert visibility("collection_formulaslt")[1] == 0

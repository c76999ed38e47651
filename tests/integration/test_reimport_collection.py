"""Re-running import_collection: the same files change nothing and are skipped
fast, a newer dump adds and updates exactly what changed, SLT goes in set-based."""

import os
import shutil
import time
from pathlib import Path

import psycopg2
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django import DjangoAssertNumQueries

from bench.collection_dump import DumpFiles, write_dump
from collection.core.formats.visual_ids import visual_id_for
from collection.models import CollectionImport, Formula, FormulaSlt, Post
from collection.services import CollectionImportBusy, collection_import
from collection.services.collection_import import slt_import
from collection.services.collection_import.ledger import (
    IMPORT_LOCK_KEY,
    earlier_import,
    fingerprint,
)
from tests.integration.collection_contents import (
    changes_of,
    contents,
    import_dump,
    mathml_of,
    truncate_collection,
)

pytestmark = pytest.mark.django_db

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "se_sample"
POSTS, FORMULAS = 2_000, 10_000


@pytest.fixture(scope="module")
def first(tmp_path_factory: pytest.TempPathFactory) -> DumpFiles:
    return write_dump(tmp_path_factory.mktemp("first"), posts=POSTS, formulas=FORMULAS)


@pytest.fixture(scope="module")
def newer(tmp_path_factory: pytest.TempPathFactory) -> DumpFiles:
    folder = tmp_path_factory.mktemp("newer")
    return write_dump(folder, posts=POSTS, formulas=FORMULAS, newer=0.01)


def test_reimport_changes_nothing_and_reads_no_file_when_the_files_are_the_same(
    first: DumpFiles, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    report = import_dump(first)
    assert [o.skipped for o in report.files] == [False] * 4
    before = contents()
    seen: list[object] = []

    # Its cost is a few queries and no file read (bench/import_collection.py times it).
    with django_assert_max_num_queries(40):
        again = import_dump(first, progress=seen.append)

    assert [o.skipped for o in again.files] == [True] * 4
    assert again == report  # the same rows per table: threads, posts, comments, ...
    assert contents() == before
    assert seen == []  # no file was parsed
    assert CollectionImport.objects.filter(status="finished", skipped=True).count() == 4


def test_reimport_trusts_the_stat_without_reading_when_the_file_is_older_than_its_import(
    tmp_path: Path,
) -> None:
    posts = tmp_path / "Posts.xml"
    shutil.copy(SAMPLE / "Posts.xml", posts)
    an_hour_ago = time.time() - 3600
    os.utime(posts, (an_hour_ago, an_hour_ago))
    collection_import(posts=posts)

    earlier, sha = earlier_import("posts", fingerprint(posts))
    assert earlier is not None
    assert sha is None  # decided by path, size, mtime and ctime alone
    # A copy just written may have changed within the same clock tick: its content decides.
    (tmp_path / "copy").mkdir()
    copy = shutil.copy(posts, tmp_path / "copy" / "Posts.xml")
    same, copy_sha = earlier_import("posts", fingerprint(copy))
    assert same == earlier
    assert copy_sha == earlier.sha256


def test_newer_dump_adds_and_updates_exactly_the_changed_rows_when_imported_over_the_first(
    first: DumpFiles, newer: DumpFiles
) -> None:
    import_dump(first)
    report = import_dump(newer)

    expected = newer.expected
    assert changes_of(report) == {
        table: (e.added, e.updated, e.unchanged) for table, e in expected.items()
    }
    assert (report.threads, report.posts, report.comments, report.formulas, report.slt) == (
        newer.counts["threads"],
        newer.counts["posts"],
        newer.counts["comments"],
        newer.counts["formulas"],
        newer.counts["slt"],
    )
    incremental = contents()
    truncate_collection()
    clean = import_dump(newer)  # the tables are empty: loaded afresh whatever the ledger says
    assert [o.skipped for o in clean.files] == [False] * 4
    assert contents() == incremental


def test_older_dump_is_read_again_when_a_newer_one_was_imported_after_it(
    first: DumpFiles, newer: DumpFiles
) -> None:
    import_dump(first)
    import_dump(newer)
    report = import_dump(first)

    assert [o.skipped for o in report.files] == [False] * 4
    changes = changes_of(report)
    # The changed rows go back; the newer dump's own rows stay (nothing is deleted).
    reverted = newer.expected["posts"].updated
    assert changes["posts"] == (0, reverted, first.counts["posts"] - reverted)
    assert Post.objects.count() == newer.counts["posts"]


def test_slt_loads_with_as_many_statements_for_ten_times_the_rows_when_first_or_staged(
    first: DumpFiles, tmp_path: Path
) -> None:
    collection_import(posts=first.posts, comments=first.comments, formulas=first.formulas)
    lines = first.slt.read_text(encoding="utf-8").splitlines(keepends=True)
    small = tmp_path / "slt-small.tsv"
    small.write_text("".join(lines[: FORMULAS // 10 + 1]), encoding="utf-8")

    with CaptureQueriesContext(connection) as small_first:
        slt_import(small)
    FormulaSlt.objects.all().delete()
    with CaptureQueriesContext(connection) as full_first:
        given = slt_import(first.slt)
    with CaptureQueriesContext(connection) as small_staged:
        slt_import(small)  # over the full file's MathML: staged, nothing changes
    with CaptureQueriesContext(connection) as full_staged:
        slt_import(first.slt)

    assert given == first.counts["slt"] == FormulaSlt.objects.count()
    # No statement per chunk of rows, whether into the empty table or staged.
    assert len(full_first) == len(small_first)
    assert len(full_staged) == len(small_staged)
    # The formula table's indexes are not rebuilt: only a few computed visual ids change.
    assert not any(q["sql"].startswith("CREATE INDEX") for q in full_first)
    computed = Formula.objects.get(formula_id=7)  # no visual id in the index: from the SLT
    assert mathml_of(7).startswith("<math")
    assert computed.visual_id == visual_id_for(latex=computed.latex, slt=mathml_of(7))
    assert mathml_of(3) == ""  # an empty MathML cell


def test_stored_post_is_updated_when_a_newer_posts_file_changes_it(tmp_path: Path) -> None:
    collection_import(posts=SAMPLE / "Posts.xml")
    text = (SAMPLE / "Posts.xml").read_text(encoding="utf-8")
    newer = tmp_path / "Posts.xml"
    newer.write_text(text.replace('Score="11"', 'Score="12"'), encoding="utf-8")

    report = collection_import(posts=newer)

    posts = report.files[0].changes["posts"]
    assert (posts.added, posts.updated, posts.unchanged) == (0, 1, 4)
    assert Post.objects.get(id=12).score == 12


def test_import_is_refused_when_another_import_holds_the_lock() -> None:
    settings = connection.settings_dict
    other = psycopg2.connect(
        dbname=settings["NAME"],
        user=settings["USER"],
        host=settings["HOST"] or "127.0.0.1",
        port=settings["PORT"] or 5432,
    )
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [IMPORT_LOCK_KEY])
        with pytest.raises(CollectionImportBusy, match="another import"):
            collection_import(posts=SAMPLE / "Posts.xml")
    finally:
        other.close()
    assert not Post.objects.exists()


def test_failed_file_is_recorded_and_imported_when_given_again_fixed(tmp_path: Path) -> None:
    bad = tmp_path / "Posts.xml"
    bad.write_text('<?xml version="1.0"?>\n<posts>\n  <row Id="1" PostTypeId="2"/>\n</posts>\n')
    with pytest.raises(Exception, match="answer 1 has no ParentId"):
        collection_import(posts=bad)
    failed = CollectionImport.objects.get()
    assert (failed.status, failed.message) == (
        "failed",
        "Posts.xml line 3: answer 1 has no ParentId",
    )

    report = collection_import(posts=SAMPLE / "Posts.xml")
    assert not report.files[0].skipped
    assert Post.objects.count() == 5

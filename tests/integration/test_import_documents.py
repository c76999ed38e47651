"""import_documents on PostgreSQL: streamed bulk load, idempotent re-import,
newer files add and update, any problem stores nothing, ir_datasets from local files only."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import psycopg2
import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from pytest_django import DjangoAssertNumQueries

from bench.document_dump import write_documents
from collection.models import Document, DocumentCollection, DocumentImport
from collection.services.document_import import (
    DocumentImportBusy,
    DocumentImportError,
    documents_import,
)
from collection.services.document_import.ledger import DOCUMENT_IMPORT_LOCK_CLASS

pytestmark = pytest.mark.django_db
Status = DocumentImport.Status


def stored(collection: str) -> dict[str, tuple[object, ...]]:
    """docno -> (id, title, body, body_format, url, metadata, checksum)."""
    return {
        d.docno: (d.pk, d.title, d.body, d.body_format, d.url, d.metadata, d.checksum)
        for d in Document.objects.filter(collection__name=collection)
    }


def expected_from_jsonl(path: Path) -> dict[str, tuple[str, str, dict[str, object]]]:
    """docno -> (title, text, metadata), read with the json module alone."""
    opener = gzip.open if path.read_bytes()[:2] == b"\x1f\x8b" else open
    out = {}
    with opener(path, "rt", encoding="utf-8") as handle:  # type: ignore[operator]
        for line in handle:
            obj = json.loads(line)
            docno, title, text = obj.pop("id"), obj.pop("title"), obj.pop("text")
            out[docno] = (title, text, obj)
    return out


def test_jsonl_collection_is_stored_as_the_file_says_when_imported(tmp_path: Path) -> None:
    path = tmp_path / "docs.jsonl.gz"
    write_documents(path, 3_000, gzip=True)
    record = documents_import(collection="news", source=path)
    assert record.status == Status.FINISHED
    assert record.counts["rows"] == record.counts["added"] == 3_000
    docs = stored("news")
    expected = expected_from_jsonl(path)
    assert {k: (v[1], v[2], v[5]) for k, v in docs.items()} == expected
    assert all(v[3] == "text" and len(str(v[6])) == 32 for v in docs.values())
    assert record.sha256
    assert record.file_format == "jsonl"


def test_reimport_changes_nothing_and_skips_the_file_when_its_content_is_the_same(
    tmp_path: Path,
) -> None:
    path = tmp_path / "docs.jsonl"
    write_documents(path, 1_000)
    first = documents_import(collection="news", source=path)
    before = stored("news")
    copy = tmp_path / "elsewhere.jsonl"
    shutil.copy(path, copy)
    again = documents_import(collection="news", source=copy)
    assert again.skipped
    assert again.status == Status.FINISHED
    assert again.counts == {
        "rows": 1_000, "added": 0, "updated": 0, "unchanged": 1_000, "seconds": 0.0
    }  # fmt: skip
    assert f"#{first.pk}" in again.message
    assert stored("news") == before


def test_reimport_into_the_staging_path_changes_nothing_when_the_ledger_cannot_skip(
    tmp_path: Path,
) -> None:
    path = tmp_path / "docs.jsonl"
    write_documents(path, 1_000)
    documents_import(collection="news", source=path)
    before = stored("news")
    DocumentImport.objects.update(sha256="")  # the ledger forgot: the file is read again
    again = documents_import(collection="news", source=path)
    assert not again.skipped
    assert (again.counts["added"], again.counts["updated"], again.counts["unchanged"]) == (
        0, 0, 1_000,
    )  # fmt: skip
    assert stored("news") == before


def test_newer_file_adds_and_updates_exactly_what_changed_when_imported(tmp_path: Path) -> None:
    first, newer = tmp_path / "v1.jsonl", tmp_path / "v2.jsonl"
    write_documents(first, 2_000)
    expected = write_documents(newer, 2_000, newer=0.02)
    documents_import(collection="news", source=first)
    before = stored("news")
    record = documents_import(collection="news", source=newer)
    assert (record.counts["added"], record.counts["updated"], record.counts["unchanged"]) == (
        expected.added,
        expected.updated,
        expected.unchanged,
    )
    after = stored("news")
    new_version = expected_from_jsonl(newer)
    assert {k: (v[1], v[2], v[5]) for k, v in after.items()} == new_version
    changed = {k for k in before if before[k][1:] != after[k][1:]}
    assert len(changed) == expected.updated
    assert all(before[k][0] == after[k][0] for k in before)  # same rows, updated in place
    # The first file again: the newer import changed rows since, so it is read, not skipped.
    back = documents_import(collection="news", source=first)
    assert not back.skipped
    assert back.counts["updated"] == expected.updated
    assert len(stored("news")) == len(after)  # nothing deleted


def test_problem_in_the_middle_stores_nothing_and_fails_the_ledger_row_when_imported(
    tmp_path: Path,
) -> None:
    good = tmp_path / "good.jsonl"
    write_documents(good, 600)
    lines = good.read_text().splitlines(keepends=True)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(lines[:300]) + '{"id": "x", "title": 5}\n' + "".join(lines[300:]))
    with pytest.raises(DocumentImportError) as error:
        documents_import(collection="news", source=bad)
    assert error.value.problems == [
        "bad.jsonl line 301: docno x: field title must be a string, not a number"
    ]
    assert not Document.objects.exists()
    (failed,) = DocumentImport.objects.all()
    assert failed.status == Status.FAILED
    assert "line 301" in failed.message

    documents_import(collection="news", source=good)
    before = stored("news")
    with pytest.raises(DocumentImportError):
        documents_import(collection="news", source=bad)  # the staging path this time
    assert stored("news") == before


@pytest.mark.parametrize("stored_first", [False, True])
def test_repeated_docno_is_an_error_with_both_lines_when_one_file_gives_it_twice(
    tmp_path: Path, stored_first: bool
) -> None:
    if stored_first:  # the collection holds documents: the staging path
        documents_import(collection="news", source=_jsonl(tmp_path / "a.jsonl", ["z"]))
    path = _jsonl(tmp_path / "dup.jsonl", ["a", "b", "c", "b", "d"])
    with pytest.raises(DocumentImportError) as error:
        documents_import(collection="news", source=path)
    assert error.value.problems == ["dup.jsonl line 4: docno b is repeated (first at line 2)"]
    assert sorted(stored("news")) == (["z"] if stored_first else [])
    # The fresh load drops the collection foreign key for its COPY: the rollback restores it.
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_constraint WHERE conrelid = 'collection_document'::regclass "
            "AND contype = 'f'"
        )
        assert cursor.fetchone()[0] == 1


def _jsonl(path: Path, docnos: list[str], text: str = "body") -> Path:
    path.write_text("".join(json.dumps({"id": d, "text": f"{text} {d}"}) + "\n" for d in docnos))
    return path


def test_docno_already_stored_with_other_content_is_updated_when_imported_again(
    tmp_path: Path,
) -> None:
    documents_import(collection="news", source=_jsonl(tmp_path / "a.jsonl", ["a", "b"]))
    record = documents_import(
        collection="news", source=_jsonl(tmp_path / "b.jsonl", ["b", "c"], "new")
    )
    assert (record.counts["added"], record.counts["updated"], record.counts["unchanged"]) == (
        1, 1, 0,
    )  # fmt: skip
    assert {k: v[2] for k, v in stored("news").items()} == {
        "a": "body a", "b": "new b", "c": "new c"
    }  # fmt: skip


def test_same_docno_in_two_collections_is_two_documents_when_imported(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "a.jsonl", ["a", "b"])
    documents_import(collection="one", source=path)
    documents_import(collection="two", source=path)
    assert Document.objects.filter(docno="a").count() == 2
    assert DocumentImport.objects.filter(skipped=True).count() == 0


def test_ten_megabyte_document_is_stored_intact_when_imported(tmp_path: Path) -> None:
    body = "\n\n".join(f"Paragraph {i}: " + "x\ty\\z " * 3_000 for i in range(600))
    assert len(body) > 10_000_000
    path = tmp_path / "big.trec"
    path.write_text(
        f"<DOC>\n<DOCNO>big</DOCNO>\n<TITLE>Big</TITLE>\n<TEXT>\n{body}\n</TEXT>\n</DOC>\n"
    )
    documents_import(collection="news", source=path)
    doc = Document.objects.get(docno="big")
    expected = "\n\n".join(
        "\n".join(line.strip() for line in p.splitlines()) for p in body.split("\n\n")
    )
    assert doc.body == expected
    assert len(doc.body) > 10_000_000


def test_trec_and_tsv_files_are_imported_when_given_with_their_format(tmp_path: Path) -> None:
    trec = tmp_path / "c.sgml"
    trec.write_text(
        "<DOC>\n<DOCNO>T-1</DOCNO>\n<HEADLINE>Storm &amp; rain</HEADLINE>\n"
        "<TEXT>\nWind.\n</TEXT>\n</DOC>\n"
    )
    tsv = tmp_path / "c.tsv"
    tsv.write_text("id\ttitle\ttext\nP-1\tA passage\tIts text\n")
    documents_import(collection="mixed", source=trec, file_format="trec")
    documents_import(collection="mixed", source=tsv, file_format="tsv")
    docs = stored("mixed")
    assert (docs["T-1"][1], docs["T-1"][2]) == ("Storm & rain", "Wind.")
    assert (docs["P-1"][1], docs["P-1"][2]) == ("A passage", "Its text")
    assert list(DocumentImport.objects.values_list("file_format", flat=True).order_by("id")) == [
        "trec",
        "tsv",
    ]


def test_bad_collection_name_is_refused_before_anything_is_stored_when_imported(
    tmp_path: Path,
) -> None:
    with pytest.raises(DocumentImportError, match="collection name 'no spaces'"):
        documents_import(collection="no spaces", source=_jsonl(tmp_path / "a.jsonl", ["a"]))
    assert not DocumentCollection.objects.exists()


def test_second_import_into_a_collection_is_refused_when_one_is_running(tmp_path: Path) -> None:
    collection = DocumentCollection.objects.create(name="news")
    settings = connection.settings_dict
    other = psycopg2.connect(
        dbname=settings["NAME"], user=settings["USER"], host=settings["HOST"], port=settings["PORT"]
    )
    try:
        with other.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_lock(%s, %s)", [DOCUMENT_IMPORT_LOCK_CLASS, collection.pk]
            )
        with pytest.raises(DocumentImportBusy, match="another import into collection news"):
            documents_import(collection="news", source=_jsonl(tmp_path / "a.jsonl", ["a"]))
        with other.cursor() as cursor:
            cursor.execute(
                "SELECT pg_advisory_unlock(%s, %s)", [DOCUMENT_IMPORT_LOCK_CLASS, collection.pk]
            )
    finally:
        other.close()
    DocumentImport.objects.create(collection=collection, source="killed", file_format="jsonl")
    documents_import(collection="news", source=_jsonl(tmp_path / "a.jsonl", ["a"]))
    assert DocumentImport.objects.get(source="killed").status == Status.INTERRUPTED


def test_command_prints_the_counts_and_exits_with_every_problem_when_input_is_bad(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _jsonl(tmp_path / "a.jsonl", ["a", "b"])
    call_command("import_documents", str(path), "--collection", "news", "--no-progress")
    out = capsys.readouterr().out
    assert "news: 2 documents (jsonl): 2 added, 0 updated, 0 unchanged in" in out
    assert "docs/s" in out
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nc\n\td\n")
    with pytest.raises(CommandError) as error:
        call_command("import_documents", str(bad), "--collection", "news", "--format", "tsv")
    assert str(error.value).splitlines() == [
        "nothing imported; 2 problem(s):",
        "bad.tsv line 2: 1 columns, expected 2 (as on line 1)",
        "bad.tsv line 3: empty docno",
    ]
    with pytest.raises(CommandError, match="give a file PATH or --ir-datasets ID"):
        call_command("import_documents", "--collection", "news")


def test_admin_finds_a_document_by_docno_and_shows_the_ledger_when_an_organizer_looks(
    tmp_path: Path, admin_client: Client, django_assert_max_num_queries: DjangoAssertNumQueries
) -> None:
    documents_import(collection="news", source=_jsonl(tmp_path / "a.jsonl", ["a-1", "b-2"]))
    with django_assert_max_num_queries(8):
        found = admin_client.get(reverse("admin:collection_document_changelist"), {"q": "b-2"})
    assert found.status_code == 200
    assert "body b-2" not in found.content.decode()  # the list shows titles, not bodies
    assert ">b-2<" in found.content.decode()
    assert ">a-1<" not in found.content.decode()
    doc = Document.objects.get(docno="b-2")
    page = admin_client.get(reverse("admin:collection_document_change", args=[doc.pk]))
    assert "body b-2" in page.content.decode()
    assert admin_client.get(reverse("admin:collection_document_add")).status_code == 403
    collection = DocumentCollection.objects.get()
    ledger = admin_client.get(
        reverse("admin:collection_documentcollection_change", args=[collection.pk])
    )
    assert "a.jsonl" in ledger.content.decode()
    with django_assert_max_num_queries(8):
        imports = admin_client.get(reverse("admin:collection_documentimport_changelist"))
    assert "a.jsonl" in imports.content.decode()


def test_progress_bar_goes_to_stderr_and_reaches_the_file_size_when_asked_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "docs.jsonl"
    write_documents(path, 5_000)
    documents_import(collection="news", source=path, progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    size = f"{path.stat().st_size / 1e6:.2f}M"
    assert f"{size}/{size}" in captured.err.replace("\r", "\n").splitlines()[-1]

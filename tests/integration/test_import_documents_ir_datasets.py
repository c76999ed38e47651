"""import_documents --ir-datasets: a dataset registered with local files is
imported; one whose files are missing is refused, and nothing is ever downloaded."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from collection.models import Document, DocumentImport
from collection.services.document_import import DocumentImportError, documents_import

pytestmark = pytest.mark.django_db
ir_datasets = pytest.importorskip("ir_datasets")
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.formats import GenericDoc, JsonlDocs, TrecDocs, TsvDocs  # noqa: E402
from ir_datasets.util import Download, LocalDownload, RequestsDownload  # noqa: E402


@pytest.fixture(autouse=True)
def ir_datasets_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "ir_datasets_home"
    monkeypatch.setenv("IR_DATASETS_HOME", str(home))
    return home


def register(docs: object) -> str:
    """A dataset of ``docs`` under a fresh name (the registry is process-wide)."""
    name = f"qrelsmith-test/{uuid.uuid4().hex[:12]}"
    ir_datasets.registry.register(name, Dataset(docs))
    return name


def test_local_tsv_dataset_is_imported_when_its_file_is_present(tmp_path: Path) -> None:
    path = tmp_path / "docs.tsv"
    rows = [("p1", "first passage"), ("p2", "second passage"), ("p3", "third")]
    path.write_text("".join(f"{d}\t{t}\n" for d, t in rows))
    name = register(TsvDocs(LocalDownload(path), doc_cls=GenericDoc))
    record = documents_import(collection="passages", source=None, ir_dataset=name)
    assert record.file_format == "ir_datasets"
    assert record.source == f"ir_datasets:{name}"
    assert record.counts["added"] == 3
    stored = dict(Document.objects.values_list("docno", "body"))
    assert stored == dict(rows)
    again = documents_import(collection="passages", source=None, ir_dataset=name)
    assert (again.counts["added"], again.counts["updated"], again.counts["unchanged"]) == (0, 0, 3)


def test_local_jsonl_dataset_keeps_title_url_and_other_fields_when_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from typing import NamedTuple

    class WebDoc(NamedTuple):
        doc_id: str
        title: str
        url: str
        body: str
        lang: str

    path = tmp_path / "docs.jsonl"
    docs = [
        {"doc_id": "w1", "title": "One", "url": "https://a.org/1", "body": "Text 1", "lang": "en"},
        {"doc_id": "w2", "title": "Two", "url": "https://a.org/2", "body": "Text 2", "lang": "fr"},
    ]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    name = register(JsonlDocs(LocalDownload(path), doc_cls=WebDoc))
    call_command("import_documents", "--ir-datasets", name, "--collection", "web", "--no-progress")
    assert "web: 2 documents (ir_datasets): 2 added" in capsys.readouterr().out
    stored = {d.docno: (d.title, d.url, d.body, d.metadata) for d in Document.objects.all()}
    assert stored == {
        d["doc_id"]: (d["title"], d["url"], d["body"], {"lang": d["lang"]}) for d in docs
    }


def test_trec_dataset_is_imported_without_its_marked_up_copy_when_read(tmp_path: Path) -> None:
    path = tmp_path / "docs.trec"
    path.write_text("<DOC>\n<DOCNO>D1</DOCNO>\n<TEXT>\nSome text.\n</TEXT>\n</DOC>\n")
    name = register(TrecDocs(LocalDownload(path)))
    documents_import(collection="trec", source=None, ir_dataset=name)
    (doc,) = Document.objects.all()
    assert (doc.docno, doc.body.strip(), doc.metadata) == ("D1", "Some text.", {})


def test_dataset_whose_file_would_be_downloaded_is_refused_when_imported(
    tmp_path: Path, ir_datasets_home: Path
) -> None:
    cache = ir_datasets_home / "remote" / "docs.tsv"
    # Port 9 of loopback (discard): were a download tried, the error would be a connection one.
    remote = Download([RequestsDownload("http://127.0.0.1:9/docs.tsv")], cache_path=str(cache))
    name = register(TsvDocs(remote, doc_cls=GenericDoc))
    original_path = Download.path
    with pytest.raises(DocumentImportError) as error:
        documents_import(collection="remote", source=None, ir_dataset=name)
    (problem,) = error.value.problems
    assert f"ir_datasets dataset {name}: file {cache} is not on this machine" in problem
    assert "never downloads" in problem
    assert not cache.exists()
    assert Download.path is original_path  # the guard put ir_datasets back as it was
    assert not Document.objects.exists()
    failed = DocumentImport.objects.get()
    assert failed.status == DocumentImport.Status.FAILED
    assert "never downloads" in failed.message
    # Once the file is there (put by hand), the same dataset imports.
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_text("r1\tnow local\n")
    documents_import(collection="remote", source=None, ir_dataset=name)
    assert list(Document.objects.values_list("docno", "body")) == [("r1", "now local")]


def test_local_file_missing_and_unknown_dataset_are_clear_errors_when_imported(
    tmp_path: Path,
) -> None:
    name = register(TsvDocs(LocalDownload(tmp_path / "gone.tsv"), doc_cls=GenericDoc))
    with pytest.raises(DocumentImportError, match=r"gone.tsv is not on this machine"):
        documents_import(collection="gone", source=None, ir_dataset=name)
    with pytest.raises(CommandError, match="ir_datasets has no dataset 'no-such/dataset'"):
        call_command("import_documents", "--ir-datasets", "no-such/dataset", "--collection", "x")


def test_bad_document_of_a_dataset_is_named_by_dataset_and_number_when_imported(
    tmp_path: Path,
) -> None:
    path = tmp_path / "docs.tsv"
    path.write_text("p1\tfine\np 2\tspace in the id\np3\tfine\np1\tagain\n")
    name = register(TsvDocs(LocalDownload(path), doc_cls=GenericDoc))
    with pytest.raises(DocumentImportError) as error:
        documents_import(collection="passages", source=None, ir_dataset=name)
    assert error.value.problems == [
        f"ir_datasets:{name} document 2: docno 'p 2' contains whitespace",
        f"ir_datasets:{name} document 4: docno p1 is repeated (first at document 1)",
    ]
    assert not Document.objects.exists()

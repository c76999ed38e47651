"""Import a document collection: a TREC SGML, JSONL or TSV file (plain or gzip)
or an ir_datasets dataset present locally, into a named DocumentCollection.

``documents_import`` streams the source in constant memory and bulk-loads it (load.py) in one
transaction: any problem, and nothing of the source is stored; its ledger row (ledger.py) says
why. Re-importing the same file changes nothing (a file identical to a finished import is not
even read); a newer file adds documents and updates changed ones, by checksum.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Protocol

from django.core.exceptions import ValidationError
from django.db import transaction
from tqdm import tqdm

from collection.core.formats.documents.ir_datasets_docs import DatasetNotLocal, DatasetUnknown
from collection.core.formats.errors import ImportFileError
from collection.models import Document, DocumentCollection, DocumentImport
from collection.services.collection_import.ledger import BackgroundDigest
from collection.services.document_import import ledger
from collection.services.document_import.ledger import DocumentImportBusy
from collection.services.document_import.load import (
    DocumentChanges,
    DocumentImportError,
    documents_load,
)
from collection.services.document_import.sources import DatasetSource, FileSource, Source

__all__ = [
    "DocumentChanges",
    "DocumentImportBusy",
    "DocumentImportError",
    "document_collection_get_or_create",
    "documents_import",
]


def document_collection_get_or_create(name: str) -> DocumentCollection:
    """The collection called ``name``, created (committed) if new; a bad name is an error."""
    field = DocumentCollection._meta.get_field("name")
    try:
        field.clean(name, None)  # type: ignore[union-attr]
    except ValidationError as error:
        raise DocumentImportError(
            [f"collection name {name!r}: {' '.join(error.messages)}"]
        ) from error
    collection, _ = DocumentCollection.objects.get_or_create(name=name)
    return collection


def _source(source: Path | None, file_format: str, ir_dataset: str | None) -> Source:
    if (source is None) == (ir_dataset is None):
        raise DocumentImportError(["give either a file or an ir_datasets dataset id"])
    try:
        if ir_dataset is not None:
            return DatasetSource(ir_dataset)
        assert source is not None  # noqa: S101 - checked just above
        return FileSource(source, file_format)
    except (ImportFileError, DatasetUnknown, ValueError) as error:
        raise DocumentImportError([str(error)]) from error


class _Bar:
    """A tqdm bar on stderr (bytes of the file, or documents of a dataset), or nothing."""

    def __init__(self, source: Source, enabled: bool, name: str) -> None:
        self.source = source
        self.bar: Any = None
        if enabled:
            self.bar = tqdm(
                total=source.total,
                desc=name,
                unit=source.unit,
                unit_scale=True,
                file=sys.stderr,
            )

    def tick(self) -> None:
        self.bar.update(self.source.position - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


class Writable(Protocol):
    def write(self, msg: str) -> Any: ...
    def flush(self) -> Any: ...


def _say(stdout: Writable | None, message: str) -> None:
    if stdout is not None:
        stdout.write(message + "\n")
        stdout.flush()


def documents_import(
    *,
    collection: str,
    source: Path | None,
    file_format: str = "auto",
    ir_dataset: str | None = None,
    progress: bool = False,
    stdout: Writable | None = None,
) -> DocumentImport:
    """Import ``source`` (or the ir_datasets dataset ``ir_dataset``) into the collection
    ``collection`` (created if needed); returns its ledger row, whose ``counts`` say how many
    documents the source holds and how many were added, updated and left unchanged.

    Raises DocumentImportError listing every problem (file, line or document number, field)
    and DocumentImportBusy while another import into the same collection runs.
    """
    chosen = _source(source, file_format, ir_dataset)
    target = document_collection_get_or_create(collection)
    with ledger.import_lock(target):
        sha = None
        if isinstance(chosen, FileSource):
            earlier, sha = ledger.earlier_import(target, chosen.path, chosen.size)
            if earlier is not None:
                _say(stdout, f"{chosen.label}: identical to import #{earlier.pk}, skipped unread")
                return ledger.record_skip(target, chosen.label, chosen.file_format, earlier)
        record = ledger.record_start(target, chosen.label, chosen.file_format, chosen.size, sha)
        digest = BackgroundDigest(chosen.path, sha) if isinstance(chosen, FileSource) else None
        bar = _Bar(chosen, progress, target.name)
        try:
            with transaction.atomic():
                fresh = not Document.objects.filter(collection=target).exists()
                changes = documents_load(
                    collection_id=target.pk,
                    source=chosen,
                    fresh=fresh,
                    tick=bar.tick if bar.bar is not None else None,
                )
                ledger.record_finish(record, changes, digest.result() if digest else "")
        except (ImportFileError, DatasetNotLocal) as error:
            ledger.record_failure(record, str(error))
            raise DocumentImportError([str(error)]) from error
        except Exception as error:
            ledger.record_failure(record, str(error))
            raise
        finally:
            bar.close()
    return record

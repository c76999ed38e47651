"""The document import ledger (``DocumentImport`` rows): what was imported into a collection,
so that the same file given again is skipped unread.

A file is skipped when a finished import into the same collection had the same size and
SHA-256, no import that added or updated documents of the collection came after it, and the
collection still holds documents. The file is hashed beforehand only when an earlier import
of the same size exists; otherwise its hash is computed beside the load (BackgroundDigest).

Imports into one collection take a PostgreSQL session advisory lock, one at a time; a
"started" row found by the next holder of the lock belongs to an import that was killed (its
documents were rolled back with it), and is marked "interrupted".
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from django.db import connection
from django.db.models import Q
from django.utils import timezone

from collection.models import Document, DocumentCollection, DocumentImport
from collection.services.collection_import.ledger import sha256_file
from collection.services.document_import.load import DocumentChanges

Status = DocumentImport.Status
# The first key of the two-key advisory lock of a collection's imports ("QD"); pooling's
# topic locks use 0x5153 ("QS").
DOCUMENT_IMPORT_LOCK_CLASS = 0x5144


class DocumentImportBusy(Exception):
    """Another import into the same collection is running."""


@contextmanager
def import_lock(collection: DocumentCollection) -> Iterator[None]:
    """Hold the collection's import lock (PostgreSQL) and mark its killed imports."""
    locked = connection.vendor == "postgresql"
    if locked:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT pg_try_advisory_lock(%s, %s::integer)",
                [DOCUMENT_IMPORT_LOCK_CLASS, collection.pk],
            )
            if not cursor.fetchone()[0]:
                raise DocumentImportBusy(
                    f"another import into collection {collection.name} is running; "
                    "try again when it ends"
                )
    try:
        DocumentImport.objects.filter(collection=collection, status=Status.STARTED).update(
            status=Status.INTERRUPTED, finished_at=timezone.now()
        )
        yield
    finally:
        if locked:
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_unlock(%s, %s::integer)",
                    [DOCUMENT_IMPORT_LOCK_CLASS, collection.pk],
                )


def earlier_import(
    collection: DocumentCollection, path: str, size: int
) -> tuple[DocumentImport | None, str | None]:
    """The finished import this file repeats (or None), and the file's SHA-256 when it had to
    be computed to decide."""
    changing = (
        DocumentImport.objects.filter(collection=collection, status=Status.FINISHED)
        .filter(Q(counts__added__gt=0) | Q(counts__updated__gt=0))
        .order_by("-id")
        .values_list("id", flat=True)
        .first()
    )
    candidates = DocumentImport.objects.filter(
        collection=collection, status=Status.FINISHED, size=size, id__gte=changing or 0
    ).exclude(sha256="")
    if not candidates.exists() or not Document.objects.filter(collection=collection).exists():
        return None, None
    sha = sha256_file(path)
    return candidates.filter(sha256=sha).order_by("-id").first(), sha


def record_skip(
    collection: DocumentCollection, label: str, file_format: str, earlier: DocumentImport
) -> DocumentImport:
    rows = int(earlier.counts.get("rows", 0))
    now = timezone.now()
    return DocumentImport.objects.create(
        collection=collection,
        source=label,
        file_format=file_format,
        size=earlier.size,
        sha256=earlier.sha256,
        status=Status.FINISHED,
        skipped=True,
        counts={"rows": rows, "added": 0, "updated": 0, "unchanged": rows, "seconds": 0.0},
        message=f"identical to import #{earlier.pk}: skipped unread",
        started_at=now,
        finished_at=now,
    )


def record_start(
    collection: DocumentCollection, label: str, file_format: str, size: int, sha: str | None
) -> DocumentImport:
    """The "started" row, committed before the load so that a failure can be recorded."""
    return DocumentImport.objects.create(
        collection=collection, source=label, file_format=file_format, size=size, sha256=sha or ""
    )


def record_finish(record: DocumentImport, changes: DocumentChanges, sha: str) -> None:
    """Mark ``record`` finished, inside the load's transaction (it commits with the rows)."""
    record.finished_at = timezone.now()
    seconds = (record.finished_at - record.started_at).total_seconds()
    record.status = Status.FINISHED
    record.sha256 = sha
    record.counts = {
        "rows": changes.rows,
        "added": changes.added,
        "updated": changes.updated,
        "unchanged": changes.unchanged,
        "seconds": round(seconds, 3),
    }
    record.save(update_fields=["status", "sha256", "counts", "finished_at"])


def record_failure(record: DocumentImport, message: str) -> None:
    DocumentImport.objects.filter(pk=record.pk).update(
        status=Status.FAILED, message=message[:20_000], finished_at=timezone.now()
    )

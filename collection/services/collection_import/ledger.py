"""The import ledger (``CollectionImport`` rows): which collection files were imported, so that a
re-run skips what it has already done.

A file is known by its role and its content (SHA-256). A file is skipped, unread, when
- a finished import of the same role and content exists,
- no import that changed rows of the same tables finished after it (for the SLT file: nor one
  that changed formulas, since a changed formula row loses its MathML until SLT comes again),
- and its table is not empty (the caller checks: a deleted collection is imported again).

The content is hashed only when it decides something. A file with the path, size, mtime and
ctime of a finished import, not modified in the seconds before that import began (git's "racy
clean" rule: a write in the same clock tick leaves the mtime as it was), is taken to be that file
without reading it. A first import hashes the file in a thread beside the load.

Imports take a PostgreSQL session advisory lock, one at a time; a "started" row found by the
next holder of the lock belongs to an import that was killed, and is marked "interrupted".
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import connection
from django.db.models import Max
from django.utils import timezone

from collection.core.formats.errors import ImportFileError
from collection.models import CollectionImport
from collection.services.collection_import.progress import FileChanges, RowChanges

Role = CollectionImport.Role
Status = CollectionImport.Status

# A single-bigint advisory lock key ("QSCOLL"): apart from the two-int keys of pool locks.
IMPORT_LOCK_KEY = 0x5153_434F_4C4C
# A file modified less than this before an import began may have changed again within the
# same mtime tick: it is hashed rather than trusted by its stat.
RACY_NS = 2_000_000_000
# The tables whose changes make an earlier import of a role stale.
DEPENDS_ON: dict[str, tuple[str, ...]] = {
    Role.POSTS: (Role.POSTS,),
    Role.COMMENTS: (Role.COMMENTS,),
    Role.FORMULAS: (Role.FORMULAS,),
    Role.SLT: (Role.SLT, Role.FORMULAS),
}


class CollectionImportBusy(Exception):
    """Another import of the collection is running (one at a time)."""


@dataclass(frozen=True)
class Fingerprint:
    """What the file system says about a file, without reading it."""

    path: str
    size: int
    mtime_ns: int
    ctime_ns: int


def fingerprint(path: str | Path) -> Fingerprint:
    try:
        stat = os.stat(path)
    except OSError as error:
        raise ImportFileError(path, None, f"cannot open: {error.strerror}") from error
    return Fingerprint(os.path.abspath(path), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)


def sha256_file(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)  # releases the GIL: runs beside the parser
    return digest.hexdigest()


class BackgroundDigest:
    """SHA-256 of a file computed in a thread while the file is loaded (None: nothing to do)."""

    def __init__(self, path: str | Path, known: str | None) -> None:
        self._value = known
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if known is None:
            self._thread = threading.Thread(target=self._run, args=(path,), daemon=True)
            self._thread.start()

    def _run(self, path: str | Path) -> None:
        try:
            self._value = sha256_file(path)
        except BaseException as error:  # handed to the caller by result()
            self._error = error

    def result(self) -> str:
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._value is not None  # noqa: S101 - set by the thread or given
        return self._value


@contextmanager
def import_lock() -> Iterator[None]:
    """Hold the collection import lock (PostgreSQL), and mark killed imports "interrupted"."""
    locked = connection.vendor == "postgresql"
    if locked:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_try_advisory_lock(%s)", [IMPORT_LOCK_KEY])
            if not cursor.fetchone()[0]:
                raise CollectionImportBusy(
                    "another import of the collection is running; try again when it ends"
                )
    try:
        CollectionImport.objects.filter(status=Status.STARTED).update(
            status=Status.INTERRUPTED, finished_at=timezone.now()
        )
        yield
    finally:
        if locked:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [IMPORT_LOCK_KEY])


def earlier_import(role: str, print_: Fingerprint) -> tuple[CollectionImport | None, str | None]:
    """The finished import this file repeats (or None), and the file's SHA-256 if it had to be
    computed to decide (None when the ledger could tell without reading the file)."""
    newest_change = CollectionImport.objects.filter(
        role__in=DEPENDS_ON[role], status=Status.FINISHED, changed=True
    ).aggregate(newest=Max("id"))["newest"]
    # An import that itself changed rows is valid when nothing changed after it: gte.
    candidates = CollectionImport.objects.filter(
        role=role, status=Status.FINISHED, id__gte=newest_change or 0
    ).exclude(sha256="")
    if not candidates.exists():
        return None, None
    same_stat = (
        candidates.filter(
            path=print_.path,
            size=print_.size,
            mtime_ns=print_.mtime_ns,
            ctime_ns=print_.ctime_ns,
        )
        .order_by("-id")
        .first()
    )
    if same_stat is not None and _stat_trustworthy(same_stat, print_):
        return same_stat, None
    sha = sha256_file(print_.path)
    return candidates.filter(sha256=sha, size=print_.size).order_by("-id").first(), sha


def _stat_trustworthy(record: CollectionImport, print_: Fingerprint) -> bool:
    started_ns = int(record.started_at.timestamp() * 1_000_000_000)
    return print_.mtime_ns + RACY_NS < started_ns


def _stat_fields(print_: Fingerprint) -> dict[str, object]:
    return {
        "path": print_.path,
        "size": print_.size,
        "mtime_ns": print_.mtime_ns,
        "ctime_ns": print_.ctime_ns,
    }


def record_skip(
    role: str, print_: Fingerprint, earlier: CollectionImport, sha: str | None
) -> CollectionImport:
    """A finished, skipped row for a file identical to ``earlier``: the next re-run finds this
    one by its stat (the file may have been copied or touched)."""
    now = timezone.now()
    rows = {table: {"rows": RowChanges.from_dict(c).rows} for table, c in earlier.counts.items()}
    return CollectionImport.objects.create(
        role=role,
        sha256=sha or earlier.sha256,
        status=Status.FINISHED,
        skipped=True,
        counts=rows,
        message=f"identical to import #{earlier.pk}",
        started_at=now,
        finished_at=now,
        **_stat_fields(print_),
    )


def record_start(role: str, print_: Fingerprint, sha: str | None) -> CollectionImport:
    """The "started" row, written (committed, outside an atomic block) before the load."""
    return CollectionImport.objects.create(role=role, sha256=sha or "", **_stat_fields(print_))


def record_finish(record: CollectionImport, changes: FileChanges, sha: str) -> None:
    """Mark ``record`` finished; call it inside the load's transaction, so that "finished"
    commits with the rows or not at all."""
    record.status = Status.FINISHED
    record.sha256 = sha
    record.counts = {table: change.as_dict() for table, change in changes.items()}
    record.changed = any(change.changed for change in changes.values())
    record.finished_at = timezone.now()
    record.save(update_fields=["status", "sha256", "counts", "changed", "finished_at"])


def record_failure(record: CollectionImport, message: str) -> None:
    CollectionImport.objects.filter(pk=record.pk).update(
        status=Status.FAILED, message=message[:2000], finished_at=timezone.now()
    )

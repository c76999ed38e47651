"""Import the collection: Stack Exchange posts and comments, formula index, SLT; re-runnable
and resumable.

``collection_import`` takes the files in dependency order (posts, comments, formulas, SLT), one
transaction each, and keeps a ledger of them (``CollectionImport``, ledger.py):
- a file already imported, unchanged, is skipped unread; a re-run of the same files changes
  nothing and costs a few queries;
- a changed file (a newer dump) adds its new rows and updates its changed ones (staging.py),
  and says how many were added, updated and unchanged. Rows that a newer dump no longer
  holds are left in the collection: runs and judgments may point to them;
- an import killed half-way lost only the file it was loading (rolled back); run again, it
  skips the files that finished and loads the rest.

The ``*_import`` functions load one file, unconditionally (idempotent too), without the ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from django.db import transaction
from django.db.models import Model
from django.utils import timezone

from collection.models import CollectionImport, Comment, Formula, FormulaSlt, Post, Thread
from collection.services.collection_import import ledger
from collection.services.collection_import.formulas import formulas_load
from collection.services.collection_import.ledger import CollectionImportBusy
from collection.services.collection_import.posts import comments_load, posts_load
from collection.services.collection_import.progress import (
    CollectionImportReport,
    FileChanges,
    FileOutcome,
    ImportProgress,
    ProgressCallback,
    RowChanges,
)
from collection.services.collection_import.slt import slt_load
from collection.services.collection_import.staging import LoadPath, load_path, table_is_empty
from kernel.bulkload import vacuum_analyze

__all__ = [
    "CollectionImportBusy",
    "CollectionImportReport",
    "FileOutcome",
    "ImportProgress",
    "LoadPath",
    "RowChanges",
    "collection_import",
    "comments_import",
    "formulas_import",
    "load_path",
    "posts_import",
    "slt_import",
]

Role = CollectionImport.Role
Loader = Callable[[str | Path, ProgressCallback | None], FileChanges]
# Role -> its loader, and the tables whose emptiness means "nothing of it is stored any more".
_LOADERS: dict[str, tuple[Loader, tuple[type[Model], ...]]] = {
    Role.POSTS: (posts_load, (Post, Thread)),
    Role.COMMENTS: (comments_load, (Comment,)),
    Role.FORMULAS: (formulas_load, (Formula,)),
    Role.SLT: (slt_load, (FormulaSlt,)),
}
# The tables of a file's counts (progress.FileChanges keys) that a large load VACUUMs: those
# later steps look rows up in (runs' post and formula ids, foreign-key checks). The MathML
# table is not among them: nothing reads it on a hot path, and a pass over its 10 GB would
# take longer than loading it.
_VACUUMED: dict[str, type[Model]] = {
    "threads": Thread,
    "posts": Post,
    "comments": Comment,
    "formulas": Formula,
}
# A load that added or changed this many rows (and a tenth of the file) is followed by a
# VACUUM (ANALYZE) of its table; smaller ones are autovacuum's.
VACUUM_AFTER_ROWS = 10_000


def posts_import(path: str | Path, progress: ProgressCallback | None = None) -> tuple[int, int]:
    """(threads, posts) of a ``Posts.xml``, loaded (see posts_load)."""
    changes = posts_load(path, progress)
    return changes["threads"].rows, changes["posts"].rows


def comments_import(path: str | Path, progress: ProgressCallback | None = None) -> int:
    return comments_load(path, progress)["comments"].rows


def formulas_import(path: str | Path, progress: ProgressCallback | None = None) -> int:
    return formulas_load(path, progress)["formulas"].rows


def slt_import(path: str | Path, progress: ProgressCallback | None = None) -> int:
    """Formulas given MathML by an SLT TSV (see slt_load)."""
    return slt_load(path, progress)["slt"].rows


def _skipped(role: str, path: str | Path, earlier: CollectionImport) -> FileOutcome:
    changes = {t: RowChanges(rows=RowChanges.from_dict(c).rows) for t, c in earlier.counts.items()}
    when = timezone.localtime(earlier.finished_at or earlier.started_at)
    return FileOutcome(
        role, str(path), True, changes, f"identical to the import of {when:%Y-%m-%d %H:%M:%S %Z}"
    )


def _import_file(
    role: str, path: str | Path, progress: ProgressCallback | None, force: bool
) -> FileOutcome:
    """One file through the ledger: skipped if already imported, else loaded and recorded."""
    load, tables = _LOADERS[role]
    print_ = ledger.fingerprint(path)
    sha = None
    if not force and not table_is_empty(*tables):
        earlier, sha = ledger.earlier_import(role, print_)
        if earlier is not None:
            ledger.record_skip(role, print_, earlier, sha)
            return _skipped(role, path, earlier)
    record = ledger.record_start(role, print_, sha)
    digest = ledger.BackgroundDigest(path, sha)
    try:
        with transaction.atomic():
            changes = load(path, progress)
            ledger.record_finish(record, changes, digest.result())
    except Exception as error:
        ledger.record_failure(record, str(error))
        raise
    vacuum_analyze(
        *(
            _VACUUMED[table]
            for table, change in changes.items()
            if table in _VACUUMED
            and change.added + change.updated >= max(VACUUM_AFTER_ROWS, change.rows // 10)
        )
    )
    return FileOutcome(role, str(path), False, changes)


def collection_import(
    *,
    posts: str | Path | None = None,
    comments: str | Path | None = None,
    formulas: str | Path | None = None,
    slt: str | Path | None = None,
    progress: ProgressCallback | None = None,
    file_done: Callable[[FileOutcome], None] | None = None,
    force: bool = False,
) -> CollectionImportReport:
    """Import collection files in dependency order: posts, comments, formulas, SLT.

    One transaction per file: when a file fails (ImportFileError naming file and line), the
    files before it stay imported and nothing of the failed one is kept. A file identical to
    one imported before is skipped (``force`` reads it anyway, e.g. after rows were edited by
    hand); ``file_done`` hears of each file as it ends. Raises CollectionImportBusy while
    another import runs (PostgreSQL).
    """
    files = ((Role.POSTS, posts), (Role.COMMENTS, comments), (Role.FORMULAS, formulas))
    outcomes = []
    with ledger.import_lock():
        for role, path in (*files, (Role.SLT, slt)):
            if path is None:
                continue
            outcome = _import_file(role, path, progress, force)
            outcomes.append(outcome)
            if file_done is not None:
                file_done(outcome)
    rows = {table: c.rows for o in outcomes for table, c in o.changes.items()}
    return CollectionImportReport(
        threads=rows.get("threads", 0),
        posts=rows.get("posts", 0),
        comments=rows.get("comments", 0),
        formulas=rows.get("formulas", 0),
        slt=rows.get("slt", 0),
        files=tuple(outcomes),
    )

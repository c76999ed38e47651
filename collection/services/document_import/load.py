"""Loading a source's documents into a collection, in the caller's transaction.

- A collection with no documents yet (PostgreSQL) takes the fast path: one streaming COPY
  straight into the document table. A docno given twice makes the unique constraint refuse
  the COPY; the load then starts again through the staging path, which finds and reports it.
- Otherwise (and always on SQLite) the documents go into a temporary staging table (COPY, or
  plain INSERTs on SQLite), repeated docnos are looked for there, and one set-based merge
  inserts the new documents and updates those whose checksum differs: ``INSERT … SELECT …
  ON CONFLICT (collection, docno) DO UPDATE … WHERE checksum differs``. Documents the source
  no longer holds stay (runs and judgments may name them).

Problems found while parsing are collected; any problem aborts the load (DocumentImportError)
after the whole source was read, so that one run lists them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction

from collection.core.formats.documents import (
    MAX_PROBLEMS,
    DocumentProblems,
    DocumentRecord,
    TooManyProblems,
)
from collection.core.formats.documents.copy_lines import COPY_FIELDS, copy_line_formatter
from collection.models import Document
from collection.services.collection_import.staging import StagingTable
from collection.services.document_import.sources import Source
from kernel.bulkload import bulk_insert, bulk_load_window, copy_lines, stored_rows_estimate

FIELDS = list(COPY_FIELDS)
STAGE = "document_import_stage"
# How many repeated docnos an error lists.
REPEATED_SHOWN = 5


class DocumentImportError(Exception):
    """The source is not a valid collection: every problem found, each naming its file, line
    (or document number) and field."""

    def __init__(self, problems: list[str]) -> None:
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class DocumentChanges:
    rows: int
    added: int
    updated: int
    unchanged: int


Tick = Callable[[], None]


def _rows(collection_id: int, records: Iterable[DocumentRecord]) -> Iterator[tuple[object, ...]]:
    for r in records:
        yield (
            collection_id,
            r.docno,
            r.title,
            r.body,
            r.body_format,
            r.url,
            r.metadata_json,
            r.checksum,
        )


def _ticking(records: Iterable[DocumentRecord], tick: Tick | None) -> Iterator[DocumentRecord]:
    if tick is None:
        yield from records
        return
    for count, record in enumerate(records, 1):
        yield record
        if count % 2_000 == 0:
            tick()
    tick()


def _insert(collection_id: int, records: Iterable[DocumentRecord], table: str | None) -> int:
    """Rows into ``table`` (a staging table) or the document table: COPY on PostgreSQL."""
    if connection.vendor == "postgresql":
        lines = map(copy_line_formatter(collection_id), records)
        return copy_lines(Document, FIELDS, lines, table=table)
    return bulk_insert(Document, FIELDS, _rows(collection_id, records), table=table)


def _read(
    source: Source, problems: DocumentProblems, tick: Tick | None
) -> Iterator[DocumentRecord]:
    """The source's records; reading stops (quietly) once too many problems are found."""
    try:
        yield from _ticking(source.records(problems), tick)
    except TooManyProblems:
        return


def _raise_problems(problems: DocumentProblems, extra: list[str] | None = None) -> None:
    messages = problems.messages() + (extra or [])
    if len(problems.found) >= MAX_PROBLEMS:
        messages.append(f"… reading stopped after {len(problems.found)} problems")
    if messages:
        raise DocumentImportError(messages)


# Below this many stored documents nothing of consequence can be in judging yet.
NEARLY_EMPTY_DOCUMENTS = 10_000


def _foreign_key_window(source: Source) -> AbstractContextManager[None]:
    """bulk_load_window (the collection foreign key dropped, then added back and checked in
    one pass, cheaper than a per-row trigger) for the first big import of a deployment only.

    It locks the whole document table until the commit: with documents of any size already
    stored, assessors may be judging them, and a second collection's import must not freeze
    their pages for its whole duration, so it keeps the per-row check instead."""
    stored = stored_rows_estimate(Document)
    if source.size and stored < NEARLY_EMPTY_DOCUMENTS and stored * 1_000 <= source.size:
        return bulk_load_window(Document)
    return nullcontext()


def _load_fresh(collection_id: int, source: Source, tick: Tick | None) -> DocumentChanges | None:
    """COPY straight into the document table; None when a docno came twice (rolled back)."""
    problems = source.problems()
    try:
        with transaction.atomic(), _foreign_key_window(source):
            rows = _insert(collection_id, _read(source, problems, tick), None)
            _raise_problems(problems)
    except IntegrityError as error:
        if "document_docno_unique_per_collection" not in str(error):
            raise
        return None
    return DocumentChanges(rows, rows, 0, 0)


def _analyze(stage: StagingTable) -> None:
    """Statistics of the join columns only: ANALYZE of every column would sample the bodies
    too, for nothing (PostgreSQL; SQLite plans this join well without)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {stage.name} (collection_id, docno)")


def _repeated_docnos(stage: StagingTable) -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT docno FROM {stage.name} GROUP BY docno HAVING count(*) > 1 "  # noqa: S608
            f"ORDER BY docno LIMIT {REPEATED_SHOWN + 1}"
        )
        return [docno for (docno,) in cursor.fetchall()]


def _repeated_problems(source: Source, docnos: list[str]) -> list[str]:
    """Where each repeated docno is, found by reading the source again."""
    wanted = set(docnos[:REPEATED_SHOWN])
    lines: dict[str, list[int]] = {d: [] for d in wanted}
    for record in _read(source, source.problems(), None):
        if record.docno in wanted:
            lines[record.docno].append(record.line)
    where = "document" if source.unit == "docs" else "line"
    messages = []
    for docno in docnos[:REPEATED_SHOWN]:
        first, *again = lines[docno] or [0]
        label = source.label if source.path is None else source.path.rsplit("/", 1)[-1]
        places = ", ".join(f"{n:,}" for n in again)
        messages.append(
            f"{label} {where} {places}: docno {docno} is repeated (first at {where} {first:,})"
        )
    if len(docnos) > REPEATED_SHOWN:
        messages.append("… and more docnos are repeated")
    return messages


def _merge(stage: StagingTable, collection_id: int) -> DocumentChanges:
    """New documents inserted, changed ones (by checksum) updated; the counts."""
    table = connection.ops.quote_name(Document._meta.db_table)
    changes = connection.ops.quote_name(f"{STAGE}_changes")
    columns = ", ".join(stage.columns)
    updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in stage.columns[2:])
    # Table and column names come from the model, never from input.
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TEMPORARY TABLE {changes} AS "  # noqa: S608
            f"SELECT s.*, CASE WHEN t.id IS NULL THEN 1 ELSE 0 END AS is_new "
            f"FROM {stage.name} s LEFT JOIN {table} t "
            f"ON t.collection_id = s.collection_id AND t.docno = s.docno "
            f"WHERE t.id IS NULL OR t.checksum <> s.checksum"
        )
        cursor.execute(f"SELECT count(*), sum(is_new) FROM {changes}")  # noqa: S608
        total, added = cursor.fetchone()
        total, added = int(total), int(added or 0)
        if total:
            cursor.execute(
                f"INSERT INTO {table} AS t ({columns}) "  # noqa: S608
                f"SELECT {columns} FROM {changes} WHERE true "  # WHERE: SQLite's upsert grammar
                f"ON CONFLICT (collection_id, docno) DO UPDATE SET {updates} "
                f"WHERE t.checksum <> EXCLUDED.checksum"
            )
        cursor.execute(f"DROP TABLE {changes}")
    return DocumentChanges(stage.rows, added, total - added, stage.rows - total)


def _load_staged(collection_id: int, source: Source, tick: Tick | None) -> DocumentChanges:
    problems = source.problems()
    stage = StagingTable(Document, FIELDS, STAGE)
    stage.rows = _insert(collection_id, _read(source, problems, tick), STAGE)
    _analyze(stage)
    repeated = _repeated_docnos(stage)
    _raise_problems(problems, _repeated_problems(source, repeated) if repeated else [])
    changes = _merge(stage, collection_id)
    stage.drop()
    return changes


def documents_load(
    *, collection_id: int, source: Source, fresh: bool, tick: Tick | None = None
) -> DocumentChanges:
    """Load ``source`` into the collection (inside the caller's transaction). ``fresh``: the
    collection holds no documents yet."""
    changes = None
    if fresh and connection.vendor == "postgresql":
        changes = _load_fresh(collection_id, source, tick)
    if changes is None:
        changes = _load_staged(collection_id, source, tick)
    if changes.rows == 0:
        raise DocumentImportError([f"{source.label}: holds no documents"])
    return changes

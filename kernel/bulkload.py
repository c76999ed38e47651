"""Bulk insertion of plain rows: PostgreSQL ``COPY`` where available, ``bulk_create`` elsewhere.

Callers stream tuples in the order of ``fields`` (column attnames, e.g. ``post_id``); rows are
sent in batches so memory stays flat whatever the input size. Run it inside the caller's
``transaction.atomic()`` so that a failed file leaves nothing behind. ``table`` loads the rows
into another table with the model's column names instead (an import's staging table).
"""

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from itertools import islice
from typing import Any

from django.db import connection, models

from kernel.core.copy_text import NULL, escape

BATCH_ROWS = 50_000
# Rows per chunk handed to COPY: large enough to amortize the calls, small enough to stream.
_CHUNK_ROWS = 5_000


def _copy_text(value: Any) -> str:
    """One value in COPY's text format: \\N for NULL, special characters escaped."""
    if value is None:
        return NULL
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, str):
        return escape(value)
    return str(value)


def _copy_str(value: Any) -> str:
    """A text column's value: the fast path for a str, anything else as _copy_text has it."""
    return escape(value) if type(value) is str else _copy_text(value)


_INTEGER_TYPES = frozenset(
    {
        "AutoField",
        "BigAutoField",
        "SmallAutoField",
        "IntegerField",
        "BigIntegerField",
        "SmallIntegerField",
        "PositiveIntegerField",
        "PositiveBigIntegerField",
        "PositiveSmallIntegerField",
    }
)


def _line_formatter(model: type[models.Model], fields: Sequence[str]) -> Callable[..., str]:
    """A function row -> COPY text line, specialised to the columns' types once per load.

    It is generated as one f-string lambda: integer columns are interpolated as they are, text
    columns escaped, anything else (dates, JSON, nullable values) goes through _copy_text. The
    source is built from field positions only (never from data), so the eval is safe; a generic
    per-value loop costs about five times as much per row.
    """
    parts = []
    for i, name in enumerate(fields):
        field = model._meta.get_field(name)
        kind = field.get_internal_type()
        target = getattr(field, "target_field", None)
        if target is not None:  # a foreign key: the type of the key it points to
            kind = target.get_internal_type()
        if kind in _INTEGER_TYPES and not field.null:
            parts.append(f"{{r[{i}]}}")
        elif kind in ("TextField", "CharField") and not field.null:
            parts.append(f"{{e(r[{i}])}}")
        else:
            parts.append(f"{{t(r[{i}])}}")
    source = 'lambda r: f"' + "\\t".join(parts) + '\\n"'
    namespace = {"e": _copy_str, "t": _copy_text}
    return eval(source, namespace)  # type: ignore[no-any-return]  # noqa: S307


def _batches(rows: Iterable[tuple[Any, ...]], size: int) -> Iterable[list[tuple[Any, ...]]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


def _same(line: str) -> str:
    return line


class _CopySource:
    """A file-like object COPY reads from: each read() formats the next chunk of rows.

    One COPY statement streams the whole input, so PostgreSQL parses one chunk while Python
    formats the next (two processes, two cores) instead of waiting on a COPY per batch.
    """

    def __init__(
        self,
        rows: Iterable[Any],
        line: Callable[..., str],
        size: int,
        progress: Callable[[int], None] | None = None,
    ):
        self._rows = iter(rows)
        self._line = line
        self._size = size
        self._progress = progress
        self.count = 0
        # psycopg2 turns an exception raised in read() into QueryCanceled; keep the original
        # (e.g. a parser's file-and-line error) to re-raise once COPY has been aborted.
        self.error: BaseException | None = None

    def read(self, _size: int = -1) -> str:
        try:
            chunk = list(map(self._line, islice(self._rows, self._size)))
        except BaseException as error:
            self.error = error
            raise
        self.count += len(chunk)
        if self._progress is not None and chunk:
            self._progress(self.count)
        return "".join(chunk)

    def readline(self, _size: int = -1) -> str:  # part of the file protocol psycopg2 checks
        return self.read()


def bulk_insert(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[tuple[Any, ...]],
    *,
    batch_size: int = BATCH_ROWS,
    table: str | None = None,
) -> int:
    """Insert ``rows`` into ``model``'s table (or ``table``); returns how many were inserted.

    Values go in as given: JSON fields must already be JSON text. No save() or signals run.
    """
    if connection.vendor == "postgresql":
        return _copy(model, fields, rows, batch_size, table)
    if table is not None:
        return _insert_many(model, fields, rows, batch_size, table)
    return _bulk_create(model, fields, rows, batch_size)


def column_names(model: type[models.Model], fields: Sequence[str]) -> list[str]:
    """The quoted column names of ``fields`` (attnames, e.g. ``post_id``) of ``model``."""
    opts = model._meta
    # get_field() also answers to a foreign key's attname ("post_id").
    columns = [str(opts.get_field(name).column) for name in fields]  # type: ignore[union-attr]
    return [connection.ops.quote_name(c) for c in columns]


def copy_sql(model: type[models.Model], fields: Sequence[str], table: str | None = None) -> str:
    """``COPY table (columns) FROM STDIN`` for ``fields`` (attnames) of ``model``."""
    target = connection.ops.quote_name(table or model._meta.db_table)
    return f"COPY {target} ({', '.join(column_names(model, fields))}) FROM STDIN"


def copy_lines(
    model: type[models.Model],
    fields: Sequence[str],
    lines: Iterable[str],
    *,
    progress: Callable[[int], None] | None = None,
    table: str | None = None,
) -> int:
    """COPY lines already in COPY's text format (each ending in a newline) into ``model``'s
    table (or ``table``); PostgreSQL only. ``progress`` is called with the rows sent so far,
    per chunk."""
    if connection.vendor != "postgresql":
        raise NotImplementedError("copy_lines needs PostgreSQL; use bulk_insert elsewhere")
    return _send(model, fields, _CopySource(lines, _same, _CHUNK_ROWS, progress), table)


def _copy(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[tuple[Any, ...]],
    size: int,
    table: str | None,
) -> int:
    source = _CopySource(rows, _line_formatter(model, fields), min(size, _CHUNK_ROWS))
    return _send(model, fields, source, table)


def _send(
    model: type[models.Model], fields: Sequence[str], source: _CopySource, table: str | None
) -> int:
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg2's own cursor: Django's wrapper has no copy_expert
        try:
            with connection.wrap_database_errors:  # psycopg2's errors as Django's IntegrityError…
                raw.copy_expert(copy_sql(model, fields, table), source, size=1 << 20)
        except Exception:
            if source.error is not None:
                raise source.error from None
            raise
    return source.count


def foreign_keys_check(model: type[models.Model]) -> None:
    """Check now the deferred foreign keys of the rows just written to ``model``'s table.

    Django's foreign keys are DEFERRABLE INITIALLY DEFERRED on PostgreSQL: a missing post
    would only surface at the commit, outside the import's savepoint and with no file to name.
    SET CONSTRAINTS … IMMEDIATE checks the pending rows at once (IntegrityError naming the
    key), then they go back to deferred. Elsewhere it does nothing (see first_orphan()).
    """
    if connection.vendor != "postgresql":
        return
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass "
            "AND contype = 'f' AND condeferrable ORDER BY conname",
            [model._meta.db_table],
        )
        names = ", ".join(quote(name) for (name,) in cursor.fetchall())
        if names:
            cursor.execute(f"SET CONSTRAINTS {names} IMMEDIATE")
            cursor.execute(f"SET CONSTRAINTS {names} DEFERRED")


def stored_rows_estimate(model: type[models.Model]) -> int:
    """Rows of ``model``'s table, as the planner estimates them (0 before the first ANALYZE,
    and off PostgreSQL): cheap, and enough to choose how to load."""
    if connection.vendor != "postgresql":
        return 0
    with connection.cursor() as cursor:
        # reltuples is -1 before the first ANALYZE.
        cursor.execute(
            "SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [model._meta.db_table]
        )
        return max(0, int(cursor.fetchone()[0]))


def vacuum_analyze(*models_: type[models.Model]) -> None:
    """VACUUM (ANALYZE) the tables of ``models_`` after a bulk load was committed: the planner
    gets their statistics at once, and every row its hint bits and the visibility map its
    all-visible pages in one sequential pass. Index-only scans then work (a later foreign-key
    check against the table reads its primary-key index alone: several times faster), and no
    autovacuum comes to do it in the middle of the campaign. PostgreSQL only, and only outside
    a transaction (VACUUM cannot run in one): elsewhere it does nothing."""
    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        for model in models_:
            cursor.execute(f"VACUUM (ANALYZE) {connection.ops.quote_name(model._meta.db_table)}")


@contextmanager
def bulk_load_window(
    model: type[models.Model], *, expected_rows: int | None = None
) -> Iterator[None]:
    """Check ``model``'s foreign keys once, set-based, after a bulk load instead of per row;
    rebuild its plain indexes after the load when that pays (index_rebuild_window).

    On PostgreSQL the table's foreign-key constraints are dropped for the duration and added
    back (same names and definitions) when the block ends; adding them validates every row in
    one join, several times cheaper for millions of rows than a trigger-fired look-up per row.
    A violation raises IntegrityError ("Key (post_id)=(9) is not present in table ...") on the
    way out. Must run inside ``transaction.atomic()`` (DDL is transactional in PostgreSQL, so
    a failure restores everything); the table is locked exclusively until the commit, which
    suits an import. Elsewhere (SQLite) it does nothing.
    """
    if connection.vendor != "postgresql":
        yield
        return
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = %s::regclass AND contype = 'f' ORDER BY conname",
            [model._meta.db_table],
        )
        constraints = cursor.fetchall()
        for name, _ in constraints:
            cursor.execute(f"ALTER TABLE {table} DROP CONSTRAINT {quote(name)}")
    with index_rebuild_window(model, new_entries=expected_rows):
        yield
    with connection.cursor() as cursor:
        for name, definition in constraints:
            cursor.execute(f"ALTER TABLE {table} ADD CONSTRAINT {quote(name)} {definition}")


@contextmanager
def index_rebuild_window(model: type[models.Model], *, new_entries: int | None) -> Iterator[None]:
    """Drop ``model``'s plain (non-unique) indexes for a bulk write that adds ``new_entries``
    to each (a row inserted, or updated: an update writes a new row version), and build them
    again afterwards by one sort each, when that is at least half the rows stored.

    About twice as fast as inserting the keys one by one; pointless for a small addition to a
    big table. PostgreSQL only (elsewhere it does nothing), inside ``transaction.atomic()``.
    """
    if connection.vendor != "postgresql":
        yield
        return
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        indexes = _indexes_to_rebuild(cursor, model, new_entries)
        for name, _ in indexes:
            cursor.execute(f"DROP INDEX {quote(name)}")
    yield
    with connection.cursor() as cursor:
        for _, definition in indexes:
            cursor.execute(definition)


def _indexes_to_rebuild(
    cursor: Any, model: type[models.Model], new_entries: int | None
) -> list[tuple[str, str]]:
    """(name, CREATE INDEX statement) of the table's plain indexes, when rebuilding pays."""
    if new_entries is None or 2 * new_entries < stored_rows_estimate(model):
        return []
    cursor.execute(
        "SELECT c.relname, pg_get_indexdef(i.indexrelid) FROM pg_index i "
        "JOIN pg_class c ON c.oid = i.indexrelid "
        "WHERE i.indrelid = %s::regclass AND NOT i.indisunique AND NOT i.indisprimary "
        "AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid) "
        "ORDER BY c.relname",
        [model._meta.db_table],
    )
    return list(cursor.fetchall())


def _json_positions(model: type[models.Model], fields: Sequence[str]) -> list[int]:
    return [
        i
        for i, name in enumerate(fields)
        if isinstance(model._meta.get_field(name), models.JSONField)
    ]


def _insert_many(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[tuple[Any, ...]],
    size: int,
    table: str,
) -> int:
    """Plain INSERTs into ``table`` (off PostgreSQL: a staging table, which has no model).

    Values are prepared as the model's fields store them (aware datetimes as the backend's
    text), so that the staged rows compare equal to stored ones; JSON text stays as given,
    which is what the JSON field stores.
    """
    plain = set(_json_positions(model, fields))
    # Fields by attname ("post_id"): concrete fields, never reverse relations.
    prepare = [model._meta.get_field(name).get_db_prep_save for name in fields]  # type: ignore[union-attr]
    columns = ", ".join(column_names(model, fields))
    # Names come from model metadata and the caller's own staging table, never from input.
    sql = (
        f"INSERT INTO {connection.ops.quote_name(table)} ({columns}) "  # noqa: S608
        f"VALUES ({', '.join(['%s'] * len(fields))})"
    )
    total = 0
    with connection.cursor() as cursor:
        for batch in _batches(rows, min(size, 5_000)):
            cursor.executemany(
                sql,
                [
                    [
                        value if i in plain else prepare[i](value, connection)
                        for i, value in enumerate(row)
                    ]
                    for row in batch
                ],
            )
            total += len(batch)
    return total


def _bulk_create(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[tuple[Any, ...]], size: int
) -> int:
    json_positions = _json_positions(model, fields)
    total = 0
    for batch in _batches(rows, min(size, 5_000)):
        objects = []
        for row in batch:
            values = list(row)
            for i in json_positions:  # COPY takes JSON text; the ORM wants the decoded value
                values[i] = None if values[i] is None else json.loads(values[i])
            objects.append(model(**dict(zip(fields, values, strict=True))))
        model._default_manager.bulk_create(objects)
        total += len(batch)
    return total

"""How a file's rows reach their table: straight into an empty table, or through a staging table
and an upsert when the table already holds rows.

- An empty table (a first import, or a collection deleted) takes the fast path: one COPY
  (bulk_create on SQLite) with the foreign keys checked and plain indexes rebuilt once at the
  end (bulk_load_window).
- Otherwise the file goes into a temporary staging table (COPY on PostgreSQL, plain INSERTs on
  SQLite), and one set-based statement per table then inserts the new rows and updates the
  changed ones: ``INSERT … SELECT … ON CONFLICT (id) DO UPDATE … WHERE (columns) IS DISTINCT
  FROM (excluded columns)``, the same SQL on both databases. Rows of the table that the file
  does not give are left alone: a newer dump adds and updates, it never deletes.

Each file loads in one transaction, so an import killed half-way leaves no half of a file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from django.db import IntegrityError, connection, models, transaction

from collection.core.formats.errors import ImportFileError
from collection.services.collection_import.progress import RowChanges
from collection.services.integrity import BadKey, bad_key, first_orphan
from kernel.bulkload import (
    bulk_insert,
    bulk_load_window,
    column_names,
    copy_lines,
    foreign_keys_check,
    stored_rows_estimate,
)

T = TypeVar("T")
# (stored alias, new alias) -> an SQL condition true when the new row differs from the stored.
ChangedSql = Callable[[str, str], str]


class LoadPath(StrEnum):
    """The four ways a file's rows are loaded (see the module docstring)."""

    COPY = "COPY into the empty table"
    BULK_CREATE = "bulk_create into the empty table"
    STAGED_COPY = "COPY into a staging table, then upsert"
    STAGED_INSERT = "INSERT into a staging table, then upsert"


def load_path(*, vendor: str, empty: bool) -> LoadPath:
    """Which way to load, by database and whether the table is empty."""
    if vendor == "postgresql":
        return LoadPath.COPY if empty else LoadPath.STAGED_COPY
    return LoadPath.BULK_CREATE if empty else LoadPath.STAGED_INSERT


def is_fresh(path: LoadPath) -> bool:
    return path in (LoadPath.COPY, LoadPath.BULK_CREATE)


def table_is_empty(*models_: type[models.Model]) -> bool:
    return not any(model._default_manager.exists() for model in models_)


def distinct_sql(columns: Sequence[str]) -> ChangedSql:
    """The default change test: any of ``columns`` (quoted) differs, NULLs compared as values."""

    def changed(stored: str, new: str) -> str:
        left = ", ".join(f"{stored}.{c}" for c in columns)
        right = ", ".join(f"{new}.{c}" for c in columns)
        return f"({left}) IS DISTINCT FROM ({right})"

    return changed


class StagingTable:
    """A temporary table with (some of) ``model``'s columns, dropped by ``drop()`` (or with the
    transaction when it rolls back)."""

    def __init__(
        self,
        model: type[models.Model],
        fields: Sequence[str],
        name: str,
        *,
        select: str | None = None,
    ) -> None:
        """An empty table, or one filled by ``select`` (whose first columns are ``fields``)."""
        self.model, self.fields = model, list(fields)
        self.name = connection.ops.quote_name(name)
        self.raw_name = name
        self.columns = column_names(model, fields)
        self.table = connection.ops.quote_name(model._meta.db_table)
        # LIMIT 0 copies the column types (not the constraints) on both databases.
        query = select or f"SELECT {', '.join(self.columns)} FROM {self.table} LIMIT 0"  # noqa: S608
        created = self._execute(f"CREATE TEMPORARY TABLE {self.name} AS {query}")
        self.rows = 0 if select is None else created
        if self.rows < 0:  # SQLite does not count the rows of CREATE TABLE AS
            self.rows = int(self._execute(f"SELECT count(*) FROM {self.name}")[0][0])  # noqa: S608

    def _execute(self, sql: str, params: Sequence[Any] | None = None) -> Any:
        # No params means no placeholder formatting: a LIKE 'c%' stays as written.
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall() if cursor.description else cursor.rowcount

    def load(self, rows: Iterable[tuple[Any, ...]]) -> int:
        """Rows in ``fields`` order (JSON as text, like bulk_insert)."""
        self.rows += bulk_insert(self.model, self.fields, rows, table=self.raw_name)
        return self.rows

    def load_lines(self, lines: Iterable[str], progress: Callable[[int], None]) -> int:
        """Lines already in COPY text, in ``fields`` order (PostgreSQL only)."""
        self.rows += copy_lines(
            self.model, self.fields, lines, progress=progress, table=self.raw_name
        )
        return self.rows

    def analyze(self) -> None:
        # Temporary tables are never analyzed by autovacuum: without it the planner guesses.
        self._execute(f"ANALYZE {self.name}")

    def repeated_key(self, key: str) -> int | None:
        """A key the file gives twice (or more), or None."""
        column = self._column(key)
        found = self._execute(
            f"SELECT {column} FROM {self.name} GROUP BY {column} "  # noqa: S608
            f"HAVING count(*) > 1 ORDER BY {column} LIMIT 1"
        )
        return int(found[0][0]) if found else None

    def _column(self, field: str) -> str:
        return self.columns[self.fields.index(field)]

    def upsert(
        self, key: str, changed: ChangedSql, *, then: Callable[[str], None] | None = None
    ) -> RowChanges:
        """Insert the staged rows that are new, update those that differ from the stored row.

        The changed rows are first set apart (one join of staging and stored table), so that
        the insert touches only them and the counts come for free. A load that changes at
        least as many rows as the table holds goes through bulk_load_window (foreign keys
        checked once, plain indexes rebuilt); a smaller one has its deferred foreign keys
        checked at the end, here, where an error can still name the file. ``then`` is given
        the (quoted) name of the table of changed rows (``is_new`` 1 or 0) before it goes.
        """
        k = self._column(key)
        changes = connection.ops.quote_name(f"{self.raw_name}_changes")
        self._execute(
            f"CREATE TEMPORARY TABLE {changes} AS "  # noqa: S608
            f"SELECT s.*, CASE WHEN t.{k} IS NULL THEN 1 ELSE 0 END AS is_new "
            f"FROM {self.name} s LEFT JOIN {self.table} t ON t.{k} = s.{k} "
            f"WHERE t.{k} IS NULL OR {changed('t', 's')}"
        )
        total, added = self._execute(f"SELECT count(*), sum(is_new) FROM {changes}")[0]  # noqa: S608
        total, added = int(total), int(added or 0)
        updates = ", ".join(f"{c} = EXCLUDED.{c}" for c in self.columns if c != k)
        columns = ", ".join(self.columns)
        insert = (
            f"INSERT INTO {self.table} AS t ({columns}) "  # noqa: S608
            f"SELECT {columns} FROM {changes} WHERE true "  # WHERE: SQLite's upsert grammar
            f"ON CONFLICT ({k}) DO UPDATE SET {updates} WHERE {changed('t', 'EXCLUDED')}"
        )
        if total and total >= stored_rows_estimate(self.model) > 0:
            with bulk_load_window(self.model, expected_rows=total):
                self._execute(insert)
        elif total:
            self._execute(insert)
            foreign_keys_check(self.model)
        if then is not None:
            then(changes)
        self._execute(f"DROP TABLE {changes}")
        return RowChanges(self.rows, added, total - added, self.rows - total)

    def drop(self) -> None:
        self._execute(f"DROP TABLE {self.name}")


def load_checked(
    path: str | Path,
    model: type[models.Model],
    references: list[str],
    load: Callable[[], T],
    *,
    fresh: bool,
    expected_rows: int | None = None,
) -> T | BadKey:
    """Run ``load`` in a savepoint with ``model``'s foreign keys checked by the end of it.

    A fresh load (into an empty table) runs in bulk_load_window; a staged one checks its own
    (StagingTable.upsert). Returns what ``load`` returned, or the key the database refused (a
    duplicate id or a reference to a missing row); the savepoint is then rolled back. Other
    database errors name the file.
    """
    try:
        with transaction.atomic():
            if fresh:
                with bulk_load_window(model, expected_rows=expected_rows):
                    result = load()
            else:
                result = load()
            orphan = first_orphan(model, references)  # SQLite; PostgreSQL checked above
            if orphan is not None:
                return orphan  # leaving the block commits the savepoint: the caller raises
    except IntegrityError as error:
        key = bad_key(error)
        if key is None:
            raise ImportFileError(path, None, f"refused by the database: {error}") from error
        return key
    return result


def repeated(path: str | Path, what: str, key: int, lines: Iterable[int]) -> ImportFileError:
    """The error for an id a file gives twice: at its second line, naming the first."""
    found = []
    for line in lines:
        found.append(line)
        if len(found) == 2:
            break
    first = f" (first on line {found[0]})" if len(found) == 2 else ""
    return ImportFileError(path, found[-1] if found else None, f"{what} {key} is repeated{first}")

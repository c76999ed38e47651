"""Turning the database's integrity errors into file-and-line errors of an import.

The loaders COPY rows without looking anything up per row; the database's own constraints
catch a duplicate id or a missing post. On failure we learn *which* key from the error's
detail and read the file once more to find its line: the fast path stays fast.
"""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from django.db import IntegrityError, connection, models, transaction

from collection.formats.errors import ImportFileError

# PostgreSQL: 'Key (id)=(5) already exists.' / 'Key (post_id)=(9) is not present in table "x".'
_KEY = re.compile(
    r"Key \((?P<column>[^)]+)\)=\((?P<value>[^)]*)\) (?P<what>already exists|is not present)"
)


@dataclass(frozen=True)
class BadKey:
    """The key the database refused: a duplicate id, or a reference to a missing row."""

    column: str
    value: int
    duplicate: bool


def bad_key(error: IntegrityError) -> BadKey | None:
    match = _KEY.search(str(error))
    if match is None or not match["value"].lstrip("-").isdigit():
        return None
    return BadKey(match["column"], int(match["value"]), match["what"] == "already exists")


def _first_orphan(model: type[models.Model], column: str) -> BadKey | None:
    """Set-based look-up of a row whose foreign key ``column`` points nowhere (SQLite path)."""
    field = model._meta.get_field(column)
    assert isinstance(field, models.ForeignKey)  # noqa: S101 - only called with foreign keys
    target: type[models.Model] = field.related_model  # type: ignore[assignment]
    quote = connection.ops.quote_name
    table, target_table = quote(model._meta.db_table), quote(target._meta.db_table)
    key, target_key = quote(str(field.column)), quote(str(target._meta.pk.column))  # type: ignore[union-attr]
    # Names come from model metadata, never from input.
    sql = (
        f"SELECT m.{key} FROM {table} m WHERE m.{key} IS NOT NULL "  # noqa: S608
        f"AND NOT EXISTS (SELECT 1 FROM {target_table} t WHERE t.{target_key} = m.{key}) LIMIT 1"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql)
        row = cursor.fetchone()
    return None if row is None else BadKey(str(field.column), int(row[0]), duplicate=False)


def check_references(model: type[models.Model], columns: Iterable[str]) -> BadKey | None:
    """The first broken foreign key among ``columns`` of ``model``, checked now, not at commit.

    On PostgreSQL the deferred constraint checks queued by the load are run at once (SET
    CONSTRAINTS ALL IMMEDIATE), so this costs nothing the commit would not have paid.
    """
    if connection.vendor != "postgresql":
        for column in columns:
            found = _first_orphan(model, column)
            if found is not None:
                return found
        return None
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
            cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    except IntegrityError as error:
        key = bad_key(error)
        if key is None:
            raise
        return key
    return None


def find_line(lines: Iterable[int], *, last: bool = False) -> int | None:
    """The first (or last) of ``lines`` (a filtered pass over the file), or None."""
    found = None
    for line in lines:
        if not last:
            return line
        found = line
    return found


def integrity_error(
    path: str | Path, error: IntegrityError, line_of: Callable[[int], int | None]
) -> ImportFileError:
    """An ImportFileError for a duplicate id found by the database while loading ``path``."""
    key = bad_key(error)
    if key is None or not key.duplicate:
        first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        return ImportFileError(path, None, f"refused by the database: {first}")
    return ImportFileError(
        path, line_of(key.value), f"{key.column} {key.value} is already in the collection"
    )

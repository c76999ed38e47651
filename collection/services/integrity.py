"""Turning the database's integrity errors into file-and-line errors of an import.

The loaders COPY rows without looking anything up per row; the database's own constraints
catch a duplicate id or a missing post. On failure we learn *which* key from the error's
detail and read the file once more to find its line: the fast path stays fast.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import IntegrityError, connection, models

# PostgreSQL: 'Key (id)=(5) already exists.' / 'Key (post_id)=(9) is not present in table "x".'
_KEY = re.compile(
    r"Key \((?P<column>[^)]+)\)=\((?P<value>[^)]*)\) (?P<what>already exists|is not present)"
)
# '… on table "collection_formula" violates …' / '… constraint "collection_thread_pkey"'
_TABLE = re.compile(r'(?:on table|constraint) "(?P<table>[^"]+)"')


@dataclass(frozen=True)
class BadKey:
    """The key the database refused: a duplicate id, or a reference to a missing row."""

    column: str
    value: int
    duplicate: bool
    table: str = ""  # the table whose constraint refused it, when the database says


def bad_key(error: IntegrityError) -> BadKey | None:
    match = _KEY.search(str(error))
    if match is None or not match["value"].lstrip("-").isdigit():
        return None
    table = _TABLE.search(str(error))
    return BadKey(
        match["column"],
        int(match["value"]),
        match["what"] == "already exists",
        table["table"] if table else "",
    )


def first_orphan(model: type[models.Model], columns: Iterable[str]) -> BadKey | None:
    """The first value of a foreign key among ``columns`` that points nowhere, or None.

    Only off PostgreSQL (SQLite, the embedded default): there the constraints are only checked
    at commit, with no word of which row; on PostgreSQL bulk_load_window() has
    already checked them.
    """
    if connection.vendor == "postgresql":
        return None
    for column in columns:
        found = _orphan(model, column)
        if found is not None:
            return found
    return None


def _orphan(model: type[models.Model], column: str) -> BadKey | None:
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
    if row is None:
        return None
    return BadKey(str(field.column), int(row[0]), duplicate=False, table=model._meta.db_table)

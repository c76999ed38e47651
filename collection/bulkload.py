"""Bulk insertion of plain rows: PostgreSQL ``COPY`` where available, ``bulk_create`` elsewhere.

Callers stream tuples in the order of ``fields`` (column attnames, e.g. ``post_id``); rows are
sent in batches so memory stays flat whatever the input size. Run it inside the caller's
``transaction.atomic()`` so that a failed file leaves nothing behind.
"""

import io
import json
from collections.abc import Iterable, Sequence
from itertools import islice
from typing import Any

from django.db import connection, models

BATCH_ROWS = 50_000

_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_text(value: Any) -> str:
    """One value in COPY's text format: \\N for NULL, special characters escaped."""
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, str):
        return value.translate(_ESCAPES)
    return str(value)


def _batches(rows: Iterable[tuple[Any, ...]], size: int) -> Iterable[list[tuple[Any, ...]]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch


def bulk_insert(
    model: type[models.Model],
    fields: Sequence[str],
    rows: Iterable[tuple[Any, ...]],
    *,
    batch_size: int = BATCH_ROWS,
) -> int:
    """Insert ``rows`` into ``model``'s table; returns how many were inserted.

    Values go in as given: JSON fields must already be JSON text. No save() or signals run.
    """
    if connection.vendor == "postgresql":
        return _copy(model, fields, rows, batch_size)
    return _bulk_create(model, fields, rows, batch_size)


def _copy(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[tuple[Any, ...]], size: int
) -> int:
    opts = model._meta
    # get_field() also answers to a foreign key's attname ("post_id").
    columns = [str(opts.get_field(name).column) for name in fields]  # type: ignore[union-attr]
    quoted = ", ".join(connection.ops.quote_name(c) for c in columns)
    sql = f"COPY {connection.ops.quote_name(opts.db_table)} ({quoted}) FROM STDIN"
    total = 0
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg2's own cursor: Django's wrapper has no copy_expert
        for batch in _batches(rows, size):
            buffer = io.StringIO("".join("\t".join(map(_copy_text, row)) + "\n" for row in batch))
            raw.copy_expert(sql, buffer)
            total += len(batch)
    return total


def _bulk_create(
    model: type[models.Model], fields: Sequence[str], rows: Iterable[tuple[Any, ...]], size: int
) -> int:
    json_positions = [
        i
        for i, name in enumerate(fields)
        if isinstance(model._meta.get_field(name), models.JSONField)
    ]
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

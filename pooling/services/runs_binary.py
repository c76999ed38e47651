"""A run's rows in PostgreSQL's binary COPY format, for the upload's streaming COPY.

Ids, ranks and scores go as machine values: PostgreSQL parses no text, and Python formats
none (struct packing at C speed, about half the time of building the text; a score is sent as
its exact IEEE bits, no repr/strtod round trip). Task 3's answers are text: those runs use
the text format (runs_storage._copy_lines).
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Mapping
from functools import lru_cache
from itertools import repeat, starmap
from typing import Any

from django.db import connection

from pooling.core.formats.model import RunColumns
from pooling.models import RunRow

# Signature, flags, length of the header extension (PostgreSQL's "COPY ... BINARY" file).
HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
TRAILER = struct.pack(">h", -1)
# The columns sent, in order (answer and sources as empty text); any other column of the
# table takes its default.
COLUMNS = ("run_id", "topic_id", "post_id", "formula_id", "rank", "score", "answer", "sources")


def copy_sql() -> str:
    quote = connection.ops.quote_name
    names = ", ".join(quote(str(RunRow._meta.get_field(f).column)) for f in COLUMNS)  # type: ignore[union-attr]
    return f"COPY {quote(RunRow._meta.db_table)} ({names}) FROM STDIN WITH (FORMAT binary)"


@lru_cache
def _row(post: bool, formula: bool) -> struct.Struct:
    """A row: field count, then each field's length and value (length -1: NULL, no value).
    run_id, topic_id, post_id, formula_id bigint; rank integer; score double; two texts."""
    ids = "iqiq" + ("iq" if post else "i") + ("iq" if formula else "i")
    return struct.Struct(">h" + ids + "ii" + "id" + "ii")


def binary_rows(
    run_id: int, columns: RunColumns, topic_ids: Mapping[str, int], start: int, stop: int
) -> bytes:
    """Rows ``start:stop`` of ``columns`` (no answer text) as binary COPY rows."""
    c = columns
    posts, formulas = c.post_id[start:stop], c.formula_id[start:stop]
    topics = list(map(topic_ids.__getitem__, c.topic[start:stop]))
    ranks, scores = c.rank[start:stop], c.score[start:stop]
    n = stop - start
    post_nulls, formula_nulls = posts.count(None), formulas.count(None)
    if post_nulls not in (0, n) or formula_nulls not in (0, n):  # mixed NULLs: rare, row by row
        return b"".join(
            _row(p is not None, f is not None).pack(*_fields(run_id, t, p, f, r, s))
            for t, p, f, r, s in zip(topics, posts, formulas, ranks, scores, strict=True)
        )
    # One layout for the whole block: zip() builds each row's arguments in C.
    args: list[Iterable[Any]] = [repeat(len(COLUMNS), n), repeat(8), repeat(run_id)]
    args += [repeat(8), topics]
    args += [repeat(8), posts] if post_nulls == 0 else [repeat(-1)]
    args += [repeat(8), formulas] if formula_nulls == 0 else [repeat(-1)]
    args += [repeat(4), ranks, repeat(8), scores, repeat(0), repeat(0)]
    rows = zip(*args, strict=False)  # repeat() is endless but for the first: n rows
    return b"".join(starmap(_row(post_nulls == 0, formula_nulls == 0).pack, rows))


def _fields(
    run_id: int, topic: int, post: int | None, formula: int | None, rank: int, score: float
) -> list[Any]:
    values: list[Any] = [len(COLUMNS), 8, run_id, 8, topic]
    values += [-1] if post is None else [8, post]
    values += [-1] if formula is None else [8, formula]
    return [*values, 4, rank, 8, score, 0, 0]

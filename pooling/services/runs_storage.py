"""Writing a run's rows: COPY text built straight from the parsed records.

collection.bulkload.bulk_insert formats each value through a generic per-value path; a run
upload is 100,000 rows of known types, so here one f-string per row builds COPY's text format
(ids and numbers need no escaping; only Task 3's answer and sources text do). Other databases
(the SQLite demo) go through bulk_insert.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence

from django.db import connection

from collection.bulkload import bulk_insert
from pooling.formats import RunRecord
from pooling.models import RunRow

BATCH_ROWS = 100_000
FIELDS = ("run_id", "topic_id", "post_id", "formula_id", "rank", "score", "answer", "sources")
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_lines(run_id: int, rows: Sequence[RunRecord], topic_ids: Mapping[str, int]) -> str:
    prefix = {topic: f"{run_id}\t{pk}\t" for topic, pk in topic_ids.items()}
    if not any(row.answer or row.sources for row in rows):
        # Tasks 1 and 2: only numbers. None prints as \N through the small lookup below.
        return "".join(
            [
                f"{prefix[r.topic]}{_NULL if r.post_id is None else r.post_id}\t"
                f"{_NULL if r.formula_id is None else r.formula_id}\t{r.rank}\t{r.score!r}\t\t\n"
                for r in rows
            ]
        )
    return "".join(
        [
            f"{prefix[r.topic]}\\N\t\\N\t{r.rank}\t{r.score!r}\t"
            f"{r.answer.translate(_ESCAPES)}\t{r.sources.translate(_ESCAPES)}\n"
            for r in rows
        ]
    )


_NULL = "\\N"


def _batches(rows: Sequence[RunRecord], size: int) -> Iterator[Sequence[RunRecord]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def run_rows_store(*, run_id: int, rows: Sequence[RunRecord], topic_ids: Mapping[str, int]) -> int:
    """Insert the rows of run ``run_id``; call inside the caller's transaction."""
    if connection.vendor != "postgresql":
        return bulk_insert(
            RunRow,
            FIELDS,
            (
                (
                    run_id,
                    topic_ids[r.topic],
                    r.post_id,
                    r.formula_id,
                    r.rank,
                    r.score,
                    r.answer,
                    r.sources,
                )
                for r in rows
            ),
        )
    columns = ", ".join(
        connection.ops.quote_name(str(RunRow._meta.get_field(f).column))  # type: ignore[union-attr]
        for f in FIELDS
    )
    sql = f"COPY {connection.ops.quote_name(RunRow._meta.db_table)} ({columns}) FROM STDIN"
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg2's cursor: Django's wrapper has no copy_expert
        for batch in _batches(rows, BATCH_ROWS):
            raw.copy_expert(sql, io.StringIO(_copy_lines(run_id, batch, topic_ids)))
    return len(rows)

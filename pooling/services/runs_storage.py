"""Writing a run's rows: COPY text built straight from the parsed columns.

collection.bulkload.bulk_insert formats each value through a generic per-value path; a run
upload is 100,000 rows of known types, so here one f-string per row builds COPY's text format
(ids and numbers need no escaping; only Task 3's answer and sources text do). Other databases
(the SQLite demo) go through bulk_insert.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping

from django.db import connection

from collection.bulkload import bulk_insert
from pooling.formats.model import RunColumns
from pooling.models import RunRow

BATCH_ROWS = 100_000
FIELDS = ("run_id", "topic_id", "post_id", "formula_id", "rank", "score", "answer", "sources")
_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_text(value: int | None) -> str:
    return "\\N" if value is None else str(value)


def _id_texts(ids: list[int | None]) -> list[int | None] | list[str]:
    """An id column ready for the f-string: as is, all NULL, or mixed (rare)."""
    nulls = ids.count(None)
    if nulls == 0:
        return ids
    if nulls == len(ids):  # e.g. formula ids of a Task 1 run
        return ["\\N"] * nulls
    return list(map(_copy_text, ids))


def _copy_lines(
    run_id: int, columns: RunColumns, topic_ids: Mapping[str, int], start: int, stop: int
) -> str:
    prefix = {topic: f"{run_id}\t{pk}\t" for topic, pk in topic_ids.items()}
    c = columns
    topics, ranks, scores = c.topic[start:stop], c.rank[start:stop], c.score[start:stop]
    if c.answer:  # Task 3: text columns, escaped
        return "".join(
            [
                f"{prefix[t]}\\N\t\\N\t{r}\t{s!r}\t{a.translate(_ESCAPES)}\t"
                f"{src.translate(_ESCAPES)}\n"
                for t, r, s, a, src in zip(
                    topics, ranks, scores, c.answer[start:stop], c.sources[start:stop], strict=True
                )
            ]
        )
    post_text = _id_texts(c.post_id[start:stop])
    formula_text = _id_texts(c.formula_id[start:stop])
    return "".join(
        [
            f"{prefix[t]}{p}\t{f}\t{r}\t{s!r}\t\t\n"
            for t, p, f, r, s in zip(topics, post_text, formula_text, ranks, scores, strict=True)
        ]
    )


def _plain_rows(
    run_id: int, columns: RunColumns, topic_ids: Mapping[str, int]
) -> Iterator[tuple[object, ...]]:
    c = columns
    n = len(c)
    answers: Iterable[str] = c.answer or [""] * n
    sources: Iterable[str] = c.sources or [""] * n
    for values in zip(
        c.topic, c.post_id, c.formula_id, c.rank, c.score, answers, sources, strict=True
    ):
        yield (run_id, topic_ids[values[0]], *values[1:])


def run_rows_store(*, run_id: int, columns: RunColumns, topic_ids: Mapping[str, int]) -> int:
    """Insert the rows of run ``run_id``; call inside the caller's transaction."""
    if connection.vendor != "postgresql":
        return bulk_insert(RunRow, FIELDS, _plain_rows(run_id, columns, topic_ids))
    quoted = (
        connection.ops.quote_name(str(RunRow._meta.get_field(f).column))  # type: ignore[union-attr]
        for f in FIELDS
    )
    sql = (
        f"COPY {connection.ops.quote_name(RunRow._meta.db_table)} ({', '.join(quoted)}) FROM STDIN"
    )
    total = len(columns)
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg2's cursor: Django's wrapper has no copy_expert
        for start in range(0, total, BATCH_ROWS):
            text = _copy_lines(run_id, columns, topic_ids, start, start + BATCH_ROWS)
            raw.copy_expert(sql, io.StringIO(text))
    return total


# Document runs (issue 13 §3): their own COPY, so the fast path above stays as it is.
DOCUMENT_FIELDS = ("run_id", "topic_id", "docno", "rank", "score", "answer", "sources")


def _document_copy_lines(
    run_id: int, columns: RunColumns, topic_ids: Mapping[str, int], start: int, stop: int
) -> str:
    prefix = {topic: f"{run_id}\t{pk}\t" for topic, pk in topic_ids.items()}
    c = columns
    return "".join(
        [
            f"{prefix[t]}{d.translate(_ESCAPES)}\t{r}\t{s!r}\t\t\n"
            for t, d, r, s in zip(
                c.topic[start:stop],
                c.docno[start:stop],
                c.rank[start:stop],
                c.score[start:stop],
                strict=True,
            )
        ]
    )


def document_rows_store(*, run_id: int, columns: RunColumns, topic_ids: Mapping[str, int]) -> int:
    """Insert the rows of document run ``run_id`` (docnos; no post or formula ids); call
    inside the caller's transaction."""
    if connection.vendor != "postgresql":
        c = columns
        values = zip(c.topic, c.docno, c.rank, c.score, strict=True)
        rows = ((run_id, topic_ids[t], d, r, s, "", "") for t, d, r, s in values)
        return bulk_insert(RunRow, DOCUMENT_FIELDS, rows)
    quoted = (
        connection.ops.quote_name(str(RunRow._meta.get_field(f).column))  # type: ignore[union-attr]
        for f in DOCUMENT_FIELDS
    )
    table = connection.ops.quote_name(RunRow._meta.db_table)
    sql = f"COPY {table} ({', '.join(quoted)}) FROM STDIN"
    total = len(columns)
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg2's cursor: Django's wrapper has no copy_expert
        for start in range(0, total, BATCH_ROWS):
            text = _document_copy_lines(run_id, columns, topic_ids, start, start + BATCH_ROWS)
            raw.copy_expert(sql, io.StringIO(text))
    return total

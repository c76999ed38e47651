"""Writing a run's rows: COPY text built straight from the parsed columns.

kernel.bulkload.bulk_insert formats each value through a generic per-value path; a run
upload is 100,000 rows of known types, so here one f-string per row builds COPY's text format
(ids and numbers need no escaping; only Task 3's answer and sources text do). Other databases
(the SQLite demo) go through bulk_insert.

``run_rows_stream`` stores the rows while the file is still being read: COPY pulls one block
of parsed rows at a time, so PostgreSQL stores a block while Python parses the next (two
processes, two cores) instead of the upload paying parse and COPY one after the other. It
sends ids and numbers in the binary COPY format (runs_binary).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Iterator, Mapping

from django.db import connection

from kernel.bulkload import bulk_insert
from pooling.core.formats import ParsedRun, RunReading
from pooling.core.formats.model import RunColumns
from pooling.models import RunRow
from pooling.services import runs_binary

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


def _copy_sql() -> str:
    quoted = (
        connection.ops.quote_name(str(RunRow._meta.get_field(f).column))  # type: ignore[union-attr]
        for f in FIELDS
    )
    return (
        f"COPY {connection.ops.quote_name(RunRow._meta.db_table)} ({', '.join(quoted)}) FROM STDIN"
    )


def run_rows_store(*, run_id: int, columns: RunColumns, topic_ids: Mapping[str, int]) -> int:
    """Insert the rows of run ``run_id``; call inside the caller's transaction."""
    if connection.vendor != "postgresql":
        return bulk_insert(RunRow, FIELDS, _plain_rows(run_id, columns, topic_ids))
    sql = _copy_sql()
    total = len(columns)
    with connection.cursor() as cursor:
        raw = cursor.cursor  # psycopg2's cursor: Django's wrapper has no copy_expert
        for start in range(0, total, BATCH_ROWS):
            text = _copy_lines(run_id, columns, topic_ids, start, start + BATCH_ROWS)
            raw.copy_expert(sql, io.StringIO(text))
    return total


# Document runs: their own COPY, so the fast path above stays as it is.
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


class _ReadingSource:
    """The file COPY reads from: each read() parses the next block of the run file and returns
    its accepted rows, as binary COPY rows (runs_binary) or, for Task 3's answers, as COPY
    text. After the first error nothing more is sent (the caller rolls the transaction back)
    but the file is still read to the end, for the full report."""

    def __init__(
        self, run_id: int, reading: RunReading, topic_ids: Mapping[str, int], *, binary: bool
    ) -> None:
        self._run_id, self._topic_ids, self._binary = run_id, topic_ids, binary
        self._run = reading.run
        # COPY holds the connection while it pulls rows: the collection is looked up after.
        self._blocks = reading.rows(check_as_read=False)
        self._sent = 0
        self._header = runs_binary.HEADER if binary else b""
        self._trailer = runs_binary.TRAILER if binary else b""
        # psycopg2 turns an exception raised in read() into QueryCanceled: keep the original.
        self.error: BaseException | None = None

    def read(self, _size: int = -1) -> bytes | str:
        try:
            for accepted in self._blocks:
                if accepted > self._sent and self._run.ok:
                    start, self._sent = self._sent, accepted
                    return self._framed(self._rows(start, accepted))
        except BaseException as error:
            self.error = error
            raise
        end, self._trailer = self._trailer, b""
        return self._framed(end)

    def _rows(self, start: int, stop: int) -> bytes | str:
        c = self._run.columns
        if self._binary:
            return runs_binary.binary_rows(self._run_id, c, self._topic_ids, start, stop)
        return _copy_lines(self._run_id, c, self._topic_ids, start, stop)

    def _framed(self, data: bytes | str) -> bytes | str:
        """The binary format's header goes before whatever is sent first (even no rows)."""
        if not self._header:
            return data
        header, self._header = self._header, b""
        return header + data  # type: ignore[operator]

    def readline(self, _size: int = -1) -> bytes | str:  # part of the file protocol psycopg2 checks
        return self.read()


def run_rows_stream(*, run_id: int, reading: RunReading, topic_ids: Mapping[str, int]) -> ParsedRun:
    """Read the run file of ``reading`` and store its rows as run ``run_id``, in the caller's
    transaction, which must roll back unless the returned ParsedRun is ``ok``.

    On PostgreSQL, when the rows are final as read (``reading.rows_final``), they are sent
    while the file is read; otherwise the file is read and checked first."""
    documents = reading.context.task_kind == "document"  # docnos: read, checked, then stored
    if connection.vendor != "postgresql" or not reading.rows_final or documents:
        for _ in reading.rows():
            pass
        parsed = reading.finish()
        if parsed.ok:
            store = document_rows_store if parsed.doc_column == "docno" else run_rows_store
            store(run_id=run_id, columns=parsed.columns, topic_ids=topic_ids)
        return parsed
    # Task 3's answers are text; every other kind's rows are ids and numbers only.
    binary = reading.context.task_kind in ("answer", "formula")
    source = _ReadingSource(run_id, reading, topic_ids, binary=binary)
    sql = runs_binary.copy_sql() if binary else _copy_sql()
    with connection.cursor() as cursor:
        try:
            cursor.cursor.copy_expert(sql, source)
        except Exception:
            if source.error is not None:
                raise source.error from None
            raise
    return reading.finish()

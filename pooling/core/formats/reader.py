"""Reading and validating a whole run file: every problem with its line.

Rules checked here, in one streaming pass plus a pass over the parsed rows:
wrong column count, a topic not of this task, rank not an integer in 1..1000, score not a
number as trec_eval writes one, a document repeated within a topic, more than 1,000 rows for a
topic, a run tag other than the one the run is submitted under (or, without one, a tag that
changes within the file), ids the collection does not know (through the RunContext; for
document tasks, docnos not in the task's collection), an empty or binary file, a file over the
size limit. A UTF-8 byte order mark is skipped. The
collection checks run on every well-formed row even when other rows have errors, so one upload
reports every problem at once. Warnings: topics with no rows, ranks not in score
order, Task 3 answers with an odd number of ``$``.

Speed: a line that is well formed takes the fast path in ``_read_rows`` (split, a few C-level
checks, appends to columns); anything unusual goes through the per-field parsers of ``rows``,
which say exactly what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import BinaryIO

from pooling.core.formats.collection_checks import CollectionCheck, fills_columns
from pooling.core.formats.detect import COLUMNS, TREC_Q0, detect_format
from pooling.core.formats.documents import document_rows
from pooling.core.formats.id_rows import FAST_LAYOUTS, id_rows
from pooling.core.formats.lines import line_blocks
from pooling.core.formats.model import (
    DEFAULT_MAX_BYTES,
    MAX_LINE_BYTES,
    MAX_LISTED,
    MAX_ROWS_PER_TOPIC,
    ParsedRun,
    RunContext,
    RunFormat,
    RunRecord,
)
from pooling.core.formats.order import warn_about_order_and_missing_topics
from pooling.core.formats.rows import TAG_COLUMN, row_parser
from pooling.core.run_limits import Blocks, until_report_full, within_row_limit

NO_CONTEXT = RunContext()
# Rows read are checked against the collection this many at a time: a file naming ids the
# collection does not know is refused early, and a file sure to fail holds no more rows.
CHECK_BATCH_ROWS = 50_000


def read_run_path(
    path: str | Path,
    *,
    context: RunContext | None = None,
    max_bytes: int | None = None,
    tag: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> ParsedRun:
    """``read_run`` on a file on disk, named after it."""
    path = Path(path)
    with path.open("rb") as stream:
        return read_run(
            stream,
            name=path.name,
            context=context,
            max_bytes=max_bytes,
            tag=tag,
            max_line_bytes=max_line_bytes,
        )


def read_run(
    stream: BinaryIO,
    *,
    name: str = "",
    context: RunContext | None = None,
    max_bytes: int | None = None,
    tag: str | None = None,
    max_line_bytes: int = MAX_LINE_BYTES,
) -> ParsedRun:
    """Parse and validate a run file from a binary stream, line by line.

    ``tag`` is the tag the run is submitted under (the upload form's): every row's tag column
    must equal it. Without it (files evaluated straight from disk) the first row's tag is the
    run's and the others must repeat it.

    Never raises for bad content: any bytes give a ParsedRun whose ``errors`` say what is
    wrong (the first 100 by line listed, ``error_count`` counts those found). Once 100
    problems are found reading stops (``stopped_at_line``): a longer report helps no one,
    and a hostile file costs no more than a short one. Rows keep the file's order."""
    reading = RunReading(
        stream,
        name=name,
        context=context,
        max_bytes=max_bytes,
        tag=tag,
        max_line_bytes=max_line_bytes,
    )
    for _ in reading.rows():
        pass
    return reading.finish()


class RunReading:
    """``read_run`` in two steps, so that a caller can store rows while the file streams.

    ``rows()`` reads the file a block at a time and yields, after each block, how many rows
    are accepted so far (``run.columns``); ``finish()`` then runs the checks that need every
    row (the collection, rank order) and returns the ParsedRun. Rows handed on before
    ``finish()`` are final only when ``rows_final`` (no column is filled in from the
    collection), and the file is valid only if ``finish()`` says so.

    Memory stays bounded whatever the file's size: rows are checked against the collection
    as they come, and once the file is sure to fail the rows checked are dropped."""

    def __init__(
        self,
        stream: BinaryIO,
        *,
        name: str = "",
        context: RunContext | None = None,
        max_bytes: int | None = None,
        tag: str | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.context = context or NO_CONTEXT
        self.run = ParsedRun(name=name, tag=tag or "")
        self._stream = stream
        self._max_bytes = max_bytes or DEFAULT_MAX_BYTES
        self._max_line_bytes = max_line_bytes
        self._tag = tag
        self._check = CollectionCheck(self.context)

    @property
    def rows_final(self) -> bool:
        return not fills_columns(self.context)

    def rows(self, *, check_as_read: bool = True) -> Iterator[int]:
        """Read the file, yielding the number of rows accepted so far after each block.

        ``check_as_read=False`` leaves every collection check to ``finish()``: for a caller
        whose lookups cannot run while it consumes the rows (a COPY holds the connection)."""
        run = self.run
        blocks = line_blocks(self._stream, run, self._max_bytes, self._max_line_bytes)
        read, first = _find_first_line(blocks)
        if first is None:
            if run.ok:
                run.error(None, None, "empty file: no run rows")
            return
        run.format = detect_format(first[1].split(), self.context.task_kind)
        if run.format is None:
            # Not a run file: reading on would only cost time (a gzip of a few KB can
            # expand to the size limit) to report more of what is already clear.
            run.error(first[0], None, _unknown_layout(first[1]))
            blocks.close()
            return
        rest = until_report_full(run, chain(read, blocks), MAX_LISTED)
        if self.context.topics is not None:
            rest = within_row_limit(run, rest, len(self.context.topics), MAX_ROWS_PER_TOPIC)
        for _ in _read_rows(run, run.format, rest, self.context, self._tag):
            if check_as_read:
                self._check_as_read()
            yield len(run.columns)
        blocks.close()  # stopped early: let go of the file (and a gzip reader) now

    def _check_as_read(self) -> None:
        """Check a batch of rows against the collection; once the file is sure to fail, the
        rows checked are dropped (they will never be stored)."""
        run, check = self.run, self._check
        if len(run.columns) - check.start < CHECK_BATCH_ROWS:
            return
        check.check(run)
        if not run.ok:
            run.columns.clear()
            check.rows_dropped()

    def finish(self) -> ParsedRun:
        run = self.run
        # the rows read well are checked whatever else is wrong
        self._check.finish(run, whole_file=run.stopped_at_line is None)
        if not run.ok:
            run.columns.clear()  # a file with any error stores none of its rows
        if run.ok:
            warn_about_order_and_missing_topics(run, self.context)
        return run


def _find_first_line(
    blocks: Blocks,
) -> tuple[list[tuple[int, list[bytes]]], tuple[int, bytes] | None]:
    """The blocks read up to the first non-blank line, and that line with its number."""
    read = []
    for first, lines in blocks:
        read.append((first, lines))
        for lineno, line in enumerate(lines, first):
            if line.strip():
                return read, (lineno, line)
    return read, None


def _unknown_layout(line: bytes) -> str:
    fields = line.split()
    if len(fields) > COLUMNS[RunFormat.TREC] and fields[1] in TREC_Q0:
        return "a TREC run line with " + _width_message(fields, RunFormat.TREC, 6)
    return (
        f"unrecognised layout with {len(line.split())} columns; expected "
        "'topic post rank score run' (Task 1), 'topic formula_id post rank score run' (Task 2), "
        "'topic rank score run sources answer' (Task 3) or 'topic Q0 doc rank score tag' (TREC)"
    )


def _width_message(fields: list[bytes], run_format: RunFormat | None, width: int) -> str:
    found = f"{len(fields)} columns where {run_format} has {width}"
    if len(fields) <= width:
        return found
    # trec_eval ignores what follows the run tag; an upload is stored as read, so it says.
    extra = fields[width].decode("utf-8", "replace")
    extra = extra if len(extra) <= 40 else extra[:40] + "…"
    return f"{found}: column {width + 1} ({extra!r}) and after are extra; remove them"


def _split_openqa(raw: bytes) -> list[bytes]:
    # The answer is the rest of the line; tab-separated files may have spaces in any column.
    line = raw.rstrip(b"\r\n")
    if b"\t" in line:
        return [f.strip() for f in line.split(b"\t", 5)]
    return line.split(None, 5)


class _Reader:
    """State of one pass over a file: the run tag and, per topic, the documents seen."""

    def __init__(
        self, run: ParsedRun, run_format: RunFormat, context: RunContext, tag: str | None
    ) -> None:
        self.run = run
        self.context = context
        self.parse = row_parser(run_format, context.task_kind)
        self.width = COLUMNS[run_format]
        self.tag_column = TAG_COLUMN[run_format]
        # Submitted under a tag: every row must carry it. Otherwise the first row's tag.
        self.given_tag = tag is not None
        self.tag: bytes | None = tag.encode() if tag is not None else None
        # topic as in the file -> ids seen for it (None: the topic is not of this task)
        self.docs: dict[bytes, set[int | str] | None] = {}
        self.topic_names: dict[bytes, str] = {}
        self.over_limit: set[bytes] = set()  # topics with more than MAX_ROWS_PER_TOPIC rows

    def first_tag(self, fields: list[bytes]) -> None:
        self.tag = fields[self.tag_column]
        self.run.tag = self.tag.decode()

    def topic_docs(self, topic: bytes) -> set[int | str] | None:
        """The documents seen for ``topic``, after checking it once; None if not of the task."""
        if topic in self.docs:
            return self.docs[topic]
        name = topic.decode()
        known = self.context.topics is None or name in self.context.topics
        self.topic_names[topic] = name
        self.docs[topic] = set() if known else None
        return self.docs[topic]

    def slow_line(self, lineno: int, fields: list[bytes]) -> None:
        """Any line the fast path did not take: each problem reported, or the row accepted."""
        run = self.run
        if not fields:  # a blank line
            return
        if len(fields) != self.width:
            run.error(lineno, None, _width_message(fields, run.format, self.width))
            return
        if self.tag is None:
            self.first_tag(fields)
        elif fields[self.tag_column] != self.tag:
            found = fields[self.tag_column].decode("utf-8", "replace")
            if len(found) > 40:
                found = found[:40] + "…"
            given = "the tag given for this run" if self.given_tag else "the file's first tag"
            run.error(lineno, "run", f"run tag {found!r} is not {run.tag!r}, {given}")
        if fields[0] in self.over_limit:
            return  # a topic past its row limit: said once, its further rows are not read
        record = self.parse(fields, lineno, run)
        if record is not None:
            self.accept(fields[0], record)

    def accept(self, topic: bytes, record: RunRecord) -> None:
        run = self.run
        docs = self.topic_docs(topic)
        if docs is None:
            run.error(record.line, "topic", f"topic {record.topic!r} is not a topic of this task")
            return
        key = record.formula_id if run.doc_column == "formula_id" else record.post_id
        doc: int | str = record.topic if key is None else key
        if run.doc_column == "docno":
            doc = record.doc
        if doc in docs:
            what = "answer" if run.format is RunFormat.ARQMATH_OPENQA else "document"
            run.error(record.line, "doc", f"{what} {record.doc} repeated for topic {record.topic}")
            return
        if len(docs) >= MAX_ROWS_PER_TOPIC:
            # Said once per topic; the rows past the limit are not kept (the file fails).
            if topic not in self.over_limit:
                self.over_limit.add(topic)
                run.error(
                    record.line,
                    "topic",
                    f"more than {MAX_ROWS_PER_TOPIC} rows for topic {record.topic}",
                )
            return
        docs.add(doc)
        _append(run, self.topic_names[topic], record)


def _append(run: ParsedRun, topic: str, record: RunRecord) -> None:
    c = run.columns
    c.topic.append(topic)
    if run.doc_column == "docno":  # document runs keep no post or formula ids
        c.docno.append(record.doc)
    else:
        c.post_id.append(record.post_id)
        c.formula_id.append(record.formula_id)
    c.rank.append(record.rank)
    c.score.append(record.score)
    c.line.append(record.line)
    if run.format is RunFormat.ARQMATH_OPENQA:
        c.answer.append(record.answer)
        c.sources.append(record.sources)


def _read_rows(
    run: ParsedRun, run_format: RunFormat, blocks: Blocks, context: RunContext, tag: str | None
) -> Iterator[int]:
    """Parse the lines, yielding the number of rows accepted so far after each block."""
    reader = _Reader(run, run_format, context, tag)
    formula_ids = context.task_kind == "formula"
    layout = FAST_LAYOUTS.get((run_format, formula_ids))
    run.doc_column = {
        RunFormat.ARQMATH_OPENQA: "topic",
        RunFormat.ARQMATH_FORMULA: "formula_id",
    }.get(run_format, "formula_id" if formula_ids else "post_id")
    if context.task_kind == "document":
        run.doc_column = "docno"
        for first, lines in blocks:
            document_rows(reader, first, lines)
            yield len(run.columns)
        return
    split = _split_openqa if run_format is RunFormat.ARQMATH_OPENQA else bytes.split
    for first, lines in blocks:
        if layout is not None:
            id_rows(reader, layout, first, lines)
        else:
            for lineno, raw in enumerate(lines, first):
                reader.slow_line(lineno, split(raw))
        yield len(run.columns)

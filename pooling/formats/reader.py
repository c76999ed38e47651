"""Reading and validating a whole run file (issue 3, item 4): every problem with its line.

Rules checked here, in one streaming pass plus a pass over the parsed rows:
wrong column count, a topic not of this task, rank not an integer in 1..1000, score not a
finite number, a document repeated within a topic, more than 1,000 rows for a topic, a run tag
that changes within the file, ids the collection does not know (through the RunContext), an
empty or binary file, a file over the size limit. Warnings: topics with no rows, ranks not in
score order, Task 3 answers with an odd number of ``$``.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import BinaryIO

from pooling.formats.collection_checks import check_collection
from pooling.formats.detect import COLUMNS, detect_format
from pooling.formats.lines import numbered_lines
from pooling.formats.model import (
    DEFAULT_MAX_BYTES,
    MAX_ROWS_PER_TOPIC,
    ParsedRun,
    RunContext,
    RunFormat,
    RunRecord,
)
from pooling.formats.rows import TAG_COLUMN, row_parser

NO_CONTEXT = RunContext()


def read_run_path(
    path: str | Path, *, context: RunContext | None = None, max_bytes: int | None = None
) -> ParsedRun:
    """``read_run`` on a file on disk, named after it."""
    path = Path(path)
    with path.open("rb") as stream:
        return read_run(stream, name=path.name, context=context, max_bytes=max_bytes)


def read_run(
    stream: BinaryIO,
    *,
    name: str = "",
    context: RunContext | None = None,
    max_bytes: int | None = None,
) -> ParsedRun:
    """Parse and validate a run file from a binary stream, line by line.

    Never raises for bad content: any bytes give a ParsedRun whose ``errors`` say what is
    wrong (up to 100 listed, ``error_count`` counts them all). Rows keep the file's order."""
    context = context or NO_CONTEXT
    run = ParsedRun(name=name)
    lines = numbered_lines(stream, run, max_bytes or DEFAULT_MAX_BYTES)
    first = next(lines, None)
    if first is None:
        if run.ok:
            run.error(None, None, "empty file: no run rows")
        return run
    run.format = detect_format(first[1].split(), context.task_kind)
    if run.format is None:
        run.error(first[0], None, _unknown_layout(first[1]))
        for _ in lines:  # still read to the end: a later binary or size problem is reported too
            pass
        return run
    _parse_rows(run, run.format, _chain(first, lines), context)
    if run.ok:
        check_collection(run, context)
    if run.ok:
        _warn_about_order_and_missing_topics(run, context)
    return run


def _chain(
    first: tuple[int, bytes], rest: Iterator[tuple[int, bytes]]
) -> Iterator[tuple[int, bytes]]:
    yield first
    yield from rest


def _unknown_layout(line: bytes) -> str:
    return (
        f"unrecognised layout with {len(line.split())} columns; expected "
        "'topic post rank score run' (Task 1), 'topic formula_id post rank score run' (Task 2), "
        "'topic rank score run sources answer' (Task 3) or 'topic Q0 doc rank score tag' (TREC)"
    )


def _split_openqa(raw: bytes) -> list[bytes]:
    # The answer is the rest of the line; tab-separated files may have spaces in any column.
    line = raw.rstrip(b"\r\n")
    if b"\t" in line:
        return [f.strip() for f in line.split(b"\t", 5)]
    return line.split(None, 5)


class _TopicState:
    """Per-topic bookkeeping while reading: documents seen and row count."""

    __slots__ = ("docs", "rows")

    def __init__(self) -> None:
        self.docs: set[str] = set()
        self.rows = 0


def _parse_rows(
    run: ParsedRun,
    run_format: RunFormat,
    lines: Iterator[tuple[int, bytes]],
    context: RunContext,
) -> None:
    parse = row_parser(run_format, context.task_kind)
    columns = COLUMNS[run_format]
    tag_column = TAG_COLUMN[run_format]
    openqa = run_format is RunFormat.ARQMATH_OPENQA
    tag: bytes | None = None
    topics: dict[str, _TopicState] = {}
    for lineno, raw in lines:
        fields = _split_openqa(raw) if openqa else raw.split()
        if len(fields) != columns:
            run.error(lineno, None, f"{len(fields)} columns where {run_format} has {columns}")
            continue
        if fields[tag_column] != tag:
            if tag is None:
                tag = fields[tag_column]
                run.tag = tag.decode()
            else:
                run.error(
                    lineno, "run", f"run tag {fields[tag_column].decode()!r} is not {run.tag!r}"
                )
        record = parse(fields, lineno, run)
        if record is not None:
            _accept(run, record, topics, context)


def _accept(
    run: ParsedRun, record: RunRecord, topics: dict[str, _TopicState], context: RunContext
) -> None:
    state = topics.get(record.topic)
    if state is None:
        if context.topics is not None and record.topic not in context.topics:
            run.error(record.line, "topic", f"topic {record.topic!r} is not a topic of this task")
            return
        state = topics[record.topic] = _TopicState()
    if record.doc in state.docs:
        what = "answer" if run.format is RunFormat.ARQMATH_OPENQA else "document"
        run.error(record.line, "doc", f"{what} {record.doc} repeated for topic {record.topic}")
        return
    state.docs.add(record.doc)
    state.rows += 1
    if state.rows == MAX_ROWS_PER_TOPIC + 1:
        run.error(
            record.line,
            "topic",
            f"more than {MAX_ROWS_PER_TOPIC} rows for topic {record.topic}",
        )
    run.rows.append(record)


def _warn_about_order_and_missing_topics(run: ParsedRun, context: RunContext) -> None:
    by_topic: dict[str, list[RunRecord]] = {}
    for record in run.rows:
        by_topic.setdefault(record.topic, []).append(record)
    for topic, records in by_topic.items():
        ranked = sorted(records, key=lambda r: r.rank)
        for before, after in pairwise(ranked):
            if after.score > before.score:
                run.warn(
                    after.line,
                    "score",
                    f"topic {topic}: rank {after.rank} scores higher than rank {before.rank}; "
                    "evaluation ranks by score",
                )
                break
    if context.topics is not None:
        for topic in sorted(context.topics - by_topic.keys(), key=_topic_order):
            run.warn(None, "topic", f"topic {topic} has no rows")


def _topic_order(number: str) -> tuple[str, int, str]:
    prefix, _, digits = number.rpartition(".")
    return (prefix, int(digits), number) if digits.isdigit() else (number, 0, number)

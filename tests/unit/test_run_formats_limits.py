"""The run reader's limits: line length, blank lines, a full report, rows of a failing file."""

from __future__ import annotations

import gzip
import io

import pytest

from pooling.core.formats import MAX_LISTED, ParsedRun, RunContext, read_run
from pooling.core.formats.lines import CHUNK_BYTES, MAX_BLANK_LINES
from pooling.core.formats.model import MAX_LINE_BYTES
from pooling.core.formats.reader import CHECK_BATCH_ROWS


def rows(count: int, start: int = 1) -> bytes:
    """Valid TREC rows numbered from ``start``, 1,000 to a topic."""
    return b"".join(
        b"T%d Q0 %d %d 0.5 t\n" % (n // 1000, n, n % 1000 + 1) for n in range(start, start + count)
    )


def read(data: bytes, **options: object) -> ParsedRun:
    return read_run(io.BytesIO(data), name="run.tsv", **options)  # type: ignore[arg-type]


def problems(run: ParsedRun) -> list[tuple[int | None, str | None]]:
    return [(p.line, p.field) for p in run.errors]


# A long line placed so that it starts, spans and ends at block boundaries in turn.
@pytest.mark.parametrize("before", [0, 3, CHUNK_BYTES // len(rows(1)) + 1, 5000])
@pytest.mark.parametrize("extra", [1, CHUNK_BYTES, 3 * CHUNK_BYTES + 7])
@pytest.mark.parametrize("compress", [False, True])
def test_line_over_the_limit_is_refused_on_its_line_when_anywhere_in_the_file(
    before: int, extra: int, compress: bool
) -> None:
    long_line = b"A.1 Q0 1 1 0.5 " + b"t" * (MAX_LINE_BYTES + extra) + b"\n"
    data = rows(before) + long_line + rows(50_000, start=before + 1)
    run = read(gzip.compress(data) if compress else data)
    assert problems(run) == [(before + 1, None)]
    assert "longer than the limit of 65,536 bytes" in run.errors[0].message
    assert run.bytes_read < len(data) // 2  # refused as soon as seen, not read to the end


def test_line_of_exactly_the_limit_is_read_as_a_line_when_it_ends() -> None:
    line = b"A.1 Q0 7 1 0.5 t" + b" " * (MAX_LINE_BYTES - 16)
    assert len(line) == MAX_LINE_BYTES
    run = read(rows(2, start=10) + line + b"\n")
    assert run.ok, run.errors
    assert [r.post_id for r in run.rows] == [10, 11, 7]


def test_line_limit_is_the_one_given_when_smaller() -> None:
    run = read(b"A.1 Q0 1 1 0.5 t\n" + b"A.1 Q0 2 2 0.5 " + b"t" * 40 + b"\n", max_line_bytes=32)
    assert problems(run) == [(2, None)]
    assert "limit of 32 bytes" in run.errors[0].message


def test_unfinished_last_line_over_the_limit_is_refused_on_its_line() -> None:
    run = read(rows(2) + b"7" * (MAX_LINE_BYTES + 1))
    assert problems(run) == [(3, None)]


def test_blank_lines_past_the_limit_are_refused_on_the_first_one_over() -> None:
    data = rows(1) + b"\n" * 20 + b"  \r\n" * MAX_BLANK_LINES + rows(1, start=2)
    run = read(data)
    assert problems(run) == [(1 + MAX_BLANK_LINES + 1, None)]  # the 10,001st blank line
    assert f"more than {MAX_BLANK_LINES:,} blank lines" in run.errors[0].message


def test_blank_lines_up_to_the_limit_are_skipped() -> None:
    run = read(rows(1) + b"\n" * (MAX_BLANK_LINES - 1) + rows(1, start=2))
    assert run.ok, run.errors
    assert [r.line for r in run.rows] == [1, MAX_BLANK_LINES + 1]


def test_reading_stops_once_the_report_is_full_when_errors_go_on() -> None:
    bad = b"".join(b"A.1 Q0 %d x 0.5 t\n" % n for n in range(200_000))
    run = read(bad)
    assert len(run.errors) == MAX_LISTED
    assert [p.line for p in run.errors] == list(range(1, MAX_LISTED + 1))
    assert run.stopped_at_line is not None
    assert MAX_LISTED < run.stopped_at_line < 20_000  # the block after the 100th problem
    assert run.bytes_read < len(bad) // 10
    report = run.report()
    assert report["stopped_at_line"] == run.stopped_at_line
    assert report["stopped_message"] == (
        f"reading stopped at line {run.stopped_at_line:,} after 100 problems; "
        "the rest of the file was not checked"
    )


def test_report_says_nothing_of_stopping_when_the_file_was_read_to_its_end() -> None:
    report = read(b"A.1 Q0 1 x 0.5 t\n").report()
    assert (report["stopped_at_line"], report["stopped_message"]) == (None, "")


def test_unknown_ids_stop_the_file_after_one_batch_when_none_is_in_the_collection() -> None:
    topics = frozenset(str(n) for n in range(1, 201))
    data = b"".join(
        b"%d Q0 doc-%d %d 0.5 t\n" % (topic, rank, rank)
        for topic in range(1, 201)
        for rank in range(1, 1001)
    )
    context = RunContext(
        task_kind="document", topics=topics, document_docnos=lambda docnos: set(), collection="c"
    )
    run = read(data, context=context)
    assert run.errors[0].line is None
    assert "none of the docnos read is a document of collection c" in run.errors[0].message
    assert [p.line for p in run.errors[1:4]] == [1, 2, 3]
    assert run.stopped_at_line is not None
    assert CHECK_BATCH_ROWS < run.stopped_at_line < CHECK_BATCH_ROWS + 5000
    assert len(run.columns) == 0  # the rows of a file sure to fail are not kept


def test_collection_is_checked_in_batches_with_the_same_rows_when_the_file_is_valid() -> None:
    asked: list[int] = []

    def answer_posts(ids: set[int]) -> set[int]:
        asked.append(len(ids))
        return ids

    count = CHECK_BATCH_ROWS + 20_000
    data = b"".join(b"%d 7%d 1 0.5 t\n" % (n // 1000, n) for n in range(count))
    topics = frozenset(str(n) for n in range(count // 1000 + 1))
    run = read(
        data, context=RunContext(task_kind="answer", topics=topics, answer_posts=answer_posts)
    )
    assert run.ok, run.errors[:3]
    assert len(run.rows) == count
    assert sum(asked) == count
    assert len(asked) >= 2


def test_rows_past_what_the_tasks_topics_can_hold_stop_the_read_on_the_first_one() -> None:
    topics = frozenset({"T0", "T1"})
    data = rows(1999) + b"\n" * 5 + rows(30_000, start=2000)  # 2,000 rows fit: T0 and T1
    run = read(data, context=RunContext(topics=topics))
    # T2 and later are not topics of the task: reported until the first row past 2,000
    first_over = 1999 + 5 + 2  # the 2,001st row, after the blank lines
    assert (first_over, None) in problems(run)
    over = next(p for p in run.errors if p.line == first_over)
    assert over.message == (
        "more than 2,000 rows: a run of this task holds at most 1,000 rows for each of its 2 topics"
    )
    assert max(p.line or 0 for p in run.errors) == first_over
    assert run.bytes_read < len(data) // 2


def test_a_topic_past_1000_rows_is_reported_once_when_its_rows_go_on() -> None:
    # One topic of a 100-topic task, 100,000 rows: one error, and no row kept.
    topics = frozenset(f"T{n}" for n in range(100))
    data = b"".join(b"T0 Q0 %d %d 0.5 t\n" % (n, n % 1000 + 1) for n in range(100_000))
    run = read(data, context=RunContext(task_kind="answer", topics=topics))
    assert problems(run) == [(1001, "topic")]
    assert len(run.columns) == 0

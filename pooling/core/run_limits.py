"""Where a run file's reading stops early: a full report, or more rows than the task allows.

Both wrap the reader's blocks of numbered lines (``pooling.core.formats.lines.line_blocks``): past
either point, reading on would only cost a worker time to say what is already clear.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

Blocks = Iterator[tuple[int, list[bytes]]]


class Report(Protocol):
    """What of the parsed run (``pooling.core.formats.ParsedRun``) the limits read and write."""

    error_count: int
    stopped_at_line: int | None

    def error(self, line: int | None, field_name: str | None, message: str) -> None: ...


def until_report_full(run: Report, blocks: Blocks, max_listed: int) -> Blocks:
    """The blocks, until the report holds ``max_listed`` problems: the first line of the block
    not read is noted."""
    for first, lines in blocks:
        if run.error_count >= max_listed:
            run.stopped_at_line = first
            return
        yield first, lines


def within_row_limit(run: Report, blocks: Blocks, topics: int, rows_per_topic: int) -> Blocks:
    """The blocks up to the row that no run of the task can hold (``rows_per_topic`` for each
    of its ``topics``): that row is reported and the rest is not read, since it would only
    cost time."""
    max_rows = topics * rows_per_topic
    rows = 0
    for first, lines in blocks:
        here = len(lines) - lines.count(b"") - sum(map(bytes.isspace, lines))
        if rows + here <= max_rows:
            rows += here
            yield first, lines
            continue
        for offset, line in enumerate(lines):
            if line.strip():
                rows += 1
                if rows > max_rows:
                    run.error(
                        first + offset,
                        None,
                        f"more than {max_rows:,} rows: a run of this task holds at most "
                        f"{rows_per_topic:,} rows for each of its {topics:,} topics",
                    )
                    yield first, lines[:offset]
                    return

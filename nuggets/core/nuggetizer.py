"""castorini's nuggetizer JSONL layouts: nugget lists and nugget assignments. Pure Python.

- nuggets: one topic a line, ``{"qid", "query", "nuggets": [{"text", "importance"}]}``;
- assignments: one (run, topic) a line, ``{"qid", "run_id", "nuggets": [{"text",
  "importance", "assignment"}]}`` with ``assignment`` one of support, partial_support,
  not_support (other keys, such as ``answer_text``, are ignored).

Bytes go through the run reader's streaming lines (gzip, size, binary, UTF-8); each problem
names its line and field; a file with any problem yields nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from nuggets.core.scores import Importance, Support
from pooling.core.formats.lines import line_blocks
from pooling.core.formats.model import MAX_LISTED, ParsedRun

MAX_NUGGET_CHARS = 2000
MAX_NUGGETS_PER_TOPIC = 1000
MAX_QUERY_CHARS = 10_000
MAX_ID_CHARS = 200
MAX_LINE_BYTES = 4 * 1024 * 1024
MAX_FILE_BYTES = 500 * 1024 * 1024
MAX_RECORDS = 1_000_000


@dataclass(frozen=True, slots=True)
class NuggetRecord:
    text: str
    importance: Importance
    assignment: Support | None = None


@dataclass(frozen=True, slots=True)
class NuggetList:
    """A topic's nuggets (nuggets file) or a run's assignments for a topic (assignments file)."""

    qid: str
    nuggets: tuple[NuggetRecord, ...]
    line: int
    query: str = ""
    run_id: str = ""


@dataclass
class NuggetFile:
    name: str = ""
    records: list[NuggetList] = field(default_factory=list)
    problems: ParsedRun = field(default_factory=ParsedRun)

    @property
    def ok(self) -> bool:
        return self.problems.ok

    def error(self, line: int | None, field_name: str | None, message: str) -> None:
        self.problems.error(line, field_name, message)

    def messages(self) -> list[str]:
        """The problems as one line each: ``file:line: field: message``."""
        found = []
        for problem in self.problems.errors:
            where = f"{self.name}:{problem.line}" if problem.line else self.name
            what = f"{problem.field}: " if problem.field else ""
            found.append(f"{where}: {what}{problem.message}")
        if more := self.problems.error_count - len(self.problems.errors):
            found.append(f"{self.name}: and {more} more")
        return found


def _json_lines(stream: BinaryIO, found: NuggetFile, max_bytes: int) -> Iterator[tuple[int, Any]]:
    count = 0
    for first, block in line_blocks(stream, found.problems, max_bytes, MAX_LINE_BYTES):
        for offset, raw in enumerate(block):
            if not raw.strip():
                continue
            if found.problems.error_count >= MAX_LISTED:
                found.problems.stopped_at_line = first + offset
                return
            count += 1
            if count > MAX_RECORDS:
                found.error(first + offset, None, f"more than {MAX_RECORDS:,} records")
                return
            try:
                yield first + offset, json.loads(raw)
            except (ValueError, RecursionError) as exc:
                found.error(first + offset, None, f"not JSON: {str(exc)[:200]}")


def _text(value: Any, max_chars: int) -> str | None:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > max_chars:
        return None
    return value.strip()


def _nugget(
    found: NuggetFile, line: int, where: str, value: Any, assigned: bool
) -> NuggetRecord | None:
    if not isinstance(value, dict):
        found.error(line, where, "not an object {text, importance}")
        return None
    text = _text(value.get("text"), MAX_NUGGET_CHARS)
    if text is None:
        found.error(line, f"{where}.text", f"not a text of 1 to {MAX_NUGGET_CHARS:,} characters")
        return None
    try:
        importance = Importance(str(value.get("importance")))
    except ValueError:
        found.error(line, f"{where}.importance", "not vital or okay")
        return None
    support = None
    if assigned:
        try:
            support = Support(str(value.get("assignment")))
        except ValueError:
            found.error(line, f"{where}.assignment", "not support, partial_support or not_support")
            return None
    return NuggetRecord(text, importance, support)


def _record(found: NuggetFile, line: int, data: Any, assigned: bool) -> NuggetList | None:
    if not isinstance(data, dict):
        found.error(line, None, "not a JSON object")
        return None
    qid = _text(data.get("qid"), MAX_ID_CHARS)
    if qid is None:
        found.error(line, "qid", "missing or not a topic id")
        return None
    run_id = ""
    if assigned:
        run_id = _text(data.get("run_id"), MAX_ID_CHARS) or ""
        if not run_id:
            found.error(line, "run_id", "missing or not a run id")
            return None
    query = data.get("query", "")
    if not isinstance(query, str) or len(query) > MAX_QUERY_CHARS:
        found.error(line, "query", f"not a text of at most {MAX_QUERY_CHARS:,} characters")
        return None
    values = data.get("nuggets")
    if not isinstance(values, list) or len(values) > MAX_NUGGETS_PER_TOPIC:
        found.error(line, "nuggets", f"not a list of at most {MAX_NUGGETS_PER_TOPIC:,} nuggets")
        return None
    nuggets = []
    for index, value in enumerate(values):
        nugget = _nugget(found, line, f"nuggets[{index}]", value, assigned)
        if nugget is None:
            return None
        nuggets.append(nugget)
    return NuggetList(qid, tuple(nuggets), line, query.strip(), run_id)


def read_nugget_file(
    stream: BinaryIO, *, name: str = "", assignments: bool, max_bytes: int = MAX_FILE_BYTES
) -> NuggetFile:
    """Read a nuggets file (``assignments=False``) or an assignments file; a topic (or a run's
    topic) given twice is an error, since which one counts would be a guess."""
    found = NuggetFile(name=name)
    seen: dict[tuple[str, str], int] = {}
    for line, data in _json_lines(stream, found, max_bytes):
        record = _record(found, line, data, assignments)
        if record is None:
            continue
        key = (record.run_id, record.qid)
        if key in seen:
            what = f"run {record.run_id!r}, topic" if assignments else "topic"
            found.error(line, "qid", f"{what} {record.qid!r} again (first at line {seen[key]})")
            continue
        seen[key] = line
        found.records.append(record)
    if not found.ok:
        found.records.clear()
    return found

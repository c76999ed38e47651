"""Query files with one topic a line: TSV (``qid<TAB>query``) and JSONL.

TSV: two tab-separated columns, no quoting (queries hold quotes, as MS MARCO's do). An optional
header row (``qid query``, ``query_id text``, …) may name more columns: ``description`` and
``narrative`` are kept as such, any other column as metadata.

JSONL: one object a line; the number is the first of ``_id``, ``qid``, ``query_id``, ``id``
(a string or an integer); the title the first of ``text``, ``query``, ``title``; optional
``description`` and ``narrative``; every other field is kept as metadata (BEIR's ``metadata``
object included, as it is).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from collection.core.formats.errors import ImportFileError
from collection.core.formats.topic_text import QueryTopic, one_line, plain_text

NUMBER_FIELDS = ("_id", "qid", "query_id", "id")
TITLE_FIELDS = ("text", "query", "title")
_HEADER_NUMBERS = {*NUMBER_FIELDS, "topic", "topic_id", "number", "num"}


def _lines(text: str) -> Iterator[tuple[int, str]]:
    for lineno, line in enumerate(text.split("\n"), 1):
        line = line.removesuffix("\r")
        if line.strip():
            yield lineno, line


def _tsv_header(cells: list[str]) -> dict[str, int] | None:
    """Column name -> index when ``cells`` is a header row (``qid<TAB>query`` and the like)."""
    names = [cell.strip().lower() for cell in cells]
    if len(names) >= 2 and names[0] in _HEADER_NUMBERS and names[1] in TITLE_FIELDS:
        return {name: index for index, name in enumerate(names)}
    return None


def parse_tsv_topics(path: str | Path, text: str) -> Iterator[QueryTopic]:
    """Topics of a ``qid<TAB>query`` file (see the module docstring for the header row)."""
    columns: dict[str, int] | None = None
    width = 2
    for index, (lineno, line) in enumerate(_lines(text)):
        cells = line.split("\t")
        if index == 0:
            columns = _tsv_header(cells)
            if columns is not None:
                width = len(cells)
                continue
        if len(cells) != width:
            expected = "qid<TAB>query" if columns is None else f"{width}, as the header names"
            raise ImportFileError(path, lineno, f"{len(cells)} columns; expected {expected}")
        if columns is None:
            yield QueryTopic(cells[0].strip(), one_line(cells[1]), line=lineno)
            continue
        yield _named_cells(cells, columns, lineno)


def _named_cells(cells: list[str], columns: dict[str, int], lineno: int) -> QueryTopic:
    names = list(columns)
    values = {name: cells[index] for name, index in columns.items()}
    metadata = {
        name: value.strip()
        for name, value in values.items()
        if name not in (names[0], names[1], "description", "narrative")
    }
    return QueryTopic(
        number=values[names[0]].strip(),
        title=one_line(values[names[1]]),
        description=plain_text(values.get("description", "")),
        narrative=plain_text(values.get("narrative", "")),
        metadata=metadata,
        line=lineno,
    )


def parse_jsonl_topics(path: str | Path, text: str) -> Iterator[QueryTopic]:
    """Topics of a JSONL query file, one object a line."""
    for lineno, line in _lines(text):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ImportFileError(path, lineno, f"not JSON: {error.msg}") from error
        if not isinstance(record, dict):
            raise ImportFileError(path, lineno, "not a JSON object")
        yield _json_topic(path, lineno, record)


def _json_topic(path: str | Path, lineno: int, record: dict[str, Any]) -> QueryTopic:
    id_field = next((name for name in NUMBER_FIELDS if name in record), None)
    if id_field is None:
        raise ImportFileError(
            path, lineno, "no topic number: none of the fields _id, qid, query_id"
        )
    number = record[id_field]
    if isinstance(number, bool) or not isinstance(number, str | int):
        raise ImportFileError(path, lineno, f"field {id_field!r} is not a string or an integer")
    title_field = next((name for name in TITLE_FIELDS if name in record), None)
    if title_field is None:
        raise ImportFileError(path, lineno, "no query: none of the fields text, query, title")
    texts = {"title": title_field, "description": "description", "narrative": "narrative"}
    for source in texts.values():
        if source in record and not isinstance(record[source], str):
            raise ImportFileError(path, lineno, f"field {source!r} is not a string")
    used = {id_field, *texts.values()}
    return QueryTopic(
        number=str(number).strip(),
        title=one_line(record[title_field]),
        description=plain_text(record.get("description", "")),
        narrative=plain_text(record.get("narrative", "")),
        metadata={name: value for name, value in record.items() if name not in used},
        line=lineno,
    )

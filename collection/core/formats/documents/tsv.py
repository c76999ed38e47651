"""TSV collections: ``id<TAB>text`` or ``id<TAB>title<TAB>text``, with or without a header.

A first line whose first cell is an id name (``id``, ``docno``, ``doc_id``, ``_id``, ``docid``,
``pid``) and whose other cells are known names (``text``, ``title``, ``body``, ``contents``,
``passage``, ``url``, or any other word, kept as metadata) is a header and says which column
is which. Without one, two columns are id and text, three are id, title and text. Every line
has the first line's number of columns. Cells are taken as they are (no quoting, no escapes);
blank lines are skipped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from collection.core.formats.documents.record import (
    DocumentProblems,
    DocumentRecord,
    document_record,
)
from collection.core.formats.documents.source import utf8_problem

ID_NAMES = frozenset({"id", "docno", "doc_id", "_id", "docid", "pid"})
TITLE_NAMES = frozenset({"title"})
BODY_NAMES = frozenset({"text", "body", "contents", "passage"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-]{0,63}")


@dataclass(frozen=True)
class Columns:
    """Which cell is which: positions of id, title (or None), body (or None), url (or None),
    and the metadata columns with their names."""

    count: int
    docno: int = 0
    title: int | None = None
    body: int | None = None
    url: int | None = None
    metadata: tuple[tuple[int, str], ...] = ()


def _header(cells: list[str]) -> Columns | None:
    names = [c.strip().lower() for c in cells]
    if names[0] not in ID_NAMES or len(names) < 2 or len(set(names)) != len(names):
        return None
    if not all(_NAME.fullmatch(name) for name in names[1:]):
        return None
    if not any(n in BODY_NAMES or n in TITLE_NAMES for n in names[1:]):
        return None
    found: dict[str, int | None] = {"title": None, "body": None, "url": None}
    metadata = []
    for i, name in enumerate(names[1:], 1):
        role = "body" if name in BODY_NAMES else "title" if name in TITLE_NAMES else name
        if role in found and found[role] is None:
            found[role] = i
        else:
            metadata.append((i, cells[i].strip()))
    return Columns(len(names), 0, found["title"], found["body"], found["url"], tuple(metadata))


def _columns(cells: list[str]) -> Columns | None:
    if len(cells) == 2:
        return Columns(2, body=1)
    if len(cells) == 3:
        return Columns(3, title=1, body=2)
    return None


def _cell(cells: list[str], position: int | None) -> str:
    return "" if position is None else cells[position]


def parse_tsv(lines: Iterable[bytes], problems: DocumentProblems) -> Iterator[DocumentRecord]:
    """The documents of a TSV file's lines (bytes); each bad line is added to ``problems``."""
    columns: Columns | None = None
    first_line = 0
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as error:
            problems.add(number, utf8_problem(raw, error))
            continue
        text = text.rstrip("\r\n")
        if not text.strip():
            continue
        cells = text.split("\t")
        if columns is None:
            first_line = number
            columns = _header(cells)
            if columns is not None:
                continue
            columns = _columns(cells)
            if columns is None:
                problems.add(
                    number,
                    f"{len(cells)} columns: a TSV collection has id<TAB>text or "
                    "id<TAB>title<TAB>text (or a header line naming its columns)",
                )
                return
        if len(cells) != columns.count:
            problems.add(
                number,
                f"{len(cells)} columns, expected {columns.count} (as on line {first_line})",
            )
            continue
        record = document_record(
            docno=cells[columns.docno].strip(),
            title=_cell(cells, columns.title).strip(),
            body=_cell(cells, columns.body).strip(),
            url=_cell(cells, columns.url).strip(),
            metadata={name: cells[i] for i, name in columns.metadata},
            line=number,
            problems=problems,
        )
        if record is not None:
            yield record

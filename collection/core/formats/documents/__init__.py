"""Document collections: TREC SGML, JSONL and TSV files, plain or gzip, streamed.

``read_documents(path, file_format, problems)`` yields checked ``DocumentRecord``s in file
order, in constant memory (one document at a time), and adds every problem it finds, with its
line, to ``problems`` (see record.py). Pure Python: no Django.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from collection.core.formats.documents.detect import FORMATS, detect_format, sniff_format
from collection.core.formats.documents.jsonl import parse_jsonl
from collection.core.formats.documents.record import (
    BODY_MAX_CHARS,
    DOCNO_MAX_CHARS,
    MAX_PROBLEMS,
    DocumentProblems,
    DocumentRecord,
    TooManyProblems,
    document_record,
)
from collection.core.formats.documents.source import DocumentFile
from collection.core.formats.documents.trec import parse_trec
from collection.core.formats.documents.tsv import parse_tsv

# The longest line each format may hold: long enough for a document at every field's limit
# (a body of BODY_MAX_CHARS characters, and title, URL and metadata beside it) written in the
# format's most expensive spelling of a character, so no storable document is refused; a
# longer line is refused when that many bytes are read instead of being gathered whole.
# JSONL: one document per line, a character up to 6 bytes (a \uXXXX escape).
# TSV: one document per line, cells as they are: up to 4 bytes (UTF-8).
# TREC SGML: a document spans lines, but one line may hold a whole body: up to 10 bytes
# (a numeric entity such as &#x10FFFF;).
_OTHER_FIELDS_BYTES = 64 * 1024 * 1024
LINE_MAX_BYTES = {
    "jsonl": 6 * BODY_MAX_CHARS + _OTHER_FIELDS_BYTES,
    "tsv": 4 * BODY_MAX_CHARS + _OTHER_FIELDS_BYTES,
    "trec": 10 * BODY_MAX_CHARS + _OTHER_FIELDS_BYTES,
}

__all__ = [
    "DOCNO_MAX_CHARS",
    "FORMATS",
    "LINE_MAX_BYTES",
    "MAX_PROBLEMS",
    "DocumentFile",
    "DocumentProblems",
    "DocumentRecord",
    "TooManyProblems",
    "detect_format",
    "document_record",
    "read_documents",
    "sniff_format",
]

Parser = Callable[[Iterable[bytes], DocumentProblems], Iterator[DocumentRecord]]
PARSERS: dict[str, Parser] = {"trec": parse_trec, "jsonl": parse_jsonl, "tsv": parse_tsv}


def read_documents(
    handle: DocumentFile, file_format: str, problems: DocumentProblems
) -> Iterator[DocumentRecord]:
    """The documents of an open file in ``file_format`` (trec, jsonl or tsv)."""
    if file_format not in PARSERS:
        raise ValueError(f"unknown document format {file_format!r}: one of {', '.join(FORMATS)}")
    return PARSERS[file_format](handle.lines(LINE_MAX_BYTES[file_format]), problems)


def documents_of(
    path: str | Path, file_format: str = "auto"
) -> tuple[list[DocumentRecord], DocumentProblems]:
    """The documents of a (small) file, and its problems: for tests and tools, not imports
    (they hold the whole file)."""
    problems = DocumentProblems(path)
    chosen = detect_format(path) if file_format == "auto" else file_format
    records: list[DocumentRecord] = []
    with DocumentFile(path) as handle, contextlib.suppress(TooManyProblems):
        records.extend(read_documents(handle, chosen, problems))
    return records, problems

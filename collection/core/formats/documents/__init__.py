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

__all__ = [
    "DOCNO_MAX_CHARS",
    "FORMATS",
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
    return PARSERS[file_format](handle.lines(), problems)


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

"""Which format a collection file is in, from its first bytes (after gunzip and a BOM)."""

from __future__ import annotations

from pathlib import Path

from collection.core.formats.documents.source import DocumentFile
from collection.core.formats.errors import ImportFileError

FORMATS = ("trec", "jsonl", "tsv")


def sniff_format(head: bytes) -> str | None:
    """``trec`` (starts with a tag), ``jsonl`` (an object), ``tsv`` (a tab on the first line),
    or None when the start says nothing."""
    start = head.lstrip()
    if start.startswith(b"<"):
        return "trec"
    if start.startswith(b"{"):
        return "jsonl"
    first_line = start.split(b"\n", 1)[0]
    if b"\t" in first_line:
        return "tsv"
    return None


def detect_format(path: str | Path) -> str:
    """The format of the file at ``path``, by content; an error names the file if unclear."""
    with DocumentFile(path) as handle:
        head = handle.head()
    if not head.strip():
        raise ImportFileError(path, None, "holds no documents (the file is empty)")
    found = sniff_format(head)
    if found is None:
        raise ImportFileError(
            path,
            1,
            "cannot tell the format (not <DOC> SGML, not JSON lines, no tab on line 1): "
            "give --format trec, jsonl or tsv",
        )
    return found

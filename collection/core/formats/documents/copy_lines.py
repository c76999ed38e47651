"""Documents as lines of PostgreSQL's COPY text, in the column order of the import
(collection, docno, title, body, body_format, url, metadata, checksum)."""

from __future__ import annotations

from collections.abc import Callable

from collection.core.formats.documents.record import DocumentRecord
from kernel.core.copy_text import escape

NUL, TAB = "\x00", "\t"
COPY_FIELDS = (
    "collection_id", "docno", "title", "body", "body_format", "url", "metadata", "checksum"
)  # fmt: skip


def copy_line_formatter(collection_id: int) -> Callable[[DocumentRecord], str]:
    """A function record -> its COPY line (newline included), for one collection."""
    prefix = f"{int(collection_id)}\t"

    def line(r: DocumentRecord) -> str:
        # One escape over the fields joined by NUL (which no field holds, see record.py), then
        # NUL -> tab: a third of the cost of escaping each field. body_format is ours ("text"
        # or "html") and the checksum hex: nothing to escape.
        fields = escape(
            "\x00".join((r.docno, r.title, r.body, r.body_format, r.url, r.metadata_json))
        )
        return f"{prefix}{fields.replace(NUL, TAB)}\t{r.checksum}\n"

    return line

"""Topics of document tasks: the record every topic format parses into, how a
topic file's bytes become text, and the bounds a topic must keep.

A topic file may be gzip-compressed (recognised by its magic bytes, whatever its name) and may
start with a UTF-8 byte order mark. Topic files are small (a few hundred topics; the largest
query sets, e.g. MS MARCO's 800,000 training queries, are tens of MB), so they are read whole.
"""

from __future__ import annotations

import bisect
import gzip
import json
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from collection.core.formats.errors import ImportFileError

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = "\ufeff"
MAX_TOPIC_FILE_BYTES = 256 * 1024 * 1024  # after decompression: a gzip bomb stops here

# Bounds of what a topic stores (every stored text is bounded). The number is a
# token of run and qrels files (Topic.number, TOPIC_NUMBER_MAX_CHARS); queries of some sets run
# to a few thousand characters (ArguAna's are whole arguments).
LIMITS = {
    "number": 64,
    "title": 10_000,
    "description": 20_000,
    "narrative": 20_000,
    "metadata": 100_000,  # characters of its JSON
}


@dataclass(frozen=True)
class QueryTopic:
    """One topic of a TREC topic file, a TSV or a JSONL query file (plain text fields)."""

    number: str
    title: str
    description: str = ""
    narrative: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    line: int = 0


def read_topic_text(path: str | Path) -> str:
    """The file's text: gunzipped if its first bytes say gzip, without a byte order mark."""
    try:
        with open(path, "rb") as raw:
            compressed = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            if compressed:
                with gzip.GzipFile(fileobj=raw) as unzipped:
                    data = unzipped.read(MAX_TOPIC_FILE_BYTES + 1)
            else:
                data = raw.read(MAX_TOPIC_FILE_BYTES + 1)
    except (EOFError, zlib.error, gzip.BadGzipFile) as error:
        raise ImportFileError(path, None, f"unreadable gzip data: {error}") from error
    except OSError as error:
        raise ImportFileError(path, None, f"cannot read: {error.strerror or error}") from error
    if len(data) > MAX_TOPIC_FILE_BYTES:
        raise ImportFileError(
            path, None, f"larger than {MAX_TOPIC_FILE_BYTES:,} bytes: not a topic file"
        )
    if b"\0" in data:
        line = data.count(b"\n", 0, data.index(b"\0")) + 1
        raise ImportFileError(path, line, "binary data (a NUL byte): not a topic file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise ImportFileError(path, line, "not UTF-8 text") from error
    return text.removeprefix(UTF8_BOM)


class LineIndex:
    """Line numbers of character offsets in a text (for parsers that search the whole text)."""

    def __init__(self, text: str) -> None:
        self._starts = [0]
        position = text.find("\n")
        while position != -1:
            self._starts.append(position + 1)
            position = text.find("\n", position + 1)

    def line(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset)


def plain_text(text: str) -> str:
    """Lines of a paragraph joined by one space; paragraphs (blank-line separated) kept."""
    paragraphs: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        words = line.split()
        if words:
            current.append(" ".join(words))
        elif current:
            paragraphs.append(" ".join(current))
            current = []
    if current:
        paragraphs.append(" ".join(current))
    return "\n\n".join(paragraphs)


def one_line(text: str) -> str:
    return " ".join(text.split())


def checked_topic(path: str | Path, topic: QueryTopic) -> QueryTopic:
    """``topic`` if it fits what a topic stores; otherwise an error naming line and field."""
    number = topic.number
    shown = number if len(number) <= 40 else number[:40] + "…"
    if not number:
        raise ImportFileError(path, topic.line, "the topic number (field number) is empty")
    if len(number) > LIMITS["number"]:
        raise ImportFileError(
            path,
            topic.line,
            f"topic {shown}: the number has {len(number)} characters (at most {LIMITS['number']})",
        )
    if any(char.isspace() or not char.isprintable() for char in number):
        raise ImportFileError(
            path,
            topic.line,
            f"topic {number!r}: the number has white space or control characters "
            "(run and qrels files could not name it)",
        )
    if not topic.title:
        raise ImportFileError(path, topic.line, f"topic {shown}: the title (query) is empty")
    for name in ("title", "description", "narrative"):
        value = getattr(topic, name)
        if len(value) > LIMITS[name]:
            raise ImportFileError(
                path,
                topic.line,
                f"topic {shown}: the {name} has {len(value):,} characters "
                f"(at most {LIMITS[name]:,})",
            )
    size = len(json.dumps(topic.metadata, ensure_ascii=False))
    if size > LIMITS["metadata"]:
        raise ImportFileError(
            path,
            topic.line,
            f"topic {shown}: its other fields (metadata) take {size:,} characters "
            f"(at most {LIMITS['metadata']:,})",
        )
    return topic

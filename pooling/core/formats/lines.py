"""Reading a run file's bytes into numbered lines: gzip, size limit, binary and UTF-8 checks.

Everything here streams: one line at a time, whatever the file's size.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Generator
from typing import BinaryIO

from pooling.core.formats.model import MAX_LINE_BYTES, ParsedRun

GZIP_MAGIC = b"\x1f\x8b"
UTF8_BOM = b"\xef\xbb\xbf"  # editors on Windows start UTF-8 files with it: not part of line 1


class _Prefixed(io.RawIOBase):
    """A non-seekable stream with the bytes already read put back in front."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        data = self._rest.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def open_stream(stream: BinaryIO) -> tuple[BinaryIO, bool]:
    """The stream to read lines from (decompressed if its magic bytes say gzip)."""
    head = stream.read(2)
    if stream.seekable():
        stream.seek(stream.tell() - len(head))
        source: BinaryIO = stream
    else:
        source = io.BufferedReader(_Prefixed(head, stream))  # type: ignore[arg-type]
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=source, mode="rb"), True  # type: ignore[return-value]
    return source, False


# Lines are split a block at a time (C-level work, no per-line calls); blocks small enough
# that a run's rows can be sent to the database block by block while the next one is read.
CHUNK_BYTES = 1 << 16
# A run file may hold a few blank lines (between topics, at its end); no real one holds
# thousands. Refusing past this many keeps a file of near-empty lines (a gzip of a few KB can
# hold millions) from costing a worker seconds of stepping over nothing.
MAX_BLANK_LINES = 10_000


def line_blocks(
    stream: BinaryIO, run: ParsedRun, max_bytes: int, max_line_bytes: int = MAX_LINE_BYTES
) -> Generator[tuple[int, list[bytes]], None, None]:
    """Yield (number of the first line, lines) a block at a time; record on ``run`` why
    reading stopped.

    A NUL byte means a binary file, bytes past ``max_bytes`` (counted after decompression, so
    a small gzip bomb cannot slip through) mean a file too large, a line longer than
    ``max_line_bytes`` means a file that is not a run: each stops the read at once. Lines
    that are not UTF-8 are reported and blanked. Lines keep their line ends and may be blank:
    the caller's split() drops both, but past ``MAX_BLANK_LINES`` of them the file is refused:
    a few bytes each, they would cost more to step over than a run's rows cost to read.

    Each block's bytes are looked at once: the unfinished last line carried to the next
    block is never longer than ``max_line_bytes``, so time is linear in the file's size and
    memory bounded whatever the file holds."""
    source, compressed = open_stream(stream)
    # A block no longer than a line may be: only the line that spans the block boundary
    # (the first) and the unfinished last one can be too long.
    chunk = min(CHUNK_BYTES, max_line_bytes)
    size, lineno, tail, blank = 0, 1, b"", 0
    try:
        while block := source.read(chunk):
            if size == 0 and block.startswith(UTF8_BOM):
                block = block[len(UTF8_BOM) :]
                size += len(UTF8_BOM)
            data = tail + block
            if size + len(block) > max_bytes:
                at = lineno + data.count(b"\n", 0, len(tail) + max_bytes - size)
                run.error(at, None, f"file is larger than the limit of {max_bytes:,} bytes")
                return
            size += len(block)
            if b"\0" in block:
                at = lineno + data.count(b"\n", 0, data.index(b"\0"))
                run.error(at, None, "binary file: a NUL byte; upload a text file")
                return
            lines = data.split(b"\n")
            tail = lines.pop()
            if (lines and len(lines[0]) > max_line_bytes) or len(tail) > max_line_bytes:
                at = lineno if lines and len(lines[0]) > max_line_bytes else lineno + len(lines)
                run.error(at, None, _too_long(max_line_bytes))
                return
            blank += lines.count(b"") + sum(map(bytes.isspace, lines))
            if blank > MAX_BLANK_LINES:
                at = _blank_line_over_limit(lines, lineno, blank)
                too_many = f"more than {MAX_BLANK_LINES:,} blank lines: not a file of records"
                run.error(at, None, too_many)
                return
            if not data.isascii():
                _blank_non_utf8(lines, lineno, run)
            yield lineno, lines
            lineno += len(lines)
        if tail:
            lines = [tail]
            _blank_non_utf8(lines, lineno, run)
            yield lineno, lines
    except (OSError, EOFError, zlib.error) as exc:
        what = "compressed data" if compressed else "file"
        run.error(lineno, None, f"unreadable {what}: {exc}")
    finally:
        run.bytes_read = size


def _blank_line_over_limit(lines: list[bytes], lineno: int, blank: int) -> int:
    """The number of the blank line that took the count past the limit (in this block)."""
    over = blank - MAX_BLANK_LINES  # the over-th blank line of the block from its end
    for offset in range(len(lines) - 1, -1, -1):
        if not lines[offset].strip():
            over -= 1
            if over == 0:
                return lineno + offset
    return lineno


def _too_long(max_line_bytes: int) -> str:
    return (
        f"line is longer than the limit of {max_line_bytes:,} bytes: a run file's lines are "
        "short (a Task 3 answer line, the longest, is a few KB)"
    )


def _blank_non_utf8(lines: list[bytes], first: int, run: ParsedRun) -> None:
    for offset, line in enumerate(lines):
        if not line.isascii() and not _is_utf8(line):
            run.error(first + offset, None, "not UTF-8 text")
            lines[offset] = b""


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True

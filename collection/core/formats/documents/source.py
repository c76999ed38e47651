"""Reading a collection file: plain or gzip (known by its magic bytes, whatever its name), line
by line as bytes, with a UTF-8 byte order mark dropped and the bytes read so far known.

Lines stay bytes here: each parser decodes its own, so a bad byte is reported with its line.
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import BinaryIO

from collection.core.formats.errors import ImportFileError

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
_BUFFER = 1 << 20
# No line is gathered past this many bytes: the cap of the format that reads it
# (LINE_MAX_BYTES in __init__.py) or, for sniffing and tools, this one.
DEFAULT_LINE_MAX_BYTES = 1 << 30


def _open_raw(path: str | Path) -> io.BufferedReader:
    try:
        return io.BufferedReader(io.FileIO(path, "rb"), buffer_size=_BUFFER)
    except OSError as error:
        raise ImportFileError(path, None, f"cannot open: {error.strerror}") from error


class DocumentFile:
    """An open collection file: ``lines()`` yields its lines (bytes, with their newline);
    ``bytes_read`` is how far into the file on disk (compressed bytes for gzip) reading is."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._raw = _open_raw(path)
        self.compressed = self._raw.peek(2)[:2] == GZIP_MAGIC
        self._stream: BinaryIO = (
            gzip.GzipFile(fileobj=self._raw, mode="rb")  # type: ignore[assignment]
            if self.compressed
            else self._raw
        )
        self.line = 0  # the number of the last line yielded

    @property
    def bytes_read(self) -> int:
        return self._raw.tell()

    def lines(self, max_line_bytes: int = DEFAULT_LINE_MAX_BYTES) -> Iterator[bytes]:
        """Every line, the first without its byte order mark; a broken gzip stream, or a line
        longer than ``max_line_bytes`` (refused once that many bytes are read, not gathered
        to its end: a small gzip can hold a line of gigabytes), is an error naming the line."""
        stream = self._stream
        try:
            first = stream.readline(max_line_bytes + 2)
            if first.startswith(BOM):
                first = first[len(BOM) :]
            if first:
                self.line = 1
                self._check_length(first, max_line_bytes)
                yield first
            # readline(limit) at C speed, as iterating the stream would be; the limit leaves
            # room for a line end of two bytes (CRLF) after a line of exactly max_line_bytes.
            lines = iter(partial(stream.readline, max_line_bytes + 2), b"")
            for self.line, raw in enumerate(lines, 2):
                if len(raw) > max_line_bytes:
                    self._check_length(raw, max_line_bytes)
                yield raw
        except (EOFError, OSError, zlib.error) as error:
            raise ImportFileError(
                self.path, self.line + 1, f"cannot read the gzip stream: {error}"
            ) from error

    def _check_length(self, raw: bytes, max_line_bytes: int) -> None:
        if len(raw.rstrip(b"\r\n")) > max_line_bytes:
            raise ImportFileError(
                self.path,
                self.line,
                f"line longer than {max_line_bytes:,} bytes: longer than any document "
                "this format can hold within the import's limits",
            )

    def head(self, size: int = 65_536) -> bytes:
        """The first ``size`` bytes of the content (decompressed), BOM dropped; for sniffing,
        on a fresh DocumentFile that is then closed."""
        try:
            data = self._stream.read(size)
        except (EOFError, OSError, zlib.error) as error:
            raise ImportFileError(self.path, 1, f"cannot read the gzip stream: {error}") from error
        return data[len(BOM) :] if data.startswith(BOM) else data

    def close(self) -> None:
        if self._stream is not self._raw:
            self._stream.close()
        self._raw.close()

    def __enter__(self) -> DocumentFile:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def utf8_problem(raw: bytes, error: UnicodeDecodeError) -> str:
    """What to say of a line that is not UTF-8: the first bad byte and its column."""
    column = len(raw[: error.start].decode("utf-8", "replace")) + 1
    return f"not valid UTF-8 (byte 0x{raw[error.start]:02x} at column {column})"

"""Tab-separated files as ARQMath writes them: a header row, csv quoting ("" doubles a quote)."""

import csv
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from collection.core.formats.errors import ImportFileError

# MathML cells of the SLT files run past csv's default 128 KiB field limit.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


class TsvReader:
    """Rows of a TSV file with the line each starts on; the header is read on creation."""

    def __init__(self, path: str | Path, handle: TextIO) -> None:
        self.path = path
        self._reader = csv.reader(handle, delimiter="\t", quotechar='"', strict=True)
        self.line = 0
        self._raw = False
        header = self._next()
        if header is None:
            raise ImportFileError(path, 1, "empty file: a header row is required")
        self.header = [name.strip() for name in header]

    def _next(self) -> list[str] | None:
        start = self._reader.line_num + 1
        try:
            row = next(self._reader)
        except StopIteration:
            return None
        except csv.Error as error:
            raise ImportFileError(self.path, start, f"bad TSV quoting: {error}") from error
        except UnicodeDecodeError as error:
            raise ImportFileError(self.path, start, f"not UTF-8 text: {error}") from error
        self.line = start
        return row

    def __iter__(self) -> Iterator[list[str]]:
        width = len(self.header)
        while (row := self._next()) is not None:
            if len(row) != width:
                if not row:  # a blank line, e.g. at the end of the file
                    continue
                raise ImportFileError(
                    self.path, self.line, f"{len(row)} columns, the header has {width}"
                )
            yield row

    def raw_rows(self) -> Iterator[list[str]]:
        """Rows without the per-row checks of iteration (the caller checks the width): the
        fast path of large files. Errors then name the row's last line."""
        self._raw = True
        reader = self._reader
        try:
            for row in reader:
                if row:
                    yield row
        except csv.Error as error:
            raise self.error(f"bad TSV quoting: {error}") from error
        except UnicodeDecodeError as error:
            raise self.error(f"not UTF-8 text: {error}") from error

    def error(self, message: str) -> ImportFileError:
        """An error at the row just read."""
        line = self._reader.line_num if self._raw else self.line
        return ImportFileError(self.path, line, message)


def open_text(path: str | Path) -> TextIO:
    """Open a TSV for TsvReader (csv needs newline="": quoted cells may hold line breaks).

    ``utf-8-sig`` skips a byte order mark at the start, which would otherwise be read as part
    of the first column's name."""
    try:
        return open(path, encoding="utf-8-sig", newline="")
    except OSError as error:
        raise ImportFileError(path, None, f"cannot open: {error.strerror}") from error


def parse_int(reader: TsvReader, value: str, column: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise reader.error(f"{column} is not an integer: {value!r}") from None

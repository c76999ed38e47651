"""A collection file's line is refused past its format's limit, with its number, unread."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from collection.core.formats.documents import LINE_MAX_BYTES, DocumentFile
from collection.core.formats.documents.record import BODY_MAX_CHARS
from collection.core.formats.errors import ImportFileError


@pytest.mark.parametrize("compress", [False, True])
@pytest.mark.parametrize("line_end", [b"\n", b"\r\n"])
def test_line_past_the_limit_is_refused_on_its_line_when_read(
    tmp_path: Path, compress: bool, line_end: bytes
) -> None:
    lines = [b"a" * 10, b"b" * 100, b"c" * 101, b"d"]
    data = b"".join(line + line_end for line in lines)
    path = tmp_path / ("docs.jsonl.gz" if compress else "docs.jsonl")
    path.write_bytes(gzip.compress(data) if compress else data)
    read: list[bytes] = []
    with DocumentFile(path) as handle, pytest.raises(ImportFileError) as refused:
        read.extend(handle.lines(max_line_bytes=100))
    assert [line.rstrip(b"\r\n") for line in read] == lines[:2]  # a line of exactly 100 is read
    assert refused.value.line == 3
    assert "line longer than 100 bytes" in str(refused.value)


def test_first_line_past_the_limit_is_refused_when_it_is_the_only_one(tmp_path: Path) -> None:
    path = tmp_path / "one.tsv"
    path.write_bytes(b"x" * 1000)  # no line end at all
    with DocumentFile(path) as handle, pytest.raises(ImportFileError) as refused:
        list(handle.lines(max_line_bytes=999))
    assert refused.value.line == 1


def test_each_format_fits_a_document_at_its_body_limit_written_its_costliest_way() -> None:
    # A body of BODY_MAX_CHARS characters each spelt as \uXXXX (JSONL), 4 UTF-8 bytes (TSV)
    # or a numeric entity of 10 bytes (TREC SGML) fits on one line.
    assert LINE_MAX_BYTES["jsonl"] > 6 * BODY_MAX_CHARS
    assert LINE_MAX_BYTES["tsv"] > 4 * BODY_MAX_CHARS
    assert LINE_MAX_BYTES["trec"] > len("&#x10FFFF;") * BODY_MAX_CHARS

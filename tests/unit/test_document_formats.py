"""Document collection parsers, whatever the format: gzip, BOM, detection, large
documents, and checksums that follow the stored fields."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from collection.core.formats.documents import (
    detect_format,
    documents_of,
)
from collection.core.formats.errors import ImportFileError
from tests.unit.document_files import FT, read, write


@pytest.mark.parametrize(
    ("content", "file_format"),
    [(FT, "trec"), ('{"id": "d", "text": "x"}\n', "jsonl"), ("d\tx\n", "tsv")],
)
def test_format_is_detected_through_gzip_and_bom_whatever_the_name_when_auto(
    tmp_path: Path, content: str, file_format: str
) -> None:
    plain = b"\xef\xbb\xbf" + content.encode()
    path = write(tmp_path, "misleading.txt", gzip.compress(plain))
    assert detect_format(path) == file_format
    records = read(path)
    assert records == read(write(tmp_path, f"plain.{file_format}", content))


def test_broken_gzip_stream_is_an_error_naming_the_file_when_read(tmp_path: Path) -> None:
    data = gzip.compress(b'{"id": "a", "text": "x"}\n' * 1000)
    path = write(tmp_path, "cut.jsonl.gz", data[: len(data) // 2])
    with pytest.raises(ImportFileError, match=r"cut.jsonl.gz line \d+: cannot read the gzip"):
        documents_of(path, "jsonl")


def test_undetectable_file_is_an_error_asking_for_the_format_when_auto(tmp_path: Path) -> None:
    with pytest.raises(ImportFileError, match="give --format trec, jsonl or tsv"):
        detect_format(write(tmp_path, "words.txt", "just words\n"))
    with pytest.raises(ImportFileError, match="holds no documents"):
        detect_format(write(tmp_path, "empty.jsonl", "\n\n"))


@pytest.mark.parametrize("file_format", ["trec", "jsonl", "tsv"])
def test_ten_megabyte_document_is_read_intact_when_in_any_format(
    tmp_path: Path, file_format: str
) -> None:
    words = " ".join(f"w{i}" for i in range(1_500_000))  # ~10.9 MB, one paragraph
    assert len(words) > 10_000_000
    content = {
        "trec": f"<DOC>\n<DOCNO>big</DOCNO>\n<TEXT>\n{words}\n</TEXT>\n</DOC>\n",
        "jsonl": json.dumps({"id": "big", "text": words}) + "\n",
        "tsv": f"big\t{words}\n",
    }[file_format]
    (doc,) = read(write(tmp_path, f"big.{file_format}", content))
    assert doc.body == words


def test_same_document_has_the_same_checksum_when_given_in_different_formats(
    tmp_path: Path,
) -> None:
    (trec,) = read(
        write(tmp_path, "d.trec", "<DOC><DOCNO>d</DOCNO><TITLE>T</TITLE><TEXT>Body</TEXT></DOC>\n")
    )
    (jsonl,) = read(write(tmp_path, "d.jsonl", '{"id": "d", "title": "T", "text": "Body"}'))
    (tsv,) = read(write(tmp_path, "d.tsv", "d\tT\tBody\n"))
    assert trec.checksum == jsonl.checksum == tsv.checksum
    assert len(trec.checksum) == 32
    int(trec.checksum, 16)


@pytest.mark.parametrize(
    "change",
    [
        {"id": "e"},
        {"title": "T2"},
        {"text": "Body2"},
        {"text": "<html>Body</html>"},
        {"url": "http://x"},
        {"extra": 1},
        {"title": "T\u0000", "text": "Body"},
    ],
)
def test_checksum_changes_when_any_stored_field_changes(
    tmp_path: Path, change: dict[str, object]
) -> None:
    base = {"id": "d", "title": "T", "text": "Body"}
    (first,) = read(write(tmp_path, "a.jsonl", json.dumps(base)))
    records, _ = documents_of(write(tmp_path, "b.jsonl", json.dumps({**base, **change})))
    assert all(r.checksum != first.checksum for r in records)


def test_field_joins_cannot_collide_when_text_moves_between_title_and_body(
    tmp_path: Path,
) -> None:
    (a,) = read(write(tmp_path, "a.jsonl", json.dumps({"id": "d", "title": "ab", "text": "c"})))
    (b,) = read(write(tmp_path, "b.jsonl", json.dumps({"id": "d", "title": "a", "text": "bc"})))
    assert a.checksum != b.checksum

"""Document collection parser, TSV: headerless and named columns, and problems
naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.document_files import problems_of, read, write


def test_tsv_two_and_three_columns_are_id_text_and_id_title_text_when_headerless(
    tmp_path: Path,
) -> None:
    (two,) = read(write(tmp_path, "two.tsv", "p1\tpassage text\r\n"))
    (three,) = read(write(tmp_path, "three.tsv", "\nd1\tA title\tbody text\n\n"))
    assert (two.docno, two.title, two.body) == ("p1", "", "passage text")
    assert (three.docno, three.title, three.body, three.line) == ("d1", "A title", "body text", 2)


def test_tsv_header_names_the_columns_and_extra_ones_are_metadata_when_given(
    tmp_path: Path,
) -> None:
    content = "docno\ttext\tsource\ttitle\nd1\tthe body\tnyt\tthe title\n"
    (doc,) = read(write(tmp_path, "h.tsv", content))
    assert (doc.docno, doc.title, doc.body, doc.line) == ("d1", "the title", "the body", 2)
    assert doc.metadata == {"source": "nyt"}


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("a\tb\nc\td\te\n", 2, "3 columns, expected 2 (as on line 1)"),
        ("id\ttitle\ttext\nc\td\n", 2, "2 columns, expected 3 (as on line 1)"),
        ("a\tb\tc\td\n", 1, "4 columns: a TSV collection has id<TAB>text"),
        ("a\tb\n\tno id\n", 2, "empty docno"),
        (b"a\tb\nc\t\xff\n", 2, "not valid UTF-8 (byte 0xff at column 3)"),
    ],
)
def test_tsv_problem_names_line_when_a_row_is_bad(
    tmp_path: Path, content: str | bytes, line: int, message: str
) -> None:
    (problem, *_) = problems_of(write(tmp_path, "c.tsv", content), "tsv")
    assert problem.startswith(f"c.tsv line {line}: ")
    assert message in problem

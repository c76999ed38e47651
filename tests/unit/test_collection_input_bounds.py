"""Collection and topic files: bounded text with a clear error, and a byte order mark accepted."""

from __future__ import annotations

from pathlib import Path

import pytest

from collection.core.formats.errors import ImportFileError
from collection.core.formats.formula_index import formula_index_copy_lines, parse_formula_index
from collection.core.formats.stackexchange import parse_comments, parse_posts
from collection.core.formats.topics import parse_topic_formulas, parse_topics

V3 = "id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"


def topic_xml(title: str = "T", tags: str = "algebra", number: str = "A.1") -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<Topics>\n'
        f'<Topic number="{number}"><Title>{title}</Title><Question>Q</Question>'
        f"<Tags>{tags}</Tags></Topic>\n</Topics>\n"
    )


@pytest.mark.parametrize(
    ("xml", "message"),
    [
        (topic_xml(title="t" * 1001), "topic A.1: <Title> has 1,001 characters (at most 1,000)"),
        (topic_xml(number="A." + "1" * 30), "<Number> has 32 characters (at most 20)"),
        (topic_xml(tags="x" * 101), "topic A.1: a tag has 101 characters (at most 100)"),
        (topic_xml(tags=",".join(f"t{n}" for n in range(51))), "51 tags (at most 50)"),
    ],
)
def test_topic_field_over_its_bound_is_an_error_with_its_line_when_imported(
    tmp_path: Path, xml: str, message: str
) -> None:
    path = tmp_path / "topics.xml"
    path.write_text(xml)
    with pytest.raises(ImportFileError) as error:
        list(parse_topics(path))
    assert message in str(error.value)
    assert error.value.line == 3


def test_topic_file_with_a_byte_order_mark_is_read_when_imported(tmp_path: Path) -> None:
    path = tmp_path / "topics.xml"
    path.write_bytes(b"\xef\xbb\xbf" + topic_xml().encode())
    assert [t.number for t in parse_topics(path)] == ["A.1"]


def test_topic_formula_tsv_with_a_byte_order_mark_is_read_when_imported(tmp_path: Path) -> None:
    path = tmp_path / "topic-formulas-latex.tsv"
    path.write_bytes(
        b"\xef\xbb\xbfid\ttopic_id\tthread_id\ttype\tformula\nq_1\tA.1\t5\ttitle\tx^2\n"
    )
    assert [(r.formula_id, r.topic, r.text) for r in parse_topic_formulas(path)] == [
        ("q_1", "A.1", "x^2")
    ]


def test_formula_index_with_a_byte_order_mark_is_read_when_imported(tmp_path: Path) -> None:
    path = tmp_path / "latex.tsv"
    path.write_bytes(b"\xef\xbb\xbf" + (V3 + "1\t10\t9\tanswer\t\t\t7\t\tx^2\n").encode())
    assert [row[0] for row in parse_formula_index(path)] == [1]
    assert len(list(formula_index_copy_lines(path))) == 1


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("1\t10\t9\tanswer\t\t\t" + "7" * 41 + "\t\tx\n", "visual_id has 41 characters"),
        ("1\t10\t9\tanswer\t\t\t7\t" + "i" * 21 + "\tx\n", "issue has 21 characters"),
        ("1\t10\t9\tanswer\t\t\t7\t\t" + "x" * 1_000_001 + "\n", "formula has 1,000,001"),
    ],
)
def test_formula_index_cell_over_its_bound_is_an_error_with_its_line_when_imported(
    tmp_path: Path, row: str, message: str
) -> None:
    path = tmp_path / "latex.tsv"
    path.write_text(V3 + "2\t10\t9\tanswer\t\t\t8\t\ty\n" + row)
    for reader in (parse_formula_index, formula_index_copy_lines):
        with pytest.raises(ImportFileError) as error:
            list(reader(path))
        assert message in str(error.value)
        assert "line 3" in str(error.value)


def test_post_body_over_its_bound_is_an_error_with_its_line_when_imported(tmp_path: Path) -> None:
    path = tmp_path / "Posts.xml"
    body = "b" * 1_000_001
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<posts>\n'
        '  <row Id="1" PostTypeId="1" Title="t" Body="fine" />\n'
        f'  <row Id="2" PostTypeId="2" ParentId="1" Body="{body}" />\n</posts>\n'
    )
    with pytest.raises(ImportFileError, match=r"Posts.xml line 4: Body has 1,000,001 characters"):
        list(parse_posts(path))


def test_comment_over_its_bound_is_an_error_when_imported(tmp_path: Path) -> None:
    path = tmp_path / "Comments.xml"
    path.write_text(
        '<?xml version="1.0" encoding="utf-8"?>\n<comments>\n'
        f'  <row Id="1" PostId="2" Text="{"c" * 100_001}" />\n</comments>\n'
    )
    with pytest.raises(ImportFileError, match="Text has 100,001 characters"):
        list(parse_comments(path))

"""Document collection parser, TREC SGML: fields, nesting, file order, and
problems naming file and line."""

from __future__ import annotations

import html
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.document_files import FBIS, FT, LA, WEB, problems_of, read, write


def test_trec_fields_are_mapped_when_a_newswire_document_is_read(tmp_path: Path) -> None:
    (doc,) = read(write(tmp_path, "ft.trec", FT))
    assert doc.docno == "FT911-3"
    assert doc.title == "FT 14 MAY 91 / AT&T & partners - a deal"
    assert doc.body == (
        "First paragraph, line one\nand line two.\n\nSecond paragraph <quoted>.\n\n"
        "A second TEXT element."
    )
    assert doc.body_format == "text"
    assert doc.metadata == {"profile": "_AN-BEOA7AAIFT", "date": "910514"}
    assert doc.line == 1


def test_trec_lower_case_tags_paragraphs_and_comments_are_read_when_on_one_line(
    tmp_path: Path,
) -> None:
    (doc,) = read(write(tmp_path, "la.trec", LA))
    assert (doc.docno, doc.title) == ("LA010189-0001", "Lower-case tags")
    assert doc.body == "One.\n\nTwo nested."


def test_trec_web_page_after_dochdr_is_html_with_its_url_when_read(tmp_path: Path) -> None:
    (doc,) = read(write(tmp_path, "gov2.trec", WEB))
    assert doc.body_format == "html"
    assert doc.body.startswith("<html><head><title>A web page</title>")
    assert doc.url == "http://www.example.gov/page.html"
    assert doc.title == "A web page"


def test_trec_nested_title_is_used_when_no_top_level_title_exists(tmp_path: Path) -> None:
    (doc,) = read(write(tmp_path, "fbis.trec", FBIS))
    assert doc.title == "Nested FBIS Title"
    assert doc.body == "Body text."


def test_trec_documents_keep_file_order_and_lines_when_several_share_a_file(
    tmp_path: Path,
) -> None:
    records = read(write(tmp_path, "many.trec", FT + LA + "\n" + WEB))
    assert [(r.docno, r.line) for r in records] == [
        ("FT911-3", 1),
        ("LA010189-0001", 17),
        ("GX000-00-0000000", 19),
    ]


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        ("<DOC>\n<TEXT>x</TEXT>\n</DOC>\n", 1, "no <DOCNO> in this <DOC>"),
        ("\n<DOC>\n<DOCNO>  </DOCNO>\n</DOC>\n", 3, "empty <DOCNO>"),
        (f"<DOC><DOCNO>{'d' * 201}</DOCNO></DOC>\n", 1, "docno has 201 characters (at most 200)"),
        ("<DOC><DOCNO>a b</DOCNO></DOC>\n", 1, "docno 'a b' contains whitespace"),
        ("<DOC>\n<DOCNO>a</DOCNO>\n<DOCNO>b</DOCNO>\n</DOC>\n", 3, "a second <DOCNO>"),
        ("<DOC>\n<DOCNO>a</DOCNO>\n<TEXT>\nno end\n</DOC>\n", 3, "<TEXT> is not closed"),
        ("<DOC>\n<DOCNO>a</DOCNO>\n", 1, "<DOC> not closed at the end of the file (line 2)"),
        ("<DOC>\n<DOCNO>a</DOCNO>\n<DOC>\n<DOCNO>b</DOCNO></DOC>\n", 1, "not closed before line 3"),
        ("junk\n<DOC><DOCNO>a</DOCNO></DOC>\n", 1, "text outside <DOC> … </DOC>"),
        ("<DOC><DOCNO>a</DOCNO></DOC>\n</DOC>\n", 2, "</DOC> without its <DOC>"),
    ],
)
def test_trec_problem_names_file_and_line_when_the_sgml_is_broken(
    tmp_path: Path, content: str, line: int, message: str
) -> None:
    (problem, *_) = problems_of(write(tmp_path, "broken.trec", content), "trec")
    assert problem.startswith(f"broken.trec line {line}: ")
    assert message in problem


def test_trec_bad_utf8_is_a_problem_at_its_line_and_column_when_read(tmp_path: Path) -> None:
    content = b"<DOC>\n<DOCNO>a</DOCNO>\n<TEXT>caf\xe9</TEXT>\n</DOC>\n"
    assert problems_of(write(tmp_path, "latin1.trec", content)) == [
        "latin1.trec line 3: not valid UTF-8 (byte 0xe9 at column 10)"
    ]


_LINE = st.text(
    st.characters(exclude_categories=["Cs", "Cc", "Zl", "Zp"], exclude_characters="\x85"),
    min_size=1,
    max_size=40,
).filter(lambda text: text.strip() != "")


@settings(max_examples=60, deadline=None)
@given(docs=st.lists(st.tuples(_LINE, _LINE), min_size=1, max_size=6))
def test_trec_round_trips_escaped_text_when_written_as_sgml(
    tmp_path_factory: pytest.TempPathFactory, docs: list[tuple[str, str]]
) -> None:
    path = tmp_path_factory.mktemp("rt") / "c.trec"
    path.write_text(
        "".join(
            f"<DOC>\n<DOCNO>D{n}</DOCNO>\n<TITLE>{html.escape(title)}</TITLE>\n"
            f"<TEXT>\n{html.escape(body)}\n</TEXT>\n</DOC>\n"
            for n, (title, body) in enumerate(docs)
        )
    )
    records = read(path)
    assert [(r.docno, r.title, r.body) for r in records] == [
        (f"D{n}", " ".join(title.split()), body.strip()) for n, (title, body) in enumerate(docs)
    ]


def test_trec_hostile_markup_is_read_in_one_pass_when_tags_and_comments_never_close(
    tmp_path: Path,
) -> None:
    # 30,000 unclosed <P> at the top level and unclosed comments in TEXT: a scanner that looks
    # for each one's end from scratch would read ~10^9 characters here; this one reads each once.
    stray = "<P>word " * 30_000
    comments = "x <!-- y " * 30_000
    content = f"<DOC><DOCNO>h</DOCNO>{stray}<TEXT>a <!-- b --> c {comments}</TEXT></DOC>\n"
    (doc,) = read(write(tmp_path, "hostile.trec", content))
    assert doc.body == "a  c x\n\n" + "\n\n".join(["word"] * 30_000)

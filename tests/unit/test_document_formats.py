"""Document collection parsers (issue 13 §1): TREC SGML, JSONL, TSV; gzip, BOM, and errors that
name file, line and field."""

from __future__ import annotations

import gzip
import html
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collection.formats.documents import (
    MAX_PROBLEMS,
    DocumentRecord,
    detect_format,
    documents_of,
)
from collection.formats.errors import ImportFileError

FT = """<DOC>
<DOCNO> FT911-3 </DOCNO>
<PROFILE>_AN-BEOA7AAIFT</PROFILE>
<DATE>910514
</DATE>
<HEADLINE>
FT  14 MAY 91 / AT&T &amp; partners &hyph; a deal
</HEADLINE>
<TEXT>
First paragraph, line one
   and line two.

Second paragraph &lt;quoted&gt;.
</TEXT>
<TEXT>A second TEXT element.</TEXT>
</DOC>
"""
LA = (
    "<doc><docno>LA010189-0001</docno><headline><P>Lower-case tags</P></headline>"
    "<text><P>One.</P><!-- a comment --><P>Two <F P=100>nested</F>.</P></text></doc>\n"
)
WEB = """<DOC>
<DOCNO>GX000-00-0000000</DOCNO>
<DOCHDR>
http://www.example.gov/page.html
HTTP/1.1 200 OK
Content-Type: text/html
</DOCHDR>
<html><head><title>A web page</title></head><body><p>Hello &amp; welcome</p></body></html>
</DOC>
"""
FBIS = """<DOC>
<DOCNO> FBIS3-1 </DOCNO>
<HEADER>
<H2>   March Reports   </H2>
<DATE1>  1 March 1994 </DATE1>
<H3> <TI>      Nested FBIS Title     </TI></H3>
</HEADER>
<TEXT>
Body text.
</TEXT>
</DOC>
"""


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, str):
        content = content.encode("utf-8")
    path.write_bytes(content)
    return path


def read(path: Path, file_format: str = "auto") -> list[DocumentRecord]:
    records, problems = documents_of(path, file_format)
    assert not problems, problems.messages()
    return records


def problems_of(path: Path, file_format: str = "auto") -> list[str]:
    _, problems = documents_of(path, file_format)
    assert problems, f"no problem found in {path.name}"
    return problems.messages()


# TREC SGML


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


# JSONL


@pytest.mark.parametrize(
    ("obj", "docno"),
    [
        ({"doc_id": "d1", "docno": "x", "id": "y", "_id": "z"}, "d1"),
        ({"docno": "d2", "id": "y", "_id": "z"}, "d2"),
        ({"id": 17, "_id": "z"}, "17"),
        ({"_id": "d4"}, "d4"),
    ],
)
def test_jsonl_id_comes_from_the_first_known_field_when_several_are_given(
    tmp_path: Path, obj: dict[str, object], docno: str
) -> None:
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps(obj) + "\n"))
    assert doc.docno == docno
    used = next(k for k in ("doc_id", "docno", "id", "_id") if k in obj)
    assert doc.metadata == {k: v for k, v in obj.items() if k != used}


@pytest.mark.parametrize("body_field", ["text", "contents", "body"])
def test_jsonl_title_body_url_and_metadata_are_kept_when_read(
    tmp_path: Path, body_field: str
) -> None:
    obj = {
        "id": "d",
        "title": "T",
        body_field: "B\nwith lines",
        "url": "https://e.org/d",
        "lang": "en",
        "tags": [1, "two", None],
    }
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps(obj) + "\n\n"))
    assert (doc.title, doc.body, doc.url) == ("T", "B\nwith lines", "https://e.org/d")
    assert doc.metadata == {"lang": "en", "tags": [1, "two", None]}
    assert doc.body_format == "text"


def test_jsonl_html_body_is_marked_html_when_it_starts_as_a_page(tmp_path: Path) -> None:
    obj = {"id": "d", "text": "  <!DOCTYPE html><html><body>x</body></html>"}
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps(obj)))
    assert doc.body_format == "html"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"id": "a", "text": "x"', "not valid JSON: Expecting ',' delimiter (column 24)"),
        ('["a", "b"]', "a line must hold a JSON object, not an array"),
        ('{"text": "x"}', "no id field (doc_id, docno, id or _id)"),
        ('{"id": 1.5}', "field id must be a string or an integer, not a number"),
        ('{"docno": true}', "field docno must be a string or an integer, not a boolean"),
        ('{"id": "a", "title": 3}', "docno a: field title must be a string, not a number"),
        ('{"id": "a", "contents": ["x"]}', "docno a: field contents must be a string, not an"),
        ('{"id": "a", "url": {}}', "docno a: field url must be a string, not an object"),
        ('{"id": "a", "score": NaN}', "not valid JSON: NaN is not a JSON number"),
        ('{"id": ""}', "empty docno"),
        ('{"id": "a\\tb"}', "contains whitespace"),
        ('{"id": "a", "text": "x\\u0000y"}', "docno a: field body contains a NUL character"),
        ('{"id": "a", "m": "x\\u0000y"}', "docno a: field metadata contains a NUL character"),
        ('{"id": "a", "text": "\\ud800"}', "docno a: field body contains an unpaired surrogate"),
    ],
)
def test_jsonl_problem_names_line_and_field_when_a_line_is_bad(
    tmp_path: Path, line: str, message: str
) -> None:
    content = '{"id": "ok", "text": "fine"}\n' + line + "\n"
    (problem,) = problems_of(write(tmp_path, "c.jsonl", content), "jsonl")
    assert problem.startswith("c.jsonl line 2: ")
    assert message in problem


def test_jsonl_literal_backslash_u0000_is_text_not_a_nul_when_read(tmp_path: Path) -> None:
    (doc,) = read(write(tmp_path, "c.jsonl", json.dumps({"id": "a", "m": "\\u0000"})))
    assert doc.metadata == {"m": "\\u0000"}


def test_jsonl_reading_stops_at_the_problem_limit_when_every_line_is_bad(tmp_path: Path) -> None:
    path = write(tmp_path, "c.jsonl", "nope\n" * (MAX_PROBLEMS + 50))
    _, problems = documents_of(path, "jsonl")
    assert len(problems.found) == MAX_PROBLEMS


# TSV


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


# Every format: gzip, BOM, detection, large documents, checksums


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


_TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\x00"), max_size=60)


@settings(max_examples=60, deadline=None)
@given(
    docs=st.dictionaries(
        st.text(
            st.characters(
                min_codepoint=33,
                max_codepoint=0x2FFF,
                exclude_categories=["Cs", "Zs", "Zl", "Zp", "Cc"],
            ),
            min_size=1,
            max_size=20,
        ),
        st.tuples(_TEXT, _TEXT),
        min_size=1,
        max_size=8,
    )
)
def test_jsonl_round_trips_any_text_when_written_by_json_dumps(
    tmp_path_factory: pytest.TempPathFactory, docs: dict[str, tuple[str, str]]
) -> None:
    path = tmp_path_factory.mktemp("rt") / "c.jsonl"
    path.write_text(
        "".join(json.dumps({"id": d, "title": t, "text": b}) + "\n" for d, (t, b) in docs.items())
    )
    records, problems = documents_of(path, "jsonl")
    expected = {d: tb for d, tb in docs.items() if d.split() == [d]}
    assert {r.docno: (r.title, r.body) for r in records} == expected
    assert len(problems.found) == len(docs) - len(expected)


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

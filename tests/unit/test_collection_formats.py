"""Parsers of topic files, the Stack Exchange dump and the formula index (pure, no database)."""

import csv
import io
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from collection.core.formats.errors import ImportFileError
from collection.core.formats.formula_index import (
    formula_index_copy_lines,
    parse_formula_index,
    parse_slt,
)
from collection.core.formats.stackexchange import RowProgress, parse_comments, parse_posts
from collection.core.formats.topics import parse_topic_formulas, parse_topics, split_tags
from collection.core.formats.visual_ids import canonical_latex, computed_visual_id

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "se_sample"
V3 = "id\tpost_id\tthread_id\ttype\tcomment_id\told_visual_id\tvisual_id\tissue\tformula\n"
FIVE = "id\tpost_id\tthread_id\ttype\tformula\n"


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def topics_xml(*topics: str, root: str = "Topics") -> str:
    return f'<?xml version="1.0" ?>\n<{root}>\n' + "\n".join(topics) + f"\n</{root}>\n"


ANSWER_TOPIC = (
    '  <Topic number="A.7">\n'
    "    <Title>Is &lt;span class=&quot;math-container&quot; id=&quot;q_1&quot;&gt;$x$"
    "&lt;/span&gt; real?</Title>\n"
    "    <Question>&lt;p&gt;Why &amp;amp; how?&lt;/p&gt;</Question>\n"
    "    <Tags>algebra,real-analysis</Tags>\n"
    "  </Topic>"
)
FORMULA_TOPIC = (
    '  <Topic number="B.7">\n'
    "    <Formula_Id>q_1</Formula_Id>\n"
    "    <Latex>x &lt; 1</Latex>\n"
    "    <Title>T</Title>\n"
    "    <Question>Q</Question>\n"
    "    <Tags>algebra</Tags>\n"
    "    <Category>Proof</Category>\n"
    "  </Topic>"
)


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("algebra,real-analysis", ["algebra", "real-analysis"]),
        ("<algebra><real-analysis>", ["algebra", "real-analysis"]),
        ("|algebra|real-analysis|", ["algebra", "real-analysis"]),
        ("functions", ["functions"]),
        ("", []),
        (" a , b ", ["a", "b"]),
    ],
)
def test_split_tags_reads_each_written_form_when_given_tags(text: str, tags: list[str]) -> None:
    assert split_tags(text) == tags


def test_parse_topics_unescapes_html_when_reading_the_answer_form(tmp_path: Path) -> None:
    [topic] = parse_topics(write(tmp_path, "t.xml", topics_xml(ANSWER_TOPIC)))
    assert topic.number == "A.7"
    assert topic.form == "answer"
    assert topic.title == 'Is <span class="math-container" id="q_1">$x$</span> real?'
    assert topic.question == "<p>Why &amp; how?</p>"
    assert topic.tags == ["algebra", "real-analysis"]
    assert (topic.formula_id, topic.latex, topic.line) == ("", "", 3)


def test_parse_topics_reads_the_query_formula_when_given_the_formula_form(tmp_path: Path) -> None:
    [topic] = parse_topics(write(tmp_path, "t.xml", topics_xml(FORMULA_TOPIC)))
    assert (topic.form, topic.formula_id, topic.latex) == ("formula", "q_1", "x < 1")
    assert topic.metadata == {"category": "Proof"}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (topics_xml(ANSWER_TOPIC, root="Queries"), 2, "unknown topic form: root <Queries>"),
        (topics_xml("<Query/>"), 3, "unknown topic form: <Query> in <Topics>"),
        (
            topics_xml("<Topic><Title>t</Title><Question>q</Question></Topic>"),
            3,
            "without a number",
        ),
        (topics_xml('<Topic number="A.1"><Title>t</Title></Topic>'), 3, "has no <Question>"),
        (
            topics_xml(FORMULA_TOPIC.replace("<Latex>x &lt; 1</Latex>", "")),
            3,
            "only one of <Formula_Id>, <Latex>",
        ),
        (topics_xml(ANSWER_TOPIC).replace("</Title>", "</Titel>"), 4, "malformed XML"),
    ],
)
def test_parse_topics_names_file_and_line_when_the_form_is_unknown(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = write(tmp_path, "task1-topics.xml", text)
    with pytest.raises(ImportFileError) as caught:
        list(parse_topics(path))
    assert caught.value.line == line
    assert message in str(caught.value)
    assert str(caught.value).startswith(f"task1-topics.xml line {line}: ")


def test_parse_topics_reads_every_real_topic_when_given_arqmath_files(arqmath_data: Path) -> None:
    counts = {}
    for year in ("2020", "2021", "2022"):
        for task in ("task1", "task2"):
            topics = list(parse_topics(arqmath_data / "topics" / year / f"{task}-topics.xml"))
            counts[(year, task)] = len(topics)
            assert {t.form for t in topics} == {"answer" if task == "task1" else "formula"}
    assert counts == {
        ("2020", "task1"): 98,
        ("2020", "task2"): 85,
        ("2021", "task1"): 100,
        ("2021", "task2"): 100,
        ("2022", "task1"): 100,
        ("2022", "task2"): 100,
    }


def test_parse_topic_formulas_reads_quoted_cells_when_given_the_slt_file(tmp_path: Path) -> None:
    text = (
        "id\ttopic_id\tthread_id\ttype\tformula\n"
        'q_1\tA.1\t55\ttitle\t"<math alttext=""x"">\n<mi>x</mi></math>"\n'
        "q_2\tA.1\t55\tquestion\tx^2\n"
        "q_3\tA.2\t\tbody\ty\n"
    )
    rows = list(parse_topic_formulas(write(tmp_path, "f.tsv", text)))
    assert [(r.formula_id, r.topic, r.thread_id, r.location, r.line) for r in rows] == [
        ("q_1", "A.1", 55, "title", 2),
        ("q_2", "A.1", 55, "body", 4),
        ("q_3", "A.2", None, "body", 5),
    ]
    assert rows[0].text == '<math alttext="x">\n<mi>x</mi></math>'


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        ("q_1\tA.1\t55\ttitle\n", 2, "4 columns, the header has 5"),
        ("q_1\tA.1\t55\tfooter\tx\n", 2, "unknown formula type 'footer'"),
        ("q_1\tA.1\t5x\ttitle\tx\n", 2, "thread_id is not an integer"),
    ],
)
def test_parse_topic_formulas_names_the_line_when_a_row_is_bad(
    tmp_path: Path, body: str, line: int, message: str
) -> None:
    path = write(tmp_path, "f.tsv", "id\ttopic_id\tthread_id\ttype\tformula\n" + body)
    with pytest.raises(ImportFileError, match=f"f.tsv line {line}: {message}"):
        list(parse_topic_formulas(path))


def test_parse_posts_builds_threads_from_parent_ids_when_reading_the_sample() -> None:
    progress = RowProgress()
    posts = list(parse_posts(SAMPLE / "Posts.xml", progress))
    assert [(p.id, p.kind, p.thread_id) for p in posts] == [
        (10, 1, 10),
        (11, 2, 10),
        (12, 2, 10),
        (20, 1, 20),
        (21, 2, 20),
    ]
    question = posts[0]
    assert question.title == "Squares of reals are nonnegative"
    assert question.tags == ["algebra-precalculus", "inequality"]
    assert question.body.startswith('<p>Why is <span class="math-container" id="1">')
    assert question.created_at == datetime(2012, 3, 4, 5, 6, 7, 890000, tzinfo=UTC)
    assert (question.score, question.owner_user_id, question.line) == (7, 3, 3)
    assert (posts[3].score, posts[3].owner_user_id) == (-1, None)
    assert ("\n" in posts[4].body, "\t" in posts[4].body) == (True, True)
    assert progress.rows == 6  # the tag wiki (PostTypeId 5) is read, not a thread
    assert progress.bytes_read == (SAMPLE / "Posts.xml").stat().st_size


def test_parse_comments_reads_every_field_when_reading_the_sample() -> None:
    comments = list(parse_comments(SAMPLE / "Comments.xml"))
    assert [(c.id, c.post_id, c.score, c.user_id) for c in comments] == [
        (100, 10, 1, 6),
        (101, 12, 0, None),
    ]
    assert comments[0].text == "Hint: consider $x<0$ and $x \\ge 0$ separately."


@pytest.mark.parametrize(
    ("rows", "line", "message"),
    [
        ('<row Id="1" PostTypeId="1" Body="b"/>\n<row Id="2" Body="a<b"/>', 4, "malformed XML"),
        ('<row PostTypeId="1" Body="b"/>', 3, "row has no Id"),
        ('<row Id="x1" PostTypeId="1"/>', 3, "Id is not an integer: 'x1'"),
        (
            '<row Id="1" PostTypeId="1"/>\n<row Id="2" PostTypeId="2"/>',
            4,
            "answer 2 has no ParentId",
        ),
        ('<row Id="1" PostTypeId="1" CreationDate="yesterday"/>', 3, "CreationDate is not a date"),
    ],
)
def test_parse_posts_names_file_and_line_when_a_row_is_bad(
    tmp_path: Path, rows: str, line: int, message: str
) -> None:
    path = write(tmp_path, "Posts.xml", f'<?xml version="1.0"?>\n<posts>\n{rows}\n</posts>\n')
    with pytest.raises(ImportFileError) as caught:
        list(parse_posts(path))
    assert caught.value.line == line
    assert str(caught.value).startswith(f"Posts.xml line {line}: {message}")


def test_parse_formula_index_reads_the_v3_form_when_the_header_says_so() -> None:
    rows = list(parse_formula_index(SAMPLE / "formulas-v3.tsv"))
    assert len(rows) == 8
    assert rows[0] == (1, 10, 10, "question", None, "5001", "900", "", "x^2 \\geq 0")
    assert rows[3][7] == "d"
    assert rows[4][8] == "\\sum_{n=1}^\\infty \\frac{1}{n}"  # a quoted cell, unquoted
    assert rows[6][3:5] == ("comment", 100)
    # No visual id given: computed from the LaTeX.
    assert rows[7][5] == computed_visual_id(canonical_latex("|x|^2 \\geq 0"))


def test_parse_formula_index_computes_visual_ids_when_given_the_five_column_form() -> None:
    rows = list(parse_formula_index(SAMPLE / "formulas-5col.tsv"))
    assert [r[0] for r in rows] == [1, 2, 3, 4, 5, 6]
    assert all(r[5].startswith("c") and r[4] is None for r in rows)
    assert rows[4][5] == rows[5][5]  # differ only in white space


def test_parse_formula_index_reads_the_six_column_form_when_it_has_visual_ids(
    tmp_path: Path,
) -> None:
    text = "id\tpost_id\tthread_id\ttype\tvisual_id\tformula\n9\t1\t1\ttitle\t0042\tx\n"
    [row] = parse_formula_index(write(tmp_path, "f.tsv", text))
    assert row == (9, 1, 1, "title", None, "42", "", "", "x")


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("id\tpost\tformula\n1\t2\tx\n", 1, "unknown formula index header"),
        (
            V3 + "1\t10\t10\tquestion\t\t1\t1\t\tx\n2\t10\t10\tquestion\t\t1\t1\tx\n",
            3,
            "8 columns, the header has 9",
        ),
        (
            FIVE + "1\t10\t10\tquestion\tx\n2\tten\t10\tquestion\tx\n",
            3,
            "post_id is not an integer: 'ten'",
        ),
        (FIVE + "1\t10\t10\tfootnote\tx\n", 2, "unknown formula type 'footnote'"),
        (FIVE + '1\t10\t10\tquestion\t"x\n', 2, "bad TSV quoting"),
        ("", 1, "empty file"),
    ],
)
@pytest.mark.parametrize("parse", [parse_formula_index, formula_index_copy_lines])
def test_parse_formula_index_names_file_and_line_when_a_row_is_bad(
    tmp_path: Path, text: str, line: int, message: str, parse: Callable[[Path], Iterable[object]]
) -> None:
    path = write(tmp_path, "latex_1.tsv", text)
    with pytest.raises(ImportFileError) as caught:
        list(parse(path))
    assert (caught.value.line, caught.value.path) == (line, str(path))
    assert str(caught.value).startswith(f"latex_1.tsv line {line}: {message}")


def test_parse_slt_keeps_empty_cells_and_multi_line_mathml_when_reading_the_sample() -> None:
    rows = list(parse_slt(SAMPLE / "formulas-slt.tsv"))
    assert [(r.formula_id, r.line) for r in rows] == [(2, 2), (5, 3), (6, 4), (3, 8)]
    assert rows[2].slt.count("\n") == 3
    assert rows[3].slt == ""


def test_import_file_error_reads_file_line_problem_when_printed() -> None:
    assert str(ImportFileError("/x/Posts.xml", 12, "no Id")) == "Posts.xml line 12: no Id"
    assert str(ImportFileError("/x/Posts.xml", None, "gone")) == "Posts.xml: gone"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.text(
            alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00\r"),
            max_size=40,
        ),
        min_size=1,
        max_size=8,
    )
)
def test_parse_formula_index_round_trips_any_latex_when_written_by_csv(
    tmp_path_factory: pytest.TempPathFactory, latex: list[str]
) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(["id", "post_id", "thread_id", "type", "formula"])
    for i, text in enumerate(latex):
        writer.writerow([i, 7, 7, "answer", text])
    path = tmp_path_factory.mktemp("idx") / "f.tsv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    rows = list(parse_formula_index(path))
    assert [r[8] for r in rows] == latex
    assert [r[5] for r in rows] == [computed_visual_id(canonical_latex(t)) for t in latex]


def copy_unescape(cell: str) -> str | None:
    """Read one COPY text cell back (the inverse of the escaping PostgreSQL expects)."""
    if cell == "\\N":
        return None
    out, i = [], 0
    while i < len(cell):
        if cell[i] == "\\":
            out.append({"t": "\t", "n": "\n", "r": "\r", "\\": "\\"}[cell[i + 1]])
            i += 2
        else:
            out.append(cell[i])
            i += 1
    return "".join(out)


@pytest.mark.parametrize("name", ["formulas-v3.tsv", "formulas-5col.tsv"])
def test_copy_lines_carry_the_parsed_rows_when_read_back(name: str) -> None:
    rows = list(parse_formula_index(SAMPLE / name))
    lines = list(formula_index_copy_lines(SAMPLE / name))
    assert len(lines) == len(rows)
    for row, line in zip(rows, lines, strict=True):
        assert line.endswith("\n")
        fid, pid, tid, location, cid, old, vid, issue, latex = map(
            copy_unescape, line[:-1].split("\t")
        )
        assert (fid, pid, tid, location, cid) == tuple(
            None if v is None else str(v) for v in row[:5]
        )
        assert (vid, old, issue, latex) == row[5:]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(
                alphabet=st.characters(exclude_categories=["Cs"], exclude_characters="\x00\r"),
                max_size=30,
            ),
            st.sampled_from(["", "17", "0042"]),
            st.sampled_from(["", "comment"]),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_copy_lines_agree_with_the_parser_when_given_any_v3_rows(
    tmp_path_factory: pytest.TempPathFactory, cells: list[tuple[str, str, str]]
) -> None:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(V3.split())
    for i, (latex, visual_id, issue) in enumerate(cells):
        writer.writerow([i, 7, 7, "answer", "", "", visual_id, issue, latex])
    path = tmp_path_factory.mktemp("idx") / "f.tsv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    for row, line in zip(parse_formula_index(path), formula_index_copy_lines(path), strict=True):
        cells_back = [copy_unescape(c) for c in line[:-1].split("\t")]
        assert cells_back[6] == row[5]  # visual id: given (decimal text) or computed
        assert cells_back[7:9] == [row[7], row[8]]

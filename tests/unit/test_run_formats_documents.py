"""TREC runs of document tasks, parsed without a database."""

from __future__ import annotations

import io

import pytest

from pooling.core.formats import RunContext, read_run

KNOWN = {"d-1", "d-2", "é-3", "x" * 200}


def parse(text: str | bytes, *, tag: str | None = "t", known: set[str] | None = None):
    lookup = None if known is None else (lambda docnos: docnos & known)
    context = RunContext(
        task_kind="document",
        topics=frozenset({"1", "2"}),
        document_docnos=lookup,
        collection="news",
    )
    data = text.encode() if isinstance(text, str) else text
    return read_run(io.BytesIO(data), name="r.run", context=context, tag=tag)


def test_docnos_are_kept_as_strings_whatever_the_second_column_says() -> None:
    run = parse("1 Q0 d-1 1 2.0 t\n1 0 0042 2 1.5 t\n2\tX\té-3\t1\t-1e-3\tt\r\n")
    assert run.ok, run.errors
    assert run.format == "trec"
    assert [(r.topic, r.doc, r.post_id, r.rank, r.score) for r in run.rows] == [
        ("1", "d-1", None, 1, 2.0),
        ("1", "0042", None, 2, 1.5),
        ("2", "é-3", None, 1, -0.001),
    ]


def test_fast_and_detailed_paths_give_the_same_rows_when_lines_vary() -> None:
    fast = parse("1 Q0 d-1 1 2 t\n1 Q0 d-2 2 1 t\n")
    # a first line whose tag is not yet known takes the detailed path: same result
    detailed = parse("1 Q0 d-1 1 2 t\n1 Q0 d-2 2 1 t\n", tag=None)
    assert fast.rows == detailed.rows
    assert detailed.tag == "t"


@pytest.mark.parametrize(
    ("line", "field", "words"),
    [
        ("1 Q0 " + "y" * 201 + " 1 1 t", "docno", "201 characters (at most 200)"),
        ("1 Q0 d\x01x 1 1 t", "docno", "control characters"),
        ("1 Q0 d-1 1001 1 t", "rank", "outside 0..1000"),
        ("1 Q0 d-1 1 inf t", "score", "not finite"),
        ("1 Q0 d-1 1 1_0 t", "score", "not a number"),
        ("3 Q0 d-1 1 1 t", "topic", "not a topic of this task"),
    ],
)
def test_a_bad_field_is_reported_on_its_line(line: str, field: str, words: str) -> None:
    run = parse("1 Q0 d-2 5 9 t\n" + line + "\n")
    assert [(p.line, p.field) for p in run.errors] == [(2, field)]
    assert words in run.errors[0].message


def test_unknown_docnos_are_each_reported_with_a_note_when_none_is_known() -> None:
    some = parse("1 Q0 d-1 1 2 t\n1 Q0 nope 2 1 t\n", known=KNOWN)
    assert [(p.line, p.message) for p in some.errors] == [
        (2, "document 'nope' is not in collection news")
    ]
    none = parse("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n", known=KNOWN)
    assert [p.line for p in none.errors] == [None, 1, 2]
    assert "none of the file's 2 docnos" in none.errors[0].message
    assert parse("1 Q0 " + "x" * 200 + " 1 1 t\n", known=KNOWN).ok


def test_a_run_counting_its_ranks_from_zero_is_read_as_written() -> None:
    # trec_eval ignores the rank column; real TREC runs (30 of TREC-COVID round 1's 143)
    # count it from 0, and both the fast and the detailed path take them.
    for tag in ("t", None):
        run = parse("1 Q0 d-1 0 2 t\n1 Q0 d-2 1 1 t\n", tag=tag)
        assert run.errors == []
        assert [(r.doc, r.rank) for r in run.rows] == [("d-1", 0), ("d-2", 1)]

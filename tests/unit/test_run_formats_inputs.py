"""Run files as hostile input: the submitted tag on every row,
a byte order mark, scores as trec_eval writes them, bounded text, and every problem at once."""

from __future__ import annotations

import gzip
import io

import pytest

from pooling.core.formats import MAX_LISTED, ParsedRun, RunContext, read_run

TOPICS = frozenset({"A.1", "A.2"})
BOM = b"\xef\xbb\xbf"


def parse(data: str | bytes, *, tag: str | None = None, **context: object) -> ParsedRun:
    raw = data.encode() if isinstance(data, str) else data
    ctx = RunContext(**context) if context else None  # type: ignore[arg-type]
    return read_run(io.BytesIO(raw), name="run.tsv", context=ctx, tag=tag)


def problems(run: ParsedRun) -> list[tuple[int | None, str]]:
    return [(p.line, p.message) for p in run.errors]


def test_every_row_with_another_tag_is_an_error_when_the_run_is_submitted_under_a_tag() -> None:
    text = "A.1\t5\t1\t0.9\tmine\nA.1\t6\t2\t0.8\ttheirs\nA.2\t7\t1\t0.7\ttheirs\n"
    run = parse(text, tag="mine")
    assert problems(run) == [
        (2, "run tag 'theirs' is not 'mine', the tag given for this run"),
        (3, "run tag 'theirs' is not 'mine', the tag given for this run"),
    ]
    assert run.tag == "mine"


def test_first_row_is_an_error_too_when_no_row_carries_the_submitted_tag() -> None:
    run = parse("A.1 Q0 5 1 0.9 other\nA.1 Q0 6 2 0.8 other\n", tag="mine")
    assert [line for line, _ in problems(run)] == [1, 2]
    assert run.error_count == 2


def test_file_is_accepted_when_every_row_carries_the_submitted_tag() -> None:
    run = parse("B.1\t77\t101\t1\t0.9\tmine\nB.1\t78\t102\t2\t0.5\tmine\n", tag="mine")
    assert run.ok, run.errors
    assert run.tag == "mine"


def test_a_long_foreign_tag_is_shown_shortened_when_reported() -> None:
    run = parse(f"A.1\t5\t1\t0.9\t{'x' * 5000}\n", tag="mine")
    (problem,) = run.errors
    assert len(problem.message) < 120
    assert "…" in problem.message


@pytest.mark.parametrize("compress", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize(
    "text",
    [
        "A.1\t5\t1\t0.9\tr\nA.2\t6\t1\t0.8\tr\n",  # Task 1, fast path
        "A.1 Q0 5 1 0.9 r\r\nA.2 Q0 6 1 0.8 r\r\n",  # TREC with CRLF
        "B.1\t77\t101\t1\t0.9\tr\n",  # Task 2, detailed path
    ],
)
def test_a_byte_order_mark_is_skipped_when_a_file_starts_with_one(
    text: str, compress: bool
) -> None:
    data = BOM + text.encode()
    run = parse(gzip.compress(data) if compress else data, topics=TOPICS | {"B.1"})
    assert run.ok, run.errors
    assert run.rows[0].topic in {"A.1", "B.1"}


@pytest.mark.parametrize("score", ["1", "-0.5", "1e-3", ".5", "5.", "+2", "-1E+3", "0"])
@pytest.mark.parametrize("layout", ["A.1\t5\t1\t{}\tr\n", "B.1\t77\t101\t1\t{}\tr\n"])
def test_score_is_read_when_written_as_trec_eval_writes_numbers(score: str, layout: str) -> None:
    run = parse(layout.format(score))
    assert run.ok, run.errors
    assert run.rows[0].score == float(score)


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("1_000", "score '1_000' is not a number"),
        ("0x10", "score '0x10' is not a number"),
        ("nan", "score 'nan' is not finite"),
        ("-inf", "score '-inf' is not finite"),
        ("Infinity", "score 'Infinity' is not finite"),
        ("1,5", "score '1,5' is not a number"),
        ("\u0661", "score '\u0661' is not a number"),
    ],
)
@pytest.mark.parametrize("layout", ["A.1\t5\t1\t{}\tr\n", "B.1\t77\t101\t1\t{}\tr\n"])
def test_score_is_an_error_with_its_line_when_trec_eval_would_not_write_it(
    score: str, message: str, layout: str
) -> None:
    run = parse(
        "A.2\t9\t1\t2\tr\n" + layout.format(score) if layout[0] == "A" else layout.format(score)
    )
    line = 2 if layout[0] == "A" else 1
    assert (line, message) in problems(run)
    assert not run.ok


def test_sources_longer_than_the_limit_are_an_error_when_a_task3_answer_cites_them() -> None:
    sources = ",".join(str(n) for n in range(1000))
    run = parse(f"A.1\t1\t1.0\tr\t{sources}\tThe answer.\n", task_kind="openqa")
    assert [(p.line, p.field) for p in run.errors] == [(1, "sources")]
    assert "at most 2,000" in run.errors[0].message


def _answer_posts(known: set[int]):  # type: ignore[no-untyped-def]
    return lambda ids: ids & known


def test_collection_and_shape_problems_are_reported_together_when_a_file_has_both() -> None:
    text = (
        "A.1\t2097\t1\t0.9\tmine\n"  # post 2097 is a question, not an answer
        "A.1\t11\tfirst\t0.8\tmine\n"  # rank is not a number
        "A.9\t12\t3\t0.7\tmine\n"  # unknown topic
        "A.1\t13\t4\t0.6\ttheirs\n"  # another tag
        "A.2\t3000\t1\t0.5\tmine\n"  # not an answer either
    )
    run = parse(
        text, tag="mine", task_kind="answer", topics=TOPICS, answer_posts=_answer_posts({11, 13})
    )
    assert problems(run) == [
        (1, "post 2097 is not an answer post of the collection"),
        (2, "rank 'first' is not an integer"),
        (3, "topic 'A.9' is not a topic of this task"),
        (4, "run tag 'theirs' is not 'mine', the tag given for this run"),
        (5, "post 3000 is not an answer post of the collection"),
    ]


def test_formula_not_in_its_post_is_reported_with_shape_problems_when_both_occur() -> None:
    text = "B.1\t77\t101\t1\t0.9\tr\nB.1\t78\t102\tx\t0.8\tr\n"
    run = parse(
        text, task_kind="formula", topics=frozenset({"B.1"}), formula_posts=lambda ids: {77: 555}
    )
    assert problems(run) == [
        (1, "formula 77 is in post 555, not in post 101"),
        (2, "rank 'x' is not an integer"),
    ]


def test_report_lists_the_first_problems_by_line_when_there_are_more_than_the_cap() -> None:
    bad_shape = "".join(f"A.1\t{n}\tx\t0.5\tr\n" for n in range(1000, 1000 + MAX_LISTED + 20))
    text = "A.1\t1\t1\t0.9\tr\n" + bad_shape + "A.2\t2\t1\t0.9\tr\n"
    run = parse(text, topics=TOPICS, answer_posts=_answer_posts(set()))
    lines = [p.line or 0 for p in run.errors]
    assert len(lines) == MAX_LISTED
    assert lines == sorted(lines)
    assert lines[0] == 1  # the collection check's problem on line 1 comes first
    assert run.error_count == MAX_LISTED + 20 + 2
    assert run.report()["more_errors"] == 22

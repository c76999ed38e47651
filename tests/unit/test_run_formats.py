"""Run file parsing and validation: every rule of docs/runs.md, table-driven."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from pooling.core.formats import (
    MAX_LISTED,
    ParsedRun,
    RunContext,
    RunFormat,
    read_run,
    read_run_path,
)

TOPICS = frozenset({"A.1", "A.2"})


def parse(text: str | bytes, **context: object) -> ParsedRun:
    data = text.encode() if isinstance(text, str) else text
    ctx = RunContext(**context) if context else None  # type: ignore[arg-type]
    return read_run(io.BytesIO(data), name="run.tsv", context=ctx)


def messages(run: ParsedRun) -> list[tuple[int | None, str]]:
    return [(p.line, p.message) for p in run.errors]


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        ("A.1\t101\t1\t0.9\trunA\n", None, RunFormat.ARQMATH_ANSWER),
        ("B.1\t77\t101\t1\t0.9\trunA\n", None, RunFormat.ARQMATH_FORMULA),
        ("A.1\t1\t0.9\trunA\t101,102\tThe answer is $x$.\n", None, RunFormat.ARQMATH_OPENQA),
        ("A.1 Q0 101 1 0.9 runA\n", None, RunFormat.TREC),
        ("A.1  101   1 0.9   runA\r\n", "answer", RunFormat.ARQMATH_ANSWER),
        ("B.1\tQ0\t77\t1\t0.9\trunA\n", "formula", RunFormat.TREC),
        ("A.1\t1\t0.9\trunA\t101\tAnswer\n", "openqa", RunFormat.ARQMATH_OPENQA),
    ],
)
def test_format_is_detected_when_reading_each_layout(
    text: str, kind: str | None, expected: RunFormat
) -> None:
    run = parse(text, task_kind=kind) if kind else parse(text)
    assert run.ok, run.errors
    assert run.format is expected
    assert run.tag == "runA"
    assert len(run.rows) == 1


def test_records_hold_ids_rank_score_and_line_when_parsing_task2() -> None:
    run = parse("B.1\t77\t101\t1\t0.9\tr\nB.1\t78\t102\t2\t0.5\tr\n")
    first, second = run.rows
    assert (first.topic, first.doc, first.formula_id, first.post_id) == ("B.1", "77", 77, 101)
    assert (second.rank, second.score, second.line) == (2, 0.5, 2)


def test_openqa_answer_keeps_the_rest_of_the_line_when_separated_by_spaces() -> None:
    run = parse("A.1 1 0.9 runA 101,102 The answer  is   $x^2$.\n")
    (row,) = run.rows
    assert row.answer == "The answer  is   $x^2$."
    assert row.sources == "101,102"
    assert row.doc == "A.1"


def test_gzip_and_crlf_are_read_when_the_file_is_compressed() -> None:
    data = gzip.compress(b"A.1\tQ0\t5\t1\t2.0\tt\r\nA.1\tQ0\t6\t2\t1.0\tt\r\n")
    run = parse(data)
    assert run.ok
    assert [r.post_id for r in run.rows] == [5, 6]


def test_non_seekable_stream_is_read_when_uploaded_through_a_pipe() -> None:
    class Pipe(io.RawIOBase):
        def __init__(self, data: bytes) -> None:
            self._data = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def seekable(self) -> bool:
            return False

        def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
            chunk = self._data.read(len(buffer))
            buffer[: len(chunk)] = chunk
            return len(chunk)

    for data in (b"A.1 Q0 5 1 2.0 t\n", gzip.compress(b"A.1 Q0 5 1 2.0 t\n")):
        run = read_run(Pipe(data))  # type: ignore[arg-type]
        assert run.ok
        assert run.rows[0].post_id == 5


# (file text, context, expected (line, message fragment)) -- one row per rule.
ERROR_CASES = [
    pytest.param("A.1\t5\t1\t0.9\n", {}, (1, "columns"), id="column-count"),
    pytest.param(
        "A.1 Q0 5 1 0.9 t\nA.1 Q0 6 x 0.8 t\n", {}, (2, "not an integer"), id="rank-nonint"
    ),
    pytest.param("A.1 Q0 5 0 0.9 t\n", {}, (1, "outside 1..1000"), id="rank-zero"),
    pytest.param("A.1 Q0 5 1001 0.9 t\n", {}, (1, "outside 1..1000"), id="rank-too-big"),
    pytest.param("A.1 Q0 5 1 high t\n", {}, (1, "not a number"), id="score-nonnumeric"),
    pytest.param("A.1 Q0 5 1 nan t\n", {}, (1, "not finite"), id="score-nan"),
    pytest.param("A.1 Q0 5 1 inf t\n", {}, (1, "not finite"), id="score-inf"),
    pytest.param("A.1 Q0 p5 1 1 t\n", {}, (1, "not an integer id"), id="post-nonint"),
    pytest.param(
        "A.1 Q0 5 1 0.9 t\nA.1 Q0 5 2 0.8 t\n", {}, (2, "repeated for topic A.1"), id="dup-doc"
    ),
    pytest.param(
        "A.1 Q0 5 1 0.9 t\nA.1 Q0 6 2 0.8 u\n", {}, (2, "run tag 'u' is not 't'"), id="tag-change"
    ),
    pytest.param(
        "A.9 Q0 5 1 0.9 t\n", {"topics": TOPICS}, (1, "not a topic of this task"), id="topic"
    ),
    pytest.param("", {}, (None, "empty file"), id="empty"),
    pytest.param("\n  \r\n", {}, (None, "empty file"), id="blank-only"),
    pytest.param(b"A.1 Q0 5 1 0.9 t\n\x00\x01\x02", {}, (2, "binary file"), id="binary"),
    pytest.param(b"A.1 Q0 5 1 0.9 \xff\xfe\n", {}, (1, "not UTF-8"), id="not-utf8"),
    pytest.param(b"\x1f\x8b\x08garbage", {}, (1, "unreadable compressed"), id="bad-gzip"),
    pytest.param("x y z\n", {}, (1, "unrecognised layout"), id="layout"),
    pytest.param(
        "A.1 Q0 5 1 0.9 t\n",
        {"answer_posts": lambda ids: set()},
        (1, "not an answer post"),
        id="not-answer",
    ),
    pytest.param(
        "B.1 77 101 1 0.9 t\n",
        {"task_kind": "formula", "formula_posts": lambda ids: {}},
        (1, "formula 77 is not in the collection"),
        id="formula-unknown",
    ),
    pytest.param(
        "B.1 77 101 1 0.9 t\n",
        {"task_kind": "formula", "formula_posts": lambda ids: {77: 999}},
        (1, "is in post 999, not in post 101"),
        id="formula-wrong-post",
    ),
    pytest.param("A.1 2 0.9 t 101 An answer\n", {}, (1, "must be at rank 1"), id="openqa-rank"),
    pytest.param(
        "A.1 1 0.9 t 101 " + "x" * 1201 + "\n", {}, (1, "1,201 characters"), id="openqa-long"
    ),
    pytest.param(
        "A.1 1 0.9 t 101 One\nA.1 1 0.8 t 102 Two\n",
        {},
        (2, "answer A.1 repeated"),
        id="openqa-two-answers",
    ),
]


@pytest.mark.parametrize(("text", "context", "expected"), ERROR_CASES)
def test_problem_is_reported_with_its_line_when_a_rule_is_broken(
    text: str | bytes, context: dict[str, object], expected: tuple[int | None, str]
) -> None:
    run = parse(text, **context)
    assert not run.ok
    line, fragment = expected
    assert any(p.line == line and fragment in p.message for p in run.errors), messages(run)


def test_more_than_1000_rows_for_a_topic_is_an_error_at_row_1001() -> None:
    text = "".join(f"A.1 Q0 {doc} {min(doc, 1000)} {-doc} t\n" for doc in range(1, 1002))
    run = parse(text)
    assert [(p.line, p.message) for p in run.errors] == [
        (1001, "more than 1000 rows for topic A.1")
    ]


def test_file_over_the_size_limit_is_refused_when_max_bytes_is_small() -> None:
    data = b"".join(b"A.1 Q0 %d 1 0.9 t\n" % doc for doc in range(10))
    run = read_run(io.BytesIO(data), max_bytes=50)
    assert [(p.line, p.message) for p in run.errors] == [
        (3, "file is larger than the limit of 50 bytes")
    ]


def test_errors_are_listed_up_to_100_and_counted_beyond() -> None:
    text = "".join(f"A.1 Q0 {doc} x 1 t\n" for doc in range(250))
    run = parse(text)
    assert len(run.errors) == MAX_LISTED
    assert run.error_count == 250
    report = run.report()
    assert report["more_errors"] == 150
    assert report["more_errors_message"] == "and 150 more"
    assert report["ok"] is False


@pytest.mark.parametrize(
    ("text", "context", "fragment"),
    [
        ("A.1 Q0 5 1 0.5 t\nA.1 Q0 6 2 0.9 t\n", {}, "rank 2 scores higher than rank 1"),
        ("A.1 Q0 5 1 0.5 t\n", {"topics": TOPICS}, "topic A.2 has no rows"),
        ("A.1 1 0.9 t 101 costs $5 only\n", {}, "odd number of $"),
    ],
)
def test_warning_does_not_block_storage_when_only_style_is_off(
    text: str, context: dict[str, object], fragment: str
) -> None:
    run = parse(text, **context)
    assert run.ok
    assert any(fragment in w.message for w in run.warnings), run.warnings


def test_trec_formula_run_takes_its_posts_from_the_collection_when_task_is_formula() -> None:
    run = parse(
        "B.1 Q0 77 1 0.9 t\nB.1 Q0 78 2 0.8 t\n",
        task_kind="formula",
        formula_posts=lambda ids: {77: 101, 78: 102},
    )
    assert run.ok
    assert [(r.formula_id, r.post_id) for r in run.rows] == [(77, 101), (78, 102)]


def test_collection_lookup_is_called_once_with_all_ids_when_checking_answers() -> None:
    calls: list[set[int]] = []

    def answers(ids: set[int]) -> set[int]:
        calls.append(set(ids))
        return ids

    run = parse("A.1 Q0 5 1 0.9 t\nA.2 Q0 6 1 0.9 t\nA.2 Q0 5 2 0.8 t\n", answer_posts=answers)
    assert run.ok
    assert calls == [{5, 6}]


def test_nothing_is_kept_as_valid_when_any_line_is_wrong() -> None:
    run = parse("A.1 Q0 5 1 0.9 t\nA.1 Q0 6 2 oops t\n")
    assert not run.ok
    assert run.report()["rows"] is None


def test_real_arqmath_runs_parse_as_trec_task1_when_read_from_disk(arqmath_data: Path) -> None:
    folder = arqmath_data / "runs" / "2020-task1"
    expected = {
        "LinkedMSE-baseline-prime.tsv": ("MSE", 768),
        "MIRMU-Ensemble-prime.tsv": ("Run_Ensemble_0", 13905),
        "MathDowsers-alpha05noReRank-prime.tsv": ("MathDowsers", 8421),
    }
    for name, (tag, rows) in expected.items():
        run = read_run_path(folder / name, context=RunContext(task_kind="answer"))
        assert run.ok, run.errors
        assert run.format is RunFormat.TREC
        assert (run.tag, len(run.rows)) == (tag, rows)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # in rank order, scores falling: nothing to say
        ("A.1 Q0 5 1 0.9 t\nA.1 Q0 6 2 0.5 t\nA.2 Q0 5 1 0.9 t\n", []),
        # ranks out of file order but consistent with scores
        ("A.1 Q0 6 2 0.5 t\nA.1 Q0 5 1 0.9 t\n", []),
        # the topic's rows in two stretches, the second one out of score order
        ("A.1 Q0 5 1 0.9 t\nA.2 Q0 5 1 0.9 t\nA.1 Q0 6 2 0.95 t\n", [3]),
        # one warning per topic even with several inversions
        ("A.1 Q0 5 1 0.1 t\nA.1 Q0 6 2 0.5 t\nA.1 Q0 7 3 0.9 t\n", [2]),
        # tied ranks are ordered by file position
        ("A.1 Q0 5 1 0.1 t\nA.1 Q0 6 1 0.5 t\n", [2]),
    ],
)
def test_score_order_warning_names_the_first_inversion_when_ranks_disagree_with_scores(
    text: str, expected: list[int]
) -> None:
    run = parse(text)
    assert run.ok
    assert [w.line for w in run.warnings] == expected

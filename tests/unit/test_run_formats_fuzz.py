"""Any bytes give a ParsedRun (a report or rows), never an exception."""

from __future__ import annotations

import gzip
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pooling.core.formats import RunContext, read_run

FIELD = st.one_of(
    st.sampled_from(["A.1", "B.2", "Q0", "1", "0", "1000", "1001", "-3", "0.5", "nan", "1e309"]),
    st.text(max_size=8),
)
LINE = st.lists(FIELD, min_size=0, max_size=8).map(lambda fields: "\t".join(fields))
KINDS = st.sampled_from([None, "answer", "formula", "openqa"])


def check(data: bytes, kind: str | None) -> None:
    context = RunContext(
        task_kind=kind,
        topics=frozenset({"A.1", "B.2"}),
        answer_posts=lambda ids: {i for i in ids if i % 2},
        formula_posts=lambda ids: {i: i + 1 for i in ids if i % 3},
    )
    run = read_run(io.BytesIO(data), context=context, max_bytes=100_000)
    assert run.ok == (run.error_count == 0)
    assert run.ok or run.errors
    json.dumps(run.report())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=400), KINDS)
def test_any_bytes_give_a_parsed_run_when_read(data: bytes, kind: str | None) -> None:
    check(data, kind)


@settings(max_examples=300, deadline=None)
@given(st.lists(LINE, max_size=12), st.sampled_from(["\n", "\r\n"]), st.booleans(), KINDS)
def test_any_run_like_text_gives_a_parsed_run_when_read(
    lines: list[str], newline: str, compress: bool, kind: str | None
) -> None:
    data = newline.join(lines).encode()
    check(gzip.compress(data) if compress else data, kind)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_truncated_gzip_gives_a_report_when_read(data: bytes) -> None:
    check(gzip.compress(data)[: max(2, len(data) // 2)], None)


ROW = st.tuples(
    st.sampled_from(["A.1", "A.2", "A.3"]),
    st.integers(min_value=1, max_value=8),  # post id: small, so repeats happen
    st.sampled_from(["1", "2", "999", "1000", "0", "1001", "x", "-1"]),
    st.sampled_from(["0.5", "1", "-2.5", "1e3", "nan", "inf", "high"]),
)


def expected_rows(rows: list[tuple[str, int, str, str]]) -> tuple[list[tuple], list[int]]:
    """The run file rules (docs/runs.md) written out plainly: the fast path's oracle."""
    accepted, error_lines, seen = [], [], set()
    for line, (topic, post, rank_text, score_text) in enumerate(rows, 1):
        rank = int(rank_text) if rank_text.isdigit() else None
        try:
            score: float | None = float(score_text)
        except ValueError:
            score = None
        valid = rank is not None and 1 <= rank <= 1000 and score is not None and score - score == 0
        if not valid or (topic, post) in seen:
            error_lines.append(line)
        else:
            seen.add((topic, post))
            accepted.append((topic, post, rank, score, line))
    return accepted, error_lines


@settings(max_examples=300, deadline=None)
@given(st.lists(ROW, min_size=1, max_size=30), st.booleans())
def test_accepted_rows_and_error_lines_match_the_rules_when_rows_are_random(
    rows: list[tuple[str, int, str, str]], trec: bool
) -> None:
    layout = "{0}\tQ0\t{1}\t{2}\t{3}\tt\n" if trec else "{0} {1} {2} {3} t\n"
    data = "".join(layout.format(*row) for row in rows).encode()
    run = read_run(io.BytesIO(data), context=RunContext(task_kind="answer"))
    accepted, error_lines = expected_rows(rows)
    got = [(r.topic, r.post_id, r.rank, r.score, r.line) for r in run.rows]
    # A file with any error keeps no rows: they would never be stored.
    assert got == (accepted if not error_lines else [])
    assert sorted({p.line for p in run.errors if p.line is not None}) == error_lines

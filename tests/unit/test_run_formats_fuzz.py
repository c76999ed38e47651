"""Any bytes give a ParsedRun (a report or rows), never an exception."""

from __future__ import annotations

import gzip
import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pooling.formats import RunContext, read_run

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

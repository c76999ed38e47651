"""RAG run files in TREC RAG 2024 and 2025 layouts: what is read, and each problem's line."""

import gzip
import io
import json

import pytest

from nuggets.core.rag_runs import LAYOUT_2024, LAYOUT_2025, RagContext, RagRunFile, read_rag_run

SEGMENTS = {"seg_a", "seg_b", "seg_c"}


def _context(**overrides: object) -> RagContext:
    values: dict[str, object] = {
        "topics": frozenset({"t1", "t2"}),
        "segments": lambda ids: ids & SEGMENTS,
        "collection": "msmarco-seg",
    }
    values.update(overrides)
    return RagContext(**values)  # type: ignore[arg-type]


def line_2024(topic: str = "t1", **overrides: object) -> dict[str, object]:
    record: dict[str, object] = {
        "run_id": "runA",
        "topic_id": topic,
        "topic": "what is a nugget",
        "references": ["seg_a", "seg_b"],
        "response_length": 6,
        "answer": [
            {"text": "Nuggets are facts.", "citations": [0]},
            {"text": "They are short.", "citations": [1, 0]},
        ],
    }
    record.update(overrides)
    return record


def line_2025(topic: str = "t1", citations: list[object] | None = None) -> dict[str, object]:
    return {
        "metadata": {"team_id": "teamX", "run_id": "runA", "narrative_id": topic, "type": "auto"},
        "references": ["seg_a", "seg_c"],
        "answer": [{"text": "One two three.", "citations": citations or [1, "seg_b"]}],
    }


def _read(records: list[object], **context: object) -> RagRunFile:
    data = "\n".join(json.dumps(r) for r in records).encode()
    return read_rag_run(io.BytesIO(data), name="run.jsonl", context=_context(**context))


def test_a_2024_run_is_read_with_citations_as_segment_ids_when_valid() -> None:
    run = _read([line_2024("t1"), line_2024("t2")])
    assert run.ok, run.report()
    assert run.layout == LAYOUT_2024
    assert run.run_id == "runA"
    first = run.answers[0]
    assert first.topic == "t1"
    assert [s.citations for s in first.sentences] == [("seg_a",), ("seg_b", "seg_a")]
    assert first.response_length == 6


def test_a_2025_run_is_read_with_index_and_id_citations_when_gzipped() -> None:
    data = gzip.compress(json.dumps(line_2025()).encode() + b"\n")
    run = read_rag_run(io.BytesIO(data), context=_context())
    assert run.ok, run.report()
    assert run.layout == LAYOUT_2025
    assert run.team_id == "teamX"
    assert run.answers[0].sentences[0].citations == ("seg_c", "seg_b")
    assert run.answers[0].response_length == 3  # counted when the file does not say


@pytest.mark.parametrize(
    ("records", "line", "field", "message"),
    [
        ([line_2024(), line_2024("t9")], 2, "topic_id", "not a topic of this task"),
        ([line_2024(), line_2024("t1")], 2, "topic_id", "answered twice"),
        ([line_2024(run_id="other")], 1, "run_id", "not the run's tag"),
        (
            [line_2024(answer=[{"text": "x", "citations": [5]}])],
            1,
            "answer[0].citations[0]",
            "not in references",
        ),
        (
            [line_2024(answer=[{"text": "x", "citations": ["seg_a"]}])],
            1,
            "answer[0].citations[0]",
            "not an index",
        ),
        ([line_2024(references=["seg_a", "nope"])], 1, "references[1]", "not in the collection"),
        ([line_2025(citations=["ghost"])], 1, "answer[0].citations[0]", "not in the collection"),
        ([line_2024(response_length=401)], 1, "answer", "this task allows 400"),
        ([line_2024(response_length="six")], 1, "response_length", "count of words"),
        ([line_2024(), line_2025("t2")], 2, "metadata", "layout"),
        ([line_2024(answer=[])], 1, "answer", "non-empty list"),
    ],
)
def test_a_problem_is_reported_with_its_line_and_field_and_nothing_kept_when_found(
    records: list[object], line: int, field: str, message: str
) -> None:
    run = _read(records, tag="runA")
    assert not run.ok
    assert run.answers == []
    problem = run.problems.errors[0]
    assert (problem.line, problem.field) == (line, field), run.report()
    assert message in problem.message


def test_words_past_the_task_limit_are_an_error_when_the_file_understates_them() -> None:
    long = {"text": " ".join(["word"] * 30), "citations": []}
    run = _read([line_2024(answer=[long], response_length=3)], max_answer_words=20)
    assert not run.ok
    assert "30 words" in run.problems.errors[0].message


def test_a_single_huge_line_is_refused_without_reading_it_all_when_past_the_line_limit() -> None:
    data = b'{"run_id": "' + b"x" * (2 * 1024 * 1024) + b'"}'
    run = read_rag_run(io.BytesIO(data), context=_context())
    assert not run.ok
    assert "longer" in run.problems.errors[0].message or "line" in run.problems.errors[0].message


def test_more_answers_than_topics_stop_the_read_when_found() -> None:
    run = _read([line_2024("t1"), line_2024("t2"), line_2024("t1")])
    assert not run.ok
    assert "more than 2 answers" in run.problems.errors[-1].message


def test_a_binary_file_is_refused_when_it_holds_a_nul_byte() -> None:
    run = read_rag_run(io.BytesIO(b"\x00\x01"), context=_context())
    assert not run.ok
    assert "binary" in run.problems.errors[0].message

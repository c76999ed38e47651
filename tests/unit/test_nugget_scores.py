"""Nugget scores (TREC RAG 2024) against hand computations, and the files they are read from."""

import io
import json

import pytest

from nuggets.core.evaluate import NuggetFilesDisagree, evaluate_nugget_files
from nuggets.core.nuggetizer import read_nugget_file
from nuggets.core.scores import Importance, JudgedNugget, Support, run_scores, topic_scores

VITAL, OKAY = Importance.VITAL, Importance.OKAY
S, P, N = Support.SUPPORT, Support.PARTIAL, Support.NONE


def test_topic_scores_match_the_hand_computation_when_vital_and_okay_are_mixed() -> None:
    # vital: support, partial, none; okay: partial, support
    judged = [JudgedNugget(VITAL, S), JudgedNugget(VITAL, P), JudgedNugget(VITAL, N)]
    judged += [JudgedNugget(OKAY, P), JudgedNugget(OKAY, S)]
    scores = topic_scores(judged)
    # all: (1 + .5 + 0 + .5 + 1) / 5 = 3 / 5
    assert scores["all"] == pytest.approx(0.6)
    # vital: (1 + .5 + 0) / 3
    assert scores["vital"] == pytest.approx(0.5)
    # weighted: (1.5 + 0.5 * 1.5) / (3 + 0.5 * 2) = 2.25 / 4
    assert scores["weighted"] == pytest.approx(0.5625)
    # strict: partial counts 0
    assert scores["strict_all"] == pytest.approx(2 / 5)
    assert scores["strict_vital"] == pytest.approx(1 / 3)
    assert scores["strict_weighted"] == pytest.approx((1 + 0.5 * 1) / 4)


def test_topic_scores_are_zero_when_a_topic_has_no_vital_nugget() -> None:
    scores = topic_scores([JudgedNugget(OKAY, S)])
    assert scores["vital"] == 0.0
    assert scores["all"] == 1.0
    assert scores["weighted"] == 1.0  # 0.5 * 1 / (0.5 * 1)


def test_run_scores_count_a_missing_topic_as_zero_when_averaging() -> None:
    per_topic = {"1": dict.fromkeys(["all", "vital", "weighted"], 0.8)}
    per_topic["1"].update(strict_all=0.4, strict_vital=0.4, strict_weighted=0.4)
    scores = run_scores(per_topic, ["1", "2"])
    assert scores["all"] == pytest.approx(0.4)
    assert scores["strict_all"] == pytest.approx(0.2)


def _file(records: list[object]) -> io.BytesIO:
    return io.BytesIO("\n".join(json.dumps(r) for r in records).encode())


def _assigned(qid: str, run: str, labels: list[tuple[str, str, str]]) -> dict[str, object]:
    nuggets = [{"text": t, "importance": i, "assignment": a} for t, i, a in labels]
    return {"qid": qid, "run_id": run, "nuggets": nuggets}


def test_files_are_scored_per_topic_and_per_run_when_a_nuggets_file_names_the_topics() -> None:
    nuggets = read_nugget_file(
        _file(
            [
                {
                    "qid": "1",
                    "query": "q1",
                    "nuggets": [
                        {"text": "a", "importance": "vital"},
                        {"text": "b", "importance": "okay"},
                    ],
                },
                {"qid": "2", "query": "q2", "nuggets": [{"text": "c", "importance": "vital"}]},
            ]
        ),
        assignments=False,
    )
    assigned = read_nugget_file(
        _file(
            [
                _assigned("1", "runA", [("a", "vital", "partial_support")]),  # b left out: none
                _assigned("2", "runA", [("c", "vital", "support")]),
                _assigned("1", "runB", [("a", "vital", "support"), ("b", "okay", "support")]),
            ]
        ),
        assignments=True,
    )
    assert nuggets.ok
    assert assigned.ok
    results = {r.run: r for r in evaluate_nugget_files(assigned.records, nuggets.records)}
    # runA topic 1: all = .5/2, vital = .5, weighted = .5/1.5; topic 2: all 1
    assert results["runA"].per_topic["1"]["all"] == pytest.approx(0.25)
    assert results["runA"].per_topic["1"]["weighted"] == pytest.approx(0.5 / 1.5)
    assert results["runA"].measures["all"] == pytest.approx((0.25 + 1) / 2)
    assert results["runA"].measures["strict_vital"] == pytest.approx((0 + 1) / 2)
    # runB did not answer topic 2: 0 there
    assert results["runB"].measures["all"] == pytest.approx(0.5)
    assert results["runB"].topics == 2


def test_an_assignment_of_an_unknown_nugget_is_refused_when_a_nuggets_file_is_given() -> None:
    nuggets = read_nugget_file(
        _file([{"qid": "1", "nuggets": [{"text": "a", "importance": "vital"}]}]), assignments=False
    )
    assigned = read_nugget_file(
        _file([_assigned("1", "r", [("zzz", "vital", "support")])]), assignments=True
    )
    with pytest.raises(NuggetFilesDisagree, match="zzz"):
        evaluate_nugget_files(assigned.records, nuggets.records)


@pytest.mark.parametrize(
    ("line", "field", "message"),
    [
        (
            '{"qid": "1", "run_id": "r", "nuggets": [{"text": "a", "importance": "big", '
            '"assignment": "support"}]}',
            "nuggets[0].importance",
            "vital or okay",
        ),
        (
            '{"qid": "1", "run_id": "r", "nuggets": [{"text": "a", "importance": "okay", '
            '"assignment": "maybe"}]}',
            "nuggets[0].assignment",
            "partial_support",
        ),
        ('{"qid": "1", "nuggets": []}', "run_id", "run id"),
        ("{not json", None, "not JSON"),
    ],
)
def test_a_bad_assignment_line_is_reported_with_its_field_when_read(
    line: str, field: str | None, message: str
) -> None:
    found = read_nugget_file(io.BytesIO(b"\n" + line.encode()), name="a.jsonl", assignments=True)
    assert not found.ok
    assert not found.records
    problem = found.problems.errors[0]
    assert (problem.line, problem.field) == (2, field)
    assert message in problem.message

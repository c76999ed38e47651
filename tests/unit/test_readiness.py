"""Qrels readiness per topic, Task 3 answer ids and answer maps, and the protocol notes."""

import pytest

from evaluation.core.answers import (
    AnswerMapError,
    answer_entries,
    answer_id,
    answer_map_parse,
)
from evaluation.core.measures import best_ranked, evaluate_openqa_answers
from evaluation.core.official import unjudged_rule
from evaluation.core.qrels import DEFAULT_PRECEDENCE, JudgmentRecord, QrelsEntry, counting_judgments
from evaluation.core.readiness import PoolHit, qrels_readiness
from evaluation.core.reports import as_csv, as_latex, as_table, per_topic_csv
from pooling.core.algorithms import answer_key

# Topic B.1: formula item v1 has two instances (f1 graded H, f2 not yet), v2 one flagged
# instance, v3 one graded M; topic B.2: one item, nothing judged.
HITS = [
    PoolHit("B.1", "v1", "f1"),
    PoolHit("B.1", "v1", "f2"),
    PoolHit("B.1", "v2", "f3"),
    PoolHit("B.1", "v3", "f4"),
    PoolHit("B.2", "v9", "f9"),
]
RECORDS = [
    JudgmentRecord("B.1", "v1", "f1", "official", 3),
    JudgmentRecord("B.1", "v2", "f3", "official", None, "dont_know"),
    JudgmentRecord("B.1", "v3", "f4", "dual", 2),
    JudgmentRecord("B.1", "v3", "f4", "official", 0),  # official beats dual
]


def readiness(min_relevant: int | None):  # type: ignore[no-untyped-def]
    chosen = counting_judgments(RECORDS, DEFAULT_PRECEDENCE)
    return qrels_readiness(HITS, chosen, min_relevant=min_relevant)


def test_readiness_counts_items_as_judged_flagged_or_unjudged_when_hits_are_partly_judged() -> None:
    found = readiness(2)
    b1, b2 = found.topics
    assert (b1.topic, b1.items, b1.judged, b1.flagged, b1.unjudged) == ("B.1", 3, 1, 1, 1)
    assert b1.relevant == 1  # v1 (H so far); v3's official grade N counts, not the dual M
    assert (b2.items, b2.judged, b2.unjudged, b2.relevant) == (1, 0, 1, 0)
    assert (found.items, found.judged, found.flagged, found.unjudged) == (4, 1, 1, 2)
    assert not found.complete
    assert found.complete_topics == 0
    assert found.unjudged_summary() == "2 unjudged items in 2 topics (B.1: 1, B.2: 1)"


def test_readiness_names_topics_the_minimum_relevant_rule_would_drop_when_rule_is_on() -> None:
    found = readiness(2)
    assert [(t.topic, t.dropped) for t in found.dropped_topics] == [
        ("B.1", "1 H+M-relevant item, fewer than 2"),
        ("B.2", "0 H+M-relevant items, fewer than 2"),
    ]
    assert readiness(1).dropped_topics[0].topic == "B.2"
    off = readiness(0)
    assert off.dropped_topics == []
    assert off.min_relevant is None


def test_readiness_is_complete_when_every_hit_has_a_counting_judgment() -> None:
    chosen = counting_judgments(RECORDS, DEFAULT_PRECEDENCE)
    found = qrels_readiness([h for h in HITS if h.hit not in {"f2", "f9"}], chosen, min_relevant=2)
    assert found.complete
    assert found.unjudged_summary().startswith("0 unjudged items in 0 topics")


def test_answer_ids_are_per_run_and_share_the_grade_when_two_runs_gave_the_same_text() -> None:
    key = answer_key("The answer is 4.")
    entries = [QrelsEntry("A.1", key, 3), QrelsEntry("A.2", answer_key("No."), 0)]
    rows = answer_entries(entries, {("A.1", key): [12, 7, 12], ("A.2", answer_key("No.")): [7]})
    assert [(e.topic, e.doc, e.grade) for e in rows] == [
        ("A.1", answer_id(7, key), 3),
        ("A.1", answer_id(12, key), 3),
        ("A.2", answer_id(7, answer_key("No.")), 0),
    ]
    assert answer_id(7, key) == "a7." + key.removeprefix("qa-")[:12]
    assert answer_id(7, key) != answer_id(7, answer_key("The answer is 5."))


def test_answer_map_reads_rows_and_a_header_when_well_formed() -> None:
    text = "run\ttopic\tanswer_id\nmyrun\tA.301\td_1\r\nmyrun A.302 d_2\n\n# a comment\n"
    assert answer_map_parse(text) == {("myrun", "A.301"): "d_1", ("myrun", "A.302"): "d_2"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("myrun\tA.1\n", "line 1: expected 3 columns"),
        ("r\tA.1\td_1\nr\tA.1\td_2\n", "line 2: run r topic A.1 already has answer d_1"),
        ("\n", "no rows"),
    ],
)
def test_answer_map_reports_problem_with_its_line_when_malformed(text: str, message: str) -> None:
    with pytest.raises(AnswerMapError, match=message):
        answer_map_parse(text, name="map.tsv")


def test_best_ranked_takes_lowest_rank_then_highest_score_then_file_order() -> None:
    rows = [
        ("A.1", "p3", 2, 9.0),
        ("A.1", "p1", 1, 0.5),
        ("A.1", "p2", 1, 0.7),  # same rank, higher score: wins
        ("A.2", "p5", 1, 1.0),
        ("A.2", "p6", 1, 1.0),  # a full tie: the first row stays
    ]
    assert best_ranked(rows) == {"A.1": "p2", "A.2": "p5"}


def test_openqa_answers_record_the_answer_scored_and_average_by_convention() -> None:
    grades = {"A.1": {"d_1": 3}, "A.2": {"d_2": 1}, "A.3": {"d_3": 2}}
    every = evaluate_openqa_answers("r", {"A.1": "d_1", "A.2": "d_x"}, grades)
    assert every.measures["ar"] == pytest.approx(3 / 3)
    assert every.answers == {"A.1": "d_1", "A.2": "d_x"}
    own = evaluate_openqa_answers("r", {"A.1": "d_1", "A.2": "d_x"}, grades, average="run")
    assert own.measures["ar"] == pytest.approx(3 / 2)
    assert (own.average, own.topics) == ("run", 2)


ROW = {
    "run": "T/r",
    "file": "",
    "ndcg_prime": 0.5,
    "map_prime": 0.25,
    "p10_prime": 0.1,
    "topics": 2,
    "run_topics": 1,
    "judged_at_10": 1.0,
    "per_topic": {
        "A.1": {"ndcg_prime": 1.0, "map_prime": 0.5, "p10_prime": 0.2, "judged_at_10": 1.0}
    },
}


def test_exports_say_how_means_were_taken_and_that_qrels_were_incomplete_when_they_were() -> None:
    row = {**ROW, "average": "run", "qrels_complete": False, "qrels_unjudged": 7}
    row["qrels_pool_items"] = 40
    csv_text = as_csv([row], "answer")
    assert csv_text.splitlines()[0].endswith(",average,qrels_complete")
    assert csv_text.splitlines()[1].endswith(",run,False")
    latex = as_latex([row], "answer")
    assert latex.startswith("% Means over each run's own evaluated topics")
    assert "% Incomplete qrels: 7 of 40 pool items were unjudged" in latex
    table = as_table([row], "answer")
    assert "Incomplete qrels: 7 of 40" in table
    assert max(len(line) for line in table.splitlines()) <= 100
    assert per_topic_csv([row], "answer").splitlines()[1].endswith(",False")


def test_exports_stay_as_they_were_when_rows_carry_no_protocol_fields() -> None:
    assert as_csv([ROW], "answer").splitlines()[0] == (
        "run,file,ndcg_prime,map_prime,p10_prime,topics,run_topics,judged_at_10"
    )
    assert not as_latex([ROW], "answer").startswith("%")


def test_relevant_counts_use_the_task_level_and_every_grade_of_a_four_point_scale() -> None:
    hits = [PoolHit("1", "d1", "d1"), PoolHit("1", "d2", "d2"), PoolHit("2", "d3", "d3")]
    records = [
        JudgmentRecord("1", "d1", "d1", "official", 1),
        JudgmentRecord("1", "d2", "d2", "official", 4),
        JudgmentRecord("2", "d3", "d3", "official", 1),
    ]
    chosen = counting_judgments(records, DEFAULT_PRECEDENCE)
    binary = qrels_readiness(hits, chosen, min_relevant=2, relevant_from=1)
    assert [t.relevant for t in binary.topics] == [2, 1]
    assert [t.topic for t in binary.dropped_topics] == ["2"]
    graded = qrels_readiness(hits, chosen, min_relevant=1, relevant_from=2)
    assert [t.relevant for t in graded.topics] == [1, 0]  # grade 4 counts; 1 is below level


def test_incomplete_note_says_what_each_kind_does_with_unjudged_results_when_scored() -> None:
    # ARQMath's prime measures remove unjudged hits (trec_eval -J); trec_eval's measures count
    # them as not relevant (a document task's MAP includes them as misses); Task 3 scores 0.
    row = {**ROW, "average": "all", "qrels_complete": False, "qrels_unjudged": 3}
    row["qrels_pool_items"] = 12
    table = " ".join(as_table([row], "answer").split())
    assert "unjudged results are left out before scoring" in table
    trec_columns = [("map", "MAP", "MAP"), ("P_10", "P@10", "P@10")]
    trec_row = {**row, "map": 0.5, "P_10": 0.1}
    document = as_latex([trec_row], "document", trec_columns)
    assert "unjudged results count as not relevant (as in trec_eval)" in document
    assert unjudged_rule("openqa", []) == "a topic whose answer is unjudged scores 0"
    assert (
        unjudged_rule("answer", ["map"])
        == "unjudged results count as not relevant (as in trec_eval)"
    )
    mixed = unjudged_rule("document", ["map", "nDCG(judged_only=True)@10"])
    assert "leave unjudged results out; the other measures count them as not relevant" in mixed

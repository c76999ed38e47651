"""trec_eval 9's ordering and input conventions, each in a small file written here.

Expected figures are worked out by hand from trec_eval's rules (``form_res_rels.c``: rank by
score as a double descending, ties by docno descending; a negative qrels grade is "in the pool,
not judged"; ``get_trec_results.c``: ``#`` lines skipped, columns after the run tag ignored).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval

from evaluation.core.measures import PrimeEvaluator
from evaluation.core.official import unjudged_rule
from evaluation.core.qrels import QrelsFormatError, qrels_parse
from evaluation.core.ranking import (
    TrecRanking,
    float32_keeps_order,
    negated_ranks,
    ranked_run,
    trec_order,
    trec_ranking,
)
from evaluation.core.runfiles import RunFileError, evaluate_run_files, evaluate_run_files_measures
from evaluation.core.trec_measures import evaluate_measures
from pooling.core.formats import RunContext, read_run

# Two scores a double tells apart and a float32 does not: trec_eval ranks "a" first.
HIGH, LOW = 100000.151, 100000.150
CLOSE_QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n"
CLOSE_RUN = f"1 Q0 b 1 {LOW} R\n1 Q0 a 2 {HIGH} R\n1 Q0 c 3 99999.0 R\n"
# trec_eval: a (rel), b, c (rel). AP = (1/1 + 2/3) / 2; P_1 = 1; RR = 1.
# Reordered by float32 ties (b, a, c) it would be AP = (1/2 + 2/3) / 2, P_1 = 0, RR = 1/2.
CLOSE_EXPECTED = {"map": (1 + 2 / 3) / 2, "P_1": 1.0, "recip_rank": 1.0}


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def measures_of(tmp_path: Path, qrels: str, run: str, names: list[str], **options: object):
    rows = evaluate_run_files_measures(
        write(tmp_path, "qrels.txt", qrels),
        [write(tmp_path, "run.txt", run)],
        names,
        kind="document",
        **options,  # type: ignore[arg-type]
    )
    return rows[0]["measures"]


def test_float32_ties_the_two_scores_that_trec_eval_tells_apart() -> None:
    # The premise of the scores above: pytrec_eval alone would reorder them.
    assert np.float32(HIGH) == np.float32(LOW)
    assert HIGH > LOW
    raw = pytrec_eval.RelevanceEvaluator({"1": {"a": 1, "b": 0}}, {"P_1"})
    assert raw.evaluate({"1": {"a": HIGH, "b": LOW}})["1"]["P_1"] == 0.0


def test_run_scores_closer_than_float32_keep_trec_eval_order_when_evaluated(
    tmp_path: Path,
) -> None:
    found = measures_of(tmp_path, CLOSE_QRELS, CLOSE_RUN, list(CLOSE_EXPECTED))
    assert found == pytest.approx(CLOSE_EXPECTED, abs=1e-12)


def test_float32_precision_reorders_as_trec_eval_up_to_9_0_7(tmp_path: Path) -> None:
    # As a float32 b and a tie and b (docno descending) ranks first: AP = (1/2 + 2/3) / 2,
    # P_1 = 0, RR = 1/2 (trec_eval 9.0.4 prints 0.5833, 0.0000, 0.5000 for these files).
    found = measures_of(tmp_path, CLOSE_QRELS, CLOSE_RUN, list(CLOSE_EXPECTED), precision="float32")
    expected = {"map": (1 / 2 + 2 / 3) / 2, "P_1": 0.0, "recip_rank": 0.5}
    assert found == pytest.approx(expected, abs=1e-12)


def test_prime_measures_keep_trec_eval_order_when_scores_closer_than_float32() -> None:
    grades = {"1": {"a": 2, "b": 0, "c": 2}}
    run = {"1": {"b": LOW, "a": HIGH, "c": 99999.0}}
    found = PrimeEvaluator(grades).evaluate("R", run).measures
    assert found["map_prime"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-12)
    assert found["p10_prime"] == pytest.approx(2 / 10, abs=1e-12)


def test_trec_order_ties_by_docno_descending_in_byte_order() -> None:
    docs = {"B": 1.0, "a": 1.0, "Z": 1.0, "é": 1.0, "top": 2.0}
    # strcmp on UTF-8 bytes: "é" (0xC3...) > "a" > "Z" > "B".
    assert trec_order(docs) == ["top", "é", "a", "Z", "B"]
    assert negated_ranks(docs) == {"top": -1.0, "é": -2.0, "a": -3.0, "Z": -4.0, "B": -5.0}


def test_only_topics_float32_would_merge_are_handed_over_as_negated_ranks() -> None:
    assert not float32_keeps_order({"a": HIGH, "b": LOW})
    assert float32_keeps_order({"a": 1.0, "b": 1.0, "c": 2.0})  # a tie stays a tie
    handed = ranked_run({"1": {"b": LOW, "a": HIGH}, "2": {"x": 1.0, "y": 1.0}})
    assert handed == {"1": {"a": -1.0, "b": -2.0}, "2": {"x": 1.0, "y": 1.0}}


def test_a_run_ranked_once_is_handed_over_as_it_is_and_scores_the_same() -> None:
    run = {"1": {"b": LOW, "a": HIGH, "c": 3.0, "d": 3.0}, "2": {"x": 1.0, "y": 1.0, "z": 0.5}}
    ranked: dict[str, dict[str, float]] = {t: trec_ranking(docs) for t, docs in run.items()}
    # trec_eval's order: score descending, ties by docno descending; ranks negated.
    assert ranked == {
        "1": {"a": -1.0, "b": -2.0, "d": -3.0, "c": -4.0},
        "2": {"y": -1.0, "x": -2.0, "z": -3.0},
    }
    assert isinstance(ranked["1"], TrecRanking)
    assert trec_ranking(ranked["1"]) is ranked["1"]
    handed = ranked_run(ranked)
    assert all(handed[topic] is ranked[topic] for topic in ranked)  # not checked again
    qrels = {"1": {"b": 1, "d": 2, "c": 0}, "2": {"x": 1, "z": 1}}
    names = ["map", "P_2", "ndcg_cut_3", "bpref", "recip_rank"]
    assert (
        evaluate_measures(ranked, qrels, names).measures
        == evaluate_measures(run, qrels, names).measures
    )
    # By hand: topic 1 retrieves b at 2 and d at 3 (map (1/2 + 2/3) / 2), topic 2 x at 2
    # and z at 3 (map (1/2 + 2/3) / 2).
    assert evaluate_measures(ranked, qrels, ["map"]).measures["map"] == pytest.approx(7 / 12)


def test_run_comment_lines_are_skipped_when_evaluated(tmp_path: Path) -> None:
    commented = "# produced by system R\n" + CLOSE_RUN.replace("\n1 Q0 a", "\n  # note\n1 Q0 a")
    found = measures_of(tmp_path, CLOSE_QRELS, commented, list(CLOSE_EXPECTED))
    assert found == pytest.approx(CLOSE_EXPECTED, abs=1e-12)


def test_run_columns_after_the_tag_are_ignored_when_evaluated(tmp_path: Path) -> None:
    wide = "".join(line + " extra 7 x\n" for line in CLOSE_RUN.splitlines())
    found = measures_of(tmp_path, CLOSE_QRELS, wide, list(CLOSE_EXPECTED))
    assert found == pytest.approx(CLOSE_EXPECTED, abs=1e-12)


def test_answer_kind_reads_a_wide_trec_run_with_comments_too(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q.txt", "1 0 10 2\n1 0 11 0\n1 0 12 2\n")
    run = write(
        tmp_path, "r.txt", f"#c\n1 Q0 11 1 {LOW} R a b\n1 Q0 10 2 {HIGH} R\n1 Q0 12 3 1 R x\n"
    )
    found = evaluate_run_files(qrels, [run], kind="answer")[0]
    assert found["map_prime"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-12)


def test_bad_line_of_a_wide_run_is_reported_with_its_number(tmp_path: Path) -> None:
    run = CLOSE_RUN + "# fine\n1 Q0 d 4 high R extra\n"
    with pytest.raises(RunFileError, match=r"run\.txt: line 5: score 'high' is not a number"):
        measures_of(tmp_path, CLOSE_QRELS, run, ["map"])


def test_qrels_comment_lines_are_skipped_when_read_as_trec_eval() -> None:
    entries = qrels_parse("# judged 2020\n1 0 a 1\n #x\n1 0 b 0\n", trec_eval=True)
    assert [(e.doc, e.grade, e.line) for e in entries] == [("a", 1, 2), ("b", 0, 4)]


def test_qrels_fifth_column_is_refused_as_trec_eval_refuses_it() -> None:
    # get_qrels.c: anything after the grade but white space is a malformed line.
    with pytest.raises(QrelsFormatError, match="line 2: expected 4 columns, found 5"):
        qrels_parse("1 0 a 1\n1 0 b 0 extra\n", trec_eval=True)


def test_qrels_any_integer_grade_is_read_as_trec_eval() -> None:
    entries = qrels_parse("1 0 a -1\n1 0 b 16\n1 0 c 0\n1 0 d 127\n", trec_eval=True)
    assert [e.grade for e in entries] == [-1, 16, 0, 127]
    with pytest.raises(QrelsFormatError, match="line 2: grade 128 is outside trec_eval's -127"):
        qrels_parse("1 0 a 1\n1 0 b 128\n", trec_eval=True)
    with pytest.raises(QrelsFormatError, match="grade -1 is outside 0-6"):
        qrels_parse("1 0 a -1\n")  # app-made and training files stay 0..6


# a relevant, b in the pool but not judged, c judged not relevant, d relevant (unretrieved)
NEGATIVE_QRELS = "1 0 a 1\n1 0 b -1\n1 0 c 0\n1 0 d 1\n"
NEGATIVE_RUN = "1 Q0 b 1 3 R\n1 Q0 a 2 2 R\n1 Q0 c 3 1 R\n"


def test_negative_grade_is_not_relevant_and_not_judged(tmp_path: Path) -> None:
    names = ["num_rel", "bpref", "map", "P_2", "Judged@2"]
    found = measures_of(tmp_path, NEGATIVE_QRELS, NEGATIVE_RUN, names)
    # R = 2 (a, d). bpref: one judged non-relevant (c), none above a: (1 + 0) / 2.
    # Counting b as judged non-relevant would give N = 2, a below one: (1 - 1/2) / 2.
    # AP: a at rank 2 (1/2), d not retrieved: 0.25. Judged@2: b, a -> 1/2.
    expected = {"num_rel": 2.0, "bpref": 0.5, "map": 0.25, "P_2": 0.5, "Judged@2": 0.5}
    assert found == pytest.approx(expected, abs=1e-12)


def test_negative_grade_is_dropped_by_judged_only(tmp_path: Path) -> None:
    found = measures_of(tmp_path, NEGATIVE_QRELS, NEGATIVE_RUN, ["map", "P_1"], judged_only=True)
    # trec_eval -J keeps a, c: a first. AP = (1/1) / 2.
    assert found == pytest.approx({"map": 0.5, "P_1": 1.0}, abs=1e-12)


def test_negative_grade_is_unjudged_for_prime_measures(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q.txt", "1 0 10 2\n1 0 11 -1\n1 0 12 0\n1 0 13 2\n")
    run = write(tmp_path, "r.txt", "1 11 1 3 R\n1 10 2 2 R\n1 12 3 1 R\n")
    found = evaluate_run_files(qrels, [run], kind="answer")[0]
    # Primed ranking 10, 12: AP = (1/1) / 2; P'@10 = 1/10; judged 2 of the top 3.
    assert found["map_prime"] == pytest.approx(0.5, abs=1e-12)
    assert found["p10_prime"] == pytest.approx(0.1, abs=1e-12)
    assert found["judged_at_10"] == pytest.approx(2 / 3, abs=1e-12)


def test_grade_above_four_counts_in_a_document_task(tmp_path: Path) -> None:
    # An ARQMath flag code (5) is a grade like any other in trec_eval's reading.
    found = measures_of(
        tmp_path, "1 0 a 0\n1 0 b 5\n", "1 Q0 a 1 2 R\n1 Q0 b 2 1 R\n", ["P_2", "num_rel"]
    )
    assert found == {"P_2": 0.5, "num_rel": 1.0}


def test_upload_with_an_extra_column_is_refused_naming_it() -> None:
    text = b"1 Q0 d1 1 2.5 tag\n1 Q0 d2 2 2.4 tag extra\n"
    parsed = read_run(io.BytesIO(text), name="r.txt", context=RunContext(task_kind="document"))
    assert [(p.line, p.message) for p in parsed.errors] == [
        (2, "7 columns where trec has 6: column 7 ('extra') and after are extra; remove them")
    ]


def test_upload_of_a_wide_trec_line_is_refused_naming_the_column() -> None:
    parsed = read_run(io.BytesIO(b"1 Q0 d1 1 2.5 tag 0.9 x\n"), name="r.txt")
    assert [p.message for p in parsed.errors] == [
        "a TREC run line with 8 columns where trec has 6: column 7 ('0.9') and after are "
        "extra; remove them"
    ]


def test_openqa_reads_a_wide_trec_run_with_comments(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q.txt", "1 0 a 2\n1 0 b 0\n")
    run = write(tmp_path, "r.txt", "# answers\n1 Q0 b 2 5 R extra\n1 Q0 a 1 4 R extra\n")
    found = evaluate_run_files(qrels, [run], kind="openqa")[0]
    # Task 3 scores the best-ranked answer (rank 1: a, grade 2).
    assert (found["ar"], found["p1"], found["answers"]) == (2.0, 1.0, {"1": "a"})


def test_openqa_refuses_a_nan_score_with_its_line(tmp_path: Path) -> None:
    qrels = write(tmp_path, "q.txt", "1 0 a 2\n")
    run = write(tmp_path, "r.txt", "1 Q0 a 1 nan R\n")
    with pytest.raises(RunFileError, match=r"line 1: score 'nan' is not finite"):
        evaluate_run_files(qrels, [run], kind="openqa")


def test_unjudged_rule_says_what_each_kind_and_measure_set_does() -> None:
    assert unjudged_rule("answer", []) == "unjudged results are left out before scoring"
    assert unjudged_rule("document", []) == (
        "unjudged results count as not relevant (as in trec_eval)"
    )
    assert unjudged_rule("openqa", []) == "a topic whose answer is unjudged scores 0"
    assert unjudged_rule("answer", ["P(judged_only=True)@10", "Judged@10"]) == (
        "unjudged results are left out before scoring"
    )

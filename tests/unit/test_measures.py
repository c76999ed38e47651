"""ARQMath prime measures (evaluation/core/measures.py): dedup, priming, tie order, visual ids."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluation.core.measures import (
    PrimeEvaluator,
    dedup_first,
    evaluate_answer_run,
    evaluate_formula_run,
    evaluate_openqa_run,
    formula_scores_by_visual_id,
    judged_fraction_at_10,
    prime,
    trec_order,
)

QRELS = {"A.1": {"a": 3, "b": 2, "c": 0, "d": 1}, "A.2": {"x": 2, "y": 0}}


def ap(ranked_relevance: list[bool], relevant_total: int) -> float:
    hits, total = 0, 0.0
    for i, relevant in enumerate(ranked_relevance, 1):
        if relevant:
            hits += 1
            total += hits / i
    return total / relevant_total


def test_dedup_keeps_first_row_in_file_order_when_doc_repeats() -> None:
    rows = [("A.1", "a", 1.0), ("A.1", "b", 5.0), ("A.1", "a", 9.0)]
    assert dedup_first(rows) == {"A.1": {"a": 1.0, "b": 5.0}}


def test_prime_drops_unjudged_docs_and_topics_not_in_qrels_when_run_has_them() -> None:
    scores = {"A.1": {"a": 3.0, "zz": 2.0}, "A.9": {"a": 1.0}}
    assert prime(scores, QRELS) == {"A.1": {"a": 3.0}}


def test_trec_order_breaks_ties_by_doc_id_descending_as_strings_when_scores_tie() -> None:
    assert trec_order({"9": 1.0, "10": 1.0, "11": 2.0, "100": 1.0}) == ["11", "9", "100", "10"]


def test_pytrec_eval_uses_trec_eval_tie_order_when_scores_tie() -> None:
    # Tied b (rel) and c (non-rel): trec_eval puts c first (doc id descending).
    evaluator = PrimeEvaluator({"A.1": {"b": 2, "c": 0, "a": 3}})
    result = evaluator.evaluate("r", {"A.1": {"b": 1.0, "c": 1.0, "a": 0.5}})
    assert result.per_topic["A.1"]["map_prime"] == pytest.approx(ap([False, True, True], 2))
    dcg = 2 / math.log2(3) + 3 / math.log2(4)
    ideal = 3 + 2 / math.log2(3)
    assert result.per_topic["A.1"]["ndcg_prime"] == pytest.approx(dcg / ideal)


def test_unjudged_docs_do_not_count_against_run_when_primed() -> None:
    evaluator = PrimeEvaluator(QRELS)
    rows = [("A.1", "zz1", 9.0), ("A.1", "a", 8.0), ("A.1", "zz2", 7.0), ("A.1", "b", 6.0)]
    result = evaluate_answer_run("r", rows, evaluator, average="run")
    assert result.measures["map_prime"] == pytest.approx(1.0)
    assert result.measures["p10_prime"] == pytest.approx(0.2)
    assert result.per_topic["A.1"]["judged_at_10"] == pytest.approx(0.5)


def test_relevance_level_2_binarizes_map_and_p10_but_ndcg_uses_grades_when_low_relevant() -> None:
    evaluator = PrimeEvaluator({"A.1": {"d": 1, "b": 2}})
    result = evaluator.evaluate("r", {"A.1": {"d": 2.0, "b": 1.0}})
    assert result.per_topic["A.1"]["map_prime"] == pytest.approx(0.5)  # d (L) is not relevant
    dcg = 1 + 2 / math.log2(3)
    assert result.per_topic["A.1"]["ndcg_prime"] == pytest.approx(dcg / (2 + 1 / math.log2(3)))


@pytest.mark.parametrize(
    ("average", "topics", "expected_map"),
    [("all", 2, 0.5), ("run", 1, 1.0)],
)
def test_average_counts_missing_topic_as_zero_only_when_all(
    average: str, topics: int, expected_map: float
) -> None:
    evaluator = PrimeEvaluator(QRELS)
    result = evaluate_answer_run(
        "r",
        [("A.1", "a", 2.0), ("A.1", "b", 1.0)],
        evaluator,
        average=average,  # type: ignore[arg-type]
    )
    assert result.topics == topics
    assert result.run_topics == 1
    assert result.measures["map_prime"] == pytest.approx(expected_map)


def test_topic_with_only_unjudged_rows_scores_zero_but_counts_for_run_average_when_run() -> None:
    evaluator = PrimeEvaluator(QRELS)
    rows = [("A.1", "a", 2.0), ("A.2", "nope", 1.0)]
    result = evaluate_answer_run("r", rows, evaluator, average="run")
    assert result.topics == 2
    assert result.per_topic["A.2"]["ndcg_prime"] == 0.0


VISUAL = {"f1": "v1", "f2": "v1", "f3": "v2", "f4": "v3", "f5": "v2"}


@pytest.mark.parametrize(
    ("rows", "expected"),
    [
        # first by score wins: f2 outscores f1, so v1 takes f2's score
        ([("B.1", "f1", 1.0), ("B.1", "f2", 3.0)], {"v1": 3.0}),
        # repeated formula id keeps its last score
        ([("B.1", "f1", 5.0), ("B.1", "f3", 4.0), ("B.1", "f1", 0.5)], {"v2": 4.0, "v1": 0.5}),
        # equal scores: stable, the formula first in the file wins for its visual id
        ([("B.1", "f3", 2.0), ("B.1", "f5", 2.0), ("B.1", "f4", 2.0)], {"v2": 2.0, "v3": 2.0}),
        # unknown formula ids are left out
        ([("B.1", "f9", 9.0), ("B.1", "f4", 1.0)], {"v3": 1.0}),
    ],
)
def test_visual_id_dedup_follows_arqmath_rules_when_formulas_share_visual_id(
    rows: list[tuple[str, str, float]], expected: dict[str, float]
) -> None:
    scores, _ = formula_scores_by_visual_id(rows, VISUAL)
    assert scores["B.1"] == expected
    assert list(scores["B.1"]) == list(expected)


def test_formula_run_scores_by_visual_id_and_notes_unknown_when_evaluated() -> None:
    evaluator = PrimeEvaluator({"B.1": {"v1": 3, "v2": 0, "v3": 2}})
    rows = [("B.1", "f3", 9.0), ("B.1", "f1", 8.0), ("B.1", "f2", 7.0), ("B.1", "f9", 6.0)]
    result = evaluate_formula_run("r", rows, evaluator, VISUAL)
    assert result.per_topic["B.1"]["map_prime"] == pytest.approx(ap([False, True], 2))
    assert result.notes == ["1 formula ids not in the formula index were left out"]


def test_openqa_counts_flags_and_unjudged_as_zero_and_averages_over_qrels_topics() -> None:
    grades = {"A.1": {"d_1": 3}, "A.2": {"d_2": 5}, "A.3": {"d_3": 2}, "A.4": {"d_4": 1}}
    rows = [("A.1", "d_1", 1.0), ("A.2", "d_2", 1.0), ("A.3", "d_x", 1.0), ("A.4", "d_4", 1.0)]
    result = evaluate_openqa_run("r", rows, grades)
    assert result.measures["ar"] == pytest.approx((3 + 0 + 0 + 1) / 4)
    assert result.measures["p1"] == pytest.approx(1 / 4)


def test_openqa_rank_one_is_highest_score_when_several_answers() -> None:
    grades = {"A.1": {"d_1": 0, "d_2": 3}}
    result = evaluate_openqa_run("r", [("A.1", "d_1", 0.1), ("A.1", "d_2", 0.9)], grades)
    assert result.measures["ar"] == 3.0


def reference_ap_p10(ranked: list[str], grades: dict[str, int]) -> tuple[float, float]:
    relevant = sum(1 for g in grades.values() if g >= 2)
    hits, total = 0, 0.0
    for i, doc in enumerate(ranked, 1):
        if grades.get(doc, 0) >= 2:
            hits += 1
            total += hits / i
    p10 = sum(1 for d in ranked[:10] if grades.get(d, 0) >= 2) / 10
    return (total / relevant if relevant else 0.0), p10


judged_docs = st.dictionaries(
    st.integers(1, 300).map(str), st.integers(0, 3), min_size=1, max_size=25
)


@settings(max_examples=60, deadline=None)
@given(judged_docs, st.data())
def test_map_and_p10_match_reference_in_trec_order_when_scores_tie(
    grades: dict[str, int], data: st.DataObject
) -> None:
    docs = data.draw(st.lists(st.sampled_from(sorted(grades)), unique=True, min_size=1))
    scores = {d: float(data.draw(st.integers(0, 3))) for d in docs}  # many ties
    result = PrimeEvaluator({"T": grades}).evaluate("r", {"T": scores})
    ap, p10 = reference_ap_p10(trec_order(scores), grades)
    assert result.per_topic["T"]["map_prime"] == pytest.approx(ap)
    assert result.per_topic["T"]["p10_prime"] == pytest.approx(p10)


@settings(max_examples=40, deadline=None)
@given(judged_docs, st.data())
def test_unjudged_rows_never_change_scores_when_inserted_anywhere(
    grades: dict[str, int], data: st.DataObject
) -> None:
    docs = data.draw(st.lists(st.sampled_from(sorted(grades)), unique=True, min_size=1))
    rows = [("T", d, float(len(docs) - i)) for i, d in enumerate(docs)]
    noisy = list(rows)
    for n in range(data.draw(st.integers(1, 10))):
        position = data.draw(st.integers(0, len(noisy)))
        noisy.insert(position, ("T", f"unjudged{n}", data.draw(st.floats(-5, 50))))
    evaluator = PrimeEvaluator({"T": grades})
    clean = evaluate_answer_run("r", rows, evaluator).measures
    assert evaluate_answer_run("r", noisy, evaluator).measures == pytest.approx(clean)


@pytest.mark.parametrize(("judged", "expected"), [("d00", 0.0), ("d10", 0.1)])
def test_judged_fraction_takes_top_10_in_trec_order_when_all_scores_tie(
    judged: str, expected: float
) -> None:
    scores = {"T": {f"d{i:02d}": 1.0 for i in range(11)}}  # d10 ranks first, d00 last
    assert judged_fraction_at_10(scores, {"T": {judged: 2}}) == {"T": expected}


def test_relevance_level_of_the_task_binarizes_map_and_p10_when_scale_is_binary() -> None:
    # A binary task (level 1): grade 1 is relevant, so d counts; nDCG' is unchanged.
    grades = {"A.1": {"d": 1, "b": 0}}
    run = {"A.1": {"d": 2.0, "b": 1.0}}
    at_1 = PrimeEvaluator(grades, relevance_level=1).evaluate("r", run)
    at_2 = PrimeEvaluator(grades).evaluate("r", run)
    assert at_1.per_topic["A.1"]["map_prime"] == pytest.approx(1.0)
    assert at_2.per_topic["A.1"]["map_prime"] == pytest.approx(0.0)
    assert at_1.per_topic["A.1"]["ndcg_prime"] == at_2.per_topic["A.1"]["ndcg_prime"]


def test_openqa_p1_and_ar_follow_the_task_level_and_grade_4_when_scale_is_0_to_4() -> None:
    grades = {"A.1": {"x": 4}, "A.2": {"y": 3}}
    rows = [("A.1", "x", 1.0), ("A.2", "y", 1.0)]
    result = evaluate_openqa_run("r", rows, grades, relevance_level=4)
    assert result.measures["ar"] == pytest.approx(3.5)
    assert result.measures["p1"] == pytest.approx(0.5)

"""Any trec_eval measure by name: parsing, and values equal to pytrec_eval's and ir_measures'."""

import random

import ir_measures
import pytest
import pytrec_eval

from evaluation.trec_measures import (
    Measure,
    MeasureEvaluator,
    MeasureNameError,
    evaluate_measures,
    parse_measures,
)

TOL = 1e-12


@pytest.mark.parametrize(
    ("names", "expected"),
    [
        (["map"], [Measure("map", "map")]),
        (["P_10"], [Measure("P_10", "P_10")]),
        (["P.5,10"], [Measure("P_5", "P_5"), Measure("P_10", "P_10")]),
        (["ndcg_cut_10"], [Measure("ndcg_cut_10", "ndcg_cut_10")]),
        (["ndcg", "recip_rank", "bpref"], [Measure(n, n) for n in ("ndcg", "recip_rank", "bpref")]),
        (
            ["Rprec", "set_F", "num_rel_ret"],
            [Measure(n, n) for n in ("Rprec", "set_F", "num_rel_ret")],
        ),
        (["iprec_at_recall_0.10"], [Measure("iprec_at_recall_0.10", "iprec_at_recall_0.10")]),
        (["recall_100", "recall_100"], [Measure("recall_100", "recall_100")]),
        (["nDCG@10"], [Measure("nDCG@10", "ndcg_cut_10")]),
        (["nDCG"], [Measure("nDCG", "ndcg")]),
        (["AP(rel=2)"], [Measure("AP(rel=2)", "map", 2)]),
        (["P(rel=2)@10"], [Measure("P(rel=2)@10", "P_10", 2)]),
        (["RR", "R@100"], [Measure("RR", "recip_rank"), Measure("R@100", "recall_100")]),
        (["Judged@10"], [Measure("Judged@10", "Judged_10", None, 10)]),
        (["Bpref", "Rprec"], [Measure("Bpref", "bpref"), Measure("Rprec", "Rprec")]),
        (["IPrec@0.1"], [Measure("IPrec@0.1", "iprec_at_recall_0.10")]),
    ],
)
def test_names_parse_when_trec_eval_or_ir_measures_syntax(names, expected) -> None:
    assert parse_measures(names) == expected


@pytest.mark.parametrize(
    "name", ["foo", "P", "map_10", "P_x", "P.", "nDCG@x", "Judged", "RR@", "map.5", "", "P_1.5"]
)
def test_bad_name_is_named_with_examples_when_unknown(name: str) -> None:
    with pytest.raises(MeasureNameError, match=r"unknown measure .*examples: map, P_10"):
        parse_measures([name])


MEASURES = ["map", "P_5", "P_10", "ndcg", "ndcg_cut_10", "recip_rank", "bpref", "Rprec",
            "recall_20", "num_rel_ret", "set_F", "iprec_at_recall_0.10", "map_cut_5",
            "success_1"]  # fmt: skip


def random_data(seed: int) -> tuple[dict, dict]:
    """Graded qrels (0-2) and a run with ties, unjudged and string docs, missing topics."""
    rng = random.Random(seed)
    docs = [f"d{i}" for i in range(12)] + ["doc-a", "Doc_B", "x.1", "10", "9"]
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for t in range(8):
        topic = f"T{t}"
        judged = rng.sample(docs, rng.randint(1, 10))
        qrels[topic] = {d: rng.choice([0, 0, 1, 2]) for d in judged}
        if t % 4 != 3:  # every fourth topic is missing from the run
            retrieved = rng.sample(docs, rng.randint(1, len(docs)))
            run[topic] = {d: float(rng.choice([0.5, 1.0, 1.5, 2.0, 3.0])) for d in retrieved}
    run["not-in-qrels"] = {"d1": 1.0}
    return qrels, run


def direct(qrels, run, names, *, level=1, judged_only=False):
    """pytrec_eval alone: topic -> measure -> value for the run's qrels topics."""
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(names), relevance_level=level, judged_docs_only_flag=judged_only
    )
    found = evaluator.evaluate(run)
    # A topic left with no judged document: pytrec_eval gives some measures NaN, trec_eval and
    # the ARQMath scripts score it 0 (nothing retrieved), as we do.
    return {t: {m: 0.0 if v != v else v for m, v in ms.items()} for t, ms in found.items()}


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
def test_values_equal_pytrec_eval_when_random_graded_data(seed, level, judged_only) -> None:
    qrels, run = random_data(seed)
    expected = direct(qrels, run, MEASURES, level=level, judged_only=judged_only)
    for average in ("all", "run"):
        got = evaluate_measures(
            run, qrels, MEASURES, relevance_level=level, judged_only=judged_only, average=average
        )
        over = sorted(qrels) if average == "all" else sorted(t for t in run if t in qrels)
        assert got.topics == len(over)
        for m in MEASURES:
            mean = sum(expected.get(t, {}).get(m, 0.0) for t in over) / len(over)
            assert got.measures[m] == pytest.approx(mean, abs=TOL), (m, average)
            for topic, values in expected.items():
                if run[topic] and (not judged_only or any(d in qrels[topic] for d in run[topic])):
                    assert got.per_topic[topic][m] == pytest.approx(values[m], abs=TOL), m


def trec_cut(run, depth):
    """An independent -M: sort by score desc, doc id desc, keep the first ``depth``."""
    return {
        t: dict(sorted(docs.items(), key=lambda ds: (ds[1], ds[0]), reverse=True)[:depth])
        for t, docs in run.items()
    }


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("depth", [1, 3, 7])
def test_values_equal_pytrec_eval_on_cut_run_when_depth_given(seed, depth) -> None:
    qrels, run = random_data(seed)
    expected = direct(qrels, trec_cut(run, depth), MEASURES)
    got = evaluate_measures(run, qrels, MEASURES, depth=depth, average="run")
    for topic, values in expected.items():
        for m in MEASURES:
            assert got.per_topic[topic][m] == pytest.approx(values[m], abs=TOL), (topic, m)


def test_ties_keep_larger_doc_id_when_depth_cuts_equal_scores() -> None:
    qrels = {"1": {"b": 1, "a": 0}}
    # Equal scores: trec_eval ranks "b" before "a" (doc id descending), whatever the rank column.
    got = evaluate_measures({"1": {"a": 1.0, "b": 1.0}}, qrels, ["P_1"], depth=1)
    assert got.measures["P_1"] == 1.0
    got = evaluate_measures({"1": {"a": 1.0, "b": 1.0}}, qrels, ["P_1"])
    assert got.measures["P_1"] == 1.0


IR_NAMES = ["nDCG@10", "nDCG", "AP", "AP(rel=2)", "P@5", "P(rel=2)@10", "RR", "R@20",
            "Bpref", "Rprec", "Judged@5", "Judged@10"]  # fmt: skip


def distinct_scores(run):
    """ir_measures' Judged breaks ties by doc id ascending (trec_eval: descending): no ties."""
    return {t: {d: float(i) for i, d in enumerate(docs)} for t, docs in run.items()}


@pytest.mark.parametrize("seed", range(12))
def test_values_equal_ir_measures_when_ir_measures_names(seed) -> None:
    qrels, run = random_data(seed)
    run = distinct_scores(run)
    # ir_measures averages over every qrels topic, a missing one scoring 0: trec_eval -c.
    got = evaluate_measures(run, qrels, IR_NAMES, average="all")
    parsed = [ir_measures.parse_measure(n) for n in IR_NAMES]
    aggregate = ir_measures.calc_aggregate(parsed, qrels, run)
    for name, measure in zip(IR_NAMES, parsed, strict=True):
        assert got.measures[name] == pytest.approx(aggregate[measure], abs=TOL), name
    for metric in ir_measures.iter_calc(parsed, qrels, run):
        name = IR_NAMES[parsed.index(metric.measure)]
        value = got.per_topic.get(metric.query_id, {}).get(name, 0.0)  # missing topic: 0
        assert value == pytest.approx(metric.value, abs=TOL), (metric.query_id, name)


def rel2(name: str) -> str:
    return name.replace("@", "(rel=2)@", 1) if "@" in name else name + "(rel=2)"


@pytest.mark.parametrize("seed", range(6))
def test_trec_names_equal_ir_measures_when_ties(seed) -> None:
    # ir_measures hands P, AP, nDCG to pytrec_eval, so ties order as trec_eval's there too.
    qrels, run = random_data(seed)
    pairs = {"map": "AP", "P_5": "P@5", "recip_rank": "RR", "bpref": "Bpref"}
    got = evaluate_measures(run, qrels, list(pairs), relevance_level=2)
    parsed = {t: ir_measures.parse_measure(rel2(n)) for t, n in pairs.items()}
    aggregate = ir_measures.calc_aggregate(list(parsed.values()), qrels, run)
    for trec, measure in parsed.items():
        assert got.measures[trec] == pytest.approx(aggregate[measure], abs=TOL), trec


def test_levels_get_own_evaluators_when_measures_differ_in_level() -> None:
    qrels = {"1": {"a": 1, "b": 2}}
    evaluator = MeasureEvaluator(qrels, parse_measures(["P_2", "P(rel=2)@2"]))
    got = evaluator.evaluate({"1": {"a": 2.0, "b": 1.0}})
    assert got.measures == {"P_2": 1.0, "P(rel=2)@2": 0.5}


def test_missing_topics_score_zero_only_when_average_all() -> None:
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}}
    assert evaluate_measures(run, qrels, ["map"]).measures["map"] == 0.5
    assert evaluate_measures(run, qrels, ["map"], average="run").measures["map"] == 1.0


def test_depth_below_one_is_refused_when_given() -> None:
    with pytest.raises(ValueError, match="depth must be at least 1"):
        MeasureEvaluator({"1": {"a": 1}}, parse_measures(["map"]), depth=0)

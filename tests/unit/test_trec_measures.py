"""Any trec_eval measure by name: parsing, and values equal to pytrec_eval's and ir_measures'."""

import math
import random

import ir_measures
import pytest
import pytrec_eval

from evaluation.core.trec_measures import (
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


EVERY = ["map", "gm_map", "Rprec", "bpref", "gm_bpref", "recip_rank", "ndcg", "ndcg_rel",
         "Rndcg", "infAP", "11pt_avg", "G", "binG", "utility", "num_q", "num_ret", "num_rel",
         "num_rel_ret", "num_nonrel_judged_ret", "set_F", "set_P", "set_map", "set_recall",
         "set_relative_P", "P.5,10", "recall.5,100", "ndcg_cut.5,10", "map_cut.10",
         "relative_P.5", "success.1,5", "Rprec_mult.0.5,2", "iprec_at_recall.0,0.1,1"]  # fmt: skip


def trec_keys(names):
    """pytrec_eval's keys of trec_eval names, expanded independently of our parser."""
    keys = []
    for name in names:
        family, _, params = name.partition(".")
        if not params:
            keys.append(name)
        elif family in ("Rprec_mult", "iprec_at_recall"):
            keys += [f"{family}_{float(p):.2f}" for p in params.split(",")]
        else:
            keys += [f"{family}_{p}" for p in params.split(",")]
    return keys


def trec_eval(qrels, run, names, *, level=1, judged_only=False, average="all", depth=None):
    """What ``trec_eval [-c] [-J] [-M depth] -l level -q`` gives, from pytrec_eval alone:
    per-topic values and pytrec_eval's own summary (sum of num_, geometric mean of gm_)."""
    keys = trec_keys(names)
    if depth is not None:
        run = trec_cut(run, depth)
    present = {t: docs for t, docs in run.items() if docs and t in qrels}
    topics = sorted(qrels) if average == "all" else sorted(present)
    evaluator = pytrec_eval.RelevanceEvaluator(
        qrels, set(keys), relevance_level=level, judged_docs_only_flag=judged_only
    )
    found = evaluator.evaluate({t: present.get(t, {}) for t in topics})
    for topic in topics:
        if topic not in present:  # trec_eval -c's clean-up of a missing topic's values
            found[topic]["num_ret"] = found[topic]["utility"] = 0.0
    # trec_eval's 0/0 on an empty ranking: NaN there, 0 here (documented)
    per = {t: {k: 0.0 if v != v else v for k, v in found[t].items()} for t in topics}
    means = {
        k: pytrec_eval.compute_aggregated_measure(k, [per[t][k] for t in topics]) for k in keys
    }
    return means, per


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", [1, 2])
@pytest.mark.parametrize("judged_only", [False, True])
@pytest.mark.parametrize("average", ["all", "run"])
def test_every_trec_eval_measure_equals_pytrec_eval_when_random_graded_data(
    seed, level, judged_only, average
) -> None:
    qrels, run = random_data(seed)
    means, per = trec_eval(qrels, run, EVERY, level=level, judged_only=judged_only, average=average)
    got = evaluate_measures(
        run, qrels, EVERY, relevance_level=level, judged_only=judged_only, average=average
    )
    assert got.topics == len(per)
    assert set(got.measures) == set(means)
    for key, mean in means.items():
        assert got.measures[key] == pytest.approx(mean, rel=1e-12, abs=TOL), key
        for topic, values in per.items():
            assert got.value(topic, key) == pytest.approx(values[key], abs=TOL), (topic, key)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("depth", [1, 4])
def test_depth_cuts_before_judged_only_when_both_given(seed, depth) -> None:
    # trec_eval's form_res_rels: -M keeps the first M, then -J drops the unjudged among them.
    qrels, run = random_data(seed)
    means, _ = trec_eval(qrels, run, EVERY, judged_only=True, depth=depth, level=2)
    got = evaluate_measures(run, qrels, EVERY, judged_only=True, depth=depth, relevance_level=2)
    for key, mean in means.items():
        assert got.measures[key] == pytest.approx(mean, rel=1e-12, abs=TOL), key


def test_count_measures_keep_qrels_counts_when_topic_missing_and_average_all() -> None:
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1, "d": 1, "e": 2}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    got = evaluate_measures(run, qrels, ["num_rel", "num_rel_ret", "num_ret", "num_q", "gm_map"])
    assert got.measures["num_rel"] == 4  # 1 + 3: trec_eval -c sums the qrels' counts
    assert got.measures["num_rel_ret"] == 1
    assert got.measures["num_ret"] == 2
    assert got.measures["num_q"] == 2
    # gm_map: exp(mean(ln 1, ln 0.00001))
    assert got.measures["gm_map"] == pytest.approx(math.sqrt(0.00001), rel=1e-12)
    run_only = evaluate_measures(run, qrels, ["num_rel", "num_q"], average="run")
    assert run_only.measures == {"num_rel": 1.0, "num_q": 1.0}


def test_strings_are_refused_when_trec_eval_measure_is_not_a_number() -> None:
    for name in ("runid", "relstring"):
        with pytest.raises(MeasureNameError, match="not a number"):
            parse_measures([name])


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "AP(rel=2, judged_only=True)",
            Measure("AP(rel=2, judged_only=True)", "map", 2, None, True),
        ),
        ("nDCG(judged_only=True)", Measure("nDCG(judged_only=True)", "ndcg", None, None, True)),
        ("NumRet(rel=1)", Measure("NumRet(rel=1)", "num_rel_ret", 1)),
        ("NumQ", Measure("NumQ", "num_q")),
        ("SetAP", Measure("SetAP", "set_map")),
        ("Rprec_mult_0.5", Measure("Rprec_mult_0.50", "Rprec_mult_0.50")),
    ],
)
def test_ir_measures_parameters_parse_when_given(name, expected) -> None:
    assert parse_measures([name]) == [expected]


@pytest.mark.parametrize("name", ["AP(foo=1)", "AP(rel=x)", "AP(judged_only=yes)", "AP()", "P@0"])
def test_bad_parameters_are_named_when_given(name) -> None:
    with pytest.raises(MeasureNameError, match=r"unknown measure"):
        parse_measures([name])


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
    _, expected = trec_eval(qrels, run, EVERY, depth=depth, average="run")
    got = evaluate_measures(run, qrels, EVERY, depth=depth, average="run")
    for topic, values in expected.items():
        for m, value in values.items():
            assert got.per_topic[topic][m] == pytest.approx(value, abs=TOL), (topic, m)


def test_ties_keep_larger_doc_id_when_depth_cuts_equal_scores() -> None:
    qrels = {"1": {"b": 1, "a": 0}}
    # Equal scores: trec_eval ranks "b" before "a" (doc id descending), whatever the rank column.
    got = evaluate_measures({"1": {"a": 1.0, "b": 1.0}}, qrels, ["P_1"], depth=1)
    assert got.measures["P_1"] == 1.0
    got = evaluate_measures({"1": {"a": 1.0, "b": 1.0}}, qrels, ["P_1"])
    assert got.measures["P_1"] == 1.0


IR_NAMES = ["nDCG@10", "nDCG", "AP", "AP(rel=2)", "P@5", "P(rel=2)@10", "RR", "R@20",
            "Bpref", "Rprec", "Judged@5", "Judged@10", "nDCG(judged_only=True)",
            "AP(rel=2,judged_only=True)", "P(rel=2,judged_only=True)@10", "NumRet(rel=1)",
            "Success@5", "SetP", "SetF", "IPrec@0.5", "infAP", "AP@10"]  # fmt: skip


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

"""The human sample's inclusion probabilities and the prediction-powered estimate, against
hand computations and trec_eval (pytrec_eval) on complete grades."""

import math
import random

import numpy as np
import pytest

from evaluation.core.human_sample import (
    HumanSample,
    MachineGrade,
    SampleDraw,
    SampleError,
    Stratum,
    inclusion_probabilities,
    item_weight,
    sample_plan,
    stratum_of,
)
from evaluation.core.ppi import (
    PpiEvaluator,
    UnsupportedMeasure,
    exact_value,
    linear_measure,
    run_support,
)
from evaluation.core.trec_measures import evaluate_measures

P2 = linear_measure("P_2", "P_2", relevance_level=1)


def test_inclusion_probabilities_split_the_budget_when_half_goes_to_doubt() -> None:
    # S = 4, D = 1*1 + 1*0.5 + 2*0.5 = 2.5; raw = s * (0.5/4 + 0.5*doubt/2.5); budget 2.
    sizes = {("1", "a"): 1.0, ("1", "b"): 1.0, ("1", "c"): 2.0}
    doubts = {("1", "a"): 1.0, ("1", "b"): 0.5, ("1", "c"): 0.5}
    found = inclusion_probabilities(sizes, doubts, 2, uncertain_share=0.5)
    assert found[("1", "a")] == pytest.approx(2 * 0.325)
    assert found[("1", "b")] == pytest.approx(2 * 0.225)
    assert found[("1", "c")] == pytest.approx(2 * 0.45)


def test_inclusion_probabilities_take_an_item_for_sure_when_its_share_passes_one() -> None:
    sizes = {("1", "a"): 1.0, ("1", "b"): 1.0, ("1", "c"): 2.0}
    doubts = {("1", "a"): 1.0, ("1", "b"): 0.5, ("1", "c"): 0.5}
    found = inclusion_probabilities(sizes, doubts, 2.5, uncertain_share=0.5)
    # c would get 0.45 * 2.5 > 1: taken; a and b share the 1.5 left as 0.325 : 0.225.
    assert found[("1", "c")] == 1.0
    assert found[("1", "a")] == pytest.approx(1.5 * 0.325 / 0.55)
    assert found[("1", "b")] == pytest.approx(1.5 * 0.225 / 0.55)
    assert sum(found.values()) == pytest.approx(2.5)


def test_every_item_is_drawn_when_the_budget_covers_them() -> None:
    machine = {("1", d): MachineGrade(g) for d, g in zip("abcd", (0, 1, 2, 0), strict=True)}
    sample = sample_plan(machine, 10, rng=random.Random(1), top_grade=2)
    assert {(d.topic, d.item) for d in sample.draws} == set(machine)
    assert all(d.inclusion == 1.0 for d in sample.draws)


def test_items_are_drawn_as_often_as_their_probability_says_when_sampled_many_times() -> None:
    machine = {("1", f"d{i}"): MachineGrade(i % 3) for i in range(12)}
    weights = {key: 1.0 + (i % 4) for i, key in enumerate(sorted(machine))}
    chances = None
    counts = dict.fromkeys(machine, 0)
    rounds = 4000
    rng = random.Random(7)
    for _ in range(rounds):
        sample = sample_plan(machine, 4, rng=rng, top_grade=2, weights=weights)
        chances = {(d.topic, d.item): d.inclusion for d in sample.draws} | (chances or {})
        for draw in sample.draws:
            counts[(draw.topic, draw.item)] += 1
    assert chances is not None
    for key, chance in chances.items():
        # Binomial(4000, pi): 4 standard deviations.
        assert counts[key] / rounds == pytest.approx(chance, abs=4 * math.sqrt(0.25 / rounds))
    # The middle grade (doubt 1.0) is drawn more often than an end grade of the same weight.
    assert chances[("1", "d1")] > chances[("1", "d0")]


def test_a_sample_is_refused_when_the_budget_is_not_positive() -> None:
    with pytest.raises(SampleError, match="at least 1"):
        sample_plan({("1", "a"): MachineGrade(0)}, 0, rng=random.Random(0), top_grade=2)


def test_strata_are_grades_and_probability_bands_when_probabilities_are_given() -> None:
    assert stratum_of(MachineGrade(2)) == "g2"
    assert stratum_of(MachineGrade(1, {0: 0.1, 1: 0.85, 2: 0.05})) == "g1 p>=0.80"
    assert stratum_of(MachineGrade(0, {0: 0.5, 1: 0.5})) == "g0 p>=0.00"


def test_item_weight_is_the_sum_of_the_squared_run_weights_with_a_floor() -> None:
    items = {("1", "a"): 0, ("1", "b"): 0, ("1", "c"): 0}
    found = item_weight({"r1": {("1", "a"): 0.3}, "r2": {("1", "a"): 0.4, ("1", "b"): 1.0}}, items)
    assert found[("1", "a")] == pytest.approx(0.25)  # 0.09 + 0.16
    assert found[("1", "b")] == pytest.approx(1.0)
    assert found[("1", "c")] == pytest.approx(0.1 * 0.625)  # a tenth of the mean (0.25 + 1) / 2


def _sample(draws: list[tuple[str, str, float]], strata: dict[str, int]) -> HumanSample:
    return HumanSample(
        budget=len(draws),
        strata={h: Stratum(h, n, 0.0, 0, 0.0) for h, n in strata.items()},
        draws=[SampleDraw("1", item, h, pi) for item, h, pi in draws],
        uncertain_share=0.8,
    )


def test_estimate_equals_the_hand_computation_when_a_stratum_is_corrected() -> None:
    machine = {("1", d): MachineGrade(g) for d, g in zip("abcd", (1, 0, 1, 0), strict=True)}
    sample = _sample([("a", "g1", 0.5), ("b", "g0", 0.5), ("c", "g1", 0.25)], {"g0": 2, "g1": 2})
    human = {("1", "a"): 0, ("1", "b"): 1, ("1", "c"): 1}
    run = {"1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    found = PpiEvaluator(machine, sample, human, [P2], ["1"], grades=(0, 1)).estimate(run)["P_2"]
    # Stratum g1's error, weighted by 1/pi: (-1/0.5 + 0/0.25) / (1/0.5 + 1/0.25) = -1/3, so
    # a and c count 2/3; g0 has one judged item, no correction. P_2 over a, b (weights 1/2):
    # 1/2 * 2/3 + 1/2 * 0, plus the residuals: a (0 - 2/3) / 2 / 0.5, b (1 - 0) / 2 / 0.5.
    assert found.value == pytest.approx(1 / 3 - 2 / 3 + 1)
    # Poisson variance sum (1 - pi)/pi^2 (w e)^2 over the judged items, w the item's c plus
    # its share of g1's correction spread over the run: g1's run weight 1/2 (a) less its
    # judged estimate 1/2 / 0.5, over g1's 1/pi mass 1/0.5 + 1/0.25 = 6: -1/12. Residuals
    # from g1's fitted mean of 2 items count n/(n-1) = 2 times; b (g0, no correction) once.
    a = (1 - 0.5) / 0.5**2 * ((1 / 2 - 1 / 12) * (-2 / 3)) ** 2 * 2
    c = (1 - 0.25) / 0.25**2 * ((0 - 1 / 12) * (1 / 3)) ** 2 * 2
    b = (1 - 0.5) / 0.5**2 * (1 / 2 * 1) ** 2
    assert found.std_error == pytest.approx(math.sqrt(a + b + c))
    assert found.low == pytest.approx(found.value - 1.959963984540054 * found.std_error)
    assert found.machine_only == pytest.approx(0.5)
    assert (found.n_human, found.n_machine) == (3, 4)


def test_estimate_is_exact_with_no_width_when_people_judged_everything() -> None:
    machine = {("1", d): MachineGrade(g) for d, g in zip("abcd", (2, 0, 1, 0), strict=True)}
    human = {("1", "a"): 1, ("1", "b"): 2, ("1", "c"): 0, ("1", "d"): 2}
    sample = _sample([(d, stratum_of(machine[("1", d)]), 1.0) for d in "abcd"], {})
    ndcg = linear_measure("ndcg_cut_3", "ndcg_cut_3")
    run = {"1": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    found = PpiEvaluator(machine, sample, human, [ndcg], ["1"], grades=(0, 1, 2)).estimate(run)
    grades = {"1": {"a": 1, "b": 2, "c": 0, "d": 2}}
    expected = evaluate_measures(run, grades, ["ndcg_cut_3"]).measures["ndcg_cut_3"]
    assert found["ndcg_cut_3"].value == pytest.approx(expected)
    assert found["ndcg_cut_3"].std_error == 0.0


@pytest.mark.parametrize("name", ["P_5", "P_2", "ndcg_cut_10", "ndcg_cut_3", "ndcg"])
def test_weighted_sum_equals_trec_eval_when_grades_are_complete(name: str) -> None:
    rng = random.Random(3)
    grades = {t: {f"d{i}": rng.choice((0, 0, 1, 2)) for i in range(15)} for t in ("1", "2", "3")}
    grades["3"] = dict.fromkeys(grades["3"], 0)  # a topic without relevant items scores 0
    run = {t: {f"d{i}": rng.random() for i in range(0, 20, 2)} for t in ("1", "3")}
    expected = evaluate_measures(run, grades, [name]).measures[name]
    assert exact_value(linear_measure(name, name), run, grades, ["1", "2", "3"]) == pytest.approx(
        expected
    )


def test_estimate_is_unbiased_when_averaged_over_many_samples() -> None:
    rng = random.Random(11)
    docs = [f"d{i}" for i in range(40)]
    truth = {("1", d): rng.choice((0, 0, 1)) for d in docs}
    machine = {k: MachineGrade(g if rng.random() < 0.7 else 1 - g) for k, g in truth.items()}
    run = {"1": {d: float(40 - i) for i, d in enumerate(docs)}}
    p10 = linear_measure("P_10", "P_10")
    expected = exact_value(p10, run, {"1": {d: g for (_, d), g in truth.items()}}, ["1"])
    values = []
    for _ in range(3000):
        sample = sample_plan(machine, 8, rng=rng, top_grade=1)
        human = {(d.topic, d.item): truth[(d.topic, d.item)] for d in sample.draws}
        evaluator = PpiEvaluator(machine, sample, human, [p10], ["1"], grades=(0, 1))
        values.append(evaluator.estimate(run)["P_10"].value)
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    # The stratum corrections make it a regression estimator: unbiased up to O(1/n).
    assert abs(mean - expected) < 4 * spread / math.sqrt(len(values)) + 0.01


def test_run_support_is_the_log_of_the_runs_summed_discounts() -> None:
    runs = [
        {"1": {"a": 3.0, "b": 2.0, "c": 1.0}},
        {"1": {"c": 9.0, "a": 1.0}, "2": {"a": 1.0}},
    ]
    found = run_support(runs, [("1", "a"), ("1", "b"), ("1", "c"), ("1", "z")], depth=2)
    # Ranks within depth 2: a is 1st in the first run and 2nd in the second, b 2nd in the
    # first, c 1st in the second (3rd in the first, beyond the depth); z nowhere.
    assert found[("1", "a")] == pytest.approx(math.log(1 + 1 + 1 / math.log2(3)))
    assert found[("1", "b")] == pytest.approx(math.log(1 + 1 / math.log2(3)))
    assert found[("1", "c")] == pytest.approx(math.log(2))
    assert found[("1", "z")] == 0.0
    assert set(found) == {("1", "a"), ("1", "b"), ("1", "c"), ("1", "z")}


def test_estimate_with_support_is_weighted_least_squares_with_cell_effects() -> None:
    """Checked against numpy's least squares: per stratum, a common slope on the runs'
    support and one level per (topic, stratum) cell, each judged item weighted 1/pi; the
    estimate is the fitted gains of the run's items plus its judged residuals over pi."""
    rng = random.Random(5)
    machine: dict[tuple[str, str], MachineGrade] = {}
    human: dict[tuple[str, str], int] = {}
    support: dict[tuple[str, str], float] = {}
    draws = []
    for topic in ("1", "2", "3"):
        for i in range(24):
            key = (topic, f"d{i}")
            machine[key] = MachineGrade(i % 2)
            support[key] = rng.uniform(0, 3)
            if i < 16:  # eight judged items in every (topic, stratum) cell, 24 in a stratum
                human[key] = int(rng.random() < 0.2 + 0.2 * support[key])
                draws.append(SampleDraw(topic, key[1], f"g{i % 2}", rng.uniform(0.2, 0.9)))
    sample = HumanSample(len(draws), {}, draws, 0.8)
    p5 = linear_measure("P_5", "P_5")
    run = {t: {f"d{i}": float(i * 7 % 24) for i in range(24)} for t in ("1", "2", "3")}
    found = PpiEvaluator(
        machine, sample, human, [p5], ["1", "2", "3"], grades=(0, 1), support=support
    ).estimate(run)["P_5"]

    cells = sorted({(d.topic, d.stratum) for d in draws})
    fitted: dict[tuple[str, str], float] = {}
    for stratum in ("g0", "g1"):
        judged = [d for d in draws if d.stratum == stratum]
        own = [c for c in cells if c[1] == stratum]
        design = np.array(
            [
                [float((d.topic, stratum) == c) for c in own] + [support[(d.topic, d.item)]]
                for d in judged
            ]
        )
        error = np.array(
            [human[(d.topic, d.item)] - machine[(d.topic, d.item)].grade for d in judged]
        )
        root = np.sqrt([1 / d.inclusion for d in judged])
        coef = np.linalg.lstsq(design * root[:, None], error * root, rcond=None)[0]
        for key, grade in machine.items():
            if f"g{grade.grade}" == stratum:
                level = coef[own.index((key[0], stratum))]
                fitted[key] = grade.grade + level + coef[-1] * support[key]
    inclusion = {(d.topic, d.item): d.inclusion for d in draws}
    expected = 0.0
    for topic, docs in run.items():
        for doc in sorted(docs, key=lambda d: -docs[d])[:5]:
            key = (topic, doc)
            term = fitted[key]
            if key in human:
                term += (human[key] - fitted[key]) / inclusion[key]
            expected += term / 5 / 3
    assert found.value == pytest.approx(expected)
    assert found.machine_only == pytest.approx(
        sum(
            machine[(t, d)].grade
            for t, docs in run.items()
            for d in sorted(docs, key=lambda d: -docs[d])[:5]
        )
        / 15
    )
    # With fewer judged items than a slope needs, the support changes nothing.
    few = HumanSample(0, {}, [d for d in draws if d.topic == "1"], 0.8)
    alone, helped = (
        PpiEvaluator(machine, few, human, [p5], ["1", "2", "3"], grades=(0, 1), support=given)
        .estimate(run)["P_5"]
        .value
        for given in (None, support)
    )
    assert helped == pytest.approx(alone)


def test_estimate_with_support_is_unbiased_when_averaged_over_many_samples() -> None:
    rng = random.Random(13)
    docs = [f"d{i}" for i in range(40)]
    # Relevance falls with rank and the machine errs at random: the support predicts the
    # machine's error, as the runs' consensus does on real pools.
    truth = {("1", d): int(rng.random() < 0.6 - i / 80) for i, d in enumerate(docs)}
    machine = {k: MachineGrade(g if rng.random() < 0.7 else 1 - g) for k, g in truth.items()}
    support = {("1", d): math.log1p(40 - i) for i, d in enumerate(docs)}
    run = {"1": {d: float(i % 7) for i, d in enumerate(docs)}}
    p10 = linear_measure("P_10", "P_10")
    expected = exact_value(p10, run, {"1": {d: g for (_, d), g in truth.items()}}, ["1"])
    values = []
    for _ in range(3000):
        sample = sample_plan(machine, 12, rng=rng, top_grade=1)
        human = {(d.topic, d.item): truth[(d.topic, d.item)] for d in sample.draws}
        evaluator = PpiEvaluator(
            machine, sample, human, [p10], ["1"], grades=(0, 1), support=support
        )
        values.append(evaluator.estimate(run)["P_10"].value)
    mean = sum(values) / len(values)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
    # A fitted slope and fitted levels: a regression estimator, unbiased up to O(1/n).
    assert abs(mean - expected) < 4 * spread / math.sqrt(len(values)) + 0.01


def test_measures_that_are_not_weighted_sums_are_refused() -> None:
    with pytest.raises(UnsupportedMeasure, match="map"):
        linear_measure("map", "map")

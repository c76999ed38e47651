"""The people-and-machine estimate's two additions, checked by hand: each run's remainder
shrunk toward the runs' mean (Efron and Morris), and the variance the design anticipates
for a run from every item's inclusion probability."""

import math
import random
import statistics

import pytest

from evaluation.core.human_sample import HumanSample, MachineGrade, SampleDraw, Stratum
from evaluation.core.ppi import PpiEvaluator, linear_measure
from evaluation.core.ppi.shrinkage import shrunk_remainders

P1 = linear_measure("P_1", "P_1", relevance_level=1)


def test_remainders_spread_beyond_their_noise_are_shrunk_by_their_share_of_noise() -> None:
    found = shrunk_remainders({"a": (0.3, 0.01), "b": (-0.3, 0.01), "c": (0.0, 0.04)})
    # Mean 0; tau^2 = ((0.09 - 0.01) + (0.09 - 0.01) + (0 - 0.04)) / 2 = 0.06.
    assert found["a"] == pytest.approx(0.3 * 0.06 / 0.07)
    assert found["b"] == pytest.approx(-0.3 * 0.06 / 0.07)
    assert found["c"] == pytest.approx(0.0)


def test_remainders_no_wider_than_their_noise_all_become_the_mean() -> None:
    found = shrunk_remainders({"a": (0.1, 0.02), "b": (0.0, 0.02), "c": (0.2, 0.02)})
    # tau^2 = (0.01 + 0.01 + 0.01 - 3 * 0.02) / 2 < 0: nothing is real spread.
    assert found == pytest.approx({"a": 0.1, "b": 0.1, "c": 0.1})


def test_fewer_than_three_runs_keep_their_remainders() -> None:
    assert shrunk_remainders({"a": (0.5, 1.0), "b": (-0.5, 1.0)}) == {"a": 0.5, "b": -0.5}


def test_a_remainder_with_no_noise_is_kept_whole() -> None:
    found = shrunk_remainders({"a": (0.4, 0.0), "b": (0.0, 0.01), "c": (-0.1, 0.01)})
    assert found["a"] == pytest.approx(0.4)


def _plan(draws: list[tuple[str, float]], chances: dict[str, float]) -> HumanSample:
    return HumanSample(
        budget=len(draws),
        strata={"g1": Stratum("g1", len(chances), 0.0, 0, 0.0)},
        draws=[SampleDraw("1", item, "g1", pi) for item, pi in draws],
        uncertain_share=0.8,
        chances={("1", item): pi for item, pi in chances.items()},
    )


def test_a_run_with_no_judged_item_gets_the_width_the_design_anticipates() -> None:
    # Every item graded 1; people judged a (0) and b (1), each drawn with pi 0.5: the
    # stratum's shift is their weighted mean error (-0.5), each residual +-0.5 inflated by
    # sqrt(2/1) for the mean of two, so sigma^2 = 0.5. A run ranking only c first (P_1,
    # weight 1) has no judged item; c's pi is 0.25: variance 1 * 0.5 * 0.75 / 0.25 = 1.5.
    machine = {("1", d): MachineGrade(1) for d in "abc"}
    plan = _plan([("a", 0.5), ("b", 0.5)], {"a": 0.5, "b": 0.5, "c": 0.25})
    human = {("1", "a"): 0, ("1", "b"): 1}
    run = {"1": {"c": 1.0}}
    with_chances = PpiEvaluator(machine, plan, human, [P1], ["1"], grades=(0, 1))
    found = with_chances.estimate(run)["P_1"]
    assert found.value == pytest.approx(0.5)
    assert found.std_error == pytest.approx(math.sqrt(1.5))
    without = HumanSample(plan.budget, plan.strata, plan.draws, plan.uncertain_share)
    alone = PpiEvaluator(machine, without, human, [P1], ["1"], grades=(0, 1)).estimate(run)
    # Without every item's pi, only the judged items' residuals count: the shift's share,
    # (0 - 1/4)^2 (0.5 sqrt(2) / 0.5)^2 0.5 for each of a and b.
    assert alone["P_1"].std_error == pytest.approx(math.sqrt(2 * 0.5 * 0.0625 * 2))


def test_a_run_variance_pools_its_judged_items_with_the_anticipated_one_as_ten_items() -> None:
    # The same judged items; a run ranking a first. Design variance (Poisson, with the
    # stratum's shift spread over the run: g1's run weight 1 less a's estimate 1/0.5, over the
    # stratum's 1/pi mass 4, so a weighs 1 - 1/4 and b -1/4; residuals -+0.5 times sqrt(2)):
    # a: 0.5 (0.75 * 0.5 * sqrt(2) / 0.5)^2 = 0.5625, b: 0.5 (0.25 * 0.5 * sqrt(2) / 0.5)^2 =
    # 0.0625; 0.625 in all. Anticipated: a alone, 1 * 0.5 * 0.5 / 0.5 = 0.5. One judged item:
    # (10 * 0.5 + 1 * 0.625) / 11.
    machine = {("1", d): MachineGrade(1) for d in "abc"}
    plan = _plan([("a", 0.5), ("b", 0.5)], {"a": 0.5, "b": 0.5, "c": 0.25})
    human = {("1", "a"): 0, ("1", "b"): 1}
    found = PpiEvaluator(machine, plan, human, [P1], ["1"], grades=(0, 1)).estimate(
        {"1": {"a": 1.0}}
    )["P_1"]
    assert found.std_error == pytest.approx(math.sqrt((10 * 0.5 + 0.625) / 11))
    # Known 0.5 - 0.5 (a's own residual), remainder -0.5 (1 - 0.5) / 0.5.
    assert found.unbiased == pytest.approx(-0.5)


def test_estimate_runs_shrinks_and_the_interval_stays_the_unbiased_one() -> None:
    rng = random.Random(3)
    items = [f"d{i}" for i in range(60)]
    machine = {("1", d): MachineGrade(rng.choice((0, 1))) for d in items}
    truth = {("1", d): rng.choice((0, 1)) for d in items}
    chances = dict.fromkeys(items, 0.3)
    drawn = [(d, 0.3) for d in items if rng.random() < 0.3]
    plan = HumanSample(
        budget=len(drawn),
        strata={h: Stratum(h, 30, 0.0, 0, 0.0) for h in ("g0", "g1")},
        draws=[SampleDraw("1", d, f"g{machine[('1', d)].grade}", p) for d, p in drawn],
        uncertain_share=0.8,
        chances={("1", d): p for d, p in chances.items()},
    )
    human = {("1", d): truth[("1", d)] for d, _ in drawn}
    p10 = linear_measure("P_10", "P_10", relevance_level=1)
    runs = {
        f"r{r}": {"1": {d: float(-i) for i, d in enumerate(items[r * 5 : r * 5 + 10])}}
        for r in range(8)
    }
    evaluator = PpiEvaluator(machine, plan, human, [p10], ["1"], grades=(0, 1))
    together = evaluator.estimate_runs(runs)
    for label, run in runs.items():
        alone = evaluator.estimate(run)["P_10"]
        shrunk = together[label]["P_10"]
        assert shrunk.unbiased == pytest.approx(alone.value)
        assert shrunk.std_error == pytest.approx(alone.std_error)
        assert shrunk.low <= shrunk.value <= shrunk.high
        assert shrunk.low == pytest.approx(min(alone.low, shrunk.value))
    # What moved is the remainder only: the spread of the estimates is at most the centres'.
    centres = [together[r]["P_10"].unbiased for r in runs]
    values = [together[r]["P_10"].value for r in runs]
    assert statistics.pstdev(values) <= statistics.pstdev(centres) + 1e-12

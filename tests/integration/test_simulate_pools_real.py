"""The pool planner on TREC-COVID round 1's 143 real runs (../shared/data/trec-covid-round1).

Depth-k figures are checked against depth-k pooling computed here from the files alone (run
rows in trec_eval's order, the pooled runs from the leaderboard's ``contributed judgments``);
every strategy must stay within the budget, and the same seed must give the same pools.
"""

import csv
import gzip
import io
import json
import os
from pathlib import Path

import pytest
from django.core.management import call_command
from scipy.stats import kendalltau

from evaluation.core.planner_files import planner_input_read
from evaluation.core.pool_planner import Planner, ranked_runs, without_group
from evaluation.core.trec_measures import evaluate_measures
from pooling.core.algorithms.strategies import (
    DEFAULT_STRATEGIES,
    Budget,
    build_pool,
    judging_order,
    parse_strategy,
    pool_of,
)

COVID = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "trec-covid-round1"
OFFICIAL_JUDGMENTS = 8691


@pytest.fixture(scope="module")
def covid(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """The round's files, and the pool-runs and groups files the leaderboard implies."""
    if not COVID.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"CI must have the real TREC-COVID files at {COVID}")
        pytest.skip(f"TREC-COVID round 1 files not found at {COVID} (a clone without ../shared)")
    folder = tmp_path_factory.mktemp("covid")
    with (COVID / "leaderboard.csv").open(newline="") as stream:
        board = list(csv.DictReader(stream))
    pooled = [row["run"] for row in board if row["contributed judgments"] == "yes"]
    (folder / "pool.txt").write_text("\n".join(pooled) + "\n")
    (folder / "groups.tsv").write_text("".join(f"{r['run']}\t{r['team']}\n" for r in board))
    return {
        "qrels": str(COVID / "qrels-rnd1.txt"),
        "runs": sorted(str(p) for p in (COVID / "runs").glob("*.gz")),
        "pool": str(folder / "pool.txt"),
        "groups": str(folder / "groups.tsv"),
        "pooled": pooled,
    }


def simulate(covid: dict, *args: str) -> list[dict]:
    out = io.StringIO()
    call_command(
        "simulate_pools",
        "--qrels",
        covid["qrels"],
        "--pool-runs",
        covid["pool"],
        "--groups",
        covid["groups"],
        "--format",
        "json",
        *args,
        *covid["runs"],
        stdout=out,
    )
    return json.loads(out.getvalue())


def independent_qrels() -> dict[tuple[str, str], int]:
    grades = {}
    for line in (COVID / "qrels-rnd1.txt").read_text().splitlines():
        topic, _iteration, doc, grade = line.split()
        grades[(topic, doc)] = int(grade)
    return grades


def independent_runs() -> dict[str, dict[str, dict[str, float]]]:
    """run tag -> topic -> docno -> score, the first row of a repeated docno kept."""
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for path in sorted((COVID / "runs").glob("*.gz")):
        rows: dict[str, dict[str, float]] = {}
        with gzip.open(path, "rt") as stream:
            for line in stream:
                topic, _q0, doc, _rank, score, _tag = line.split()
                rows.setdefault(topic, {}).setdefault(doc, float(score))
        runs[path.name.removesuffix(".gz")] = rows
    return runs


def depth_pool(runs: dict, tags: list[str], budget: int) -> set[tuple[str, str]]:
    """The deepest depth-k pool of ``tags`` within ``budget``: each run's first k docnos in
    trec_eval's order (score descending, then docno descending), every topic the same k."""
    ranked = [
        (topic, sorted(docs, key=lambda d: (docs[d], d), reverse=True))
        for tag in tags
        for topic, docs in runs[tag].items()
    ]
    pool: set[tuple[str, str]] = set()
    for k in range(1, 1001):
        deeper = {(t, d) for t, docs in ranked for d in docs[:k]}
        if len(deeper) > budget:
            return pool
        pool = deeper
    return pool


def reduced(pool: set[tuple[str, str]], grades: dict) -> dict[str, dict[str, int]]:
    found: dict[str, dict[str, int]] = {}
    for topic, doc in pool:
        found.setdefault(topic, {})[doc] = grades.get((topic, doc), 0)
    return found


@pytest.mark.parametrize("judged_only", [False, True])
def test_depth_figures_equal_depth_k_pooling_computed_from_the_files(
    covid: dict, judged_only: bool
) -> None:
    """As submitted, and condensed (``--judged-only``: each run's unjudged rows dropped here
    from the files, before ranking, pooling and scoring)."""
    grades = independent_qrels()
    relevant_total = sum(1 for g in grades.values() if g >= 1)
    runs = independent_runs()
    qrels_topics = {t for t, _d in grades}
    runs = {tag: {t: d for t, d in r.items() if t in qrels_topics} for tag, r in runs.items()}
    if judged_only:
        runs = {
            tag: {
                t: kept
                for t, docs in r.items()
                if (kept := {d: s for d, s in docs.items() if (t, d) in grades})
            }
            for tag, r in runs.items()
        }
    full = {t: {d: g for (tt, d), g in grades.items() if tt == t} for t in qrels_topics}
    teams = dict(line.split("\t") for line in Path(covid["groups"]).read_text().splitlines())
    budget = 1738
    flags = ["--judged-only"] if judged_only else []
    [row] = simulate(
        covid, "--strategy", "depth", "--measure", "map", "--budget", str(budget), *flags
    )
    pool = depth_pool(runs, covid["pooled"], budget)
    assert (row["strategy"], row["budget"]) == ("depth", budget)
    assert row["judgments"] == len(pool) > 0
    assert row["relevant"] == sum(1 for key in pool if grades.get(key, 0) >= 1)
    assert row["relevant_share"] == pytest.approx(row["relevant"] / relevant_total)

    # tau: every run by MAP (trec_eval's rules) on the pool's qrels against the full qrels.
    def mean_ap(tag: str, qrels: dict) -> float:
        return evaluate_measures(runs[tag], qrels, ["map"]).measures["map"]

    on_pool = {tag: mean_ap(tag, reduced(pool, grades)) for tag in runs}
    on_full = {tag: mean_ap(tag, full) for tag in runs}
    tags = sorted(runs)
    expected = kendalltau([on_full[t] for t in tags], [on_pool[t] for t in tags]).statistic
    assert row["tau"]["map"] == pytest.approx(expected, abs=1e-12)

    # Leave-one-group-out: each pooling team's best run, scored without the team's runs.
    drops = {}
    for team in sorted({teams[t] for t in covid["pooled"]}):
        members = [t for t in tags if teams[t] == team]
        best = max(members, key=lambda t: (on_pool[t], t))
        others = [t for t in covid["pooled"] if teams[t] != team]
        without = reduced(depth_pool(runs, others, budget), grades)
        drops[team] = on_pool[best] - mean_ap(best, without)
    team = min(drops, key=lambda t: (-drops[t], t))  # the first team of the largest drop
    assert row["max_group_drop"]["map"]["group"] == team
    assert row["max_group_drop"]["map"]["drop"] == pytest.approx(drops[team], abs=1e-12)


def test_every_strategy_stays_within_the_budget(covid: dict) -> None:
    budget = OFFICIAL_JUDGMENTS // 10
    rows = simulate(covid, "--measure", "map", "--budget", str(budget), "--seed", "3")
    assert [r["strategy"].split(":")[0] for r in rows] == list(DEFAULT_STRATEGIES)
    for row in rows:
        assert 0 <= row["judgments"] <= budget, row["strategy"]
        assert row["relevant"] <= row["judgments"]
        tau = row["tau"]["map"]
        # A pool that judges nothing leaves every run at 0: no ranking, so no tau.
        assert tau is None if row["judgments"] == 0 else -1 <= tau <= 1, row
        drop = row["max_group_drop"]["map"]
        assert drop["drop"] >= 0
        assert drop["group"] is None or drop["group"] in Path(covid["groups"]).read_text()
    # Every strategy but depth-k spends the whole budget: there are documents enough.
    assert all(r["judgments"] == budget for r in rows if r["strategy"] != "depth")


def test_the_same_seed_gives_the_same_pools(covid: dict) -> None:
    data = planner_input_read(
        covid["qrels"], covid["runs"], ["map"], pool_runs=covid["pool"], groups=covid["groups"]
    )
    ranked = ranked_runs(data)

    def judge(topic: str, doc: str) -> bool:
        return data.grades[topic].get(doc, 0) >= 1

    budget = Budget(total=OFFICIAL_JUDGMENTS // 5)
    for name in DEFAULT_STRATEGIES:
        strategy = parse_strategy(name)
        first = build_pool(strategy, ranked, budget, judge, seed=11)
        assert build_pool(strategy, ranked, budget, judge, seed=11) == first, name


def test_planner_hybrid_pools_equal_replaying_each_group_afresh(covid: dict) -> None:
    """The planner fuses hybrid's start from runs indexed once per topic; replaying hybrid
    on the runs left when a group is out, fusing them afresh, must pool the same."""
    data = planner_input_read(
        covid["qrels"], covid["runs"], ["map"], pool_runs=covid["pool"], groups=covid["groups"]
    )
    planner = Planner(data)
    strategy = parse_strategy("hybrid")
    budgets = [OFFICIAL_JUDGMENTS // 10, OFFICIAL_JUDGMENTS // 5]
    pools = planner.pools(strategy, budgets)
    for group in [None, *sorted(planner.group_ranked)[::8]]:
        ranked = (
            planner.ranked if group is None else without_group(planner.ranked, data.groups, group)
        )
        order = judging_order(strategy, ranked, Budget(total=max(budgets)), planner.judge)
        expected = [pool_of(order[:budget], planner.ranked) for budget in budgets]
        assert pools[group] == expected, group

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

from evaluation.core.planner_files import planner_input_read
from evaluation.core.pool_planner import ranked_runs
from pooling.core.algorithms.strategies import (
    DEFAULT_STRATEGIES,
    Budget,
    build_pool,
    parse_strategy,
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


def independent_rankings(tags: list[str], topics: set[str]) -> dict[str, list[list[str]]]:
    """topic -> each pooled run's docnos, score descending then docno descending, first row
    of a repeated docno kept."""
    found: dict[str, list[list[str]]] = {t: [] for t in topics}
    for tag in tags:
        rows: dict[str, dict[str, float]] = {}
        with gzip.open(COVID / "runs" / f"{tag}.gz", "rt") as stream:
            for line in stream:
                topic, _q0, doc, _rank, score, _tag = line.split()
                rows.setdefault(topic, {}).setdefault(doc, float(score))
        for topic, docs in rows.items():
            if topic in topics:
                found[topic].append(sorted(docs, key=lambda d: (docs[d], d), reverse=True))
    return found


def depth_pool_size(rankings: dict[str, list[list[str]]], k: int) -> set[tuple[str, str]]:
    return {(t, d) for t, runs in rankings.items() for docs in runs for d in docs[:k]}


def test_depth_figures_equal_depth_k_pooling_computed_from_the_files(covid: dict) -> None:
    grades = independent_qrels()
    relevant_total = sum(1 for g in grades.values() if g >= 1)
    rankings = independent_rankings(covid["pooled"], {t for t, _d in grades})
    budgets = (1738, 3476)
    rows = simulate(covid, "--strategy", "depth", "--measure", "map", *_budgets(budgets))
    for row, budget in zip(rows, budgets, strict=True):
        k = 0
        while len(depth_pool_size(rankings, k + 1)) <= budget:
            k += 1
        pool = depth_pool_size(rankings, k)
        relevant = sum(1 for key in pool if grades.get(key, 0) >= 1)
        assert k >= 1
        assert (row["strategy"], row["budget"]) == ("depth", budget)
        assert row["judgments"] == len(pool)
        assert row["relevant"] == relevant
        assert row["relevant_share"] == pytest.approx(relevant / relevant_total)
        assert set(row["tau"]) == set(row["tau_ap"]) == set(row["max_group_drop"]) == {"map"}


def _budgets(budgets: tuple[int, ...]) -> list[str]:
    return [arg for b in budgets for arg in ("--budget", str(b))]


def test_every_strategy_stays_within_the_budget(covid: dict) -> None:
    budget = OFFICIAL_JUDGMENTS // 10
    rows = simulate(covid, "--measure", "map", "--budget", str(budget), "--seed", "3")
    assert [r["strategy"].split(":")[0] for r in rows] == list(DEFAULT_STRATEGIES)
    for row in rows:
        assert 0 <= row["judgments"] <= budget, row["strategy"]
        assert row["relevant"] <= row["judgments"]
        assert -1 <= row["tau"]["map"] <= 1
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

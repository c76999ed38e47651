"""Significance between runs on nugget scores: the paired randomization test fed per-topic
nugget scores, checked against the exact sign-flip test enumerated here (every one of the
2^n sign patterns), and the same figures from ``evaluate_nuggets --significance``."""

from __future__ import annotations

import itertools
import json
import tempfile
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from nuggets.core.significance import nugget_run_tests

TOPICS = [str(n) for n in range(1, 9)]
# Per-topic "all" of two runs over eight topics; run B did not answer topic 8 (scores 0).
A = [0.9, 0.8, 0.75, 0.6, 0.9, 0.5, 0.7, 0.4]
B = [0.5, 0.6, 0.8, 0.3, 0.4, 0.5, 0.2]


def exact_sign_flip_p(a: list[float], b: list[float]) -> float:
    """Two-sided exact paired permutation test: the share of the 2^n sign patterns of the
    differences whose |sum| is at least the observed |sum| (Fisher's randomization test)."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    observed = abs(sum(diffs))
    patterns = list(itertools.product((1, -1), repeat=len(diffs)))
    hits = sum(
        1
        for signs in patterns
        if abs(sum(s * d for s, d in zip(signs, diffs, strict=True))) >= observed - 1e-12
    )
    return hits / len(patterns)


def _runs() -> dict[str, dict[str, dict[str, float]]]:
    return {
        "runA": {t: {"all": v} for t, v in zip(TOPICS, A, strict=True)},
        "runB": {t: {"all": v} for t, v in zip(TOPICS, B, strict=False)},
    }


def test_the_randomization_p_matches_the_exact_sign_flip_test_when_a_topic_is_missing() -> None:
    (test,) = nugget_run_tests(_runs(), TOPICS, measure="all", seed=7, trials=200_000)
    exact = exact_sign_flip_p(A, [*B, 0.0])  # the missing topic counts 0, as in the means
    assert 0.005 < exact < 0.1  # a case where the test's answer matters
    assert test.randomization_p == pytest.approx(exact, abs=0.004)
    assert test.mean_difference == pytest.approx((sum(A) - sum(B)) / len(TOPICS))
    assert (test.a, test.b) == ("runA", "runB")


def test_identical_runs_or_no_topics_give_nothing_significant_and_a_bad_measure_is_refused() -> (
    None
):
    same = {"x": _runs()["runA"], "y": _runs()["runA"]}
    (test,) = nugget_run_tests(same, TOPICS, measure="all", trials=1_000)
    assert test.randomization_p == 1.0
    assert nugget_run_tests(same, [], measure="all") == []  # no topic scored yet
    with pytest.raises(ValueError, match="'recall': a nugget measure is one of"):
        nugget_run_tests(same, TOPICS, measure="recall")


def _assignment_files(folder: Path) -> list[str]:
    """Two runs' nuggetizer assignments whose per-topic *all* are A and B: topic t has ten
    okay nuggets, of which 10 * value are supported."""
    paths = []
    for run, values in (("runA", A), ("runB", B)):
        lines = []
        for topic, value in zip(TOPICS, values, strict=False):
            supported = round(value * 20)  # in halves: 2 per supported, 1 per partial
            labels = ["support"] * (supported // 2) + ["partial_support"] * (supported % 2)
            labels += ["not_support"] * (10 - len(labels))
            nuggets = [
                {"text": f"fact {i}", "importance": "okay", "assignment": label}
                for i, label in enumerate(labels)
            ]
            lines.append(json.dumps({"qid": topic, "run_id": run, "nuggets": nuggets}))
        path = folder / f"{run}.jsonl"
        path.write_text("\n".join(lines) + "\n")
        paths.append(str(path))
    nugget_file = folder / "nuggets.jsonl"
    nugget_file.write_text(
        "".join(
            json.dumps(
                {
                    "qid": t,
                    "query": f"q{t}",
                    "nuggets": [{"text": f"fact {i}", "importance": "okay"} for i in range(10)],
                }
            )
            + "\n"
            for t in TOPICS
        )
    )
    return [*paths, str(nugget_file)]


def test_evaluate_nuggets_prints_the_exact_tests_figures_when_asked_for_significance() -> None:
    with tempfile.TemporaryDirectory() as folder:
        run_a, run_b, nuggets = _assignment_files(Path(folder))
        out = StringIO()
        call_command(
            "evaluate_nuggets",
            "--assignments", run_a, run_b,
            "--nuggets", nuggets,
            "--format", "json",
            "--significance", "all",
            "--trials", "200000",
            "--seed", "3",
            stdout=out,
        )  # fmt: skip
        found = json.loads(out.getvalue())
        table = StringIO()
        call_command(
            "evaluate_nuggets",
            "--assignments", run_a, run_b,
            "--nuggets", nuggets,
            "--significance", "strict_all",
            "--trials", "1000",
            stdout=table,
        )  # fmt: skip
        with pytest.raises(CommandError, match="--trials"):
            call_command(
                "evaluate_nuggets", "--assignments", run_a, "--significance", "all",
                "--trials", "5",
            )  # fmt: skip
    assert [r["run"] for r in found["runs"]] == ["runA", "runB"]
    assert found["runs"][0]["measures"]["all"] == pytest.approx(sum(A) / 8)
    assert found["runs"][1]["measures"]["all"] == pytest.approx(sum(B) / 8)
    significance = found["significance"]
    assert (significance["measure"], significance["trials"], significance["seed"]) == (
        "all",
        200_000,
        3,
    )
    (pair,) = significance["pairs"]
    assert (pair["a"], pair["b"]) == ("runA", "runB")
    assert pair["randomization_p"] == pytest.approx(exact_sign_flip_p(A, [*B, 0.0]), abs=0.004)
    assert pair["randomization_p_holm"] == pair["randomization_p"]  # one pair: nothing to correct
    assert "paired randomization test on strict_all, 1,000 trials" in table.getvalue()
    assert "runA   runB" in table.getvalue()

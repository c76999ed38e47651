"""Significance of the differences between runs' nugget scores: evaluation's paired tests
(``evaluation.core.significance``: the paired randomization test and the t-test, Holm-corrected
over every pair) fed each run's per-topic values of one measure.

The values are taken over the topics the means are taken over, a topic a run did not answer
scoring 0, so each test compares exactly the figures the scores table averages.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluation.core.significance import PairedTest, pairwise_tests
from nuggets.core.scores import MEASURES

DEFAULT_TRIALS = 10_000


def per_topic_values(
    per_topic: Mapping[str, Mapping[str, float]], topics: Sequence[str], measure: str
) -> list[float]:
    """One run's ``measure`` on each of ``topics`` in order, 0 where it has no answer."""
    return [per_topic[t][measure] if t in per_topic else 0.0 for t in topics]


def nugget_run_tests(
    runs: Mapping[str, Mapping[str, Mapping[str, float]]],
    topics: Sequence[str],
    *,
    measure: str,
    seed: int = 0,
    trials: int = DEFAULT_TRIALS,
) -> list[PairedTest]:
    """Every pair of runs (run name -> topic -> measures, in the given order) on ``measure``."""
    if measure not in MEASURES:
        raise ValueError(f"{measure!r}: a nugget measure is one of {', '.join(MEASURES)}")
    if not topics:
        return []  # nothing scored yet: no difference to test
    values = {run: per_topic_values(scores, topics, measure) for run, scores in runs.items()}
    return pairwise_tests(values, seed=seed, trials=trials)

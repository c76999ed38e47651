"""Pool reusability, the leave-one-team-out test TREC uses (Zobel 1998; Voorhees): pure.

For each team, rebuild the qrels without the items that only that team's runs contributed to
the pool, re-score that team's runs on them, and compare: how much each run's score changes and
Kendall's tau between the system ranking before and after (other teams' runs keep their scores).
A reusable pool gives small changes and tau close to 1: a new system would be scored fairly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from evaluation.core.significance import kendall_tau
from kernel.core.grades import MAX_GRADE

Contributions = Iterable[tuple[str, str, int]]  # (topic, item key, team id)


def items_only_from(contributions: Contributions) -> dict[int, dict[str, set[str]]]:
    """team -> topic -> item keys that no other team's run contributed."""
    teams_of: dict[tuple[str, str], set[int]] = {}
    for topic, key, team in contributions:
        teams_of.setdefault((topic, key), set()).add(team)
    unique: dict[int, dict[str, set[str]]] = {}
    for (topic, key), teams in teams_of.items():
        if len(teams) == 1:
            (team,) = teams
            unique.setdefault(team, {}).setdefault(topic, set()).add(key)
    return unique


def reusability_report(
    before: Mapping[str, tuple[int, Mapping[str, float]]],
    after: Mapping[str, Mapping[str, float]],
    team_names: Mapping[int, str],
    unique: Mapping[int, Mapping[str, set[str]]],
    grades: Mapping[str, Mapping[str, int]],
    measures: Iterable[str],
    relevant_from: int = 2,
) -> list[dict[str, Any]]:
    """One entry per team with runs: its unique items, per-run change, tau per measure.

    ``before``: run -> (team, measures on the full qrels); ``after``: run -> measures on the
    qrels without that run's team's unique items. ``unique_relevant`` counts the unique items
    of grade >= ``relevant_from`` (the task's relevance level; ARQMath: 2, H+M) up to the top
    grade (flag codes 5 and 6 are not grades).
    """
    measures = list(measures)
    names = list(before)
    report: list[dict[str, Any]] = []
    for team in sorted({team for team, _ in before.values()}, key=lambda t: team_names.get(t, "")):
        own = [run for run in names if before[run][0] == team]
        removed = unique.get(team, {})
        relevant = sum(
            1
            for topic, keys in removed.items()
            for k in keys
            if relevant_from <= grades.get(topic, {}).get(k, 0) <= MAX_GRADE
        )
        runs = [
            {
                "run": run,
                "before": {m: before[run][1][m] for m in measures},
                "after": {m: after[run][m] for m in measures},
                "change": {m: after[run][m] - before[run][1][m] for m in measures},
            }
            for run in own
        ]
        tau = {}
        for m in measures:
            original = [before[run][1][m] for run in names]
            changed = [after[run][m] if run in own else before[run][1][m] for run in names]
            value = kendall_tau(original, changed) if len(names) > 1 else float("nan")
            tau[m] = None if value != value else value  # NaN is not JSON
        report.append(
            {
                "team": team_names.get(team, str(team)),
                "unique_items": sum(len(keys) for keys in removed.values()),
                "unique_relevant": relevant,
                "runs": runs,
                "tau": tau,
            }
        )
    return report

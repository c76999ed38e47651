"""Rank correlations between two orderings of the same systems: Kendall's tau-b and tau-AP.

Both take two score maps (system -> score under the reference qrels, and under the reduced
ones) and compare the rankings they induce, higher scores first.

- ``kendall_tau_b``: (concordant - discordant) / sqrt((n0 - n1) * (n0 - n2)), n0 the pairs,
  n1 and n2 the pairs tied in the first and in the second ranking (Kendall 1945), what
  ``scipy.stats.kendalltau`` computes by default; 0 when either ranking is all ties.
- ``tau_ap``: Yilmaz, Aslam and Robertson, "A new rank correlation coefficient for
  information retrieval", SIGIR 2008, §3: with the estimated ranking in order,
  tau_AP = 2/(N-1) * sum over i = 2..N of C(i)/(i-1) - 1, C(i) the number of systems above
  rank i in the estimated ranking that the reference ranking also places above the system at
  rank i. An error near the top costs more than one near the bottom. It is not symmetric:
  the first argument is the reference (full qrels), the second the estimate. The paper
  assumes no ties; here the estimated ranking breaks ties by system name, and a pair tied in
  the reference counts as not correctly ordered (it would need one above the other). An
  estimate that ties every system (nothing judged) scores 0, as tau-b does.
"""

from __future__ import annotations

import math
from collections.abc import Mapping


def _common(reference: Mapping[str, float], estimate: Mapping[str, float]) -> list[str]:
    if set(reference) != set(estimate):
        raise ValueError("both rankings must hold the same systems")
    return sorted(reference)


def kendall_tau_b(reference: Mapping[str, float], estimate: Mapping[str, float]) -> float:
    systems = _common(reference, estimate)
    x = [reference[s] for s in systems]
    y = [estimate[s] for s in systems]
    concordant = discordant = ties_x = ties_y = 0
    n = len(systems)
    for i in range(n):
        xi, yi = x[i], y[i]
        for j in range(i + 1, n):
            dx, dy = xi - x[j], yi - y[j]
            if dx == 0 or dy == 0:
                ties_x += dx == 0
                ties_y += dy == 0
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - ties_x) * (pairs - ties_y))
    return (concordant - discordant) / denominator if denominator else 0.0


def tau_ap(reference: Mapping[str, float], estimate: Mapping[str, float]) -> float:
    systems = _common(reference, estimate)
    n = len(systems)
    if n < 2:
        return 1.0
    if len(set(estimate.values())) == 1:
        return 0.0  # an estimate that ties every system orders nothing (tau-b is 0 too)
    ordered = sorted(systems, key=lambda s: (-estimate[s], s))
    total = 0.0
    for i in range(1, n):
        below = reference[ordered[i]]
        correct = sum(1 for above in ordered[:i] if reference[above] > below)
        total += correct / i
    return 2.0 * total / (n - 1) - 1.0

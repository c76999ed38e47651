"""A machine judge audited against people: the confusion between its grades and theirs, and
how far the system rankings its qrels give agree with the people's. Pure, no Django.

The agreement statistics themselves (kappa, alpha, bootstrap intervals) are
``assessment.core.agreement``'s; the rank correlations ``evaluation.core.rank_correlation``'s.
"Among the top ten systems" follows Clarke and Dietz's point that machine judges agree less
with people on the best systems than overall: the ten systems the people's qrels rank highest
(ties by name), both correlations recomputed over them alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from evaluation.core.rank_correlation import kendall_tau_b, tau_ap

H = TypeVar("H", bound=Hashable)
TOP_SYSTEMS = 10


@dataclass(frozen=True)
class Confusion:
    """Counts of (people's grade, machine's grade) over the items both graded."""

    grades: tuple[int, ...]
    counts: dict[tuple[int, int], int]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def rows(self) -> list[tuple[int, list[int], int]]:
        """Per people's grade: the counts under each machine grade, and the row's total."""
        found = []
        for person in self.grades:
            cells = [self.counts.get((person, machine), 0) for machine in self.grades]
            found.append((person, cells, sum(cells)))
        return found

    @property
    def column_totals(self) -> list[int]:
        return [sum(self.counts.get((p, m), 0) for p in self.grades) for m in self.grades]

    @property
    def agreed(self) -> int:
        return sum(n for (p, m), n in self.counts.items() if p == m)


def confusion_matrix(
    people: Mapping[H, int], machine: Mapping[H, int], grades: Sequence[int]
) -> Confusion:
    """The confusion over the items both graded; a grade outside ``grades`` widens them."""
    counts = Counter((people[key], machine[key]) for key in people.keys() & machine.keys())
    seen = sorted({*grades, *(p for p, _ in counts), *(m for _, m in counts)})
    return Confusion(tuple(seen), dict(counts))


@dataclass(frozen=True)
class RankingAgreement:
    """Kendall's tau-b and tau-AP between the rankings of the systems by one measure under the
    people's qrels (the reference) and under the machine's, overall and among the top ten."""

    measure: str
    systems: int
    tau: float | None
    tau_ap: float | None
    top: int
    tau_top: float | None
    tau_ap_top: float | None


def ranking_agreement(
    measure: str,
    people: Mapping[str, float],
    machine: Mapping[str, float],
    *,
    top: int = TOP_SYSTEMS,
) -> RankingAgreement:
    """The correlations over the systems both score (fewer than two: None)."""
    systems = sorted(people.keys() & machine.keys())
    reference = {s: people[s] for s in systems}
    estimate = {s: machine[s] for s in systems}
    best = sorted(systems, key=lambda s: (-people[s], s))[:top]
    best_reference = {s: people[s] for s in best}
    best_estimate = {s: machine[s] for s in best}
    enough, enough_top = len(systems) >= 2, len(best) >= 2
    return RankingAgreement(
        measure=measure,
        systems=len(systems),
        tau=kendall_tau_b(reference, estimate) if enough else None,
        tau_ap=tau_ap(reference, estimate) if enough else None,
        top=len(best),
        tau_top=kendall_tau_b(best_reference, best_estimate) if enough_top else None,
        tau_ap_top=tau_ap(best_reference, best_estimate) if enough_top else None,
    )

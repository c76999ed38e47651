"""Which formula instances of a visually distinct formula are judged (at most N).

Two policies, chosen per task:
- ``vote`` (ARQMath-2/3, docs/pooling.md): each candidate instance votes with the sum
  over runs of 1/rank; the N with the highest votes are chosen, ties broken by the seeded RNG.
- ``thread`` (ARQMath-1 2020 assessment guidelines): choose at most N answers containing the
  formula: all if there are at most N; else one per thread first, randomly, then random others;
  if there are more than N threads, N random threads and one random answer from each.

Instances already judged on an earlier build (``keep``) stay and count towards N.
"""

import random
from collections.abc import Collection, Sequence

from pooling.core.algorithms.formula import Candidate
from pooling.core.algorithms.settings import FormulaPolicy


def _by_formula_id(candidates: Sequence[Candidate]) -> list[Candidate]:
    # The RNG is consumed in a fixed order whatever order the runs were read in.
    return sorted(candidates, key=lambda candidate: candidate.formula_id)


def select_by_vote(candidates: Sequence[Candidate], n: int, rng: random.Random) -> list[Candidate]:
    """The ``n`` candidates with the highest votes, best first; equal votes ordered by ``rng``."""
    ordered = _by_formula_id(candidates)
    keys = {candidate.formula_id: (-candidate.vote, rng.random()) for candidate in ordered}
    ordered.sort(key=lambda candidate: keys[candidate.formula_id])
    return ordered[: max(n, 0)]


def _one_instance_per_post(candidates: Sequence[Candidate]) -> list[Candidate]:
    """An answer is judged once: its best-voted instance (lowest formula id on a tie)."""
    best: dict[int, Candidate] = {}
    for candidate in _by_formula_id(candidates):
        current = best.get(candidate.post_id)
        if current is None or candidate.vote > current.vote:
            best[candidate.post_id] = candidate
    return [best[post_id] for post_id in sorted(best)]


def select_by_thread(
    candidates: Sequence[Candidate], n: int, rng: random.Random
) -> list[Candidate]:
    """The 2020 guidelines' choice of at most ``n`` answers containing the formula."""
    if n <= 0:
        return []
    posts = _one_instance_per_post(candidates)
    if len(posts) <= n:
        return posts
    by_thread: dict[int, list[Candidate]] = {}
    for candidate in posts:
        by_thread.setdefault(candidate.thread_id, []).append(candidate)
    threads = sorted(by_thread)
    if len(threads) > n:
        return [rng.choice(by_thread[thread]) for thread in rng.sample(threads, n)]
    rng.shuffle(threads)
    chosen = [rng.choice(by_thread[thread]) for thread in threads]
    chosen_ids = {candidate.formula_id for candidate in chosen}
    others = [candidate for candidate in posts if candidate.formula_id not in chosen_ids]
    return chosen + rng.sample(others, n - len(chosen))


def select_instances(
    candidates: Sequence[Candidate],
    n: int,
    policy: FormulaPolicy,
    rng: random.Random,
    keep: Collection[int] = (),
) -> list[Candidate]:
    """At most ``n`` instances to judge: the kept ones first, the rest chosen by ``policy``."""
    kept = [candidate for candidate in _by_formula_id(candidates) if candidate.formula_id in keep]
    others = [candidate for candidate in candidates if candidate.formula_id not in keep]
    slots = n - len(kept)
    if policy == "thread":
        return kept + select_by_thread(others, slots, rng)
    return kept + select_by_vote(others, slots, rng)

"""Move-to-Front pooling (Cormack, Palmer and Clarke, SIGIR 1998, §3 "Move-to-front pooling").

Runs are kept in order of priority, all equal at first. The run at the front is judged from,
one document after another down its ranking (skipping documents already judged), for as
long as it yields relevant documents; the first non-relevant one lowers its priority by one,
and judging moves to the run now at the front. Equal priorities are broken by a random order
of the runs drawn once from the seed (the paper takes the runs in an arbitrary order).
Only the run being judged from is penalised: a document it steps over because another run
brought it to be judged costs it nothing, as in the paper, where such documents are skipped.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pooling.core.algorithms.strategies.adaptive import TopicStrategy


class MoveToFront(TopicStrategy):
    def __init__(self, lists: Sequence[Sequence[str]], rng: random.Random) -> None:
        super().__init__(lists, rng)

    def initial(self, arm: int) -> float:
        return 0.0

    def update(self, arm: int, judged: list[bool], pulled: bool) -> None:
        if pulled and not judged[0]:
            self.priority[arm] -= 1.0

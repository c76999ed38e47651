"""MaxMean bandits, stationary (MM) and non-stationary (MM-NS), after Losada, Parapar and
Barreiro ("Feeling lucky? Multi-armed bandits for ordering judgements in pooling-based
evaluation", ACM SAC 2016, the section on bandit allocation methods; "Multi-armed bandits
for adjudicating documents in pooling-based evaluation of information retrieval systems",
IP&M 53(5), 2017, its sections on the MaxMean method and on non-stationary bandits).

Each run is an arm; pulling it judges its first unjudged document; the reward is 1 for a
relevant document, 0 otherwise. The probability that a run's next document is relevant has
a Beta(1, 1) prior, updated with the run's judged documents: Beta(1 + rel, 1 + nrel). MaxMean
pulls the arm of highest posterior mean (1 + rel) / (2 + rel + nrel), a purely greedy
Bayesian choice (no exploration bonus: unexplored runs sit at 1/2).

A run's chance of relevance falls as one goes down its ranking, so the evidence is not
stationary. MM-NS discounts older evidence geometrically: walking the run's judged documents
in rank order, rel <- gamma * rel + r and nrel <- gamma * nrel + (1 - r), so the judgment i
places above the most recent weighs gamma^i. gamma = 1 is stationary MM. The default,
gamma = 0.5, found the most relevant documents of 0.5, 0.8 and 0.95 on TREC-COVID round 1
(docs/pooling.md); the parameter of ``mm-ns:GAMMA`` changes it.

rel and nrel count every judged document down the run's judged prefix, whichever run brought
it to be judged: the judgment says as much about this run's ranking as about the other's.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from pooling.core.algorithms.strategies.adaptive import TopicStrategy

NS_GAMMA = 0.5


class MaxMean(TopicStrategy):
    def __init__(
        self, lists: Sequence[Sequence[str]], rng: random.Random, gamma: float = 1.0
    ) -> None:
        if not 0 < gamma <= 1:
            raise ValueError(f"the discount gamma must be in (0, 1], not {gamma}")
        self.gamma = gamma
        self.rel = [0.0] * len(lists)
        self.nrel = [0.0] * len(lists)
        super().__init__(lists, rng)

    def initial(self, arm: int) -> float:
        return 0.5

    def update(self, arm: int, judged: list[bool], pulled: bool) -> None:
        rel, nrel, gamma = self.rel[arm], self.nrel[arm], self.gamma
        for relevant in judged:
            rel = gamma * rel + relevant
            nrel = gamma * nrel + (not relevant)
        self.rel[arm], self.nrel[arm] = rel, nrel
        self.priority[arm] = (1 + rel) / (2 + rel + nrel)

"""Spending a task budget where the relevant documents are: how adaptive strategies share one
budget over the topics. Pure; the replay (``adaptive._spread``) and judging in priority order
in the app (``pooling.services.priority_items``) both read their rules here.

Each topic is an arm of one more bandit, whose reward is a relevant document. A topic's
expected gain is the posterior mean of its hit rate, (1 + hits) / (2 + hits + misses), where
hits and misses count the topic's own judgments so far, each discounted by TOPIC_GAMMA per
later judgment of the topic (as MM-NS discounts a run's: a topic's relevant documents thin
out as its pool deepens). Every topic is first guaranteed a floor of
ceil(TOPIC_FLOOR_SHARE * total / topics) judgments, so no topic goes unjudged and the
ranking of the runs hears from every topic; the rest of the budget goes by expected gain.

- Replay (the planner): one judgment at a time, to the topic furthest behind the running
  floor ceil(TOPIC_FLOOR_SHARE * (judgments so far + 1) / topics), if one is, else to the
  topic of highest expected gain (ties: a random order of the topics drawn from the seed).
  The floor grows with the judgments made, not with the budget, so what a smaller budget
  buys is a prefix of what a larger one does (the planner replays once per strategy); at
  the end every topic has at least ``topic_floor`` - 1.
- The app, where each topic's assessors ask for their next item when they are ready and a
  topic cannot be handed a judgment another topic's assessor is waiting for: a topic may
  take one more judgment while it is below its floor, or while its judgments beyond the
  floor are fewer than its share of the budget above the floors, the share proportional to
  its expected gain among all the topics' (``task_share_allows``); the floors of the topics
  still below theirs are kept for them; the task's total is never exceeded.
- Idle budget (both): a topic that can take no judgment now (``TopicTally.takes_budget``:
  its runs hold nothing more to pool, or, in the app, no assessor judges it) cannot use its
  share, and budget left for it would sit idle. In the app a topic that has had its share
  may take a judgment when the budget left is more than the floors kept and what the other
  topics that can take judgments may still claim by their shares: what no one else could
  use now goes to whoever is judging, so stopping at any time leaves the most judgments the
  budget could buy where they can be made. A floor is kept for a topic without an assessor
  (one may be assigned, and the floor is what lets every topic be heard) but not for a
  topic whose runs are exhausted (it could never use it). While every topic can take
  judgments, this takes nothing from the share rule: it never allows what the shares do
  not. The replay has an assessor on every topic, so only exhaustion applies there: an
  exhausted topic leaves the running floor and the gain order, and the judgments go on to
  the others.

On TREC-COVID round 1 (docs/pooling.md) the floor of a quarter of the equal share found
slightly more relevant documents than none or a half, with TOPIC_GAMMA 0.8 about as good as
0.5 and 0.9; equal shares per topic (a per-topic budget of total / topics) found fewer.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

# Discount of older judgments in a topic's hit rate, as MM-NS discounts a run's.
TOPIC_GAMMA = 0.8
# Each topic's guaranteed judgments, as a share of an equal split of the task budget.
TOPIC_FLOOR_SHARE = 0.25


def running_floor(spent: int, topics: int) -> int:
    """The judgments every topic should have before the task's next one (the replay's
    rule): ceil(TOPIC_FLOOR_SHARE * (spent + 1) / topics), which depends on the judgments
    made so far only, so a smaller budget's order is a prefix of a larger one's, and ends
    within one of ``topic_floor`` of the whole budget."""
    if topics <= 0:
        return 0
    return math.ceil(TOPIC_FLOOR_SHARE * (spent + 1) / topics)


def topic_floor(total: int, topics: int) -> int:
    """The judgments every topic is guaranteed out of a task budget of ``total``."""
    if topics <= 0:
        return 0
    return min(math.ceil(TOPIC_FLOOR_SHARE * total / topics), total // topics)


@dataclass(slots=True)
class TopicTally:
    """A topic's judgments under a task budget: how many (items handed out, judged or not),
    its discounted hits and misses, and whether it can take a judgment now (see the module
    doc, "Idle budget")."""

    spent: int = 0
    hits: float = 0.0
    misses: float = 0.0
    assessed: bool = True  # an assessor judges the topic (the replay: always)
    exhausted: bool = False  # its runs hold nothing more to pool

    @property
    def takes_budget(self) -> bool:
        """Whether a judgment given to the topic now would be made."""
        return self.assessed and not self.exhausted

    def hear(self, relevant: bool, gamma: float = TOPIC_GAMMA) -> None:
        self.hits = gamma * self.hits + relevant
        self.misses = gamma * self.misses + (not relevant)

    @property
    def gain(self) -> float:
        """The expected chance that the topic's next judgment finds a relevant document."""
        return (1 + self.hits) / (2 + self.hits + self.misses)


def topic_tally(spent: int, judged: Iterable[bool], gamma: float = TOPIC_GAMMA) -> TopicTally:
    """A topic's tally from its judgments (relevant or not) in the order they were made."""
    tally = TopicTally(spent)
    for relevant in judged:
        tally.hear(relevant, gamma)
    return tally


def task_share_allows(
    topic: str | int, tallies: Mapping[str | int, TopicTally], total: int
) -> bool:
    """Whether ``topic`` may take one more judgment of a task budget of ``total``, given every
    topic's tally (the app's rule, see the module doc: its share, then idle budget)."""
    left = total - sum(t.spent for t in tallies.values())
    if left <= 0:
        return False
    floor = topic_floor(total, len(tallies))
    mine = tallies[topic]
    if mine.spent < floor:
        return True
    others = [t for key, t in tallies.items() if key != topic]
    # An exhausted topic could never use the rest of its floor: it is not kept for it.
    reserved = sum(max(floor - t.spent, 0) for t in others if not t.exhausted)
    if left <= reserved:
        return False
    above = total - floor * len(tallies)
    gains = sum(t.gain for t in tallies.values())
    if mine.spent - floor < above * mine.gain / gains:
        return True
    # Its share is had: the budget the topics that can judge now may still claim waits for
    # them; the rest would sit idle.
    claimed = sum(
        max(math.ceil(above * t.gain / gains) - max(t.spent - floor, 0), 0)
        for t in others
        if t.takes_budget
    )
    return left - reserved - claimed > 0

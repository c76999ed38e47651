"""Nugget scores of generated answers, the TREC RAG 2024 way (Pradeep et al., "Initial Nugget
Evaluation Results for the TREC 2024 RAG Track with the AutoNuggetizer Framework", §3).

Each nugget of a topic is vital or okay; each answer supports it, partially supports it or not.
With s = 1 for support, 0.5 for partial support and 0 otherwise (the strict versions count
partial support as 0):

- *all*: the mean of s over the topic's nuggets;
- *vital*: the mean of s over its vital nuggets;
- *weighted*: (Σ s over vital + 0.5 Σ s over okay) / (number of vital + 0.5 * number of okay).

A mean over no nugget is 0 (a topic without vital nuggets scores 0 on *vital*, as nuggetizer's
scorer does). A run's score is the mean over the task's topics, a topic it did not answer
scoring 0 there.
"""

from __future__ import annotations

import enum
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass


class Importance(enum.StrEnum):
    VITAL = "vital"
    OKAY = "okay"


class Support(enum.StrEnum):
    SUPPORT = "support"
    PARTIAL = "partial_support"
    NONE = "not_support"


MEASURES = ("all", "vital", "weighted", "strict_all", "strict_vital", "strict_weighted")
# Okay nuggets weigh half a vital one in *weighted*.
OKAY_WEIGHT = 0.5
_SCORE = {Support.SUPPORT: 1.0, Support.PARTIAL: 0.5, Support.NONE: 0.0}
_STRICT = {Support.SUPPORT: 1.0, Support.PARTIAL: 0.0, Support.NONE: 0.0}


@dataclass(frozen=True, slots=True)
class JudgedNugget:
    """One nugget of a topic and the support an answer gives it."""

    importance: Importance
    support: Support


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def _weighted(vital: list[float], okay: list[float]) -> float:
    weight = len(vital) + OKAY_WEIGHT * len(okay)
    return (sum(vital) + OKAY_WEIGHT * sum(okay)) / weight if weight else 0.0


def topic_scores(nuggets: Iterable[JudgedNugget]) -> dict[str, float]:
    """The six measures of one answer to one topic."""
    found: dict[str, float] = {}
    judged = list(nuggets)
    for prefix, scale in (("", _SCORE), ("strict_", _STRICT)):
        vital = [scale[n.support] for n in judged if n.importance is Importance.VITAL]
        okay = [scale[n.support] for n in judged if n.importance is Importance.OKAY]
        found[f"{prefix}all"] = _mean(vital + okay)
        found[f"{prefix}vital"] = _mean(vital)
        found[f"{prefix}weighted"] = _weighted(vital, okay)
    return {name: found[name] for name in MEASURES}


def run_scores(
    per_topic: Mapping[str, Mapping[str, float]], topics: Collection[str]
) -> dict[str, float]:
    """A run's measures: the mean over ``topics``, a topic missing from ``per_topic`` being 0."""
    if not topics:
        return dict.fromkeys(MEASURES, 0.0)
    return {
        name: sum(per_topic[t][name] if t in per_topic else 0.0 for t in topics) / len(topics)
        for name in MEASURES
    }

"""How many relevant documents of a topic are still unjudged: an estimate for the organizer's
budget dashboard. Pure.

The pooled runs are fused by reciprocal rank (weight 1 / (60 + rank), as the ``rrf``
strategy; ties by docno) into one ranking of every document they retrieved. That ranking is
cut into bands that double in width: fused ranks 1-10, 11-20, 21-40, 41-80, ... A band's
rate of relevance is the share of its judged documents that are relevant, shrunk toward a
prior by PSEUDO_JUDGMENTS imaginary judgments at the prior's rate:

    rate_b = (relevant_b + M * prior_b) / (judged_b + M)

The first band's prior is 1/2 (nothing known); each next band's prior is half the rate of the
band before: a relevance rate falling as 1 / rank, each band twice as wide as the one before.
A band judged through takes its own rate; an unexplored one follows the rate of the last
explored band down, halving. The estimate is the sum over the bands of rate_b times the band's
unjudged documents. It knows only the documents the runs it is given retrieved: the dashboard
reads each run to a depth (``pooling.selectors.priority_dashboard``), so relevant documents
below it are not counted.
"""

from __future__ import annotations

from collections.abc import Mapping

from pooling.core.algorithms.strategies.common import TopicRuns
from pooling.core.algorithms.strategies.fusion import RRF_K, fused_weights, rrf_weight

FIRST_BAND = 10
PSEUDO_JUDGMENTS = 2.0
FIRST_PRIOR = 0.5


def fused_bands(runs: TopicRuns) -> list[list[str]]:
    """The runs' documents by reciprocal-rank fusion, in bands of 10, 10, 20, 40, ..."""
    fused = fused_weights(runs, rrf_weight(RRF_K))
    ranking = sorted(fused, key=lambda doc: (-fused[doc], doc))
    bands, start, width = [], 0, FIRST_BAND
    while start < len(ranking):
        bands.append(ranking[start : start + width])
        start += width
        width = FIRST_BAND if start == FIRST_BAND else width * 2
    return bands


def unjudged_relevant_estimate(runs: TopicRuns, judged: Mapping[str, bool]) -> float:
    """Expected relevant documents among those the runs retrieved and nobody judged yet, given
    the topic's judgments (docno -> relevant); see the module doc."""
    estimate, prior = 0.0, FIRST_PRIOR
    for band in fused_bands(runs):
        seen = [judged[doc] for doc in band if doc in judged]
        rate = (sum(seen) + PSEUDO_JUDGMENTS * prior) / (len(seen) + PSEUDO_JUDGMENTS)
        estimate += rate * (len(band) - len(seen))
        prior = rate / 2
    return estimate

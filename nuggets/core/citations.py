"""Citation support: whether each segment an answer cites supports the sentence citing it
(TREC RAG 2024's support evaluation: full, partial or no support for each cited segment).

With w = 1 for full support, 0.5 for partial and 0 for none, for one answer:

- *support precision*: the mean of w over its (sentence, cited segment) pairs that are labelled;
- *support recall*: the mean over its sentences of the best w among the sentence's cited
  segments, a sentence citing nothing (or nothing labelled) scoring 0.

A run's figures are the means over the answers that have any citation label.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass


class CitationSupport(enum.StrEnum):
    FULL = "full"
    PARTIAL = "partial"
    NONE = "none"


WEIGHT = {CitationSupport.FULL: 1.0, CitationSupport.PARTIAL: 0.5, CitationSupport.NONE: 0.0}


@dataclass(frozen=True, slots=True)
class CitationScores:
    precision: float
    recall: float


def answer_citation_scores(
    sentences: Sequence[Sequence[str]], labels: Mapping[tuple[int, str], CitationSupport]
) -> CitationScores:
    """``sentences``: each sentence's cited segments; ``labels``: (sentence, segment) -> support."""
    weights = [WEIGHT[support] for support in labels.values()]
    precision = sum(weights) / len(weights) if weights else 0.0
    best = [
        max(
            (WEIGHT[labels[(index, segment)]] for segment in cited if (index, segment) in labels),
            default=0.0,
        )
        for index, cited in enumerate(sentences)
    ]
    recall = sum(best) / len(best) if best else 0.0
    return CitationScores(precision, recall)


def run_citation_scores(answers: Sequence[CitationScores]) -> CitationScores:
    if not answers:
        return CitationScores(0.0, 0.0)
    return CitationScores(
        sum(a.precision for a in answers) / len(answers),
        sum(a.recall for a in answers) / len(answers),
    )

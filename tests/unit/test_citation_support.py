"""Citation support figures (full 1, partial 0.5, none 0) against hand computations."""

import pytest

from nuggets.core.citations import (
    CitationScores,
    CitationSupport,
    answer_citation_scores,
    run_citation_scores,
)

FULL, PARTIAL, NONE = CitationSupport.FULL, CitationSupport.PARTIAL, CitationSupport.NONE


def test_precision_and_recall_match_the_hand_computation_when_sentences_cite_several() -> None:
    sentences = [["a", "b"], ["c"], []]  # the third sentence cites nothing
    labels = {(0, "a"): NONE, (0, "b"): PARTIAL, (1, "c"): FULL}
    scores = answer_citation_scores(sentences, labels)
    # precision: (0 + 0.5 + 1) / 3 labelled citations
    assert scores.precision == pytest.approx(0.5)
    # recall: best per sentence: max(0, 0.5), 1, 0 (nothing cited) -> 1.5 / 3
    assert scores.recall == pytest.approx(0.5)


def test_an_unlabelled_citation_counts_for_neither_figure_when_scored() -> None:
    scores = answer_citation_scores([["a", "b"]], {(0, "a"): FULL})
    assert scores == CitationScores(1.0, 1.0)


def test_a_run_averages_its_answers_when_several_are_labelled() -> None:
    run = run_citation_scores([CitationScores(1.0, 0.5), CitationScores(0.0, 0.25)])
    assert run.precision == pytest.approx(0.5)
    assert run.recall == pytest.approx(0.375)

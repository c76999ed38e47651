"""A new task's settings by kind: ARQMath-3's published protocol, and TREC's for documents."""

import pytest

from collection.core.task_defaults import defaults_summary, task_defaults


@pytest.mark.parametrize("kind", ["answer", "formula"])
def test_arqmath_tasks_start_with_arqmath3_pooling_when_created(kind: str) -> None:
    # ARQMath-3 §4: 45 posts of a primary run, 20 of an alternate; 25/15 visually distinct
    # formulae with 5 instances each; H+M (grade >= 2) relevant; fewer than 2 relevant: dropped.
    found = task_defaults(kind)
    assert (found.primary_depth, found.alternate_depth) == (45, 20)
    assert (found.primary_k, found.alternate_k, found.max_instances) == (25, 15, 5)
    assert (found.relevance_level, found.min_relevant) == (2, 2)


def test_task3_keeps_every_topic_of_its_answer_task_when_created() -> None:
    # ARQMath-3 averaged Task 3 over the 78 topics assessed for Task 1, not the 66 with a
    # relevant answer: no topic may be dropped for having few relevant answers.
    assert task_defaults("openqa").min_relevant == 0


def test_document_tasks_start_trec_style_when_created() -> None:
    found = task_defaults("document")
    assert (found.min_relevant, found.relevance_level) == (0, 1)
    assert (found.primary_depth, found.alternate_depth) == (100, 0)


def test_summary_states_what_the_organizer_gets_when_a_task_is_created() -> None:
    assert defaults_summary("answer") == (
        "pools: 45/20 per primary/alternate run; grade ≥ 2 is relevant; "
        "qrels drop topics with fewer than 2 relevant items"
    )
    assert "5 instances each" in defaults_summary("formula")
    assert "qrels keep every judged topic" in defaults_summary("openqa")


def test_unknown_kind_is_refused_when_asked_for_defaults() -> None:
    with pytest.raises(KeyError):
        task_defaults("passage")

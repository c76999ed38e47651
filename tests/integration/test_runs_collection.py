"""Collection checks at upload, against a loaded collection (one query per file, not per row)."""

from __future__ import annotations

import io

import pytest

from collection.models import RetrievalTask
from pooling.services.runs import RunValidationError, run_submit
from tests.factories.collection import (
    FormulaFactory,
    PostFactory,
    RetrievalTaskFactory,
    TopicFactory,
)
from tests.factories.pooling import TeamFactory

pytestmark = pytest.mark.django_db


def submit(task: RetrievalTask, text: str) -> object:
    return run_submit(
        task=task,
        team=TeamFactory.create(),
        tag="t",
        role="primary",
        stream=io.BytesIO(text.encode()),
        file_name="run.tsv",
        uploaded_by=None,
    )


def test_question_or_unknown_post_is_refused_by_line_when_collection_has_answers(
    django_assert_max_num_queries,
) -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=task, number="A.1")
    answer = PostFactory.create(id=11)
    PostFactory.create(id=12, kind=1, thread=answer.thread)
    text = "A.1 Q0 11 1 3 t\nA.1 Q0 12 2 2 t\nA.1 Q0 13 3 1 t\n"
    with pytest.raises(RunValidationError) as caught:
        submit(task, text)
    errors = [(e["line"], e["message"]) for e in caught.value.report["errors"]]
    assert errors == [
        (2, "post 12 is not an answer post of the collection"),
        (3, "post 13 is not an answer post of the collection"),
    ]
    with django_assert_max_num_queries(20):
        submission = submit(task, "A.1 Q0 11 1 3 t\n")
    assert submission.run.row_count == 1  # type: ignore[attr-defined]


def test_formula_must_be_in_the_named_post_when_collection_has_formulas() -> None:
    task = RetrievalTaskFactory.create(kind="formula")
    TopicFactory.create(task=task, number="B.1")
    FormulaFactory.create(formula_id=5, post=PostFactory.create(id=21))
    FormulaFactory.create(formula_id=6, post=PostFactory.create(id=22))
    with pytest.raises(RunValidationError) as caught:
        submit(task, "B.1 5 21 1 3 t\nB.1 6 21 2 2 t\nB.1 7 21 3 1 t\n")
    errors = [(e["line"], e["message"]) for e in caught.value.report["errors"]]
    assert errors == [
        (2, "formula 6 is in post 22, not in post 21"),
        (3, "formula 7 is not in the collection"),
    ]


def test_checks_are_skipped_with_a_warning_when_the_collection_is_empty() -> None:
    task = RetrievalTaskFactory.create(kind="answer")
    TopicFactory.create(task=task, number="A.1")
    submission = submit(task, "A.1 Q0 99 1 3 t\n")
    messages = [w["message"] for w in submission.warnings]  # type: ignore[attr-defined]
    assert "the collection has no answer posts yet: post ids were not checked" in messages

"""Extra questions beside the grade (ARQMath-3's MG and UI): stored in the scale, checked."""

import pytest

from assessment.core.guidelines import (
    GuidelinesInvalid,
    answers_problem,
    scale_as_json,
    scale_from_json,
)
from assessment.core.guidelines_defaults import ARQMATH3_QUESTIONS, default_guidelines


def scale_json(questions: list[dict]) -> dict:
    stored = scale_as_json(default_guidelines("answer").scale)
    return {**stored, "questions": questions}


def test_questions_round_trip_and_limit_to_their_topics() -> None:
    scale = default_guidelines("answer").scale
    with_questions = scale_from_json(
        {
            **scale_as_json(scale),
            "questions": [
                {**scale_as_json_question(q), "topics": ["A.301", "A.302"]}
                for q in ARQMATH3_QUESTIONS
            ],
        }
    )
    assert [q.code for q in with_questions.questions] == ["mg", "ui"]
    assert scale_from_json(scale_as_json(with_questions)) == with_questions
    assert [q.code for q in with_questions.questions_on("A.301")] == ["mg", "ui"]
    assert with_questions.questions_on("A.303") == ()
    # A scale without questions stores no "questions" key: older versions compare equal.
    assert "questions" not in scale_as_json(scale)


def scale_as_json_question(question: object) -> dict:
    return {
        "code": question.code,  # type: ignore[attr-defined]
        "label": question.label,  # type: ignore[attr-defined]
        "keys": list(question.keys),  # type: ignore[attr-defined]
        "definition": question.definition,  # type: ignore[attr-defined]
    }


def test_question_problems_are_each_named() -> None:
    with pytest.raises(GuidelinesInvalid) as raised:
        scale_from_json(
            scale_json(
                [
                    {"code": "MG!", "label": "x", "keys": ["b"]},
                    {"code": "mg", "label": "", "keys": ["h"]},  # h is grade 3's key
                    {"code": "ui", "label": "UI", "keys": ["j"], "topics": "A.1 A.2"},
                ]
            )
        )
    problems = raised.value.problems
    assert any("question #1: the code 'MG!'" in p for p in problems)
    assert "question mg: the label is empty" in problems
    assert any(p.startswith("question mg: key 'h' is also grade 3's") for p in problems)
    assert any("question ui: key 'j' is reserved" in p for p in problems)
    with pytest.raises(GuidelinesInvalid, match="at most 5"):
        scale_from_json(scale_json([{"code": f"q{i}"} for i in range(6)]))


def test_answers_problem() -> None:
    asked = ARQMATH3_QUESTIONS
    assert answers_problem({"mg": True, "ui": False}, asked) is None
    assert answers_problem({}, asked) is None
    assert (
        answers_problem({"mg": "yes"}, asked) == "the answer to question mg must be true or false"
    )
    assert "not asked on this topic (asked: none)" in str(answers_problem({"mg": True}, ()))
    assert answers_problem(["mg"], asked) == "answers must map question codes to true or false"

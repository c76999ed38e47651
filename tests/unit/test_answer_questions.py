"""MG and UI shares per run (ARQMath-3 Task 3), against counts done by hand."""

import pytest

from evaluation.core.answer_questions import (
    JudgmentsFileError,
    marks_from_judgments_csv,
    question_shares,
    shares_note,
)
from evaluation.core.reports import as_csv, as_table


def test_shares_over_asked_topics_and_answered_judgments_only() -> None:
    answers = {"A.1": "qa-1", "A.2": "qa-2", "A.3": "qa-3", "A.4": "qa-4"}
    marks = {
        ("A.1", "qa-1"): {"mg": True, "ui": False},
        ("A.2", "qa-2"): {"mg": False, "ui": True},
        ("A.3", "qa-3"): {"mg": True},  # judged without the UI question
        ("A.4", "qa-4"): {"mg": True, "ui": True},  # A.4 is not an asked topic
        ("A.1", "qa-other"): {"mg": True},  # another run's answer
    }
    asked = {"mg": frozenset({"A.1", "A.2", "A.3"}), "ui": frozenset({"A.1", "A.2", "A.3"})}
    shares = question_shares(answers, marks, asked)
    # MG: A.1 yes, A.2 no, A.3 yes -> 2 of 3. UI: A.1 no, A.2 yes, A.3 unanswered -> 1 of 2.
    assert (shares["mg"].marked, shares["mg"].answered) == (2, 3)
    assert shares["mg"].value == pytest.approx(2 / 3)
    assert (shares["ui"].marked, shares["ui"].answered) == (1, 2)
    # Asked on every topic: A.4 counts too.
    everywhere = question_shares(answers, marks, {"mg": None})
    assert (everywhere["mg"].marked, everywhere["mg"].answered) == (3, 4)
    assert question_shares({}, marks, {"mg": None})["mg"].value is None
    note = shares_note(asked)
    assert "MG the share marked machine-generated over the 3 topics where it was asked" in note


def test_tables_show_lo_mg_ui_after_ar_and_p1_only_when_rows_have_them() -> None:
    row = {"run": "t/r", "file": "r.tsv", "ar": 1.5, "p1": 0.5, "topics": 2, "run_topics": 2}
    row["judged_at_10"] = 1.0
    assert "LO" not in as_table([row], "openqa")
    with_extras = {**row, "lo": 0.25, "mg": 0.5}
    table = as_table([with_extras], "openqa")
    assert "LO" in table.splitlines()[0]
    assert "UI" not in table.splitlines()[0]
    assert as_csv([with_extras], "openqa").splitlines()[0].startswith("run,file,ar,p1,lo,mg,")


def test_judgments_csv_official_first_then_latest_and_problems_named() -> None:
    head = "topic,item,purpose,updated_at,answers\n"
    text = head + (
        "A.1,qa-1,dual,2026-01-03T00:00:00,mg=yes\n"
        "A.1,qa-1,official,2026-01-01T00:00:00,mg=no ui=yes\n"
        "A.1,qa-1,official,2026-01-02T00:00:00,mg=no ui=no\n"
        "A.2,qa-2,training,2026-01-02T00:00:00,mg=yes\n"
        "A.2,qa-3,official,2026-01-02T00:00:00,\n"
    )
    marks, asked = marks_from_judgments_csv(text)
    assert marks == {("A.1", "qa-1"): {"mg": False, "ui": False}}
    assert asked == {"mg": frozenset({"A.1"}), "ui": frozenset({"A.1"})}
    with pytest.raises(JudgmentsFileError, match="line 2: answers 'mg=maybe'"):
        marks_from_judgments_csv(head + "A.1,qa-1,official,2026-01-01,mg=maybe\n", name="j.csv")
    with pytest.raises(JudgmentsFileError, match="no column answers"):
        marks_from_judgments_csv("topic,item,purpose,updated_at\n")

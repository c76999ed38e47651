"""ARQMath-3's extra questions on the judging page, answered by keyboard alone; and the open
QA results page showing LO, MG and UI."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from assessment.core.guidelines_defaults import ARQMATH3_QUESTIONS
from assessment.models import Judgment
from assessment.services.guidelines import guidelines_questions_set
from tests.factories import UserFactory
from tests.integration.test_judging_pools import answer_pool, assign
from tests.integration.test_openqa_extras import build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_questions_ticked_by_keys_are_stored_with_the_grade(page, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=3)
    guidelines_questions_set(
        task=pool.topic.task,
        questions=[replace(q, topics=(pool.topic.number,)) for q in ARQMATH3_QUESTIONS],
    )
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(f"/assess/{assignment.pk}/{pool.items[0].pk}/")
    first = page.locator(f'.hit[data-hit="{pool.hits[0][0].pk}"]')
    first.locator("input[data-question=mg]").wait_for()
    page.keyboard.press("b")  # machine-generated? yes
    page.keyboard.press("m")
    assert first.locator("input[data-question=mg]").is_checked()
    assert not first.locator("input[data-question=ui]").is_checked()
    assert "not saved yet" in first.locator("[data-state]").inner_text()
    screenshot("judge-questions-ticked")
    page.keyboard.press("?")
    legend = page.locator("#legend")
    assert "Machine-generated?" in legend.inner_text()
    screenshot("judge-questions-legend")
    page.keyboard.press("?")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[1].pk}/$"))

    page.locator(f'.hit[data-hit="{pool.hits[1][0].pk}"] input[data-question=ui]').wait_for()
    page.keyboard.press("u")  # unrelated information? yes
    page.keyboard.press("u")  # ... no: a second press unticks
    page.keyboard.press("u")
    page.keyboard.press("0")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[2].pk}/$"))

    stored = {
        j.hit_id: (j.grade, j.answers) for j in Judgment.objects.filter(assignment=assignment)
    }
    assert stored == {
        pool.hits[0][0].pk: (2, {"mg": True, "ui": False}),
        pool.hits[1][0].pk: (0, {"mg": False, "ui": True}),
    }
    # Back on the first item, the saved answers are shown ticked.
    page.goto(f"/assess/{assignment.pk}/{pool.items[0].pk}/")
    assert page.locator("input[data-question=mg]").is_checked()
    assert "saved" in page.locator("[data-state]").inner_text()
    screenshot("judge-questions-saved")


def test_open_qa_results_show_lo_mg_ui_beside_ar_and_p1(page, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    openqa, _ = build()
    UserFactory.create(username="organizer", is_staff=True)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    login("organizer")
    page.goto(f"/results/{openqa.pk}/")
    headings = page.locator("table.results-table thead th").all_inner_texts()
    assert headings[4:9] == ["AR", "P@1", "LO", "MG", "UI"]
    assert "LO: token F1 (word tokenizer)" in page.inner_text("body")
    screenshot("results-openqa-extras")
    assert errors == []


def test_organizer_sees_the_questions_with_their_topics(page, login, screenshot) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=1)
    mg = ARQMATH3_QUESTIONS[0]
    guidelines_questions_set(task=pool.topic.task, questions=[replace(mg, topics=("A.1", "A.7"))])
    UserFactory.create(username="organizer", is_staff=True)
    login("organizer")
    page.goto(f"/organize/task/{pool.topic.task_id}/guidelines/")
    assert page.locator('input[name="question-mg-enabled"]').is_checked()
    assert not page.locator('input[name="question-ui-enabled"]').is_checked()
    assert page.locator('textarea[name="question-mg-topics"]').input_value() == "A.1 A.7"
    assert "asked on 2 topics: A.1, A.7" in page.inner_text("body")
    page.get_by_role("heading", name="Extra questions").scroll_into_view_if_needed()
    screenshot("guidelines-questions")

"""Nugget-label disputes decided in real Chromium with the keyboard alone: the people's
disputes first, then one only a machine judge raised; the stored decisions, the untouched
labels, and the scores that take the final labels (checked against the measures computed in
tests/integration/test_nugget_adjudication.py). Screenshots in test-artifacts/."""

from __future__ import annotations

import re

import pytest

from nuggets.models import NuggetAdjudication, NuggetLabel
from tests.factories.collection import UserFactory
from tests.integration.nugget_disputes import N, P, S, disputed_task
from tests.integration.test_nugget_adjudication import assert_scores

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _on_answer(page, answer_id: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_url(re.compile(rf"[?&]answer={answer_id}(&|$)"))
    page.wait_for_selector(f'#adjudicate-form[data-answer="{answer_id}"]')


def test_disputed_labels_are_decided_with_the_keyboard_and_scores_take_the_final_labels(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    data = disputed_task()
    labels = sorted(NuggetLabel.objects.values_list("pk", "support", "revision"))
    UserFactory.create(username="boss", is_staff=True)
    answers, n1, n2 = data.answers, data.nuggets["1"], data.nuggets["2"]
    login("boss")
    page.goto(f"/nuggets/tasks/{data.task.pk}/adjudication/")
    page.wait_for_selector(f'#adjudicate-form[data-answer="{answers[("runA", "1")].pk}"]')
    assert page.locator("[data-counter]").inner_text() == "Answer 1 of 2"
    # Only the disputed nugget takes a final label; each label given is shown with its author.
    assert page.locator("li[data-decidable]").count() == 1
    row = page.locator(f'li[data-nugget="{n1[1].pk}"]')
    assert "alice" in row.inner_text()
    assert "bob" in row.inner_text()
    assert "judge-llm" not in row.inner_text()  # machines count only when asked
    screenshot("nugget-adjudication")
    page.keyboard.press("Shift+J")  # the next undecided answer, without saving
    _on_answer(page, answers[("runB", "1")].pk)
    page.keyboard.press("k")  # and back
    _on_answer(page, answers[("runA", "1")].pk)
    assert not NuggetAdjudication.objects.exists()

    page.keyboard.press("s")
    page.keyboard.press("Enter")
    _on_answer(page, answers[("runB", "1")].pk)
    assert page.locator("li[data-decidable]").count() == 2
    page.keyboard.press("n")  # the first disputed nugget: no support
    page.keyboard.press("c")
    page.keyboard.type("Bob read it right: the answer never says so.")
    page.keyboard.press("Escape")
    page.keyboard.press("p")  # the second: partial support
    screenshot("nugget-adjudication-choosing")
    page.keyboard.press("Enter")
    _on_answer(page, answers[("runB", "1")].pk)  # nothing left undecided: it stays
    assert "Every disputed answer is decided." in page.locator(".messages").inner_text()
    assert "decided by boss" in page.locator(f'li[data-nugget="{n1[0].pk}"]').inner_text()

    # The machine judge's disagreement, once the organizer lets machines count.
    page.locator("a[data-machine]").click()
    page.wait_for_url(re.compile(r"machine=1"))  # the one undecided answer left is shown
    page.wait_for_selector(f'#adjudicate-form[data-answer="{answers[("runA", "2")].pk}"]')
    assert "judge-llm" in page.locator(f'li[data-nugget="{n2[1].pk}"]').inner_text()
    page.keyboard.press("p")
    page.keyboard.press("Enter")
    _on_answer(page, answers[("runA", "2")].pk)
    screenshot("nugget-adjudication-machine")

    decided = {
        (a.answer_id, a.nugget_id): (a.support, a.note, a.decided_by.username)
        for a in NuggetAdjudication.objects.select_related("decided_by")
    }
    note = "Bob read it right: the answer never says so."
    assert decided == {
        (answers[("runA", "1")].pk, n1[1].pk): (S, "", "boss"),
        (answers[("runB", "1")].pk, n1[0].pk): (N, note, "boss"),
        (answers[("runB", "1")].pk, n1[2].pk): (P, note, "boss"),
        (answers[("runA", "2")].pk, n2[1].pk): (P, "", "boss"),
    }
    assert sorted(NuggetLabel.objects.values_list("pk", "support", "revision")) == labels
    assert_scores(
        data.task,
        {("runA", "1", 1): S, ("runB", "1", 0): N, ("runB", "1", 2): P, ("runA", "2", 1): P},
    )


def test_the_scores_page_tests_runs_and_publishes_what_a_team_then_sees(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    data = disputed_task()
    UserFactory.create(username="boss", is_staff=True)
    member = UserFactory.create(username="carol")
    data.teams["runA"].members.add(member)
    login("boss")
    page.goto(f"/nuggets/tasks/{data.task.pk}/scores/")
    assert page.locator("#significance-table tbody tr").count() == 3
    page.select_option("select[name=measure]", "weighted")
    page.locator("#significance form button, form[action='#significance'] button").click()
    page.wait_for_url(re.compile(r"measure=weighted"))
    assert "weighted" in page.locator("#significance + form + p").inner_text()
    screenshot("nugget-scores-significance")
    page.goto(f"/nuggets/tasks/{data.task.pk}/published/")
    page.get_by_role("button", name="Publish the nugget scores as they are now").click()
    page.wait_for_selector("#publication-events tbody tr")
    screenshot("nugget-published-organizer")
    page.context.clear_cookies()
    login("carol")
    page.goto(f"/nuggets/tasks/{data.task.pk}/published/")
    rows = page.locator("#published-scores tbody tr")
    assert rows.count() == 1
    assert rows.first.inner_text().startswith("runA")
    screenshot("nugget-published-team")

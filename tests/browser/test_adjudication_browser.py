"""The adjudication page in real Chromium: three disputes decided with the keyboard alone,
the stored decisions, and qrels that take the final grades. Screenshots in
test-artifacts/adjudication-*.png."""

from __future__ import annotations

import re

import pytest

from assessment.models import Adjudication
from evaluation.core.qrels import qrels_parse
from evaluation.services.qrels import qrels_export
from tests.browser.test_judging_browser import _wait_for_mathjax
from tests.factories import UserFactory
from tests.integration.test_adjudication_page import judge_dual
from tests.integration.test_judging_pools import answer_pool, formula_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _on_dispute(page, hit_id: int) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_url(re.compile(rf"[?&]hit={hit_id}(&|$)"))
    page.wait_for_selector(f'article.dispute[data-hit="{hit_id}"]')


def test_three_disputes_are_decided_with_the_keyboard_and_qrels_take_the_final_grades(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=4)
    # alice (official) and bob (dual) disagree on three answers and agree on the fourth.
    judge_dual(
        pool,
        [(3, 1), (1, "dont_know"), (0, 2), (2, 2)],
        comments=("Answers the question fully.", "Only restates the question."),
    )
    hits = [h[0] for h in pool.hits]
    UserFactory.create(username="boss", is_staff=True)
    task = pool.topic.task
    login("boss")
    page.goto(f"/organize/task/{task.pk}/adjudication/?difference=0")
    _wait_for_mathjax(page)
    assert page.locator("[data-counter]").inner_text() == "Dispute 1 of 3"
    assert page.locator("article.dispute .verdict").count() == 2
    screenshot("adjudication-answer")

    # t opens the post's thread in a new tab; the page keeps its place.
    with page.context.expect_page() as opened:
        page.keyboard.press("t")
    thread = opened.value
    thread.wait_for_load_state()
    assert re.search(r"/threads/\d+/", thread.url)
    thread.close()

    page.keyboard.press("h")  # High, the first dispute's final grade
    page.keyboard.press("Enter")
    _on_dispute(page, hits[1].pk)
    assert page.locator("[data-counter]").inner_text() == "Dispute 1 of 2"  # one left to do
    page.keyboard.press("Shift+J")  # skip to the next undecided one without saving
    _on_dispute(page, hits[2].pk)
    page.keyboard.press("k")  # and back
    _on_dispute(page, hits[1].pk)
    page.keyboard.press("2")
    page.keyboard.press("c")  # a note, then Esc leaves it and Enter saves
    page.keyboard.type("Low at best; the flag was a slip.")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    _on_dispute(page, hits[2].pk)
    page.keyboard.press("n")  # Not relevant
    screenshot("adjudication-choosing")
    page.keyboard.press("Enter")
    _on_dispute(page, hits[2].pk)  # nothing left undecided: it stays, and says so
    assert "Every dispute in this filter is decided." in page.locator(".messages").inner_text()
    assert page.locator("article.dispute .badge.final").inner_text() == "final 0 · Not relevant"
    page.goto(f"/organize/task/{task.pk}/adjudication/?difference=0&state=all")
    _wait_for_mathjax(page)
    screenshot("adjudication-all-decided")

    decided = {
        a.hit_id: (a.grade, a.note, a.decided_by.username)
        for a in Adjudication.objects.select_related("decided_by")
    }
    assert decided == {
        hits[0].pk: (3, "", "boss"),
        hits[1].pk: (2, "Low at best; the flag was a slip.", "boss"),
        hits[2].pk: (0, "", "boss"),
    }
    # The final grades beat alice's official ones (3 1 0) in the qrels.
    qrels = {e.doc: e.grade for e in qrels_parse(qrels_export(task=task).content)}
    assert qrels == {
        pool.items[0].key: 3,
        pool.items[1].key: 2,
        pool.items[2].key: 0,
        pool.items[3].key: 2,
    }
    # The agreement panel now compares each assessor with the final grades.
    change = page.locator("#agreement-change tfoot")
    assert "alice" in change.inner_text()
    assert "bob" in change.inner_text()


def test_formula_dispute_shows_both_formulas_highlighted_when_opened(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=2, instances=2)
    judge_dual(pool, [(3, 1), (2, 0)], comments=("Same formula, same use.", ""))
    UserFactory.create(username="boss", is_staff=True)
    login("boss")
    page.goto(f"/organize/task/{pool.topic.task.pk}/adjudication/")
    _wait_for_mathjax(page)
    assert page.locator(".query-formula mjx-container").count() == 1
    assert page.locator(".candidate mjx-container").count() == 1
    assert page.locator(".adj-hit .hit-formula mjx-container").count() == 1
    page.keyboard.press("?")
    assert page.locator("#legend").is_visible()
    screenshot("adjudication-formula")
    page.keyboard.press("?")
    page.keyboard.press("j")
    _on_dispute(page, pool.hits[1][0].pk)
    assert page.locator("[data-counter]").inner_text() == "Dispute 2 of 2"

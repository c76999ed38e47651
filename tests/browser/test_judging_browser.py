"""The judging page in real Chromium: keyboard only, flags, revising, MathJax, screenshots."""

from __future__ import annotations

import re

import pytest

from assessment.models import Judgment, JudgmentRevision
from tests.integration.test_judging_pools import answer_pool, assign, formula_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _judge_url(assignment_id: int, item_id: int) -> str:
    return f"/assess/{assignment_id}/{item_id}/"


def _wait_for_mathjax(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise"
    )
    page.evaluate("() => window.MathJax.startup.promise")


def test_keyboard_alone_judges_an_answer_and_lands_on_next_unjudged_when_enter_pressed(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=3)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto("/assess/")
    screenshot("assess-home")
    page.keyboard.press("Tab")  # the page is reachable from the keyboard too
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    _wait_for_mathjax(page)
    screenshot("judge-answer-item")

    page.evaluate("() => { window.sameDocument = true; }")
    page.keyboard.press("h")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[1].pk}/$"))
    page.wait_for_selector(f'.hit[data-hit="{pool.hits[1][0].pk}"]')
    assert page.locator("[data-position]").inner_text() == "2"
    assert page.evaluate("() => window.sameDocument === true")  # swapped in, not reloaded

    judgment = Judgment.objects.get(assignment=assignment)
    assert (judgment.hit_id, judgment.grade, judgment.flag) == (pool.hits[0][0].pk, 3, "")
    assert judgment.active_seconds > 0

    page.keyboard.press("2")  # the swapped-in page takes keys as well
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[2].pk}/$"))
    assert Judgment.objects.filter(assignment=assignment).count() == 2
    assert page.locator("[data-judged]").inner_text() == "2"
    screenshot("judge-after-two")


def test_do_not_know_is_refused_without_comment_and_accepted_with_one_when_formula_item(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=2, instances=3)
    assignment = assign(pool, "bob")
    login("bob")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    _wait_for_mathjax(page)

    page.keyboard.press("3")  # hit 1 → High, focus moves on
    page.keyboard.press("l")  # hit 2 → Low
    page.keyboard.press("d")  # hit 3 → Do not know; the comment box takes focus
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    error = page.locator(f'.hit[data-hit="{pool.hits[0][2].pk}"] [data-error]')
    error.wait_for(state="visible")
    assert "needs a comment" in error.inner_text()
    screenshot("judge-formula-refused")
    assert not Judgment.objects.exists()

    # The refused hit's comment box has the focus: just type the reason.
    assert page.evaluate("() => document.activeElement.name") == f"comment-{pool.hits[0][2].pk}"
    page.keyboard.type("I cannot tell which norm is meant here.")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[1].pk}/$"))
    stored = {
        j.hit_id: (j.grade, j.flag, j.comment)
        for j in Judgment.objects.filter(assignment=assignment)
    }
    hits = pool.hits[0]
    assert stored == {
        hits[0].pk: (3, "", ""),
        hits[1].pk: (1, "", ""),
        hits[2].pk: (None, "dont_know", "I cannot tell which norm is meant here."),
    }


def test_revising_from_the_item_list_keeps_a_revision_when_grade_changed(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    page.keyboard.press("m")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"))

    page.goto(f"/assess/{assignment.pk}/items/")
    screenshot("items-list")
    page.click(f'a.item-tile[href="{_judge_url(assignment.pk, pool.items[0].pk)}"]')
    page.wait_for_selector(".hit.is-judged")
    assert page.locator(".hit input[value='2']").is_checked()  # the saved grade is shown
    page.keyboard.press("n")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"))

    judgment = Judgment.objects.get(hit=pool.hits[0][0])
    assert (judgment.grade, judgment.revision) == (0, 2)
    history = JudgmentRevision.objects.filter(judgment=judgment).values_list("grade", flat=True)
    assert list(history) == [2, 0]


def test_mathjax_renders_every_formula_and_highlight_is_visible_when_formula_item(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=1, instances=3)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    _wait_for_mathjax(page)
    screenshot("judge-formula-item")

    for hit in pool.hits[0]:
        body = page.locator(f'.hit[data-hit="{hit.pk}"] .hit-body')
        assert body.locator("mjx-container").count() >= 2
        assert not re.search(r"\$[^$]+\$", body.inner_text())  # no raw TeX left
        highlighted = body.locator(f'.hit-formula[id="{hit.formula_id}"]')
        assert highlighted.locator("mjx-container").count() == 1
        assert highlighted.is_visible()
        box = highlighted.bounding_box()
        assert box is not None
        assert box["width"] > 10
        assert box["height"] > 5
        colour = highlighted.evaluate("e => getComputedStyle(e).backgroundColor")
        assert colour == "rgb(255, 240, 168)"  # --hit, the yellow of the highlight
    query = page.locator(".topic-question .hit-formula#q_6")
    assert query.locator("mjx-container").count() == 1
    assert query.is_visible()


def test_failed_submit_keeps_choices_and_retries_until_saved_when_server_unreachable(
    page, login
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    failures = {"left": 2}

    def flaky(route) -> None:  # type: ignore[no-untyped-def]
        if route.request.method == "POST" and failures["left"] > 0:
            failures["left"] -= 1
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/api/assignments/**", flaky)
    page.keyboard.press("l")
    page.keyboard.press("Enter")
    status = page.locator("#judge-status")
    status.wait_for(state="visible")
    page.wait_for_function(
        "() => document.querySelector('#judge-status').textContent.includes('Not saved yet')"
    )
    assert page.locator(".hit input[value='1']").is_checked()
    page.keyboard.press("ArrowRight")  # leaving now would drop the unsaved submit: refused
    assert page.url.endswith(_judge_url(assignment.pk, pool.items[0].pk))
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"), timeout=20000)
    judgment = Judgment.objects.get()
    assert (judgment.grade, judgment.revision) == (1, 1)
    assert failures["left"] == 0


def test_second_tab_shows_latest_judgment_when_it_comes_back_into_view(page, login) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    login("alice")
    url = _judge_url(assignment.pk, pool.items[0].pk)
    page.goto(url)
    other = page.context.new_page()
    other.goto(url)
    assert not other.locator(".hit input[value='3']").is_checked()

    page.bring_to_front()
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"))

    other.bring_to_front()
    other.evaluate("() => document.dispatchEvent(new Event('visibilitychange'))")
    other.wait_for_function("() => document.querySelector(\".hit input[value='3']\").checked")
    assert "saved" in other.locator("[data-state]").inner_text()
    assert other.locator("[data-judged]").inner_text() == "1"


def test_active_time_counts_short_pauses_and_drops_idle_gaps_when_over_two_minutes(
    page, login
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    login("alice")
    page.clock.install()
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    page.wait_for_selector(".hit.is-focused")
    page.clock.fast_forward(30_000)  # reading for 30 s: counted
    page.keyboard.press("h")
    page.clock.fast_forward(5 * 60_000)  # away for 5 minutes: an idle gap, not counted
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"))
    seconds = Judgment.objects.get().active_seconds
    assert 29 <= seconds <= 40, seconds


def test_legend_and_definitions_open_one_at_a_time_when_keys_pressed(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=1, instances=2)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    page.wait_for_selector(".hit.is-focused")
    legend = page.locator("#legend")
    assert not legend.is_visible()
    page.keyboard.press("?")
    assert legend.is_visible()
    screenshot("judge-legend")
    page.keyboard.press("g")  # one overlay at a time
    assert page.locator("#definitions").is_visible()
    assert not legend.is_visible()
    screenshot("judge-definitions")
    page.keyboard.press("?")
    page.keyboard.press("Escape")
    assert not legend.is_visible()
    assert not page.locator("#definitions").is_visible()

"""A task's guidelines in real Chromium: an organizer edits a grade's label and
definition, an assessor sees them on the judging page and in the key legend, and a binary
task's judging page takes only its own keys."""

from __future__ import annotations

import re

import pytest

from assessment.models import Judgment, TaskGuidelines
from assessment.services.guidelines import guidelines_save
from tests.factories import UserFactory
from tests.integration.test_guidelines_services import binary_scale
from tests.integration.test_judging_pools import answer_pool, assign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _wait_for_mathjax(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise"
    )
    page.evaluate("() => window.MathJax.startup.promise")


def test_organizer_edits_a_grade_and_assessor_sees_it_on_the_judging_page_when_saved(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    task = pool.topic.task
    assignment = assign(pool, "alice")
    UserFactory.create(username="olga", is_staff=True)

    login("olga")
    page.goto(f"/organize/task/{task.pk}/guidelines/")
    assert "In force: the built-in defaults" in page.locator("#guidelines-current").inner_text()
    page.fill("input[name=grade-2-label]", "Useful")
    page.fill(
        "textarea[name=grade-2-definition]",
        "Gives a **real step** forward, such as the identity $\\sum_{k=1}^n k = n(n+1)/2$.",
    )
    page.fill("input[name=note]", "clearer Medium")
    page.click("button[value=preview]")
    preview = page.locator("#guidelines-preview")
    preview.wait_for()
    _wait_for_mathjax(page)
    assert "Useful" in preview.inner_text()
    assert preview.locator("strong", has_text="real step").count() == 1
    assert preview.locator("mjx-container").count() >= 1  # the math is typeset
    screenshot("guidelines-organizer-preview")
    assert not TaskGuidelines.objects.exists()  # a preview saves nothing

    page.click("button[value=save]")
    page.wait_for_url(re.compile(rf"/organize/task/{task.pk}/guidelines/$"))
    assert "Saved the guidelines as version 1." in page.locator(".messages").inner_text()
    assert "clearer Medium" in page.locator("#version-table").inner_text()
    screenshot("guidelines-organizer-saved")

    page.context.clear_cookies()
    login("alice")
    page.goto(f"/assess/{assignment.pk}/{pool.items[0].pk}/")
    _wait_for_mathjax(page)
    hit = page.locator(f'.hit[data-hit="{pool.hits[0][0].pk}"]')
    assert hit.locator(".choice-medium").inner_text().startswith("Useful")
    page.keyboard.press("?")
    legend = page.locator("#legend")
    legend.wait_for(state="visible")
    assert "Useful (2) for the focused hit" in legend.inner_text()
    screenshot("guidelines-assessor-legend")
    page.keyboard.press("g")
    definitions = page.locator("#definitions")
    definitions.wait_for(state="visible")
    assert "Gives a real step forward" in definitions.inner_text()
    assert definitions.locator("mjx-container").count() >= 1
    screenshot("guidelines-assessor-definitions")
    page.keyboard.press("Escape")

    page.keyboard.press("m")  # the key of the renamed grade still grades 2
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[1].pk}/$"))
    judgment = Judgment.objects.get(assignment=assignment)
    assert judgment.grade == 2
    assert judgment.guidelines_version == TaskGuidelines.objects.get(task=task, version=1)


def test_binary_task_page_accepts_only_its_own_keys_when_assessor_types(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    guidelines_save(
        task=pool.topic.task,
        instructions="Does the answer help? *Yes* or *no*.",
        scale=binary_scale(),
        relevance_level=1,
    )
    assignment = assign(pool, "bob")
    login("bob")
    page.goto(f"/assess/{assignment.pk}/{pool.items[0].pk}/")
    _wait_for_mathjax(page)
    hit = page.locator(f'.hit[data-hit="{pool.hits[0][0].pk}"]')
    assert hit.locator("input[type=radio]").evaluate_all("els => els.map(e => e.value)") == [
        "1",
        "0",
        "dont_know",
    ]
    for key in ("3", "2", "h", "m", "f"):  # ARQMath's keys mean nothing here
        page.keyboard.press(key)
        assert hit.locator("input[type=radio]:checked").count() == 0, key
    page.keyboard.press("Enter")  # nothing chosen: refused with this task's choices
    error = hit.locator("[data-error]")
    error.wait_for(state="visible")
    assert "Relevant (1/r), Not relevant (0/n) or Unsure (u)" in error.inner_text()
    screenshot("guidelines-binary-refused")

    page.keyboard.press("r")
    assert hit.locator("input[type=radio]:checked").get_attribute("value") == "1"
    page.keyboard.press("?")
    legend = page.locator("#legend").inner_text()
    assert "Relevant (1)" in legend
    assert "High" not in legend
    screenshot("guidelines-binary-legend")
    page.keyboard.press("Escape")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[1].pk}/$"))
    assert Judgment.objects.get(assignment=assignment).grade == 1

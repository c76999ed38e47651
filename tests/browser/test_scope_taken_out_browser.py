"""An assessor's judging page when the organizer takes items out of the scope, in real Chromium.

A refused submit re-reads the assignment and sets the header's counts without a reload: the
unit words follow the counts as the server writes them ("0 of 1 answer", never "0 of 1
answers", for every task's units) and the tab's title follows the counter (a dash, "of 1").
Then an item taken out after it was judged: the item list still shows it apart, its page
says why, and the assessor corrects the judgment. Screenshots in
test-artifacts/scope-taken-out-units-<kind>.png, scope-taken-out-item-list.png and
scope-taken-out-revised.png (the item taken out, before its correction).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from assessment.models import Judgment
from assessment.services.assignments import scope_items_remove
from assessment.services.assignments.scoped import items_route
from assessment.services.judging import HitVerdict, item_submit
from tests.factories import UserFactory
from tests.integration.document_pool import document_pool
from tests.integration.test_judging_pools import Pool, answer_pool, formula_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _formulae() -> Pool:
    return formula_pool(items=3, instances=1)


# The kind, its pool, and the header's text once one item is left, in that task's units.
UNITS: list[tuple[str, Callable[[], Pool], str, str]] = [
    ("answer", lambda: answer_pool(items=3), "answer", "0 of 1 answer judged"),
    ("document", lambda: document_pool(items=3), "document", "0 of 1 document judged"),
    ("formula", _formulae, "formula", "0 of 1 formula · 0 of 1 post judged"),
]


@pytest.mark.parametrize(("kind", "make", "unit", "told"), UNITS, ids=[u[0] for u in UNITS])
def test_header_and_tab_title_tell_one_item_in_the_singular_when_items_are_taken_out(
    page, login, screenshot, kind, make, unit, told
) -> None:  # type: ignore[no-untyped-def]
    pool = make()
    carol = UserFactory.create(username="carol")
    [held] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]}, assessors=[carol], created_by=None
    ).created
    opened = pool.items[0]
    login("carol")
    page.goto(f"/assess/{held.pk}/{opened.pk}/")
    page.wait_for_selector(".hit.is-focused")
    number = pool.topic.number
    assert page.title() == f"{number} · {unit} 1 of 3 · qrelsmith"
    # The organizer takes out the open item and another: one is left.
    scope_items_remove(assignment=held, item_ids=[opened.pk, pool.items[1].pk])
    page.locator(".hit .choice").first.click()
    page.click(".submit-btn")
    page.locator("#judge-status").filter(has_text="no longer yours to judge").wait_for()
    header = page.locator(".judge-bar")
    header.filter(has_text=told).wait_for()
    assert told in header.inner_text()
    assert f"{unit.capitalize()} \u2013 of 1" in header.inner_text()
    page.wait_for_function(
        "expected => document.title === expected", arg=f"{number} · {unit} \u2013 of 1 · qrelsmith"
    )
    tooltip = page.get_attribute(".topic-progress", "title")
    assert tooltip == f"Judged in this topic: {told.removesuffix(' judged')}"
    page.wait_for_timeout(500)  # the bar's width eases over .35 s: shoot it settled
    screenshot(f"scope-taken-out-units-{kind}")
    assert not Judgment.objects.filter(hit__item=opened).exists()


def test_assessor_reopens_a_judged_item_taken_out_from_the_list_and_corrects_it(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=3)
    carol = UserFactory.create(username="carol")
    [held] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]}, assessors=[carol], created_by=None
    ).created
    judged, hit = pool.items[1], pool.hits[1][0]
    item_submit(
        assignment=held, item=judged, assessor=carol, verdicts=[HitVerdict(hit_id=hit.pk, grade=1)]
    )
    scope_items_remove(assignment=held, item_ids=[judged.pk])
    login("carol")
    page.goto(f"/assess/{held.pk}/items/")
    section = page.locator("#taken-out")
    assert "1 answer you judged" in section.inner_text()
    assert "Your judgments are kept and still count in the results" in section.inner_text()
    # The scope's own progress leaves it out: two answers, none judged.
    assert "0 of 2 answers judged" in page.locator(".topic-progress").inner_text()
    screenshot("scope-taken-out-item-list")

    section.locator(f"a[href='/assess/{held.pk}/{judged.pk}/']").click()
    page.wait_for_selector(".hit.is-focused")
    assert "you can correct it here" in page.locator("[data-taken-out]").inner_text()
    assert page.locator(f'.hit[data-hit="{hit.pk}"] input[value="1"]').is_checked()
    assert page.title() == f"{pool.topic.number} · answer \u2013 of 2 · qrelsmith"
    screenshot("scope-taken-out-revised")
    page.keyboard.press("3")
    page.keyboard.press("Enter")
    page.locator("#judge-status").filter(has_text="Saved").wait_for()
    mine = Judgment.objects.get(assignment=held, hit=hit)
    assert (mine.grade, mine.revision) == (3, 2)


def test_a_link_to_an_item_taken_out_before_it_was_judged_leads_back_to_the_list(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=3)
    carol = UserFactory.create(username="carol")
    [held] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]}, assessors=[carol], created_by=None
    ).created
    login("carol")
    page.goto(f"/assess/{held.pk}/{pool.items[0].pk}/")
    page.wait_for_selector(".hit.is-focused")
    scope_items_remove(assignment=held, item_ids=[pool.items[1].pk])  # while the page is open
    page.goto(f"/assess/{held.pk}/{pool.items[1].pk}/")  # where Next pointed when drawn
    assert "This item is not yours to judge" in page.locator("h1").inner_text()
    screenshot("scope-taken-out-link-followed")
    page.get_by_role("link", name="Back to your items").click()
    page.wait_for_url(f"**/assess/{held.pk}/items/")
    assert "0 of 2 answers judged" in page.locator(".topic-progress").inner_text()

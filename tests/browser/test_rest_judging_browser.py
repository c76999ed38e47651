"""Judging entirely over REST with the README's script, then the judging page as the assessor
sees it in Chromium: the same grades, revised ones included."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.integration.judging_script import run_judging_script
from tests.integration.test_judging_pools import answer_pool, assign, formula_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _choices_on_page(page, assignment_id: int, item_id: int) -> dict[int, str]:  # type: ignore[no-untyped-def]
    """hit id -> the choice the judging page shows checked ("" when none)."""
    page.goto(f"/assess/{assignment_id}/{item_id}/")
    page.wait_for_selector("#judge-form")
    shown = {}
    for article in page.locator("article.hit[data-hit]").all():
        hit = int(article.get_attribute("data-hit"))
        checked = article.locator("input[type=radio]:checked")
        shown[hit] = checked.get_attribute("value") if checked.count() else ""
    return shown


def test_page_shows_the_grades_a_script_gave_over_rest_when_assessor_opens_it(
    page, login, screenshot, live_server, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    answers = answer_pool(items=3)
    formulas = formula_pool(items=2, instances=3)
    alice = assign(answers, "alice")
    on_formulas = assign(formulas, "alice")
    token = StringIO()
    call_command("create_token", "alice", stdout=token)
    answer_grades = dict(zip([hits[0] for hits in answers.hits], (3, 0, 2), strict=True))
    formula_grades = dict(zip(formulas.hits[1], (1, 3, 2), strict=True))
    grades = [(answers.topic.number, str(h.post_id), g) for h, g in answer_grades.items()]
    grades += [(formulas.topic.number, str(h.formula_id), g) for h, g in formula_grades.items()]
    run = run_judging_script(
        server=live_server.url, token=token.getvalue().strip(), grades=grades, folder=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.count("judged") == 4  # three answer items, one formula item

    login("alice")
    for hit, grade in answer_grades.items():
        assert _choices_on_page(page, alice.pk, hit.item_id) == {hit.pk: str(grade)}
    shown = _choices_on_page(page, on_formulas.pk, formulas.items[1].pk)
    assert shown == {h.pk: str(g) for h, g in formula_grades.items()}
    screenshot("rest-judged-formula-item")
    assert _choices_on_page(page, on_formulas.pk, formulas.items[0].pk) == dict.fromkeys(
        (h.pk for h in formulas.hits[0]), ""
    )

    # Revised over REST: the page shows the new grade, and says it is saved.
    first = next(iter(answer_grades))
    grades[0] = (answers.topic.number, str(first.post_id), 1)
    again = run_judging_script(
        server=live_server.url, token=token.getvalue().strip(), grades=grades, folder=tmp_path
    )
    assert again.returncode == 0, again.stderr
    assert _choices_on_page(page, alice.pk, first.item_id) == {first.pk: "1"}
    assert page.locator(f'article.hit[data-hit="{first.pk}"]').get_attribute("data-revision") == "2"
    page.goto(f"/assess/{alice.pk}/items/")
    assert page.locator(".item-tile.state-judged").count() == 3
    screenshot("rest-judged-items")

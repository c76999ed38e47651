"""The people-and-machine page's "send to assessors" button in real Chromium: the organizer
draws a sample, picks assessors and sends; the confirmation says what happened; the assessor
then logs in and judges exactly the sent items, blind to the machine. Then an assessor with a
judging page open when the organizer takes its item out: nothing is saved, the header then
counts the scope as it is, and drafts of other items stay. Screenshots in
test-artifacts/human-sample-*.png, scope-item-taken-out-while-open.png and
scope-counts-after-item-taken-out.png, and scope-emptied-assignment-closed.png.

The story is test_human_sample_routing's: A.1's official assignment is revoked, so of A.1 the
people have not judged 101 and 104; A.2's open 203 is already in a whole-topic assignment.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from assessment.models import Assignment, Judgment
from assessment.services.assignments import scope_items_remove
from assessment.services.assignments.moves import assignment_revoke
from assessment.services.assignments.scoped import items_route
from assessment.services.judging import HitVerdict, item_submit
from tests.browser.conftest import ARTIFACTS, PASSWORD
from tests.factories import UserFactory
from tests.integration.machine_judge_data import JUDGE_GRADES, import_judge, jsonl
from tests.integration.machine_judge_data import judged_task_with_open_item as judged_task
from tests.integration.test_judging_pools import answer_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_organizer_sends_the_draw_and_the_assessor_sees_exactly_the_sent_items(
    page, login, screenshot, browser, live_server, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    data = judged_task()
    data.task.official_measures = ["P_2"]
    data.task.save(update_fields=["official_measures"])
    import_judge(data.task, tmp_path, jsonl(JUDGE_GRADES), name="umbrela-like")
    a1 = Assignment.objects.get(
        topic=data.topics["A.1"], purpose=Assignment.Purpose.OFFICIAL, revoked_at=None
    )
    assignment_revoke(assignment=a1)
    UserFactory.create(username="boss", is_staff=True)
    UserFactory.create(username="carol")
    UserFactory.create(username="dave")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)

    login("boss")
    page.goto(f"/results/{data.task.pk}/human-sample/")
    page.select_option("#human-sample-form select[name=judge]", label="umbrela-like")
    page.fill("#human-sample-form input[name=budget]", "100")
    page.click("#human-sample-form button[type=submit]")
    page.wait_for_selector(".human-sample")
    routing = page.locator(".routing").inner_text()
    # 203 waits in A.2's whole-topic assignment; A.1's 101 and 104 were sent to nobody.
    assert "judged by people 5 · still to judge 3: 1 in an assessor's queue, 2 not sent" in routing
    page.check(".human-sample label:has-text('carol') input")
    page.check(".human-sample label:has-text('dave') input")
    screenshot("human-sample-before-send")
    page.click(".human-sample button[type=submit]")
    page.wait_for_load_state("networkidle")
    confirmation = page.locator(".messages").inner_text()
    assert confirmation == (
        "Sent 2 drawn items to assessors; new assignment A.1 → carol; "
        "1 already in a whole-topic assignment."
    )
    assert "still to judge 3: all in an assessor's queue" in page.locator(".routing").inner_text()
    screenshot("human-sample-sent")

    [held] = Assignment.objects.filter(scoped=True, revoked_at=None).select_related("assessor")
    assert held.assessor.username == "carol"  # the least loaded, first chosen
    sent = {data.hits[101].item_id, data.hits[104].item_id}

    # carol, in a browser of her own: her item list holds exactly the two sent items.
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1440, "height": 900})
    tab = context.new_page()
    tab.set_default_timeout(15000)
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto("/accounts/login/")
    tab.fill("input[name=username]", "carol")
    tab.fill("input[name=password]", PASSWORD)
    tab.click("form button[type=submit], form input[type=submit]")
    tab.wait_for_load_state("networkidle")
    tab.goto(f"/assess/{held.pk}/items/")
    links = tab.locator("a.item-tile").evaluate_all("tiles => tiles.map(t => t.pathname)")
    assert sorted(links) == sorted(f"/assess/{held.pk}/{item}/" for item in sent)
    tab.screenshot(path=str(ARTIFACTS / "human-sample-assessor-items.png"), full_page=True)
    tab.goto(f"/assess/{held.pk}/")  # continue: the first sent item's judging page
    tab.wait_for_selector(".hit")
    text = tab.locator("body").inner_text()
    assert "answers the question directly" not in text  # the machine's rationale
    assert tab.locator("[data-suggestion]").count() == 0  # nor its grade
    assert "1 of 2" in text
    tab.screenshot(path=str(ARTIFACTS / "human-sample-assessor-judging.png"), full_page=True)
    context.close()

    # Back with the organizer: the assignments page links the scope, whose items can go.
    page.goto(f"/organize/task/{data.task.pk}/assignments/")
    page.click(f"a[href='/organize/assignments/{held.pk}/scope/']")
    page.wait_for_selector("#scope-table")
    assert page.locator("#scope-table tbody tr").count() == 2
    screenshot("human-sample-scope")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("text=Take out the 2 unjudged items")
    page.wait_for_load_state("networkidle")
    assert (
        "Took 2 items out of the scope; 0 left to the assessor."
        in page.locator(".messages").inner_text()
    )
    assert errors == []


def test_judging_page_open_on_an_item_taken_out_says_so_and_saves_nothing(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    carol = UserFactory.create(username="carol")
    [held] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]}, assessors=[carol], created_by=None
    ).created
    item, hit = pool.items[0], pool.hits[0][0]
    login("carol")
    page.goto(f"/assess/{held.pk}/{item.pk}/")
    page.wait_for_selector(".hit")
    # The organizer takes the item out while carol reads it.
    scope_items_remove(assignment=held, item_ids=[item.pk])
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    status = page.locator("#judge-status")
    status.filter(has_text="no longer yours to judge").wait_for()
    screenshot("scope-item-taken-out-while-open")
    assert not Judgment.objects.filter(hit=hit).exists()


DRAFT_KEYS = "() => Object.keys(localStorage).filter(k => k.startsWith('qrelsmith.draft.')).sort()"


def test_header_counts_follow_the_scope_after_a_refused_submit_and_drafts_stay(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=4)
    carol = UserFactory.create(username="carol")
    [held] = items_route(
        items={pool.topic.pk: [item.pk for item in pool.items]}, assessors=[carol], created_by=None
    ).created
    first, drafted, opened, _last = pool.items
    item_submit(
        assignment=held,
        item=first,
        assessor=carol,
        verdicts=[HitVerdict(hit_id=pool.hits[0][0].pk, grade=1)],
    )
    login("carol")
    page.goto(f"/assess/{held.pk}/{drafted.pk}/")
    page.wait_for_selector(".hit.is-focused")
    page.keyboard.press("3")  # a draft on this item, never submitted
    draft_key = f"qrelsmith.draft.{carol.pk}.{held.pk}.{drafted.pk}"
    assert page.evaluate(DRAFT_KEYS) == [draft_key]
    page.keyboard.press("ArrowRight")  # unsaved here: the first press warns...
    page.keyboard.press("ArrowRight")  # ...the second leaves, the draft kept on this computer
    page.wait_for_url(f"**/assess/{held.pk}/{opened.pk}/")
    page.wait_for_selector(".hit.is-focused")
    header = page.locator(".judge-bar")
    assert "1 of 4 answers judged" in header.inner_text()
    assert "Answer 3 of 4" in header.inner_text()
    page.evaluate("() => { window.stillTheSamePage = true; }")  # gone after any full reload

    # The organizer takes out the item carol has open and the one she judged (kept in qrels).
    scope_items_remove(assignment=held, item_ids=[opened.pk, first.pk])
    page.keyboard.press("2")
    page.keyboard.press("Enter")
    page.locator("#judge-status").filter(has_text="no longer yours to judge").wait_for()
    # The header now counts the scope as it is: 2 answers left, none of them judged.
    header.filter(has_text="0 of 2 answers judged").wait_for()
    # The open item is no longer one of them: it has no place among them.
    assert "Answer \u2013 of 2" in header.inner_text()
    assert page.eval_on_selector("[data-progress]", "bar => [bar.value, bar.max]") == [0, 2]
    assert page.evaluate("() => window.stillTheSamePage") is True
    assert page.locator(f'.hit[data-hit="{pool.hits[2][0].pk}"] input[value="2"]').is_checked()
    page.wait_for_timeout(500)  # the bar's width eases over .35 s: shoot it settled
    screenshot("scope-counts-after-item-taken-out")
    assert not Judgment.objects.filter(hit=pool.hits[2][0]).exists()
    assert Judgment.objects.filter(hit=pool.hits[0][0]).count() == 1  # judged, taken out, kept

    # Back to the drafted item without a reload: its draft is still there, not saved.
    assert draft_key in page.evaluate(DRAFT_KEYS)
    page.keyboard.press("ArrowLeft")  # the refused choice is unsaved here: warned...
    page.keyboard.press("ArrowLeft")  # ...and left
    page.wait_for_url(f"**/assess/{held.pk}/{drafted.pk}/")
    hit = page.locator(f'.hit[data-hit="{pool.hits[1][0].pk}"]')
    hit.locator("input[value='3']:checked").wait_for()
    assert hit.locator("[data-state]").inner_text() == "restored, not saved yet"
    assert page.evaluate("() => window.stillTheSamePage") is True
    assert not Judgment.objects.filter(hit=pool.hits[1][0]).exists()

    # The organizer takes out the rest: her card says the assignment is closed, in words.
    scope_items_remove(assignment=held, unjudged=True)
    page.goto("/assess/")
    card = page.locator(".assignment-card.is-closed")
    assert "the organizer took every item out of this assignment" in card.inner_text()
    assert "Closed" in card.inner_text()
    assert card.locator("progress, .continue-btn").count() == 0
    screenshot("scope-emptied-assignment-closed")

"""The assessor's comforts in real Chromium: drafts that survive a reload, thread
keys, Tab through every link, links of posts in new tabs, Task 2 units, menus and error pages."""

from __future__ import annotations

import re

import pytest

from assessment.models import Judgment
from assessment.services.judging import judgment_submit
from collection.models import Post
from tests.factories import PostFactory, TeamFactory, UserFactory
from tests.integration.test_judging_pools import answer_pool, assign, formula_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DRAFT_KEYS = "() => Object.keys(localStorage).filter(k => k.startsWith('qrelsmith.draft.')).sort()"


def _judge_url(assignment_id: int, item_id: int) -> str:
    return f"/assess/{assignment_id}/{item_id}/"


def _wait_for_mathjax(page) -> None:  # type: ignore[no-untyped-def]
    page.wait_for_function(
        "() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise"
    )
    page.evaluate("() => window.MathJax.startup.promise")


def _hit(page, hit_id: int):  # type: ignore[no-untyped-def]
    return page.locator(f'.hit[data-hit="{hit_id}"]')


def test_unsaved_grade_and_comment_come_back_after_reload_and_go_when_submitted(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=2, instances=2)
    assignment = assign(pool, "alice")
    first, second = pool.hits[0]
    login("alice")
    url = _judge_url(assignment.pk, pool.items[0].pk)
    page.goto(url)
    page.wait_for_selector(".hit.is-focused")
    page.keyboard.press("m")  # post 1 → Medium, focus moves to post 2
    page.keyboard.press("d")  # post 2 → Do not know; its comment box takes the focus
    page.keyboard.type("Which norm is meant?")
    assert page.evaluate(DRAFT_KEYS) == [
        f"qrelsmith.draft.{assignment.assessor_id}.{assignment.pk}.{pool.items[0].pk}"
    ]

    page.reload()  # a crash or a closed tab comes back the same way
    _wait_for_mathjax(page)
    assert _hit(page, first.pk).locator("input[value='2']").is_checked()
    assert _hit(page, second.pk).locator("input[value='dont_know']").is_checked()
    assert _hit(page, second.pk).locator("textarea").input_value() == "Which norm is meant?"
    for hit in (first, second):
        assert _hit(page, hit.pk).locator("[data-state]").inner_text() == "restored, not saved yet"
    assert "Restored 2 unsaved choices" in page.locator("#judge-status").inner_text()
    assert not Judgment.objects.exists()  # restored on the page only, never sent by itself
    screenshot("comforts-draft-restored")

    page.keyboard.press("Enter")  # the focus is on the first post again, not in a comment
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"))
    stored = {j.hit_id: (j.grade, j.flag, j.comment) for j in Judgment.objects.all()}
    assert stored == {
        first.pk: (2, "", ""),
        second.pk: (None, "dont_know", "Which norm is meant?"),
    }
    assert page.evaluate(DRAFT_KEYS) == []  # saved: the draft is gone

    page.goto(url)
    page.wait_for_selector(".hit.is-focused")
    assert _hit(page, first.pk).locator("[data-state]").inner_text() == "saved"


def test_older_draft_is_dropped_when_a_newer_judgment_was_saved_meanwhile(page, login) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=2)
    assignment = assign(pool, "alice")
    hit = pool.hits[0][0]
    login("alice")
    url = _judge_url(assignment.pk, pool.items[0].pk)
    page.goto(url)
    page.wait_for_selector(".hit.is-focused")
    page.keyboard.press("l")  # a draft: Low, made against "not judged yet"
    assert len(page.evaluate(DRAFT_KEYS)) == 1

    # Meanwhile the same assessor saves High from another device.
    judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=3)
    page.reload()
    page.wait_for_selector(".hit.is-focused")
    assert _hit(page, hit.pk).locator("input[value='3']").is_checked()
    assert _hit(page, hit.pk).locator("[data-state]").inner_text() == "saved"
    assert page.evaluate(DRAFT_KEYS) == []


def test_logging_out_clears_every_draft_when_the_browser_is_shared(page, login) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    page.wait_for_selector(".hit.is-focused")
    page.keyboard.press("h")
    assert len(page.evaluate(DRAFT_KEYS)) == 1
    page.click("form.logout button[type=submit]")
    page.wait_for_url(re.compile(r"/accounts/login/"))
    assert page.evaluate(DRAFT_KEYS) == []


def test_thread_keys_open_the_focused_post_and_the_topic_in_new_tabs_when_pressed(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=1, instances=3)
    question = PostFactory.create(kind=Post.Kind.QUESTION)  # the topic's own question
    pool.topic.thread_id = question.pk  # a thread's id is its question's
    pool.topic.save(update_fields=["thread_id"])
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    _wait_for_mathjax(page)
    page.keyboard.press("?")
    legend = page.locator("#legend")
    assert "thread in a new tab" in legend.inner_text()
    screenshot("comforts-legend")
    page.keyboard.press("?")

    page.keyboard.press("j")  # the second post
    second_id = pool.hits[0][1].post_id
    assert second_id is not None
    second = Post.objects.get(pk=second_id)
    with page.context.expect_page() as opened:
        page.keyboard.press("t")
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.endswith(f"/threads/{second.thread_id}/#post-{second.pk}")
    assert tab.locator(f"#post-{second.pk}").is_visible()
    tab.close()
    assert page.url.endswith(_judge_url(assignment.pk, pool.items[0].pk))  # still judging

    with page.context.expect_page() as opened:
        page.keyboard.press("q")
    tab = opened.value
    tab.wait_for_load_state()
    assert tab.url.endswith(f"/threads/{question.thread_id}/#post-{question.pk}")
    tab.close()
    topic_link = page.locator("[data-topic-thread]")
    assert topic_link.get_attribute("target") == "_blank"
    assert topic_link.get_attribute("rel") == "noopener noreferrer"


def test_tab_reaches_every_link_and_grade_keys_follow_it_when_moving_through_the_page(
    page, login
) -> None:  # type: ignore[no-untyped-def]
    pool = answer_pool(items=1)
    assignment = assign(pool, "alice")
    hit = pool.hits[0][0]
    assert hit.post_id is not None
    linked = Post.objects.get(pk=hit.post_id)
    other = PostFactory.create(kind=Post.Kind.QUESTION)
    linked.body += f'<p>See <a href="https://math.stackexchange.com/q/{other.pk}">this</a>.</p>'
    linked.save(update_fields=["body"])
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    page.wait_for_selector(".hit.is-focused")
    links = page.locator("a[href]")
    wanted = {links.nth(i).get_attribute("href") for i in range(links.count())}
    assert f"/threads/{other.thread_id}/#post-{other.pk}" in wanted  # the link inside the post
    post_link = page.locator(".hit .post-body a.post-link")
    assert post_link.get_attribute("target") == "_blank"
    assert post_link.get_attribute("rel") == "noopener noreferrer"

    reached: set[str] = set()
    page.evaluate("() => document.activeElement.blur()")
    for _ in range(60):
        page.keyboard.press("Tab")
        href = page.evaluate("() => document.activeElement.getAttribute('href')")
        if href:
            reached.add(href)
        if reached >= wanted:
            break
    assert wanted <= reached, wanted - reached

    # Tabbing onto the post's own Thread link leaves its hit the one the keys grade.
    page.locator("[data-hit-thread]").focus()
    page.keyboard.press("m")
    assert _hit(page, hit.pk).locator("input[value='2']").is_checked()


def test_formula_topic_names_formulae_and_posts_when_judging_and_listing(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=2, instances=3)
    assignment = assign(pool, "alice")
    login("alice")
    page.goto(_judge_url(assignment.pk, pool.items[0].pk))
    _wait_for_mathjax(page)
    assert page.locator(".counter").inner_text() == "Formula 1 of 2"
    progress = page.locator("[data-progress-text]")
    assert progress.inner_text() == "0 of 2 formulae · 0 of 6 posts judged"
    page.keyboard.press("3")
    page.keyboard.press("2")
    assert progress.inner_text() == "0 of 2 formulae · 0 of 6 posts judged"  # not saved yet
    page.keyboard.press("0")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/{pool.items[1].pk}/$"))
    assert page.locator(".counter").inner_text() == "Formula 2 of 2"
    assert progress.inner_text() == "1 of 2 formulae · 3 of 6 posts judged"
    screenshot("comforts-formula-units")

    page.goto("/assess/")
    card = page.locator(".assignment-card")
    assert "1 of 2 formulae · 3 of 6 posts judged" in card.inner_text()
    screenshot("comforts-assess-home")
    page.goto(f"/assess/{assignment.pk}/items/")
    assert "1 of 2 formulae · 3 of 6 posts judged" in page.locator(".topic-progress").inner_text()
    assert "2 formulae in 6 posts" in page.locator("h1").inner_text()


def test_each_role_sees_only_its_menus_and_errors_keep_the_layout_when_forbidden(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    UserFactory.create(username="alice")
    carol = UserFactory.create(username="carol")
    TeamFactory.create(name="Lemma").members.add(carol)
    favicons: list[int] = []
    page.on("response", lambda r: favicons.append(r.status) if "favicon" in r.url else None)

    login("alice")
    nav = page.locator("nav.mainnav")
    assert nav.locator("a").all_inner_texts() == ["My assignments"]
    page.goto("/organize/")
    assert page.locator(".error-code").text_content() == "403 · Forbidden"
    assert page.locator("header.topbar").is_visible()  # the app's layout
    screenshot("comforts-403")
    page.goto("/assess/99999/")
    assert page.locator(".error-code").text_content() == "404 · Not found"
    screenshot("comforts-404")
    assert favicons
    assert all(status == 200 for status in favicons)

    page.click("form.logout button[type=submit]")
    login("carol")
    assert nav.locator("a").all_inner_texts() == ["Runs", "Results"]


def test_training_form_typesets_topic_titles_and_dashboard_names_units_when_organizer(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = formula_pool(items=2, instances=2)
    assignment = assign(pool, "alice")
    item_hits = pool.hits[0]
    for hit in item_hits:
        judgment_submit(assignment=assignment, hit=hit, assessor=assignment.assessor, grade=3)
    UserFactory.create(username="boss", is_staff=True)
    login("boss")
    page.goto(f"/organize/task/{pool.topic.task_id}/training/")
    _wait_for_mathjax(page)
    label = page.locator(".topic-checks label").first
    assert label.locator("mjx-container").count() == 1  # the title's $\infty$, typeset
    assert "$" not in label.inner_text()
    assert "B.9" in label.inner_text()
    screenshot("comforts-training-form")
    page.goto(f"/organize/task/{pool.topic.task_id}/")
    row = page.locator("#topic-table tbody tr").first
    assert "1 of 2 formulae · 2 of 4 posts judged" in row.inner_text()
    screenshot("comforts-organizer-dashboard")

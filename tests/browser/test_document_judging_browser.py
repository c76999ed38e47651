"""Judging a document in real Chromium: the keyboard alone grades it, the query
terms are highlighted and stepped through inside the scrolling document, hostile HTML and TeX
stay inert, and the Content-Security-Policy refuses nothing."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from assessment.models import Assignment, Judgment
from assessment.services.judging import judgment_submit
from tests.browser.test_hostile_tex import PAYLOADS
from tests.factories import AssignmentFactory, UserFactory
from tests.integration.document_pool import HTML_BODY, document_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOT = Path("/tmp/doc_judging.png")  # noqa: S108 (the brief's place for a person to look)
WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.effectiveDirective} refused ${e.blockedURI}`));
"""
TERMS = ("hubble", "telescope", "achievements")
# An 8x8 orange PNG inline: the one kind of image a document keeps (CSP: img-src 'self' data:).
DATA_PNG = (
    "data:image/png;base64,"
    "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP438CAFWEXHbQSAKmzX8FBxi1QAAAAAElFTkSuQmCC"
)
# Far apart, so that the last matches lie well below the first screenful of the pane.
FILLER = (
    "The committee met on a rainy Tuesday to review the budget of the observatory, the "
    "repairs of the dome and the new schedule for visiting students from the region. "
) * 3
LONG_TITLE = "Hubble Telescope: ten years of achievements"
LONG_BODY = "\n\n".join(
    [
        "When the Hubble telescope was launched, few expected much. Prices were quoted as "
        "$5 and $10 per print, and $x^2$ stays text here.",
        *(FILLER for _ in range(12)),
        "Its telescopes' mirror was fixed; the achievements followed. <b>not bold</b>",
        *(FILLER for _ in range(12)),
        "Today HUBBLE is famous: the telescope's deep fields are its greatest achievement.",
        *(f"${tex}$" for tex in PAYLOADS[:3]),
    ]
)


def expected_matches(text: str) -> list[str]:
    """The matches highlight.js must find, computed with Python's re: a term (or a plural
    term without its final s), maybe a plural ending, not touching other letters or digits,
    in any case."""
    stems = [t[:-1] for t in TERMS if len(t) > 3 and re.search(r"[^s]s$", t)]
    words = "|".join(sorted([*TERMS, *stems], key=len, reverse=True))
    pattern = re.compile(rf"(?<![^\W_])(?:{words})(?:e?s)?(?![^\W_])", re.IGNORECASE)
    return pattern.findall(text)


def _reader_box(page) -> dict:  # type: ignore[no-untyped-def]
    return page.evaluate(
        """() => {
          const reader = document.querySelector("[data-doc-reader]");
          const current = reader.querySelector("mark.is-current");
          const r = reader.getBoundingClientRect();
          const m = current ? current.getBoundingClientRect() : null;
          return {
            scrollTop: reader.scrollTop, scrollHeight: reader.scrollHeight,
            clientHeight: reader.clientHeight, windowScroll: window.scrollY,
            visible: m !== null && m.top >= r.top && m.bottom <= r.bottom,
            current: current ? current.textContent : null,
          };
        }"""
    )


def test_keyboard_judges_documents_and_steps_through_highlighted_terms_when_judging(
    page, login, screenshot, live_server
) -> None:  # type: ignore[no-untyped-def]
    pool = document_pool(
        items=2,
        bodies=[
            (LONG_TITLE, LONG_BODY, "text"),
            ("Hubble <i>measures</i> the universe", HTML_BODY + f'<img src="{DATA_PNG}">', "html"),
        ],
    )
    assignment = AssignmentFactory.create(
        topic=pool.topic, assessor=UserFactory.create(username="alice")
    )
    page.add_init_script(WATCH)
    errors: list[str] = []
    outside: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on(
        "request",
        lambda request: (
            None
            if request.url.startswith((live_server.url, "data:"))
            else outside.append(request.url)
        ),
    )
    login("alice")
    page.goto(f"/assess/{assignment.pk}/{pool.items[0].pk}/")
    page.wait_for_selector("[data-doc-reader] mark.term")

    # Every occurrence is marked, and nothing else: the title's and the body's, as re finds them.
    marks = page.locator("[data-doc-reader] mark.term").all_inner_texts()
    assert marks == expected_matches(LONG_TITLE) + expected_matches(LONG_BODY)
    assert len(marks) >= 8
    counter = page.locator("[data-matches]")
    assert counter.inner_text().startswith(f"{len(marks)} matches")

    # The document scrolls inside its pane; nothing was typeset, nothing hostile ran.
    box = _reader_box(page)
    assert box["scrollHeight"] > 2 * box["clientHeight"]
    assert page.locator("mjx-container").count() == 0
    assert "$x^2$ stays text" in page.locator(".doc-body").inner_text()
    assert "<b>not bold</b>" in page.locator(".doc-body").inner_text()

    # . and , jump between matches, scrolling the document and not the page.
    page.keyboard.press(".")
    assert counter.inner_text() == f"match 1 of {len(marks)}"
    assert _reader_box(page)["visible"]
    for _ in range(len(marks) - 2):
        page.keyboard.press(".")
    box = _reader_box(page)
    assert counter.inner_text() == f"match {len(marks) - 1} of {len(marks)}"
    assert box["visible"]
    assert box["scrollTop"] > box["clientHeight"]
    assert box["windowScroll"] == 0
    page.keyboard.press(",")
    assert counter.inner_text() == f"match {len(marks) - 2} of {len(marks)}"
    assert _reader_box(page)["visible"]
    page.keyboard.press(".")
    page.keyboard.press(".")
    page.keyboard.press(".")  # wraps round to the first
    assert counter.inner_text() == f"match 1 of {len(marks)}"
    page.keyboard.press(".")
    page.keyboard.press(".")

    highlighted = (
        "() => getComputedStyle("
        "document.querySelectorAll('[data-doc-reader] mark.term')[5]).backgroundColor"
    )
    on = page.evaluate(highlighted)
    assert on not in ("rgba(0, 0, 0, 0)", "transparent")
    page.keyboard.press("x")  # off: only the current match keeps its colour
    assert page.evaluate(highlighted) == "rgba(0, 0, 0, 0)"
    assert "highlighting off" in counter.inner_text()
    current = "() => getComputedStyle(document.querySelector('mark.is-current')).backgroundColor"
    assert page.evaluate(current) != "rgba(0, 0, 0, 0)"
    page.keyboard.press("x")
    assert page.evaluate(highlighted) == on

    page.keyboard.press("?")  # the help lists the document keys
    legend = page.locator("#legend")
    assert "highlighted word" in legend.inner_text()
    page.keyboard.press("?")

    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SCREENSHOT))
    screenshot("judge-document")

    # The keyboard grades it: h is Highly relevant on the document scale, Enter submits.
    page.evaluate("() => { window.sameDocument = true; }")
    page.keyboard.press("h")
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/{pool.items[1].pk}/$"))
    page.wait_for_selector(f'.hit[data-hit="{pool.hits[1][0].pk}"] mark.term')
    assert page.evaluate("() => window.sameDocument === true")  # swapped in, not reloaded
    # The swapped-in document is highlighted too (its title and its sanitized body).
    assert page.locator("[data-doc-reader] mark.term").all_inner_texts() == [
        "Hubble",
        "Hubble",
        "achievements",
    ]
    # The inline picture is shown; the remote one never was (no request left the site).
    assert page.evaluate("() => document.querySelector('.doc-body img').naturalWidth") == 8
    page.keyboard.press("r")  # Relevant
    page.keyboard.press("Enter")
    page.wait_for_url(re.compile(rf"/assess/{assignment.pk}/items/$"))

    stored = dict(
        Judgment.objects.filter(assignment=assignment).values_list("hit__item__key", "grade")
    )
    assert stored == {pool.items[0].key: 2, pool.items[1].key: 1}
    assert page.evaluate("() => window.__violations") == []
    assert errors == []
    assert outside == []


def test_adjudication_of_a_document_highlights_terms_and_typesets_nothing_when_mathjax_loaded(
    page, login, screenshot
) -> None:  # type: ignore[no-untyped-def]
    pool = document_pool(items=1, bodies=[(LONG_TITLE, LONG_BODY, "text")])
    alice = UserFactory.create(username="alice")
    bob = UserFactory.create(username="bob")
    UserFactory.create(username="boss", is_staff=True)
    official = AssignmentFactory.create(topic=pool.topic, assessor=alice)
    dual = AssignmentFactory.create(topic=pool.topic, assessor=bob, purpose=Assignment.Purpose.DUAL)
    for assignment, grade in ((official, 2), (dual, 0)):
        judgment_submit(
            assignment=assignment, hit=pool.hits[0][0], assessor=assignment.assessor, grade=grade
        )
    page.add_init_script(WATCH)
    login("boss")
    page.goto(f"/organize/task/{pool.topic.task_id}/adjudication/")
    page.wait_for_function(
        "() => window.MathJax && window.MathJax.startup && window.MathJax.startup.promise"
    )
    page.evaluate("() => window.MathJax.startup.promise")
    page.wait_for_selector("[data-doc-reader] mark.term")
    assert page.locator("[data-doc-reader] mjx-container").count() == 0
    assert page.locator("[data-doc-reader] mark.term").count() == len(
        expected_matches(LONG_TITLE) + expected_matches(LONG_BODY)
    )
    page.keyboard.press(".")
    assert page.locator("[data-matches]").inner_text().startswith("match 1 of")
    screenshot("adjudicate-document")
    assert page.evaluate("() => window.__violations") == []


def test_narrow_screen_scrolls_the_page_to_each_match_when_document_is_not_a_scroll_box(
    page, login
) -> None:  # type: ignore[no-untyped-def]
    pool = document_pool(items=1, bodies=[(LONG_TITLE, LONG_BODY, "text")])
    assignment = AssignmentFactory.create(
        topic=pool.topic, assessor=UserFactory.create(username="alice")
    )
    page.set_viewport_size({"width": 800, "height": 700})
    page.add_init_script(WATCH)
    login("alice")
    page.goto(f"/assess/{assignment.pk}/{pool.items[0].pk}/")
    page.wait_for_selector("[data-doc-reader] mark.term")
    total = page.locator("[data-doc-reader] mark.term").count()
    box = _reader_box(page)
    assert box["scrollHeight"] == box["clientHeight"]  # the whole document is on the page
    page.keyboard.press(",")  # the last match, far down
    assert page.locator("[data-matches]").inner_text() == f"match {total} of {total}"
    in_view = """() => {
      const m = document.querySelector("mark.is-current").getBoundingClientRect();
      return m.top >= 0 && m.bottom <= window.innerHeight;
    }"""
    assert page.evaluate("() => window.scrollY") > 0
    assert page.evaluate(in_view)
    before = page.evaluate("() => window.scrollY")
    page.keyboard.press("PageUp")  # the page's own scrolling is left alone
    page.wait_for_function(f"() => window.scrollY < {before}")
    assert page.evaluate("() => window.__violations") == []

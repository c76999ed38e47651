"""The thread view in real Chromium: MathJax renders offline, payloads stay dead, links work."""

import pytest

from collection.models import Post
from tests.factories import CommentFactory, PostFactory, ThreadFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = (
    '<p>Is <span class="math-container" id="11">$\\sum_{n=1}^\\infty \\frac{1}{n^2}$</span> '
    "finite?</p>"
    '<p><img src="/nowhere.png" onerror="window.__pwned = 1" alt="plot"></p>'
    "<script>window.__pwned = 2</script>"
    '<p><span class="math-container" id="12">$$\\int_0^1 x^2\\,dx$$</span></p>'
    '<p>See <a href="https://math.stackexchange.com/a/202/5">that answer</a> and '
    '<a href="https://example.org/">a site</a>.</p>'
)


@pytest.fixture
def threads() -> None:
    other = ThreadFactory(id=200, title="Other")
    PostFactory(id=200, thread=other, kind=Post.Kind.QUESTION, body="<p>Other question</p>")
    PostFactory(
        id=202, thread=other, body='<p>The <span class="math-container" id="13">$x$</span></p>'
    )
    thread = ThreadFactory(id=100, title="Basel problem", tags=["sequences-and-series"])
    question = PostFactory(id=100, thread=thread, kind=Post.Kind.QUESTION, body=QUESTION)
    PostFactory(
        id=101,
        thread=thread,
        body='<p>Yes: <span class="math-container" id="14">$\\frac{\\pi^2}{6}$</span>.</p>',
    )
    CommentFactory(id=7, post=question, text="Think of $\\zeta(2)$.")
    UserFactory(username="alice")


def test_formulas_render_offline_and_payloads_stay_inert_when_a_thread_is_opened(
    page, login, screenshot, threads, live_server
) -> None:
    outside: list[str] = []
    page.on(
        "request",
        lambda request: (
            None if request.url.startswith(live_server.url) else outside.append(request.url)
        ),
    )
    login("alice")
    page.goto("/threads/100/")
    page.wait_for_selector("mjx-container")
    page.wait_for_function("document.querySelectorAll('mjx-container').length >= 4")
    screenshot("thread-view")
    assert page.evaluate("window.__pwned") is None
    text = page.inner_text(".thread")
    assert "$" not in text  # every formula, inline, display and in comments, was typeset
    assert page.locator("mjx-container[display='true']").count() == 1
    assert page.locator(".inert-link", has_text="a site").get_attribute("title") == (
        "https://example.org/"
    )
    assert page.locator("a[href^='https://example.org']").count() == 0
    assert outside == []


def test_a_collection_link_opens_the_linked_post_in_its_thread_when_clicked(
    page, login, threads
) -> None:
    login("alice")
    page.goto("/threads/100/")
    with page.context.expect_page() as opened:  # links of posts open in a new tab
        page.click("a.post-link")
    tab = opened.value
    tab.wait_for_url("**/threads/200/#post-202")
    assert tab.locator("#post-202").is_visible()
    assert page.url.endswith("/threads/100/")  # the page the link was on stays

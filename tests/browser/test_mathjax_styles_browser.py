"""TeX styles that MathJax's safe filter keeps are drawn, under the policy, with no report.

The policy refuses every style attribute (style-src-attr 'none'); MathJax's styles go through
the CSSOM instead (static/js/mathjax-config.js). What a formula may style is still decided by
the safe filter: a border is drawn, a position or a margin is not.
"""

from __future__ import annotations

import html

import pytest

from collection.models import Post
from tests.factories import PostFactory, ThreadFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEX = (
    r"\fcolorbox{blue}{yellow}{a} + \colorbox{pink}{b} + "
    r"\bbox[3px,border:2px solid green;position:fixed;top:0;margin:40px]{c} + \frac{1}{2}"
)
RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push(
  `${e.effectiveDirective} refused ${e.blockedURI} (${e.sourceFile}) on <${e.target?.localName}>`));
"""
# The typeset boxes: \fcolorbox is an mpadded, \bbox an mstyle; each with its own style.
BOXES = """() => Array.from(document.querySelectorAll("mjx-container :is(mjx-mpadded, mjx-mstyle)"))
  .filter((e) => !e.closest("mjx-assistive-mml"))
  .map((e) => [e.localName, e.style.borderTop, e.style.position, e.style.marginTop,
               getComputedStyle(e).position])"""


def test_safe_styles_are_drawn_without_a_policy_report_when_a_post_has_boxed_tex(
    page, login, live_server
) -> None:  # type: ignore[no-untyped-def]
    UserFactory.create(username="alice")
    thread = ThreadFactory.create(title="Boxes")
    body = f"<p>{html.escape(f'${TEX}$')}</p>"
    PostFactory.create(id=thread.id, thread=thread, kind=Post.Kind.QUESTION, body=body)
    page.context.add_init_script(RECORD_VIOLATIONS)
    login("alice")
    page.goto(f"/threads/{thread.id}/")
    page.wait_for_function("() => window.MathJax?.startup?.promise")
    page.evaluate("() => window.MathJax.startup.promise")
    assert page.locator("mjx-mfrac").count() == 1  # typeset at all
    boxes = page.evaluate(BOXES)
    assert ["mjx-mpadded", "2px solid blue", "", "", "static"] in boxes, boxes
    # \bbox keeps its border; its position and margin are dropped by the safe filter.
    assert ["mjx-mstyle", "2px solid green", "", "", "static"] in boxes, boxes
    assert page.evaluate("() => window.__violations") == []

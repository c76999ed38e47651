"""Hostile TeX where assessors and organizers read it, in real Chromium.

Each payload goes into a post body, a thread title, a topic title and question, a formula's
LaTeX (a Task 2 query formula and candidate), a comment of the collection, assessors' comments
and a Task 3 answer. Every page that shows them is opened: the test records every request the
pages make and every CSP violation, clicks across each page and on every formula, and asserts
that the TeX made no link, nothing that covers the page, no request to another origin and no
judgment, while an ordinary formula beside the payloads is still typeset.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from assessment.models import Assignment, Judgment
from collection.models import Campaign, Formula, Post, RetrievalTask
from pooling.models import PoolItem
from tests.factories import (
    AssignmentFactory,
    CampaignFactory,
    CommentFactory,
    FormulaFactory,
    HitFactory,
    JudgmentFactory,
    PoolItemFactory,
    PostFactory,
    RetrievalTaskFactory,
    ThreadFactory,
    TopicFactory,
    TrainingRoundFactory,
    UserFactory,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PAYLOADS = (
    # The issue's: a page-sized invisible javascript: link, a fetch, the page's own names.
    r"\href{javascript:alert(1)}{\style{position:fixed;top:0;left:0;width:100vw;height:100vh;"
    r"display:block}{\phantom{x}}}",
    r"\style{background-image:url(https://evil.example/x.png)}{x}",
    r"\url{javascript:alert(1)}",
    r"\class{judge-grade}{x}",
    r"\cssId{judge-form}{x}",
    r"\unicode{<img src=x onerror=alert(1)>}",
    r"\data{x=1}{y}",
    r"\require{html}\href{https://evil.example}{x}",
    # Found on the way: \mmlToken sets attributes without the html extension; \bbox takes CSS.
    r'\mmlToken{mi}[href="javascript:alert(1)" class="judge-grade" id="judge-form" '
    r'style="position:fixed;top:0;left:0;width:100vw;height:100vh"]{x}',
    r"\bbox[5px,border:2px solid red;position:fixed;top:0;left:0;width:100vw;height:100vh;"
    r"background-image:url(https://evil.example/b.png)]{x}",
)
NORMAL = r"\frac{1}{2}"  # must still typeset: the test cannot pass by MathJax not running


def tex_text(payloads: tuple[str, ...] = PAYLOADS) -> str:
    """Plain text (answers, comments): one paragraph per formula."""
    return "\n\n".join([f"Normal ${NORMAL}$ first.", *(f"${tex}$" for tex in payloads)])


def tex_html(payloads: tuple[str, ...] = PAYLOADS) -> str:
    """HTML as in the collection, the TeX escaped as Stack Exchange stores it."""
    paragraphs = [
        f"<p>{html.escape(paragraph)}</p>" for paragraph in tex_text(payloads).split("\n\n")
    ]
    return "".join(paragraphs)


@dataclass
class Scene:
    task: RetrievalTask
    official: Assignment
    answer_item: PoolItem
    qa_item: PoolItem
    thread_id: int
    training_round_id: int
    formula_pages: list[tuple[Assignment, PoolItem]] = field(default_factory=list)


def _answer_topic(campaign: Campaign) -> Scene:
    """Task 1 and 3: the payloads in every field, disputed grades, a training round."""
    alice, bob = UserFactory.create(username="alice"), UserFactory.create(username="bob")
    task = RetrievalTaskFactory.create(campaign=campaign, kind=RetrievalTask.Kind.ANSWER)
    thread = ThreadFactory.create(title=tex_html())
    PostFactory.create(id=thread.id, thread=thread, kind=Post.Kind.QUESTION, body=tex_html())
    answer = PostFactory.create(thread=thread, body=tex_html())
    CommentFactory.create(post=answer, text=tex_text())
    topic = TopicFactory.create(task=task, title=tex_html(), question=tex_html())
    answer_item = PoolItemFactory.create(
        topic=topic, post_id=answer.pk, key=str(answer.pk), display_order=0
    )
    HitFactory.create(item=answer_item, post_id=answer.pk)
    qa_item = PoolItemFactory.create(
        topic=topic, post_id=None, key="d_1", answer=tex_text(), display_order=1
    )
    qa_hit = HitFactory.create(item=qa_item, post_id=None)
    official = AssignmentFactory.create(topic=topic, assessor=alice)
    dual = AssignmentFactory.create(topic=topic, assessor=bob, purpose=Assignment.Purpose.DUAL)
    # Grades that differ, so the adjudication page shows both assessors' comments.
    JudgmentFactory.create(assignment=official, hit=qa_hit, grade=3, comment=tex_text())
    JudgmentFactory.create(assignment=dual, hit=qa_hit, grade=0, comment=tex_text())
    training_round = TrainingRoundFactory.create(task=task)
    training_round.items.add(answer_item)
    AssignmentFactory.create(
        topic=topic,
        assessor=alice,
        purpose=Assignment.Purpose.TRAINING,
        training_round=training_round,
    )
    return Scene(task, official, answer_item, qa_item, thread.id, training_round.pk)


def _formula_topics(campaign: Campaign, scene: Scene) -> None:
    """Task 2: one topic per payload, which is its query formula and its candidate's LaTeX."""
    task = RetrievalTaskFactory.create(campaign=campaign, kind=RetrievalTask.Kind.FORMULA)
    alice = scene.official.assessor
    for k, tex in enumerate(PAYLOADS):
        topic = TopicFactory.create(
            task=task,
            number=f"B.{k + 1}",
            formula_id="q_1",
            latex=tex,
            title=tex_html((tex,)),
            question=tex_html((tex,)),
        )
        post = PostFactory.create(
            thread=ThreadFactory.create(title=tex_html((tex,))), body=tex_html((tex,))
        )
        comment = CommentFactory.create(post=post, text=tex_text((tex,)))
        formula = FormulaFactory.create(
            post=post,
            latex=tex,
            visual_id=f"hostile{k}",
            location=Formula.Location.COMMENT,
            comment=comment,
        )
        item = PoolItemFactory.create(
            topic=topic, post_id=None, key=f"v{k}", visual_id=f"v{k}", display_order=0
        )
        HitFactory.create(item=item, post_id=post.pk, formula_id=formula.pk)
        scene.formula_pages.append((AssignmentFactory.create(topic=topic, assessor=alice), item))


@pytest.fixture
def scene() -> Scene:
    campaign = CampaignFactory.create()
    built = _answer_topic(campaign)
    _formula_topics(campaign, built)
    UserFactory.create(username="organizer", is_staff=True)
    return built


# ---- What the browser sees -------------------------------------------------------------

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push({
  directive: e.effectiveDirective, blocked: e.blockedURI, source: e.sourceFile,
}));
"""

# Anything typeset math must not hold, and any script or data URL anywhere on the page.
DOM_PROBLEMS = """() => {
  const problems = [];
  const scriptUrl = /^[\\s\\x00-\\x20]*(javascript|data|vbscript):/i;
  for (const el of document.querySelectorAll("*")) {
    for (const attr of el.attributes) {
      const isUrl = /^(href|xlink:href|src|action|formaction)$/i.test(attr.name);
      if (isUrl && scriptUrl.test(attr.value))
        problems.push(`<${el.localName} ${attr.name}="${attr.value}">`);
    }
  }
  const slack = 24;  // px a formula's parts may overhang its box (tall fractions in a line)
  for (const box of document.querySelectorAll("mjx-container")) {
    const outer = box.getBoundingClientRect();
    for (const el of box.querySelectorAll("*")) {
      if (el.closest("mjx-assistive-mml")) continue;  // MathJax's clipped copy for screen readers
      const name = `<${el.localName}> in math`;
      if (el.localName === "a") problems.push(`${name}: a link`);
      if (el.id && !el.id.startsWith("mjx-")) problems.push(`${name}: id ${el.id}`);
      for (const c of el.classList)
        if (!/^(mjx-|MJX-|TEX-|MathJax|CtxtMenu_)/.test(c)) problems.push(`${name}: class ${c}`);
      for (const attr of el.attributes)
        if (/^data-/.test(attr.name) && !/^data-(mjx|semantic)-/.test(attr.name))
          problems.push(`${name}: ${attr.name}`);
      const style = getComputedStyle(el);
      if (style.position === "fixed" || style.position === "sticky")
        problems.push(`${name}: position ${style.position}`);
      if (style.backgroundImage !== "none") problems.push(`${name}: ${style.backgroundImage}`);
      const r = el.getBoundingClientRect();
      if (r.width && r.height && (r.left < outer.left - slack || r.top < outer.top - slack ||
          r.right > outer.right + slack || r.bottom > outer.bottom + slack))
        problems.push(`${name}: reaches outside its formula (${r.width}x${r.height})`);
    }
  }
  return problems;
}"""

# For each point: does math cover it from outside its own box, is it one of the page's controls.
HIT_TEST = """(points) => points.map(([x, y]) => {
  const el = document.elementFromPoint(x, y);
  if (!el) return {covered: false, control: true};
  const box = el.closest("mjx-container");
  if (box) {
    const r = box.getBoundingClientRect();
    const covered = x < r.left - 24 || x > r.right + 24 || y < r.top - 24 || y > r.bottom + 24;
    return {covered, control: false, what: el.localName};
  }
  const control = !!el.closest("a, button, input, select, textarea, label, summary");
  return {covered: false, control};
})"""

# Text of the typeset regions that still holds a $: TeX that never reached MathJax. Where the
# sanitizer turned a payload's "<img …>" into "[image]", the formula is cut in two and stays
# text, as it should (comment HTML of a formula hit).
RAW_TEX = """() => Array.from(
  document.querySelectorAll(".post-body, .math, .math-container, .generated-answer, .comment-text"),
).filter((e) => !e.querySelector(".inert-image") && e.innerText.includes("$"))
 .map((e) => e.innerText.slice(0, 80))"""

# Scrolls the i-th formula into view and answers its centre.
FORMULA_CENTRE = """(i) => {
  const box = document.querySelectorAll("mjx-container")[i];
  box.scrollIntoView({block: "center"});
  const r = box.getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
}"""


@dataclass
class Watch:
    """Everything the browser did that TeX could have caused, over all pages."""

    origin: str
    outside: list[str] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)
    popups: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def dialog(self, dialog: Any) -> None:
        # alert() from TeX would be one; so would "leave the page?" after a click set a grade.
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        if dialog.type == "beforeunload":
            dialog.accept()
        else:
            dialog.dismiss()

    def request(self, request: Any) -> None:
        if not request.url.startswith((self.origin, "data:", "blob:", "about:")):
            self.outside.append(request.url)


def _watch(page: Any, origin: str) -> Watch:
    watch = Watch(origin)
    context = page.context
    context.add_init_script(RECORD_VIOLATIONS)
    context.on("request", watch.request)
    context.on("page", lambda popup: watch.popups.append(popup.url))
    page.on("dialog", watch.dialog)
    return watch


def _return_to(page: Any, url: str) -> None:
    """Back to the page under test, after whatever navigation a click started has settled."""
    for _attempt in range(3):
        try:
            page.goto(url)
            return
        except PlaywrightError:
            page.wait_for_load_state()
    page.goto(url)


def _click(page: Any, watch: Watch, url: str, x: float, y: float) -> None:
    page.mouse.click(x, y)
    if page.url != url:  # a click anywhere must never take the reader somewhere
        watch.problems.append(f"{url}: a click at ({x:.0f}, {y:.0f}) opened {page.url}")
        _return_to(page, url)


def _click_across(page: Any, watch: Watch, url: str) -> None:
    """Click a grid over the top and the bottom of the page, and every formula's centre."""
    try:
        _click_grid_and_formulas(page, watch, url)
    except PlaywrightError as error:  # a click took the page away while it was being read
        watch.problems.append(f"{url}: a click navigated to {page.url} ({error.message[:60]})")
        _return_to(page, url)


def _click_grid_and_formulas(page: Any, watch: Watch, url: str) -> None:
    width, height = 1440, 900
    points = [(width * (i + 0.5) / 6, height * (j + 0.5) / 4) for i in range(6) for j in range(4)]
    for scroll in ("0", "document.body.scrollHeight"):
        page.evaluate(f"() => window.scrollTo(0, {scroll})")
        for (x, y), hit in zip(points, page.evaluate(HIT_TEST, points), strict=True):
            if hit["covered"]:
                watch.problems.append(f"{url}: <{hit['what']}> of a formula covers ({x}, {y})")
            if not hit["control"]:
                _click(page, watch, url, x, y)
    for index in range(page.locator("mjx-container").count()):
        x, y = page.evaluate(FORMULA_CENTRE, index)
        _click(page, watch, url, x, y)


def _visit(
    page: Any, watch: Watch, url: str, *, typesets: bool, shoot: Callable[[], object] | None = None
) -> None:
    page.goto(url)
    assert page.url == url, f"{url} answered {page.url}"
    if typesets:
        page.wait_for_function("() => window.MathJax?.startup?.promise")
        page.evaluate("() => window.MathJax.startup.promise")
        # The ordinary formula is typeset, and no $…$ is left raw on the page.
        if page.locator("mjx-mfrac").count() == 0:
            watch.problems.append(f"{url}: the ordinary formula was not typeset")
        if page.evaluate(RAW_TEX):
            watch.problems.append(f"{url}: TeX left untypeset: {page.evaluate(RAW_TEX)}")
    if shoot is not None:
        shoot()  # before the clicks scroll the panes
    watch.problems += [f"{url}: {problem}" for problem in page.evaluate(DOM_PROBLEMS)]
    _click_across(page, watch, url)
    watch.problems += [f"{url} after clicks: {p}" for p in page.evaluate(DOM_PROBLEMS)]
    for violation in page.evaluate("() => window.__violations"):
        watch.violations.append({**violation, "page": url})


def _judgments() -> list[tuple[Any, ...]]:
    return list(
        Judgment.objects.order_by("pk").values_list("pk", "grade", "flag", "comment", "revision")
    )


def test_hostile_tex_makes_no_link_overlay_request_or_judgment_when_pages_are_clicked(
    page, login, live_server, scene, screenshot
) -> None:  # type: ignore[no-untyped-def]
    page.set_default_timeout(60000)  # a dozen pages of formulas, on a shared machine
    watch = _watch(page, live_server.url)
    before = _judgments()
    official, thread, task = scene.official.pk, scene.thread_id, scene.task.pk
    # (path, does it typeset, screenshot name)
    formula_pages = [
        (
            f"/assess/{assignment.pk}/{item.pk}/",
            True,
            f"judge-formula-{k + 1}" if k in (0, 8) else "",
        )
        for k, (assignment, item) in enumerate(scene.formula_pages)
    ]
    pages = {
        "alice": [
            (f"/assess/{official}/{scene.answer_item.pk}/", True, "judge-answer"),
            (f"/assess/{official}/{scene.qa_item.pk}/", True, "judge-openqa"),
            *formula_pages,
            ("/assess/", True, ""),
            (f"/assess/{official}/items/", False, ""),
            (f"/threads/{thread}/", True, "thread"),
            (f"/training/{scene.training_round_id}/", True, ""),
        ],
        "organizer": [
            (f"/organize/task/{task}/adjudication/?difference=0", False, "adjudication"),
            (f"/organize/task/{task}/", False, ""),
            (f"/threads/{thread}/", True, ""),
        ],
    }
    for username, paths in pages.items():
        page.context.clear_cookies()  # log out: the login form would find the Log out button
        login(username)
        for path, typesets, name in paths:
            shoot = (lambda name=name: screenshot(f"hostile-{name}")) if name else None
            _visit(page, watch, live_server.url + path, typesets=typesets, shoot=shoot)

    assert watch.problems == []
    assert watch.outside == []  # not even attempted: the CSP had nothing to refuse
    assert watch.dialogs == []
    assert watch.popups == []
    # Nothing refused at all: MathJax's safe filter reads styles through the CSSOM
    # (static/js/mathjax-config.js), so not even a detached style attribute is asked for.
    assert watch.violations == []
    assert _judgments() == before

"""The assessor's pages: home, the two-pane judging page, the item list.

Thin: scope the assignment to the logged-in assessor (others get 404), call one selector or
service, render. Without JavaScript the judging page is a plain form POST and a redirect; with
it, static/js/judge.js submits to the JSON endpoint in assessment/api/judging.py.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Mapping

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from assessment.core.guidelines import MAX_QUESTIONS
from assessment.models import COMMENT_MAX_CHARS, Assignment, Judgment
from assessment.selectors.guidelines import (
    RenderedGuidelines,
    guidelines_current,
    guidelines_rendered,
)
from assessment.selectors.item_state import item_hit_ids
from assessment.selectors.judging import ItemPage, item_page
from assessment.selectors.priority import growing_assignments, grows_on_demand
from assessment.selectors.progress import (
    ITEM_STATES,
    SCOPE_EMPTIED_TEXT,
    assignment_for,
    assignments_with_progress,
    item_statuses,
    next_unjudged_item_id,
    progress_of,
    scope_emptied,
)
from assessment.selectors.taken_out import taken_out_statuses
from assessment.services.judging import HitVerdict, JudgingNotFound, JudgmentInvalid, item_submit
from assessment.services.priority import priority_next_item
from collection.models import RetrievalTask
from kernel.core.grades import MAX_GRADE
from kernel.params import BadParameter, page_filter, parse_choice, parse_float, parse_text
from pooling.models import PoolItem

# Without JavaScript the page cannot see idle time; its time is capped at the idle limit.
IDLE_LIMIT_SECONDS = 120.0

# What the no-JS form may send for a hit: any grade a scale can have (the task's own scale is
# the service's check, with a clear message) or a flag.
GRADE_VALUES = frozenset(str(grade) for grade in range(MAX_GRADE + 1))
CHOICE_VALUES = [*sorted(GRADE_VALUES), *(flag for flag in Judgment.Flag.values if flag)]
SHOWN_STATES = ["all", *ITEM_STATES]


def _assignment_or_404(request: HttpRequest, assignment_id: int) -> Assignment:
    assignment = assignment_for(assessor=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
    if assignment is None:
        raise Http404("No such assignment.")
    return assignment


def _guidelines(assignment: Assignment) -> RenderedGuidelines:
    """The guidelines of the assignment's task, as the judging pages show them."""
    return guidelines_rendered(guidelines_current(task=assignment.topic.task))


def _item_url(assignment_id: int, item_id: int) -> str:
    return reverse("assessment:judge", args=[assignment_id, item_id])


@login_required
def assess_home(request: HttpRequest) -> HttpResponse:
    """The assessor's assignments with progress bars and a way to continue each."""
    progress = assignments_with_progress(request.user)  # type: ignore[arg-type]
    # Only an assignment with nothing left to continue at may still grow (no query otherwise).
    growing = growing_assignments(p.assignment for p in progress if p.continue_item_id is None)
    context = {"progress": progress, "growing": growing, "closed_text": SCOPE_EMPTIED_TEXT}
    return render(request, "assessment/home.html", context)


@login_required
def assess_continue(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """The first unjudged item of the assignment, or its item list when all are judged.

    In a pool an adaptive strategy grows as it is judged, "all judged" asks the strategy for
    the next item (assessment.services.priority), until the budget is spent."""
    assignment = _assignment_or_404(request, assignment_id)
    statuses = item_statuses(assignment)
    first = next((s.item_id for s in statuses if s.judged < s.hits), None)
    if first is None and growing_assignments([assignment]):
        first = priority_next_item(assignment=assignment) if grows_on_demand(assignment) else None
        if first is None:
            messages.info(
                request,
                "Nothing more to judge: this topic's budget is spent (with a budget for the "
                "whole task: its share for now), or its runs hold no document left to judge.",
            )
    if first is None:
        return redirect("assessment:items", assignment_id)
    return redirect(_item_url(assignment_id, first))


@login_required
def item_list(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """Every item of the topic (judged, unjudged, flagged) to jump to and revise, and the ones
    taken out of a scope after this assessor judged them (still open to revise)."""
    assignment = _assignment_or_404(request, assignment_id)
    statuses = item_statuses(assignment, detail=True)
    progress = progress_of(statuses, assignment.topic.task.kind)
    wanted = page_filter(
        request,
        parse_choice,
        request.GET.get("show"),
        name="show",
        choices=SHOWN_STATES,
        default="all",
    )
    shown = [s for s in statuses if wanted in ("all", s.state)]
    counts = {state: sum(1 for s in statuses if s.state == state) for state in ITEM_STATES}
    closed = scope_emptied(scoped=assignment.scoped, hits=progress.hits)
    context = {
        "assignment": assignment,
        "guidelines": _guidelines(assignment),
        "statuses": shown,
        "counts": counts,
        "total": len(statuses),
        "show": wanted,
        "progress": progress,
        "units": progress.units,
        "closed_text": SCOPE_EMPTIED_TEXT if closed else "",
        # Taken out of the scope after this assessor judged them: theirs to see and revise.
        "taken_out": taken_out_statuses(assignment),
    }
    return render(request, "assessment/items.html", context)


def _page_context(page: ItemPage, errors: Mapping[int, str] | None = None) -> dict:
    errors = errors or {}
    for hit in page.hits:
        hit.error = errors.get(hit.hit_id, "")
    # A problem with a hit the page has no control for (one a previous assessor judged) is
    # said at the top, with the problems of the whole item.
    open_ids = {hit.hit_id for hit in page.open_hits}
    general = [errors[0]] if errors.get(0) else []
    general += sorted(
        {text for hit_id, text in errors.items() if hit_id and hit_id not in open_ids}
    )
    guidelines = _guidelines(page.assignment)
    questions = guidelines.questions_on(page.assignment.topic.number)
    judge_scale = guidelines.judge_data()
    judge_scale["questions"] = {key: q.code for q in questions for key in q.keys}
    return {
        "page": page,
        "assignment": page.assignment,
        "topic": page.assignment.topic,
        # The task's own grades, flags, keys and definitions.
        "guidelines": guidelines,
        "choices": [(c.value, c.label, c.key, c.tone) for c in guidelines.choices],
        "judge_scale": judge_scale,
        "questions": questions,
        "progress": page.progress,
        "units": page.progress.units,
        "is_formula": page.kind == RetrievalTask.Kind.FORMULA,
        "form_error": " ".join(general),
        "opened_at": int(time.time()),
        "api_url": reverse(
            "assessment_api:item-judgments", args=[page.assignment.pk, page.item.pk]
        ),
    }


def _choice(data: Mapping[str, str], hit_id: int) -> str:
    """The radio value of a hit: a grade digit or a flag ("" when none is chosen)."""
    name = f"choice-{hit_id}"
    return parse_choice(data.get(name, "").strip(), name=name, choices=CHOICE_VALUES, default="")


def _comment(data: Mapping[str, str], hit_id: int, default: str = "") -> str:
    name = f"comment-{hit_id}"
    return parse_text(data.get(name), name=name, max_length=COMMENT_MAX_CHARS, default=default)


def _answers(data: Mapping[str, str], hit_id: int) -> dict[str, bool] | None:
    """The extra questions' checkboxes of a hit: the codes the page asked (its hidden field),
    each ticked (yes) or not (no); None when the page asked none. Unknown codes are the
    service's to refuse."""
    asked = parse_text(data.get(f"asked-{hit_id}"), name=f"asked-{hit_id}", max_length=200)
    codes = [code for code in asked.split(",") if code][:MAX_QUESTIONS]
    if not codes:
        return None
    return {code: data.get(f"answer-{hit_id}-{code}") == "yes" for code in codes}


def verdicts_from_form(data: Mapping[str, str], hit_ids: list[int]) -> list[HitVerdict]:
    """The hits the form gives a choice for; the radio value is a grade digit or a flag.

    A value that is neither (a tampered form) is that hit's error, like any invalid verdict."""
    verdicts, problems = [], {}
    for hit_id in hit_ids:
        try:
            choice = _choice(data, hit_id)
            comment = _comment(data, hit_id)
            answers = _answers(data, hit_id)
        except BadParameter as error:
            problems[hit_id] = str(error)
            continue
        if choice in GRADE_VALUES:
            verdicts.append(
                HitVerdict(hit_id=hit_id, grade=int(choice), comment=comment, answers=answers)
            )
        elif choice:
            verdicts.append(
                HitVerdict(hit_id=hit_id, flag=choice, comment=comment, answers=answers)
            )
    if problems:
        raise JudgmentInvalid(problems)
    return verdicts


def _form_seconds(data: Mapping[str, str]) -> float:
    # Timing is telemetry: a missing or unreadable value falls back, it never refuses a verdict.
    try:
        # Longer visits are the service's to cap (MAX_ACTIVE_SECONDS).
        seconds = data.get("active_seconds")
        return parse_float(seconds, name="active_seconds", low=0.0, high=sys.float_info.max)
    except BadParameter:
        pass
    try:
        opened_at = parse_float(data.get("opened_at"), name="opened_at", low=0.0, high=time.time())
    except BadParameter:
        return 0.0
    return min(time.time() - opened_at, IDLE_LIMIT_SECONDS)


@login_required
@require_http_methods(["GET", "POST"])
def judge_item(request: HttpRequest, assignment_id: int, item_id: int) -> HttpResponse:
    """The two-pane judging page; POST (no JavaScript) stores the item's judgments."""
    assignment = _assignment_or_404(request, assignment_id)
    if request.method == "GET":
        page = item_page(assignment, item_id)
        if page is None:
            return _item_gone(request, assignment, item_id)
        return render(request, "assessment/judge.html", _page_context(page))
    hit_ids = item_hit_ids(assignment, item_id)
    if hit_ids is None:
        raise Http404("No such item in this topic.")
    try:
        verdicts = verdicts_from_form(request.POST, hit_ids)
        item_submit(
            assignment=assignment,
            item=PoolItem(pk=item_id, topic_id=assignment.topic_id),
            assessor=request.user,  # type: ignore[arg-type]
            verdicts=verdicts,
            active_seconds=_form_seconds(request.POST),
            client_token=parse_text(
                request.POST.get("client_token"), name="client_token", max_length=64
            ),
        )
    except JudgingNotFound as error:
        raise Http404(str(error)) from error
    except JudgmentInvalid as error:
        return _rerender_invalid(request, assignment, item_id, error)
    except BadParameter as error:  # a tampered hidden field: the page says so, nothing stored
        return _rerender_invalid(request, assignment, item_id, JudgmentInvalid({0: str(error)}))
    return _after_submit(request, assignment, item_id, len(verdicts))


def _item_gone(request: HttpRequest, assignment: Assignment, item_id: int) -> HttpResponse:
    """An item of the topic's pool a scoped assignment does not cover (taken out of the scope
    after a link to it was drawn: Prev, Next, a bookmark) answers 404 with a way back to the
    item list, not a dead end; any other id is the plain 404."""
    if not (
        assignment.scoped
        and PoolItem.objects.filter(pk=item_id, topic_id=assignment.topic_id).exists()
    ):
        raise Http404("No such item in this topic.")
    return render(request, "assessment/item_gone.html", {"assignment": assignment}, status=404)


def _rerender_invalid(
    request: HttpRequest, assignment: Assignment, item_id: int, error: JudgmentInvalid
) -> HttpResponse:
    page = item_page(assignment, item_id)
    if page is None:
        raise Http404("No such item in this topic.")
    # Keep what the assessor chose on the page so nothing typed is lost.
    for hit in page.hits:
        try:
            choice = _choice(request.POST, hit.hit_id)
        except BadParameter:
            choice = ""
        hit.grade = int(choice) if choice in GRADE_VALUES else None
        hit.flag = "" if choice in GRADE_VALUES else choice
        with contextlib.suppress(BadParameter):
            hit.comment = _comment(request.POST, hit.hit_id, default=hit.comment)
        with contextlib.suppress(BadParameter):
            hit.answers = _answers(request.POST, hit.hit_id) or hit.answers
    return render(request, "assessment/judge.html", _page_context(page, error.problems), status=400)


def _after_submit(
    request: HttpRequest, assignment: Assignment, item_id: int, submitted: int
) -> HttpResponseRedirect:
    statuses = item_statuses(assignment)
    current = next((s for s in statuses if s.item_id == item_id), None)
    if current is None:  # a revision of an item taken out of the scope: back where it is listed
        messages.success(
            request,
            f"Saved {submitted} judgment(s). This item is no longer in your assignment; "
            "your judgments of it are kept and still count.",
        )
        return redirect("assessment:items", assignment.pk)
    if current.judged < current.hits:
        left = current.hits - current.judged
        messages.warning(request, f"Saved. {left} hit(s) of this item still need a grade.")
        return redirect(_item_url(assignment.pk, item_id))
    following = next_unjudged_item_id(statuses, item_id)
    if following is None and grows_on_demand(assignment):
        messages.success(request, f"Saved {submitted} judgment(s).")
        return redirect("assessment:continue", assignment.pk)
    if following is None:
        messages.success(request, "Saved. Every item of this topic is judged — thank you!")
        return redirect("assessment:items", assignment.pk)
    messages.success(request, f"Saved {submitted} judgment(s).")
    return redirect(_item_url(assignment.pk, following))

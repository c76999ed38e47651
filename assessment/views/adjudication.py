"""The organizer's adjudication page (/organize/task/<id>/adjudication/): one
dispute at a time in the judging page's two panes, every assessor's verdict beside the
final-grade control, keyboard first (static/js/adjudicate.js) and a plain form post without
JavaScript. docs/agreement.md "Adjudication" is the organizer's version.

Query parameters: ``state`` (undecided | decided | all), ``topic`` (a topic number),
``difference`` (the smallest grade gap, 0..G; 0, the default, lists every dispute, flag-only
differences too) and ``hit`` (the dispute on show). A bad filter value is ignored with a
message; a bad or unknown ``hit`` answers 404.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from assessment.selectors.adjudication import (
    STATES,
    AdjudicationPage,
    Dispute,
    DisputeFilter,
    adjudication_page,
    next_undecided_id,
)
from assessment.selectors.guidelines import (
    CurrentGuidelines,
    RenderedGuidelines,
    guidelines_current,
    guidelines_rendered,
)
from assessment.services.adjudication import (
    AdjudicationConflict,
    AdjudicationError,
    adjudication_decide,
)
from assessment.views.organize import organizer_of
from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import organizer_required
from kernel.params import MAX_ID, BadParameter, parse_int, parse_optional_id
from pooling.models import Hit

MAX_TOPIC_CHARS = 40
STATE_LABELS = {"undecided": "Undecided", "decided": "Decided", "all": "All"}


def _number(raw: str | None, *, name: str, high: int) -> int | None:
    """A whole number 0..``high`` (kernel.params); None when absent or empty."""
    return parse_int(raw, name=name, low=0, high=high, default=None)  # type: ignore[no-any-return]


def _filter(request: HttpRequest, top: int) -> DisputeFilter:
    """The page's filter from the query; each bad value is ignored with a message."""
    query, problems = request.GET, []
    state = query.get("state") or "undecided"
    if state not in STATES:
        problems.append(f"state: expected one of {', '.join(STATES)}")
        state = "undecided"
    try:
        difference = _number(query.get("difference"), name="difference", high=top)
    except BadParameter as error:
        problems.append(str(error))
        difference = None
    topic = query.get("topic", "")
    if len(topic) > MAX_TOPIC_CHARS or not topic.isprintable():
        problems.append(f"topic: not a topic number (at most {MAX_TOPIC_CHARS} characters)")
        topic = ""
    for problem in problems:
        messages.warning(request, f"Ignored {problem}.")
    if difference is None:
        return DisputeFilter(topic=topic, state=state)
    return DisputeFilter(topic=topic, min_difference=difference, state=state)


def _url(task: RetrievalTask, wanted: DisputeFilter, **changes: Any) -> str:
    base = reverse("assessment:organize_adjudication", args=[task.pk])
    return f"{base}?{urlencode(wanted.query(**changes))}"


def _verdicts(dispute: Dispute, guidelines: RenderedGuidelines) -> list[dict[str, Any]]:
    """Each assessor's verdict with the label and colour of its grade or flag."""
    scale, level = guidelines.current.scale, guidelines.current.relevance_level
    return [
        {
            "verdict": v,
            "label": scale.label(v.grade, v.flag),
            "tone": "flag" if v.grade is None else scale.tone(v.grade, level),
        }
        for v in dispute.verdicts
    ]


def _context(
    task: RetrievalTask,
    guidelines: RenderedGuidelines,
    page: AdjudicationPage,
    chosen: dict[str, Any] | None = None,
) -> dict[str, Any]:
    current, wanted = page.current, page.filter
    decision = current.decision if current else None
    chosen = chosen or {
        "grade": str(decision.grade) if decision else "",
        "note": decision.note if decision else "",
    }
    link = {"hit": current.hit_id} if current else {}
    return {
        "task": task,
        "guidelines": guidelines,
        "page": page,
        "current": current,
        "content": page.content,
        "decision": decision,
        "verdicts": _verdicts(current, guidelines) if current else [],
        "chosen": chosen,
        "seen": decision.token if decision else 0,
        "action": _url(task, wanted, **link),
        "previous_url": _url(task, wanted, hit=page.previous_id) if page.previous_id else "",
        "next_url": _url(task, wanted, hit=page.next_id) if page.next_id else "",
        "undecided_url": (
            _url(task, wanted, hit=page.next_undecided_id) if page.next_undecided_id else ""
        ),
        "states": [
            (s, STATE_LABELS[s], page.counts[s], _url(task, wanted, state=s)) for s in STATES
        ],
        "topic_links": [(t, _url(task, wanted, topic=t.topic)) for t in page.topics],
        "all_topics_url": _url(task, wanted, topic=""),
        "jump": [(i, d, _url(task, wanted, hit=d.hit_id)) for i, d in enumerate(page.disputes, 1)],
        "differences": list(range(guidelines.current.scale.top + 1)),
        "grade_keys": {
            key: str(g.value) for g in guidelines.current.scale.grades for key in g.keys
        },
        "ways": guidelines.current.scale.ways,
        # The list's count against the task's whole, when the filter narrows it.
        "narrowed": bool(wanted.topic or wanted.min_difference),
        "state_total": {
            "undecided": page.total.undecided,
            "decided": page.total.decided,
            "all": page.total.disputes,
        }[wanted.state],
    }


def _page_or_404(
    task: RetrievalTask, current: CurrentGuidelines, wanted: DisputeFilter, hit_id: int | None
) -> AdjudicationPage:
    page = adjudication_page(task=task, guidelines=current, wanted=wanted, hit_id=hit_id)
    if page is None:
        raise Http404(f"hit {hit_id} is not a dispute of this task")
    return page


@organizer_required
@require_http_methods(["GET", "POST"])
def adjudication(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    current = guidelines_current(task=task)
    guidelines = guidelines_rendered(current)
    wanted = _filter(request, current.scale.top)
    source = request.POST if request.method == "POST" else request.GET
    # A bad id is kernel.params.BadParameter, an Http404.
    hit_id = parse_optional_id(source.get("hit"), name="hit")
    seen = parse_int(request.POST.get("seen"), name="seen", low=0, high=MAX_ID, default=None)
    if request.method == "GET":
        page = _page_or_404(task, current, wanted, hit_id)
        return render(request, "organize/adjudication.html", _context(task, guidelines, page))
    if hit_id is None:
        raise Http404("hit: which dispute to decide")
    hit = get_object_or_404(
        Hit.objects.select_related("item__topic"), pk=hit_id, item__topic__task=task
    )
    return _save(request, task, current, guidelines, wanted, hit, seen)


def _save(
    request: HttpRequest,
    task: RetrievalTask,
    current: CurrentGuidelines,
    guidelines: RenderedGuidelines,
    wanted: DisputeFilter,
    hit: Hit,
    seen: int | None,
) -> HttpResponse:
    """Store the posted final grade and move on to the next undecided dispute; re-show the
    dispute with what was chosen (and a message) when it cannot be stored."""
    scale = current.scale
    raw_grade, note = request.POST.get("grade", ""), request.POST.get("note", "")
    status = 400
    try:
        grade = _number(raw_grade, name="grade", high=scale.top)
        if grade is None:
            raise AdjudicationError(f"choose a final grade: {scale.values_text()}")
        saved = adjudication_decide(
            hit=hit, grade=grade, note=note, decided_by=organizer_of(request), seen=seen
        )
    except AdjudicationConflict as conflict:
        other = conflict.current
        messages.error(
            request,
            f"{conflict}. It is now {scale.label(other.grade)} ({other.grade}); press Save "
            "again to replace it with yours.",
        )
        status = 409
    except (AdjudicationError, BadParameter) as error:
        messages.error(request, f"Not saved: {error}.")
    else:
        if hit.post_id:
            what = f"post {hit.post_id}"
        else:
            what = f"{'document' if hit.document_id else 'item'} {hit.item.key}"
        messages.success(
            request,
            f"Saved: {scale.label(saved.grade)} ({saved.grade}) is the final grade of "
            f"{hit.item.topic.number} · {what}.",
        )
        following = next_undecided_id(task=task, wanted=wanted, after_hit_id=hit.pk)
        if following is None:
            messages.info(request, "Every dispute in this filter is decided.")
        return redirect(_url(task, wanted, hit=following or hit.pk))
    page = _page_or_404(task, current, wanted, hit.pk)
    chosen = {"grade": raw_grade, "note": note}
    return render(
        request,
        "organize/adjudication.html",
        _context(task, guidelines, page, chosen),
        status=status,
    )

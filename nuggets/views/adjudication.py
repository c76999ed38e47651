"""The organizer's adjudication of nugget labels (/nuggets/tasks/<id>/adjudication/): one
answer at a time in the labelling page's two panes, the answer on the left, on the right each
nugget with every label it was given and, where they differ, the final-label control.
Keyboard first (static/js/nugget_adjudicate.js) and a plain form post without JavaScript.

Query parameters: ``answer`` (the answer on show), ``state`` (undecided | all) and
``machine`` (1: machine judges' labels count as opinions too).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from assessment.views.organize import organizer_of
from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import organizer_required
from kernel.params import parse_optional_id
from nuggets.core.scores import Support
from nuggets.selectors.adjudication import (
    STATES,
    AnswerAdjudication,
    AnswerDispute,
    answer_adjudication,
    answer_disputes,
)
from nuggets.selectors.pages import numbered_answer
from nuggets.services.adjudication import NuggetAdjudicationError, nugget_adjudication_decide

SUPPORT_NAMES = {
    Support.SUPPORT: "Support",
    Support.PARTIAL: "Partial support",
    Support.NONE: "No support",
}
SUPPORT_KEYS = {Support.SUPPORT: "s", Support.PARTIAL: "p", Support.NONE: "n"}


def _url(task: RetrievalTask, state: str, machine: bool, answer: int | None = None) -> str:
    query: dict[str, Any] = {"state": state}
    if machine:
        query["machine"] = 1
    if answer is not None:
        query["answer"] = answer
    base = reverse("nuggets:adjudication", args=[task.pk])
    return f"{base}?{urlencode(query)}"


def _following(disputes: list[AnswerDispute], after: int | None, *, undecided: bool) -> int | None:
    """The answer after ``after`` in the list (wrapping round), undecided ones only if asked."""
    ids = [d.answer_id for d in disputes if not (undecided and d.is_decided)]
    if not ids:
        return None
    order = [d.answer_id for d in disputes]
    start = order.index(after) + 1 if after in order else 0
    for answer_id in order[start:] + order[:start]:
        if answer_id in ids and answer_id != after:
            return answer_id
    return None


def _rows(shown: AnswerAdjudication, chosen: dict[int, str]) -> list[dict[str, Any]]:
    return [
        {
            "nugget": v.nugget,
            "opinions": [
                {"opinion": o, "name": SUPPORT_NAMES[Support(o.support)]} for o in v.opinions
            ],
            "final": v.final,
            "final_name": SUPPORT_NAMES[Support(v.final.support)] if v.final else "",
            "decidable": v.decidable,
            "disputed": v.disputed,
            "agreed": SUPPORT_NAMES[Support(v.agreed)] if v.agreed else "",
            "chosen": chosen.get(v.nugget.pk, v.final.support if v.final else ""),
            "choices": [(s.value, SUPPORT_NAMES[s], SUPPORT_KEYS[s]) for s in Support],
        }
        for v in shown.nuggets
    ]


@organizer_required
@require_http_methods(["GET", "POST"])
def adjudication_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    if task.kind != RetrievalTask.Kind.RAG:
        raise Http404("nugget adjudication is for RAG tasks")
    source = request.POST if request.method == "POST" else request.GET
    state = request.GET.get("state") or "undecided"
    state = state if state in STATES else "undecided"
    machine = request.GET.get("machine") == "1"
    answer_id = parse_optional_id(source.get("answer"), name="answer")
    disputes = answer_disputes(task, with_machine=machine)
    chosen: dict[int, str] = {}
    status = 200
    if request.method == "POST":
        if answer_id is None:
            raise Http404("answer: which answer to decide")
        chosen = {
            int(key.removeprefix("final-")): str(value)
            for key, value in request.POST.items()
            if key.startswith("final-") and key.removeprefix("final-").isdigit() and value
        }
        if _saved(request, task, answer_id, chosen, machine):
            disputes = answer_disputes(task, with_machine=machine)
            following = _following(disputes, answer_id, undecided=True)
            if following is None:
                messages.info(request, "Every disputed answer is decided.")
            return redirect(_url(task, state, machine, following or answer_id))
        status = 400
    listed = [d for d in disputes if state == "all" or not d.is_decided]
    if answer_id is None and listed:
        answer_id = listed[0].answer_id
    shown = answer_adjudication(task, answer_id, with_machine=machine) if answer_id else None
    if answer_id is not None and shown is None:
        raise Http404(f"answer {answer_id} is not one of this task's")
    context = _context(task, state, machine, listed, disputes, shown, chosen)
    return render(request, "nuggets/adjudicate.html", context, status=status)


def _saved(
    request: HttpRequest, task: RetrievalTask, answer_id: int, chosen: dict[int, str], machine: bool
) -> bool:
    """Store the posted final labels, saying what happened; False when refused."""
    try:
        made = nugget_adjudication_decide(
            task=task,
            answer_id=answer_id,
            finals=chosen,
            decided_by=organizer_of(request),
            note=request.POST.get("note", ""),
            with_machine=machine,
        )
    except NuggetAdjudicationError as error:
        messages.error(request, f"Not saved: {error}.")
        return False
    if made:
        count = len(made)
        messages.success(request, f"Saved {count} final label{'s' if count != 1 else ''}.")
    else:
        messages.info(request, "Nothing changed: every final label was already so.")
    return True


def _context(
    task: RetrievalTask,
    state: str,
    machine: bool,
    listed: list[AnswerDispute],
    disputes: list[AnswerDispute],
    shown: AnswerAdjudication | None,
    chosen: dict[int, str],
) -> dict[str, Any]:
    order = [d.answer_id for d in listed]
    current = shown.answer.pk if shown else None
    position = order.index(current) + 1 if current in order else None
    previous_id = order[position - 2] if position and position > 1 else None
    next_id = order[position] if position and position < len(order) else None
    undecided_next = _following(disputes, current, undecided=True)
    answer = numbered_answer(shown.answer.sentences, task.collection_id) if shown else None
    return {
        "task": task,
        "state": state,
        "machine": machine,
        "shown": shown,
        "answer": answer,
        "rows": _rows(shown, chosen) if shown else [],
        "position": position,
        "listed": [(d, _url(task, state, machine, d.answer_id)) for d in listed],
        "undecided_count": sum(1 for d in disputes if not d.is_decided),
        "all_count": len(disputes),
        "action": _url(task, state, machine, current),
        "previous_url": _url(task, state, machine, previous_id) if previous_id else "",
        "next_url": _url(task, state, machine, next_id) if next_id else "",
        "undecided_url": _url(task, state, machine, undecided_next) if undecided_next else "",
        "states": [
            ("undecided", "Undecided", _url(task, "undecided", machine)),
            ("all", "All", _url(task, "all", machine)),
        ],
        "machine_url": _url(task, state, not machine),
    }

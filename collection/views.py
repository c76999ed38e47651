"""HTML pages of the collection app."""

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from collection import selectors
from kernel.params import MAX_ID, page_filter, parse_int


@login_required
def thread(request: HttpRequest, thread_id: int) -> HttpResponse:
    """The whole thread (question, answers, comments), opened from the judging page.

    ``?formula=<id>`` highlights that formula instance (a formula task's candidate)."""
    formula = page_filter(
        request,
        parse_int,
        request.GET.get("formula"),
        name="formula",
        low=0,
        high=MAX_ID,
        default=None,
    )
    highlight = None if formula is None else str(formula)
    try:
        detail = selectors.thread_detail(thread_id, highlight_formula_id=highlight)
    except selectors.ThreadNotFound as missing:
        raise Http404(f"No thread {thread_id} in the collection.") from missing
    return render(request, "collection/thread.html", {"thread": detail})

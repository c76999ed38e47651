"""The published nugget scores of a RAG task (/nuggets/tasks/<id>/published/): the frozen
snapshot, each team its own runs; organizers see every run and publish or withdraw here."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import is_organizer
from nuggets.selectors.publication import nugget_publication_events, published_nugget_scores
from nuggets.services.publication import (
    NuggetPublicationError,
    nugget_scores_publish,
    nugget_scores_withdraw,
)


@login_required
@require_http_methods(["GET", "POST"])
def published_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    if task.kind != RetrievalTask.Kind.RAG:
        raise Http404("nugget scores are published for RAG tasks")
    organizer = is_organizer(request.user)
    if request.method == "POST":
        if not organizer:
            return render(request, "evaluation/unpublished.html", {"task": task}, status=403)
        action = request.POST.get("action", "")
        try:
            if action == "publish":
                event = nugget_scores_publish(task=task, by=request.user)
                messages.success(
                    request,
                    f"Published the nugget scores as they are now "
                    f"(snapshot {event.snapshot.checksum[:12]}).",
                )
            elif action == "withdraw":
                nugget_scores_withdraw(task=task, by=request.user)
                messages.success(request, "Withdrew the nugget scores from participants.")
            else:
                messages.error(request, "action: publish or withdraw")
        except NuggetPublicationError as error:
            messages.error(request, f"Not done: {error}.")
        return redirect(request.path)
    shown = published_nugget_scores(request.user, task)
    if shown is None and not organizer:
        return render(request, "evaluation/unpublished.html", {"task": task}, status=403)
    context = {
        "task": task,
        "shown": shown,
        "organizer": organizer,
        "events": nugget_publication_events(task) if organizer else [],
    }
    return render(request, "nuggets/published.html", context)

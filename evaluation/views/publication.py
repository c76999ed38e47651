"""Publishing a task's results (staff): choose the official qrels version, review what
participants will see, publish or withdraw; every change is listed."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Count, F, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from collection.models import RetrievalTask
from evaluation import selectors
from evaluation.access import publication_task_for
from evaluation.models import PublicationEvent, QrelsVersion
from evaluation.services import PublicationError, results_publish, results_withdraw
from evaluation.views.results import qrels_notice
from kernel.access import organizer_required
from kernel.params import BadParameter, page_filter, parse_id


@organizer_required
@require_http_methods(["GET", "POST"])
def publication_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = publication_task_for(request.user, task_id)
    if request.method == "POST":
        return _change(request, task)
    publication = selectors.publication_of(task)
    versions = list(
        QrelsVersion.objects.filter(task=task, level="item").annotate(
            scored=Count("results", filter=Q(results__run_version=F("results__run__version")))
        )
    )
    wanted = page_filter(request, parse_id, request.GET.get("qrels"), name="qrels", default=None)
    chosen = next((v for v in versions if v.pk == wanted), None)
    if chosen is None and publication is not None:
        chosen = next((v for v in versions if v.pk == publication.qrels_id), None)
    if chosen is None:
        chosen = next((v for v in versions if v.scored), versions[0] if versions else None)
    context: dict[str, Any] = {
        "task": task,
        "publication": publication,
        "versions": versions,
        "chosen": chosen,
        "events": PublicationEvent.objects.filter(task=task).select_related("qrels")[:50],
    }
    if chosen is not None:
        job = selectors.latest_job(task, chosen)
        scored = selectors.visible_results(task, chosen, user=None)
        context |= {
            "scored": selectors.result_rows(
                scored, job, chosen, selectors.task_columns(task), task=task
            ),
            "not_scored": selectors.runs_not_scored(task, chosen, user=None),
            "qrels_notice": qrels_notice(chosen, task),
        }
        context["teams"] = sorted({row["team"] for row in context["scored"]})
    return render(request, "evaluation/publication.html", context)


def _change(request: HttpRequest, task: RetrievalTask) -> HttpResponse:
    action = request.POST.get("action")
    wanted = None
    try:
        if action == "publish":
            wanted = parse_id(request.POST.get("qrels"), name="qrels", default=None)
            qrels = QrelsVersion.objects.filter(task=task, pk=wanted).first() if wanted else None
            if qrels is None:
                raise PublicationError("choose a qrels version of this task")
            results_publish(task=task, qrels=qrels, by=request.user)
            messages.success(
                request,
                f"Published {task.get_kind_display()} with qrels version {qrels.pk} "
                f"({qrels.checksum[:12]}): participants now see their runs' scores.",
            )
        elif action == "withdraw":
            results_withdraw(task=task, by=request.user)
            messages.success(
                request, f"Withdrew the results of {task.get_kind_display()} from participants."
            )
        else:
            raise PublicationError("unknown action")
    except (PublicationError, BadParameter) as error:
        messages.error(request, str(error))
        url = reverse("evaluation:publication", args=[task.pk])
        return redirect(f"{url}?qrels={wanted}" if wanted else url)
    return redirect("evaluation:results", task_id=task.pk)

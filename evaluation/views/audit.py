"""The audit page of a machine judge (organizers): its agreement with each assessor and with
the final qrels, per topic, and the system rankings its qrels give. Thin: permission, one
selector call, render."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from assessment.models import MachineJudge
from collection.access import task_for
from evaluation.selectors.audit import judge_audit
from kernel.access import organizer_required


@organizer_required
@require_GET
def judge_audit_page(request: HttpRequest, task_id: int, judge_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    judge = get_object_or_404(MachineJudge, pk=judge_id, task=task)
    with_ci = request.GET.get("ci") == "1"
    audit = judge_audit(task=task, judge=judge, with_ci=with_ci)
    return render(
        request,
        "organize/judge_audit.html",
        {"task": task, "audit": audit, "with_ci": with_ci},
    )

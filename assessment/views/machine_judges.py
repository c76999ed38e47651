"""The organizer's machine judges page (/organize/task/<id>/machine-judges/):
the task's judges with their grades, an import form, "counts in official qrels" and delete.
Thin: permission, form, one service or selector call, render.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from assessment.core.judge_grades import FORMATS
from assessment.models import COMMENT_MAX_CHARS, MachineJudge
from assessment.selectors.guidelines import guidelines_current
from assessment.selectors.machine_judges import machine_judges_of, machine_label
from assessment.services.machine_judges import (
    MachineJudgeError,
    machine_judge_counts_in_qrels,
    machine_judge_delete,
    machine_judge_import,
    machine_judge_suggests,
)
from assessment.views.organize import form_problems, organizer_of
from collection.access import task_for
from collection.models import RetrievalTask
from kernel.access import organizer_required
from kernel.params import parse_choice
from kernel.request_limits import body_limit

__all__ = ["MachineJudgeImportForm", "machine_judge_action", "machine_judges_page"]


class MachineJudgeImportForm(forms.Form):
    name = forms.CharField(max_length=100)
    description = forms.CharField(max_length=COMMENT_MAX_CHARS, required=False)
    file = forms.FileField()
    file_format = forms.ChoiceField(choices=[(f, f) for f in FORMATS], required=False)
    counts_in_qrels = forms.BooleanField(required=False)
    unlisted_not_relevant = forms.BooleanField(required=False)


def _context(task: RetrievalTask, form: MachineJudgeImportForm) -> dict[str, Any]:
    top = guidelines_current(task=task).scale.top
    return {
        "task": task,
        "judges": machine_judges_of(task, top=top),
        "top": top,
        "form": form,
        "formats": FORMATS,
    }


@body_limit("MACHINE_JUDGE_UPLOAD_MAX_BYTES")
@organizer_required
@require_http_methods(["GET", "POST"])
def machine_judges_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    form = MachineJudgeImportForm(
        request.POST if request.method == "POST" else None, request.FILES or None
    )
    if request.method == "POST":
        try:
            if not form.is_valid():
                raise MachineJudgeError(form_problems(form))
            data = form.cleaned_data
            _, report = machine_judge_import(
                task=task,
                name=data["name"],
                source=data["file"],
                file_format=data["file_format"] or "auto",
                description=data["description"],
                counts_in_qrels=data["counts_in_qrels"],
                unlisted_not_relevant=data["unlisted_not_relevant"],
                created_by=organizer_of(request),
            )
        except MachineJudgeError as error:
            for problem in error.problems:
                messages.error(request, problem)
            return render(request, "organize/machine_judges.html", _context(task, form), status=400)
        for line in report.lines():
            messages.success(request, line)
        return redirect("assessment:organize_machine_judges", task_id=task.pk)
    return render(request, "organize/machine_judges.html", _context(task, form))


@organizer_required
@require_POST
def machine_judge_action(request: HttpRequest, task_id: int, judge_id: int) -> HttpResponse:
    """``action=counts`` with ``counts=1|0``: whether it counts in official qrels;
    ``action=suggests`` with ``suggests=1|0``: the task's assisted mode (its grades shown to
    assessors as suggestions); ``action=delete``: delete it (refused while a training round
    uses it)."""
    task = task_for(request.user, task_id)
    judge = get_object_or_404(MachineJudge, pk=judge_id, task=task)
    action = parse_choice(
        request.POST.get("action"), name="action", choices=("counts", "suggests", "delete")
    )
    label = machine_label(judge.name)
    try:
        if action == "counts":
            counts = parse_choice(request.POST.get("counts"), name="counts", choices=("0", "1"))
            before = machine_judge_counts_in_qrels(judge=judge, counts=counts == "1")
            if counts == "1":
                replaced = f" instead of {machine_label(before)}" if before else ""
                messages.success(request, f"{label} now counts in official qrels{replaced}.")
            else:
                messages.success(request, f"{label} no longer counts in official qrels.")
        elif action == "suggests":
            on = parse_choice(request.POST.get("suggests"), name="suggests", choices=("0", "1"))
            before = machine_judge_suggests(judge=judge, suggests=on == "1")
            if on == "1":
                replaced = f" instead of {machine_label(before)}" if before else ""
                messages.success(
                    request, f"Assisted mode: assessors now see {label}'s grades{replaced}."
                )
            else:
                messages.success(request, "Assisted mode off: assessors judge blind.")
        else:
            machine_judge_delete(judge=judge)
            messages.success(request, f"Deleted {label} and its grades.")
    except MachineJudgeError as error:
        for problem in error.problems:
            messages.error(request, problem)
    return redirect("assessment:organize_machine_judges", task_id=task.pk)

"""The people-and-machine page (organizers): draw the items people judge beside a machine
judge, and each run's estimated measures with 95% intervals and what they rest on. Thin:
permission, form, one service or selector call, render."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from assessment.models import MachineJudge
from collection.access import task_for
from evaluation.models import HumanSample
from evaluation.selectors.human_sample import human_sample_estimates
from evaluation.services.human_sample import MAX_BUDGET, SampleError, human_sample_draw
from kernel.access import organizer_required


class HumanSampleForm(forms.Form):
    judge = forms.ModelChoiceField(queryset=MachineJudge.objects.none())
    budget = forms.IntegerField(min_value=1, max_value=MAX_BUDGET, label="Human budget (items)")
    seed = forms.IntegerField(initial=0, min_value=-(2**31), max_value=2**31 - 1)


@organizer_required
@require_http_methods(["GET", "POST"])
def human_sample_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    form = HumanSampleForm(request.POST if request.method == "POST" else None)
    form.fields["judge"].queryset = MachineJudge.objects.filter(task=task).order_by("name")  # type: ignore[attr-defined]
    if request.method == "POST":
        if form.is_valid():
            try:
                human_sample_draw(
                    task=task,
                    judge=form.cleaned_data["judge"],
                    budget=form.cleaned_data["budget"],
                    seed=form.cleaned_data["seed"],
                    created_by=request.user,
                )
                messages.success(request, "Drew the items people judge.")
                return redirect("evaluation:human-sample", task_id=task.pk)
            except SampleError as error:
                messages.error(request, str(error))
        else:
            for field, problems in form.errors.items():
                for problem in problems:
                    messages.error(request, f"{field}: {problem}")
    samples = HumanSample.objects.filter(task=task).select_related("judge", "task").order_by("pk")
    found = [human_sample_estimates(sample=s) for s in samples]
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "evaluation/human_sample.html",
        {"task": task, "form": form, "found": found},
        status=status,
    )

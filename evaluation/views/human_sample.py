"""The people-and-machine page (organizers): draw the items people judge beside a machine
judge, and each run's estimated measures with 95% intervals and what they rest on. Thin:
permission, form, one service or selector call, render."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from assessment.access import assessor_candidates
from assessment.models import MachineJudge
from collection.access import task_for
from evaluation.models import HumanSample
from evaluation.selectors.sample_routing import samples_with_routing
from evaluation.services.human_sample import (
    MAX_BUDGET,
    SampleError,
    human_sample_assign,
    human_sample_draw,
    routed_message,
)
from kernel.access import organizer_required


class HumanSampleForm(forms.Form):
    judge = forms.ModelChoiceField(queryset=MachineJudge.objects.none())
    budget = forms.IntegerField(min_value=1, max_value=MAX_BUDGET, label="Human budget (items)")
    seed = forms.IntegerField(initial=0, min_value=-(2**31), max_value=2**31 - 1)


class SampleAssignForm(forms.Form):
    judge = forms.ModelChoiceField(queryset=MachineJudge.objects.none())
    assessors = forms.ModelMultipleChoiceField(queryset=assessor_candidates())


@organizer_required
@require_http_methods(["POST"])
def human_sample_assign_page(request: HttpRequest, task_id: int) -> HttpResponse:
    """Send a judge's drawn items no person has judged yet to the chosen assessors."""
    task = task_for(request.user, task_id)
    form = SampleAssignForm(request.POST)
    form.fields["judge"].queryset = MachineJudge.objects.filter(task=task)  # type: ignore[attr-defined]
    if not form.is_valid():
        for field, problems in form.errors.items():
            for problem in problems:
                messages.error(request, f"{field}: {problem}")
        return redirect("evaluation:human-sample", task_id=task.pk)
    sample = get_object_or_404(HumanSample, task=task, judge=form.cleaned_data["judge"])
    try:
        routed = human_sample_assign(
            sample=sample, assessors=list(form.cleaned_data["assessors"]), created_by=request.user
        )
    except SampleError as error:
        messages.error(request, str(error))
        return redirect("evaluation:human-sample", task_id=task.pk)
    numbers = dict(task.topics.values_list("pk", "number"))
    messages.success(request, routed_message(routed, numbers))
    for problem in routed.refused:
        messages.error(request, problem)
    return redirect("evaluation:human-sample", task_id=task.pk)


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
    found = samples_with_routing(samples)
    status = 400 if request.method == "POST" else 200
    return render(
        request,
        "evaluation/human_sample.html",
        {"task": task, "form": form, "found": found, "assessors": assessor_candidates()},
        status=status,
    )

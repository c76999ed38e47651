"""The organizer's LLM judge pages: endpoints (/organize/judges/endpoints/) and a task's
judge runs, prompt and probes (/organize/task/<id>/judge-runs/). Thin: permission, form, one
service or selector call, render."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from assessment.services.machine_judge_files import MachineJudgeError
from collection.access import task_for
from collection.models import RetrievalTask, Topic
from judges.core.endpoints import EndpointFields
from judges.core.prompts import PLACEHOLDERS
from judges.models import JudgeEndpoint, JudgeRun, ProbeItem
from judges.selectors.prompts import judge_prompt, judge_prompt_versions
from judges.selectors.runs import endpoint_as_dict, probes_of, run_status, runs_of
from judges.selectors.work import DEFAULT_SAMPLE_SEED
from judges.services.endpoints import EndpointError, endpoint_add, endpoint_remove
from judges.services.probes import probe_add, probe_remove
from judges.services.prompts import judge_prompt_save
from judges.services.runs import judge_run_cancel, judge_run_request
from kernel.access import organizer_required
from kernel.queue import QueueUnavailable

__all__ = ["endpoints_page", "judge_runs_page"]


class EndpointForm(forms.Form):
    name = forms.CharField(max_length=100)
    base_url = forms.CharField(max_length=500)
    model = forms.CharField(max_length=200)
    api_key_env = forms.CharField(max_length=100, required=False)
    concurrency = forms.IntegerField(min_value=1, max_value=256, initial=4)
    requests_per_minute = forms.IntegerField(min_value=0, initial=0)
    timeout_seconds = forms.FloatField(min_value=0.001, max_value=3600, initial=60)
    price_per_1k_tokens = forms.FloatField(min_value=0, max_value=1000, initial=0, required=False)


class RunForm(forms.Form):
    endpoint = forms.ModelChoiceField(queryset=JudgeEndpoint.objects.all())
    judge = forms.CharField(max_length=100)
    prompt_version = forms.IntegerField(min_value=0, required=False)
    limit = forms.IntegerField(min_value=1, required=False)
    sample_seed = forms.IntegerField(min_value=0, required=False)
    logprobs = forms.BooleanField(required=False)


def _problems(form: forms.Form) -> list[str]:
    return [f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in form.errors.items()]


@organizer_required
@require_http_methods(["GET", "POST"])
def endpoints_page(request: HttpRequest) -> HttpResponse:
    form = EndpointForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        try:
            if request.POST.get("action") == "remove":
                endpoint = get_object_or_404(JudgeEndpoint, pk=_id(request.POST.get("endpoint")))
                endpoint_remove(endpoint=endpoint)
                messages.success(request, f"Removed endpoint {endpoint.name}.")
                return redirect("judges:endpoints")
            if not form.is_valid():
                raise EndpointError(_problems(form))
            data = form.cleaned_data
            endpoint = endpoint_add(
                fields=EndpointFields(
                    **{**data, "price_per_1k_tokens": data["price_per_1k_tokens"] or 0.0}
                ),
                created_by=request.user,
            )
            messages.success(request, f"Added endpoint {endpoint.name}.")
            return redirect("judges:endpoints")
        except EndpointError as error:
            for problem in error.problems:
                messages.error(request, problem)
            status = 400
    endpoints = [endpoint_as_dict(e) for e in JudgeEndpoint.objects.all()[:200]]
    return render(
        request, "judges/endpoints.html", {"endpoints": endpoints, "form": form}, status=status
    )


def _id(value: Any) -> int:
    text = str(value or "")
    return int(text) if text.isdecimal() and len(text) < 19 else 0


def _runs_context(task: RetrievalTask, form: RunForm) -> dict[str, Any]:
    prompt = judge_prompt(task)
    runs = runs_of(task)
    return {
        "task": task,
        "form": form,
        "endpoints": JudgeEndpoint.objects.all()[:200],
        "runs": [(run, run_status(run)) for run in runs],
        "prompt": prompt,
        "prompt_versions": judge_prompt_versions(task),
        "placeholders": sorted(PLACEHOLDERS.items()),
        "probes": probes_of(task),
        "probe_kinds": ProbeItem.Kind.choices,
        "topics": Topic.objects.filter(task=task).order_by("pk").values_list("pk", "number")[:2000],
    }


@organizer_required
@require_http_methods(["GET", "POST"])
def judge_runs_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    form = RunForm(request.POST if request.POST.get("action") == "start" else None)
    if request.method == "POST":
        try:
            _act(request, task, form)
            return redirect("judges:runs", task_id=task.pk)
        except (EndpointError, MachineJudgeError) as error:
            for problem in error.problems:
                messages.error(request, problem)
        except QueueUnavailable as error:
            messages.error(request, str(error))
        return render(request, "judges/runs.html", _runs_context(task, form), status=400)
    return render(request, "judges/runs.html", _runs_context(task, form))


def _act(request: HttpRequest, task: RetrievalTask, form: RunForm) -> None:
    action = request.POST.get("action")
    if action == "start":
        if not form.is_valid():
            raise EndpointError(_problems(form))
        data = form.cleaned_data
        run = judge_run_request(
            task=task,
            endpoint=data["endpoint"],
            judge_name=data["judge"],
            prompt_version=data["prompt_version"],
            limit=data["limit"],
            sample_seed=data["sample_seed"] or DEFAULT_SAMPLE_SEED,
            logprobs=data["logprobs"],
            requested_by=request.user,
        )
        messages.success(request, f"Judge run {run.pk} queued.")
    elif action == "cancel":
        run = get_object_or_404(JudgeRun, pk=_id(request.POST.get("run")), task=task)
        judge_run_cancel(run=run)
        messages.success(request, f"Judge run {run.pk}: asked to stop.")
    elif action == "prompt":
        saved = judge_prompt_save(
            task=task,
            template=request.POST.get("template", ""),
            note=request.POST.get("note", ""),
            created_by=request.user,
        )
        messages.success(request, f"Prompt version {saved.version if saved else 0} in force.")
    elif action == "probe":
        topic = get_object_or_404(Topic, pk=_id(request.POST.get("topic")), task=task)
        probe = probe_add(topic=topic, kind=request.POST.get("kind", ""), created_by=request.user)
        messages.success(request, f"Probe {probe.key} added to topic {topic.number}.")
    elif action == "remove-probe":
        probe = get_object_or_404(ProbeItem, pk=_id(request.POST.get("probe")), topic__task=task)
        probe_remove(probe=probe)
        messages.success(request, f"Probe {probe.key} removed.")
    else:
        raise EndpointError(["action: unknown"])

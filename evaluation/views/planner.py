"""The pool planner page of a document task (staff): pick the prior judgments, strategies,
budgets, the runs strategies may pool from and whether runs are cut to the judged documents; a
worker replays them on the task's runs; the page shows the table and a chart (server-side SVG:
no script of its own). docs/pooling.md, "The planner on the pool page"."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from collection.access import task_for
from collection.models import RetrievalTask
from evaluation.core.planner_files import PlannerFileError
from evaluation.models import PoolPlanJob
from evaluation.selectors.planner import (
    accepted_run_names,
    latest_plan,
    plan_chart,
    plan_status,
    plan_table,
)
from evaluation.services.planner import (
    MAX_BUDGETS,
    MAX_STRATEGIES,
    PlanRequestError,
    pool_plan_request,
    pool_plans_reap,
    prior_from_upload,
)
from kernel.access import organizer_required
from kernel.queue import QueueUnavailable
from kernel.request_limits import body_limit
from pooling.core.algorithms.strategies import DEFAULT_STRATEGIES, StrategyError, parse_strategy


class PlanForm(forms.Form):
    source = forms.ChoiceField(choices=PoolPlanJob.Source.choices, initial="qrels")
    prior = forms.FileField(required=False, help_text="The qrels or relevance-only file.")
    strategies = forms.CharField(
        initial=" ".join(DEFAULT_STRATEGIES),
        max_length=400,
        help_text="NAME or NAME:PARAM, separated by spaces (depth rrf rbp mtf mm mm-ns hybrid).",
    )
    budgets = forms.CharField(
        required=False,
        max_length=200,
        help_text="Total judgments over all topics, separated by spaces; empty: 10%, 20% and "
        "40% of the prior judgments.",
    )
    seed = forms.IntegerField(initial=0, min_value=0, max_value=2**31 - 1)
    pool_runs = forms.MultipleChoiceField(
        error_messages={"required": "Tick at least one run to pool from."},
        help_text="The runs strategies may pool from; every accepted run is scored.",
    )
    judged_only = forms.BooleanField(
        required=False,
        label="Judged documents only",
        help_text="Replay every run cut to the documents the prior judgments judged: when the "
        "prior is a shallow pool, this shows what a fully judged collection would.",
    )

    def __init__(self, *args: Any, runs: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The task's accepted runs, named as a plan records them; all ticked at first.
        field = self.fields["pool_runs"]
        field.choices = [(name, name) for name in runs]  # type: ignore[attr-defined]
        field.initial = runs

    def clean_strategies(self) -> list[Any]:
        words = self.cleaned_data["strategies"].split()
        if not words or len(words) > MAX_STRATEGIES:
            raise forms.ValidationError(f"Name 1 to {MAX_STRATEGIES} strategies.")
        try:
            return list(dict.fromkeys(parse_strategy(word) for word in words))
        except StrategyError as error:
            raise forms.ValidationError(str(error)) from error

    def clean_budgets(self) -> list[int]:
        words = self.cleaned_data["budgets"].split()
        if len(words) > MAX_BUDGETS:
            raise forms.ValidationError(f"At most {MAX_BUDGETS} budgets.")
        if not all(word.isdigit() and 0 < int(word) <= 10_000_000 for word in words):
            raise forms.ValidationError("Budgets are whole numbers of judgments, at least 1.")
        return [int(word) for word in words]


def _document_task(request: HttpRequest, task_id: int) -> RetrievalTask:
    task = task_for(request.user, task_id)
    if task.kind != RetrievalTask.Kind.DOCUMENT:
        raise Http404("The planner replays document tasks' runs.")
    return task


def _grades(form: PlanForm, task: RetrievalTask) -> tuple[dict[str, dict[str, int]], str]:
    upload = form.cleaned_data.get("prior")
    name = upload.name if upload is not None else ""
    grades = prior_from_upload(
        task=task,
        source=form.cleaned_data["source"],
        upload=upload,
        name=name,
        size=upload.size if upload is not None else 0,
    )
    return grades, name


@body_limit("QRELS_UPLOAD_MAX_BYTES")
@organizer_required
@require_http_methods(["GET", "POST"])
def planner_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = _document_task(request, task_id)
    runs = accepted_run_names(task)
    form = PlanForm(request.POST or None, request.FILES or None, runs=runs)
    if request.method == "POST" and form.is_valid():
        try:
            grades, name = _grades(form, task)
            started = pool_plan_request(
                task=task,
                source=form.cleaned_data["source"],
                source_name=name,
                grades=grades,
                strategies=form.cleaned_data["strategies"],
                budgets=form.cleaned_data["budgets"],
                seed=form.cleaned_data["seed"],
                pool_runs=form.cleaned_data["pool_runs"],
                judged_only=form.cleaned_data["judged_only"],
                requested_by=request.user,
            )
        except (PlannerFileError, PlanRequestError) as error:
            messages.error(request, f"Nothing was planned. {error}")
        except QueueUnavailable as error:
            messages.error(request, f"Nothing was planned. {error}")
        else:
            what = "with the same inputs was already queued" if started.joined else "queued"
            messages.success(request, f"Plan {started.job.pk} {what}: the page shows its progress.")
            return redirect("evaluation:pool-planner", task_id=task.pk)
    pool_plans_reap()
    job = latest_plan(task)
    measures = job.measures if job is not None else []
    context = {
        "task": task,
        "form": form,
        "sources": PoolPlanJob.Source.choices,
        "source": form["source"].value() or "qrels",
        "job": job,
        "status": plan_status(job),
        "running": job is not None and job.status in ("pending", "running"),
        "rows": plan_table(job.rows, measures) if job is not None and job.status == "done" else [],
        "measures": measures,
        "chart": plan_chart(job.rows) if job is not None and job.status == "done" else None,
        "prior_judgments": sum(len(d) for d in job.grades.values()) if job else 0,
        "runs": runs,
        "ticked": set(form["pool_runs"].value() or []),
    }
    status = 400 if request.method == "POST" else 200
    return render(request, "evaluation/planner.html", context, status=status)


@organizer_required
@require_GET
def planner_status(request: HttpRequest, task_id: int) -> JsonResponse:
    task = _document_task(request, task_id)
    pool_plans_reap()  # what the progress bar polls: a dead worker's job moves on
    return JsonResponse(plan_status(latest_plan(task)))

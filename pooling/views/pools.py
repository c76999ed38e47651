"""Organizer pages of the pools (staff only): every task's pools, one task's figures, building
and downloading. The build button posts a form (works without JavaScript);
static/js/job_progress.js sends it with fetch and polls the build status for the progress bar.
"""

from __future__ import annotations

from django.contrib import messages
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBase,
    JsonResponse,
    StreamingHttpResponse,
)
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from collection.access import task_for
from kernel.access import organizer_required
from kernel.queue import QueueUnavailable
from pooling.selectors.pool_cache import cached_pool_export, cached_pool_stats
from pooling.selectors.pool_export import EXPORT_KINDS
from pooling.selectors.pools import build_status, latest_build, overlap_matrix, pooled_tasks
from pooling.selectors.priority_dashboard import priority_spend
from pooling.selectors.strategy_inputs import STRATEGY_KINDS, current_strategy
from pooling.services.pool_jobs import pool_build_request, pool_builds_reap
from pooling.views.pool_forms import PoolStrategyForm


@require_GET
@organizer_required
def pools_index(request: HttpRequest) -> HttpResponse:
    return render(request, "pooling/pools_index.html", {"tasks": list(pooled_tasks())})


@require_GET
@organizer_required
def pool_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    pool_builds_reap()  # a build whose worker died shows as re-queued or failed, not running
    stats = cached_pool_stats(task)
    build = latest_build(task)
    strategy = current_strategy(task.pk)
    context = {
        "task": task,
        "stats": stats,
        "overlap": overlap_matrix(stats),
        "build": build,
        "status": build_status(build),
        "running": build is not None and build.status in ("pending", "running"),
        "strategy": strategy,
        "spend": priority_spend(task) if strategy is not None else None,
        "strategy_form": PoolStrategyForm(
            initial=PoolStrategyForm.initial_for(strategy, task.pool_seed)
        ),
        "build_stats": [
            (name.replace("_", " "), value)
            for name, value in (build.stats if build else {}).items()
        ],
    }
    return render(request, "pooling/pool.html", context)


@require_POST
@organizer_required
def pool_build_start(request: HttpRequest, task_id: int) -> HttpResponseBase:
    task = task_for(request.user, task_id)
    wants_json = "application/json" in request.headers.get("Accept", "")
    strategy = current_strategy(task.pk)
    if "strategy" in request.POST:  # the form's choice; without it a rebuild keeps the last
        form = PoolStrategyForm(request.POST, task_seed=task.pool_seed)
        if not form.is_valid() or (
            form.cleaned_data["pool_strategy"] is not None and task.kind not in STRATEGY_KINDS
        ):
            problem = (
                "; ".join(
                    f"{name}: {' '.join(map(str, errors))}" for name, errors in form.errors.items()
                )
                or "budgeted strategies pool document and answer tasks only"
            )
            if wants_json:
                return JsonResponse(
                    {**build_status(latest_build(task)), "detail": problem}, status=400
                )
            messages.error(request, f"Nothing was built. {problem}")
            return redirect("pooling:pool", task_id=task.pk)
        strategy = form.cleaned_data["pool_strategy"]
    try:
        build = pool_build_request(task=task, requested_by=request.user, strategy=strategy)
    except QueueUnavailable as error:
        if wants_json:
            body = {**build_status(latest_build(task)), "detail": str(error)}
            return JsonResponse(body, status=503, headers={"Retry-After": "30"})
        messages.error(request, f"Nothing was built. {error}")
        return redirect("pooling:pool", task_id=task.pk)
    if wants_json:
        return JsonResponse(build_status(build), status=202)
    messages.success(request, f"Build {build.pk} queued: the page shows its progress.")
    return redirect("pooling:pool", task_id=task.pk)


@require_GET
@organizer_required
def pool_export(request: HttpRequest, task_id: int, kind: str) -> StreamingHttpResponse:
    if kind not in EXPORT_KINDS:
        raise Http404("Unknown export")
    task = task_for(request.user, task_id)
    response = StreamingHttpResponse(
        cached_pool_export(task, kind), content_type="text/tab-separated-values; charset=utf-8"
    )
    name = f"{task.campaign.name}-{task.name}-pool-{kind}.tsv".replace(" ", "_")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response

"""Pages of the evaluation app: results (staff; participants once published), qrels, jobs."""

from __future__ import annotations

from functools import wraps
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from collection.models import RetrievalTask
from config.queue import QueueUnavailable
from evaluation import selectors
from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.qrels import DEFAULT_PRECEDENCE, QrelsFormatError, QrelsPolicy
from evaluation.reports import COLUMNS, RENDERERS, family, per_topic_csv
from evaluation.services import (
    QrelsExportError,
    evaluation_job_start,
    qrels_export,
    qrels_import,
)
from evaluation.services.jobs import (
    EvaluationRequestError,
    evaluation_job_retry,
    evaluation_jobs_reap,
)

DOWNLOADS = {
    "csv": ("text/csv", "csv"),
    "json": ("application/json", "json"),
    "latex": ("application/x-tex", "tex"),
    "topics": ("text/csv", "topics.csv"),
}


def staff_required(view: Any) -> Any:
    @login_required
    @wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_staff:
            raise PermissionDenied("organizers only")
        return view(request, *args, **kwargs)

    return wrapped


class QrelsExportForm(forms.Form):
    min_relevant = forms.IntegerField(
        required=False,
        min_value=1,
        label="Minimum H+M items per topic",
        help_text="ARQMath kept topics with at least 2; leave empty to keep every topic.",
    )
    use_dual = forms.BooleanField(
        required=False, initial=True, label="Count dual assessments where no official one exists"
    )
    level = forms.ChoiceField(
        choices=[("item", "Item level"), ("instance", "Instance level (formula task)")]
    )
    label = forms.CharField(max_length=100, required=False)


class QrelsImportForm(forms.Form):
    file = forms.FileField(help_text="topic 0 id grade, tab-separated; the file's order is kept.")
    label = forms.CharField(max_length=100, required=False, initial="official")


class JobRetryForm(forms.Form):
    job = forms.IntegerField(min_value=1, max_value=2**63 - 1)


def _task(task_id: int) -> RetrievalTask:
    return get_object_or_404(RetrievalTask.objects.select_related("campaign"), pk=task_id)


def _chosen_qrels(request: HttpRequest, task: RetrievalTask) -> QrelsVersion | None:
    wanted = request.GET.get("qrels", "")
    versions = QrelsVersion.objects.filter(task=task, level="item")
    if wanted.isdigit():
        return get_object_or_404(versions, pk=int(wanted))
    latest = selectors.latest_job(task, None)
    return latest.qrels if latest is not None else versions.first()


@login_required
@require_GET
def results_index(request: HttpRequest) -> HttpResponse:
    tasks = selectors.tasks_with_results(request.user).annotate(
        versions=Count("qrels_versions", distinct=True),
        evaluations_count=Count("evaluations", distinct=True),
    )
    return render(request, "evaluation/index.html", {"tasks": tasks})


@login_required
@require_GET
def results_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = _task(task_id)
    staff = request.user.is_staff
    if not staff and not task.campaign.results_published:
        return render(request, "evaluation/unpublished.html", {"task": task}, status=403)
    qrels = _chosen_qrels(request, task)
    evaluation_jobs_reap()  # a job whose worker died shows as re-queued or failed, not running
    job = selectors.latest_job(task, qrels) if qrels else None
    rows = (
        selectors.result_rows(selectors.results_for(task, qrels, user=request.user), job)
        if qrels
        else []
    )
    columns = COLUMNS[family(task.kind)]
    keys = [key for key, _, _ in columns]
    measure = request.GET.get("measure", keys[0])
    measure = measure if measure in keys else keys[0]
    chosen = next(
        (r for r in rows if str(r["id"]) == request.GET.get("run")), rows[0] if rows else None
    )
    context = {
        "task": task,
        "qrels": qrels,
        "versions": selectors.qrels_versions(task).filter(level="item") if staff else [],
        "job": job,
        "rows": rows,
        "columns": columns,
        "measure": measure,
        "chosen": chosen,
        "topics": _topic_rows(chosen, keys),
        "chart": _chart_data(rows, columns, chosen, measure),
        "significance": _significance(job, measure) if staff else [],
        "reusability": job.reusability if staff and job else [],
        "downloads": list(DOWNLOADS),
    }
    return render(request, "evaluation/results.html", context)


def _topic_rows(chosen: dict | None, keys: list[str]) -> list[dict]:
    if chosen is None:
        return []
    from evaluation.qrels import natural_key

    return [
        {"topic": topic, "values": [values.get(k, 0.0) for k in keys], **values}
        for topic, values in sorted(chosen["per_topic"].items(), key=lambda tv: natural_key(tv[0]))
    ]


def _chart_data(rows: list[dict], columns: list, chosen: dict | None, measure: str) -> dict:
    topics = _topic_rows(chosen, [measure])
    return {
        "runs": [r["run"] for r in rows],
        "measures": [
            {"key": key, "label": label, "values": [r[key] for r in rows]}
            for key, label, _ in columns
        ],
        "topic_run": chosen["run"] if chosen else "",
        "topic_measure": next((label for key, label, _ in columns if key == measure), measure),
        "topics": [t["topic"] for t in topics],
        "topic_values": [t["values"][0] for t in topics],
    }


def _significance(job: EvaluationJob | None, measure: str) -> list[dict]:
    if job is None or job.status != EvaluationJob.Status.DONE:
        return []
    tests = job.significance.get("measures", {}).get(measure, [])
    return sorted(tests, key=lambda t: (t["t_p_holm"], t["a"], t["b"]))


@login_required
@require_GET
def results_download(request: HttpRequest, task_id: int, fmt: str) -> HttpResponse:
    task = _task(task_id)
    if fmt not in DOWNLOADS:
        raise Http404("unknown format")
    if not request.user.is_staff and not task.campaign.results_published:
        raise PermissionDenied("results are not published yet")
    qrels = _chosen_qrels(request, task)
    if qrels is None:
        raise Http404("no qrels for this task yet")
    job = selectors.latest_job(task, qrels)
    rows = selectors.result_rows(selectors.results_for(task, qrels, user=request.user), job)
    kind = task.kind
    body = per_topic_csv(rows, kind) if fmt == "topics" else RENDERERS[fmt](rows, kind)
    content_type, suffix = DOWNLOADS[fmt]
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    name = f"{task.campaign.name}-{task.kind}-results-{qrels.checksum[:8]}.{suffix}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@staff_required
@require_http_methods(["GET", "POST"])
def qrels_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = _task(task_id)
    action = request.POST.get("action")
    form = QrelsExportForm(request.POST if action == "export" else None)
    upload = QrelsImportForm(request.POST if action == "import" else None, request.FILES or None)
    if request.method == "POST":
        done = (
            _qrels_upload(request, task, upload)
            if action == "import"
            else _qrels_action(request, task, form)
        )
        if done:
            return redirect("evaluation:qrels", task_id=task.pk)
    evaluation_jobs_reap()  # a job whose worker died shows as re-queued or failed, not running
    context = {
        "task": task,
        "form": form,
        "upload": upload,
        "versions": selectors.qrels_versions(task),
        "jobs": EvaluationJob.objects.filter(task=task).select_related("qrels")[:8],
    }
    return render(request, "evaluation/qrels.html", context)


def _qrels_action(request: HttpRequest, task: RetrievalTask, form: QrelsExportForm) -> bool:
    try:
        if request.POST.get("action") == "export":
            if not form.is_valid():
                return False
            precedence = DEFAULT_PRECEDENCE
            if not form.cleaned_data["use_dual"]:
                precedence = tuple(s for s in precedence if s != "dual")
            version = qrels_export(
                task=task,
                policy=QrelsPolicy(precedence, form.cleaned_data["min_relevant"]),
                level=form.cleaned_data["level"],
                created_by=request.user,
                label=form.cleaned_data["label"],
            )
            messages.success(
                request, f"Qrels version {version.pk} ({version.checksum[:12]}) ready."
            )
        elif request.POST.get("action") == "evaluate":
            version = get_object_or_404(QrelsVersion, pk=request.POST.get("qrels"), task=task)
            job = evaluation_job_start(task=task, qrels=version, requested_by=request.user)
            messages.success(request, f"Evaluation {job.pk} started: {job.runs_total} runs.")
        elif request.POST.get("action") == "retry":
            retry = JobRetryForm(request.POST)
            if not retry.is_valid():
                raise Http404("no such evaluation")
            failed = get_object_or_404(
                EvaluationJob, pk=retry.cleaned_data["job"], task=task, status="failed"
            )
            job = evaluation_job_retry(job=failed, requested_by=request.user)
            messages.success(request, f"Evaluation {job.pk} started again (was {failed.pk}).")
        else:
            messages.error(request, "Unknown action.")
    except (QrelsExportError, EvaluationRequestError) as error:
        messages.error(request, str(error))
    except QueueUnavailable as error:
        messages.error(request, f"Nothing was started. {error}")
    return True


def _qrels_upload(request: HttpRequest, task: RetrievalTask, upload: QrelsImportForm) -> bool:
    if not upload.is_valid():
        return False
    try:
        text = upload.cleaned_data["file"].read().decode("utf-8")
        version = qrels_import(
            task=task, text=text, label=upload.cleaned_data["label"], created_by=request.user
        )
    except UnicodeDecodeError:
        upload.add_error("file", "not UTF-8 text")
        return False
    except QrelsFormatError as error:
        upload.add_error("file", str(error))
        return False
    messages.success(request, f"Imported qrels version {version.pk} ({version.row_count} rows).")
    return True


@staff_required
@require_GET
def qrels_download(request: HttpRequest, version_id: int) -> HttpResponse:
    version = get_object_or_404(
        QrelsVersion.objects.select_related("task__campaign"), pk=version_id
    )
    response = HttpResponse(
        version.content, content_type="text/tab-separated-values; charset=utf-8"
    )
    task = version.task
    name = f"{task.campaign.name}-{task.kind}-qrels-{version.level}-{version.checksum[:8]}.tsv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Qrels-Checksum"] = version.checksum
    return response


@staff_required
@require_GET
def job_progress(request: HttpRequest, job_id: int) -> JsonResponse:
    evaluation_jobs_reap()  # what the progress bar polls: a dead worker's job moves on
    job = get_object_or_404(EvaluationJob, pk=job_id)
    return JsonResponse(
        {
            "status": job.status,
            "runs_done": job.runs_done,
            "runs_total": job.runs_total,
            "error": job.error,
            "attempts": job.attempts,
            "worker_lost_at": job.worker_lost_at.isoformat() if job.worker_lost_at else None,
        }
    )

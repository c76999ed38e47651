"""The qrels page (staff): readiness per topic, export (or "export anyway"), import, evaluate."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from collection.access import task_for
from collection.models import RetrievalTask
from collection.selectors import answer_task_of
from evaluation import selectors
from evaluation.core.official import (
    MAX_MEASURES,
    MAX_NAME,
    default_text,
    names_from_text,
    official_measures_check,
)
from evaluation.core.qrels import QrelsFormatError
from evaluation.core.reports import AVERAGE_TEXT
from evaluation.core.trec_names import MeasureNameError
from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.services import (
    OfficialMeasuresError,
    QrelsExportError,
    QrelsIncompleteError,
    evaluation_job_start,
    official_measures_set,
    qrels_export,
    qrels_import,
    qrels_policy,
)
from evaluation.services.jobs import (
    EvaluationRequestError,
    evaluation_job_retry,
    evaluation_jobs_reap,
)
from kernel.access import organizer_required
from kernel.core.qrels import QRELS_FILE_HELP
from kernel.params import parse_id
from kernel.queue import QueueUnavailable
from kernel.request_limits import body_limit


class QrelsExportForm(forms.Form):
    min_relevant = forms.IntegerField(
        required=False,
        min_value=0,
        label="Minimum H+M items per topic",
        help_text="Topics with fewer are dropped (ARQMath: 2). 0 keeps every topic; empty "
        "uses the task's setting.",
    )
    use_dual = forms.BooleanField(
        required=False, initial=True, label="Count dual assessments where no official one exists"
    )
    level = forms.ChoiceField(
        choices=[("item", "Item level"), ("instance", "Instance level (formula task)")]
    )
    label = forms.CharField(max_length=100, required=False)
    allow_incomplete = forms.BooleanField(
        required=False,
        label="Export anyway, although items are unjudged",
        help_text="Unjudged items get no qrels row; the version and every result computed on "
        "it say how incomplete it was.",
    )


class OfficialMeasuresForm(forms.Form):
    """The task's official measures, one name a line, checked by the measure parser."""

    official_measures = forms.CharField(
        required=False,
        max_length=MAX_MEASURES * (MAX_NAME + 2),
        widget=forms.Textarea(attrs={"rows": 4, "spellcheck": "false"}),
        label="Official measures",
        help_text="One trec_eval or ir_measures name a line (map, P_10, ndcg_cut_10, nDCG@10, "
        "AP(rel=2), P(rel=2,judged_only=True)@10, …). Empty: the kind's defaults.",
    )

    def __init__(self, *args: Any, kind: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kind = kind

    def clean_official_measures(self) -> list[str]:
        try:
            return official_measures_check(
                self.kind, names_from_text(self.cleaned_data["official_measures"])
            )
        except MeasureNameError as error:
            raise forms.ValidationError(str(error)) from None


class QrelsImportForm(forms.Form):
    file = forms.FileField(help_text=f"{QRELS_FILE_HELP.capitalize()}; the file's order is kept.")
    label = forms.CharField(max_length=100, required=False, initial="official")


@body_limit("QRELS_UPLOAD_MAX_BYTES")
@organizer_required
@require_http_methods(["GET", "POST"])
def qrels_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    action = request.POST.get("action")
    form = QrelsExportForm(
        request.POST if action == "export" else None, initial={"min_relevant": task.min_relevant}
    )
    upload = QrelsImportForm(request.POST if action == "import" else None, request.FILES or None)
    measures = OfficialMeasuresForm(
        request.POST if action == "measures" else None,
        kind=task.kind,
        initial={"official_measures": "\n".join(task.official_measures)},
    )
    if request.method == "POST":
        if action == "import":
            done = _qrels_upload(request, task, upload)
        elif action == "measures":
            done = _measures(request, task, measures)
        else:
            done = _qrels_action(request, task, form)
        if done:
            return redirect("evaluation:qrels", task_id=task.pk)
    evaluation_jobs_reap()  # a job whose worker died shows as re-queued or failed, not running
    policy = qrels_policy(task=task)
    context = {
        "task": task,
        "form": form,
        "upload": upload,
        "measures_form": measures,
        "measures_default": default_text(task.kind),
        "policy": policy,
        "readiness": selectors.task_readiness(task, policy),
        "average_text": AVERAGE_TEXT[task.average],
        "topic_set": _topic_set_text(task),
        "versions": selectors.qrels_versions(task),
        "jobs": EvaluationJob.objects.filter(task=task).select_related("qrels")[:8],
    }
    return render(request, "evaluation/qrels.html", context)


def _qrels_action(request: HttpRequest, task: RetrievalTask, form: QrelsExportForm) -> bool:
    """Export or evaluate; False re-renders the page with the form's errors."""
    try:
        if request.POST.get("action") == "export":
            return _export(request, task, form)
        if request.POST.get("action") == "evaluate":
            version = get_object_or_404(
                QrelsVersion, pk=parse_id(request.POST.get("qrels"), name="qrels"), task=task
            )
            job = evaluation_job_start(task=task, qrels=version, requested_by=request.user)
            messages.success(
                request,
                f"Evaluation {job.pk} started: {job.runs_total} runs, means over "
                f"{'each run' if job.average == 'run' else 'all qrels'} topics.",
            )
        elif request.POST.get("action") == "retry":
            failed = get_object_or_404(
                EvaluationJob,
                pk=parse_id(request.POST.get("job"), name="job"),
                task=task,
                status="failed",
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


def _export(request: HttpRequest, task: RetrievalTask, form: QrelsExportForm) -> bool:
    if not form.is_valid():
        return False
    data = form.cleaned_data
    try:
        version = qrels_export(
            task=task,
            policy=qrels_policy(
                task=task, use_dual=data["use_dual"], min_relevant=data["min_relevant"]
            ),
            level=data["level"],
            created_by=request.user,
            label=data["label"],
            allow_incomplete=data["allow_incomplete"],
        )
    except QrelsIncompleteError as error:
        form.add_error("allow_incomplete", str(error))
        return False
    state = (
        f"incomplete: {version.unjudged_items} items unjudged"
        if version.is_incomplete
        else "every pool item judged"
    )
    messages.success(
        request, f"Qrels version {version.pk} ({version.checksum[:12]}) frozen, {state}."
    )
    return True


def _measures(request: HttpRequest, task: RetrievalTask, form: OfficialMeasuresForm) -> bool:
    if not form.is_valid():
        return False
    try:
        official_measures_set(task=task, names=form.cleaned_data["official_measures"])
    except OfficialMeasuresError as error:  # checked by the form too; the service has the word
        form.add_error("official_measures", str(error))
        return False
    names = ", ".join(task.official_measures) or f"the defaults ({default_text(task.kind)})"
    messages.success(request, f"Official measures: {names}. Evaluate again to score runs so.")
    return True


def _qrels_upload(request: HttpRequest, task: RetrievalTask, upload: QrelsImportForm) -> bool:
    if not upload.is_valid():
        return False
    # Read no further than the limit: the file is held whole to be parsed.
    limit = settings.QRELS_FILE_MAX_BYTES
    data = upload.cleaned_data["file"].read(limit + 1)
    if len(data) > limit:
        upload.add_error("file", f"larger than the limit of {limit:,} bytes")
        return False
    try:
        text = data.decode("utf-8")
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


@organizer_required
@require_GET
def qrels_download(request: HttpRequest, version_id: int) -> HttpResponse:
    version = get_object_or_404(
        QrelsVersion.objects.select_related("task__campaign"), pk=version_id
    )
    response = HttpResponse(
        version.content, content_type="text/tab-separated-values; charset=utf-8"
    )
    task = version.task
    name = f"{task.campaign.name}-{task.name}-qrels-{version.level}-{version.checksum[:8]}.tsv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["X-Qrels-Checksum"] = version.checksum
    return response


@organizer_required
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


def _topic_set_text(task: RetrievalTask) -> str:
    """Open QA: which topics its means are over (its answer task's official ones)."""
    if task.kind != RetrievalTask.Kind.OPENQA:
        return ""
    official = selectors.official_topics(answer_task_of(task))
    if official is None:
        return (
            "Means are over this task's qrels topics until its answer task has official qrels; "
            "then over that version's topics, as ARQMath-3 averaged Task 3."
        )
    topics, label = official
    return (
        f"Means are over the {len(topics)} topics of the answer task's official qrels "
        f"({label}), as ARQMath-3 averaged Task 3, not only the topics judged here."
    )

"""Participants' runs page: list the team's runs, upload one, read its validation report.

The upload form works without JavaScript (a plain multipart POST that re-renders the page with
every problem by line); static/js/upload.js sends the same form with XHR to show upload progress
and asks for JSON instead.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from collection.models import RetrievalTask
from kernel.request_limits import body_limit
from pooling.access import runs_visible_to, tasks_open_to, teams_of
from pooling.api.throttles import run_upload_wait, wait_message
from pooling.models import RUN_DESCRIPTION_MAX_CHARS, Run, Team
from pooling.services.runs import RunValidationError, SubmissionRefused, run_submit


class RunUploadForm(forms.Form):
    task = forms.ModelChoiceField(queryset=RetrievalTask.objects.none(), empty_label=None)
    team = forms.ModelChoiceField(queryset=Team.objects.none(), empty_label=None)
    tag = forms.CharField(
        max_length=40,
        help_text="ASCII letters, digits and -_. — re-using a tag replaces that run.",
    )
    role = forms.ChoiceField(choices=Run.Role.choices)
    is_manual = forms.BooleanField(required=False, label="Manual run")
    declared_data = forms.ChoiceField(
        choices=Run.DeclaredData.choices,
        initial=Run.DeclaredData.BOTH,
        required=False,
        label="Data used",
        help_text="ARQMath tasks only: text, math or both.",
    )
    description = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 2}),
        required=False,
        max_length=RUN_DESCRIPTION_MAX_CHARS,
    )
    file = forms.FileField(help_text="TSV or TREC, tabs or spaces, optionally gzip-compressed.")

    def __init__(self, *args: Any, user: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["task"].queryset = tasks_open_to(user)  # type: ignore[attr-defined]
        # A campaign may hold several tasks of one kind: the name tells them apart.
        self.fields["task"].label_from_instance = _task_label  # type: ignore[attr-defined]
        self.fields["team"].queryset = teams_of(user)  # type: ignore[attr-defined]

    def document_task_ids(self) -> str:
        """The document tasks' ids, for upload.js to hide "Data used" when one is chosen."""
        tasks = self.fields["task"].queryset  # type: ignore[attr-defined]
        ids = tasks.filter(kind=RetrievalTask.Kind.DOCUMENT).values_list("pk", flat=True)
        return " ".join(str(pk) for pk in ids)

    def max_bytes(self) -> int:
        """The largest upload the server reads (kernel.request_limits), for upload.js to say
        so before sending a larger file."""
        return int(settings.RUN_UPLOAD_MAX_BYTES)

    def clean_declared_data(self) -> str:
        return self.cleaned_data.get("declared_data") or Run.DeclaredData.BOTH


def _task_label(task: RetrievalTask) -> str:
    return f"{task.campaign.name} · {task.name} ({task.kind})"


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _page(request: HttpRequest, form: RunUploadForm, **extra: Any) -> dict[str, Any]:
    runs: QuerySet[Run] = runs_visible_to(request.user)
    return {"form": form, "runs": runs, "has_team": form.fields["team"].queryset.exists(), **extra}  # type: ignore[attr-defined]


def _submit(request: HttpRequest, form: RunUploadForm) -> tuple[Run | None, dict[str, Any]]:
    data = form.cleaned_data
    try:
        submission = run_submit(
            task=data["task"],
            team=data["team"],
            tag=data["tag"],
            role=data["role"],
            stream=data["file"],
            file_name=data["file"].name or "",
            uploaded_by=request.user,  # type: ignore[arg-type]
            is_manual=data["is_manual"],
            declared_data=data["declared_data"],
            description=data["description"],
        )
    except RunValidationError as exc:
        return None, {"detail": str(exc), "report": exc.report}
    except SubmissionRefused as exc:
        return None, {"detail": exc.message}
    return submission.run, {"created": submission.created}


@body_limit("RUN_UPLOAD_MAX_BYTES")
@login_required
@require_http_methods(["GET", "POST"])
def runs_page(request: HttpRequest) -> HttpResponse:
    """List the team's runs and take an upload."""
    if request.method == "GET":
        return render(
            request, "pooling/runs.html", _page(request, RunUploadForm(user=request.user))
        )
    form = RunUploadForm(request.POST, request.FILES, user=request.user)
    wait = run_upload_wait(request)  # the REST upload budget: one throttle for both paths
    if wait is not None:
        return _reply(request, form, None, {"detail": wait_message(wait)}, status=429)
    if not form.is_valid():
        problem = {"detail": "please correct the form", "fields": form.errors.get_json_data()}
        return _reply(request, form, None, problem)
    run, outcome = _submit(request, form)
    return _reply(request, form, run, outcome)


def _reply(
    request: HttpRequest,
    form: RunUploadForm,
    run: Run | None,
    outcome: dict[str, Any],
    status: int = 400,
) -> HttpResponse:
    if run is None:
        if _wants_json(request):
            return JsonResponse({"ok": False, **outcome}, status=status)
        return render(
            request, "pooling/runs.html", _page(request, form, failure=outcome), status=status
        )
    url = reverse("pooling:run-detail", args=[run.pk])
    verb = "stored" if outcome["created"] else f"replaced (version {run.version})"
    messages.success(request, f"Run {run.tag} {verb}: {run.row_count:,} rows.")
    if _wants_json(request):
        return JsonResponse({"ok": True, "redirect": url, "run": run.pk})
    return redirect(url)


@login_required
def run_detail_page(request: HttpRequest, run_id: int) -> HttpResponse:
    """One run with its validation report (warnings kept from the upload)."""
    run = get_object_or_404(runs_visible_to(request.user), pk=run_id)
    return render(request, "pooling/runs_detail.html", {"run": run, "report": run.report or {}})

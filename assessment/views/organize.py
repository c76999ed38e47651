"""The organizer's dashboard (/organize/, staff only): overview, assignments, training rounds,
agreement and CSV exports; adjudication lives in adjudication.py. Thin:
permission, form, one service or selector call, render.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from assessment.models import Assignment, MachineJudge, TrainingRound
from assessment.selectors.agreement import (
    AgreementTable,
    task_agreement,
    training_rounds_agreement,
)
from assessment.selectors.dashboard import task_dashboard
from assessment.selectors.exports import (
    AGREEMENT_COLUMNS,
    JUDGMENT_COLUMNS,
    agreement_rows,
    csv_lines,
    judgment_rows,
)
from assessment.selectors.guidelines import guidelines_current, guidelines_rendered
from assessment.selectors.overview import assessor_choices, assignment_rows, campaign_overview
from assessment.services.assignments import AssignmentError, assignment_action_apply
from assessment.services.training import TrainingError, gold_qrels_parse, training_round_create
from assessment.views.organize_forms import (
    ASSIGNMENT_FORMS,
    HANDOVERS,
    TrainingForm,
    bound_assignment_form,
)
from collection.access import task_for
from collection.core.formats.trec_topics import TOPIC_FORMATS
from collection.models import RetrievalTask, Topic
from kernel.access import organizer_required
from kernel.params import page_filter, parse_choice
from kernel.request_limits import body_limit


def organizer_of(request: HttpRequest) -> User:
    """The logged-in organizer (organizer_required ran first). Shared by every organizer
    page of the project."""
    if not isinstance(request.user, User):
        raise PermissionDenied("The dashboard is for organizers.")
    return request.user


def form_problems(form: forms.Form) -> list[str]:
    """A form's errors as "field: message" lines, the way the organizer pages list them."""
    return [f"{field}: {' '.join(str(e) for e in errors)}" for field, errors in form.errors.items()]


def _kappa_chart(rounds: list[tuple[Any, AgreementTable]]) -> list[dict[str, Any]]:
    """Per round (or the task), each assessor's mean kappa, 4-way and binary (ARQMath
    Figures 3-4)."""
    charts = []
    for training_round, table in rounds:
        means = sorted(table.means, key=lambda m: table.name(m.assessor))
        charts.append(
            {
                "round": str(training_round),
                "assessors": [table.name(m.assessor) for m in means],
                "kappa": [m.mean_kappa.value for m in means],
                "binary": [m.mean_kappa_binary.value for m in means],
            }
        )
    return charts


@organizer_required
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "organize/index.html", {"campaigns": campaign_overview()})


@organizer_required
def task_overview(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    board = task_dashboard(task=task)
    rounds = training_rounds_agreement(task=task)
    charts = {
        "progress": {
            "labels": [label for label, _ in board.progress],
            "values": [n for _, n in board.progress],
            "total": board.to_judge,
        },
        "histogram": {
            "labels": [label for label, _ in board.histogram],
            "values": [n for _, n in board.histogram],
        },
        "kappa": _kappa_chart(rounds[-1:]),
    }
    return render(
        request,
        "organize/task.html",
        {
            "task": task,
            "board": board,
            "charts": charts,
            "latest_round": rounds[-1:],
            "live": True,
        },
    )


def _apply_assignment_action(request: HttpRequest, task: RetrievalTask, action: str) -> str:
    """Run one assignment action from a posted form; returns the success message."""
    form = bound_assignment_form(ASSIGNMENT_FORMS[action], task, request.POST)
    if not form.is_valid():
        raise AssignmentError(form_problems(form))
    data = form.cleaned_data
    done = assignment_action_apply(
        task=task,
        action=action,  # type: ignore[arg-type]
        by=organizer_of(request),
        topics=list(data.get("topics") or ()),
        assessor=data.get("assessor"),
        assessors=list(data.get("assessors") or ()),
        assignment=data.get("assignment"),
        handover=data.get("handover") or Assignment.Handover.CONTINUE,
        sample_size=data.get("sample_size"),
        seed=data.get("seed"),
    )
    return done.message


@organizer_required
@require_http_methods(["GET", "POST"])
def assignments(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ASSIGNMENT_FORMS:
            messages.error(request, "Unknown action.")
        else:
            try:
                messages.success(request, _apply_assignment_action(request, task, action))
            except AssignmentError as error:
                for problem in error.problems:
                    messages.error(request, problem)
                return render(
                    request, "organize/assignments.html", _assignments_context(task), status=400
                )
        return redirect("assessment:organize_assignments", task_id=task.pk)
    return render(request, "organize/assignments.html", _assignments_context(task))


def _assignments_context(task: RetrievalTask) -> dict[str, Any]:
    board = task_dashboard(task=task)
    rows = assignment_rows(task=task)
    by_topic: dict[int, list[Any]] = {}
    for row in rows:
        by_topic.setdefault(row.topic_id, []).append(row)
    return {
        "task": task,
        "board": board,
        "topics": [(t, by_topic.get(t.topic_id, [])) for t in board.topics],
        "assessors": assessor_choices(),
        "handovers": HANDOVERS,
        "unassigned": [t for t in board.topics if t.assessor is None],
    }


@body_limit("QRELS_UPLOAD_MAX_BYTES")
@organizer_required
@require_http_methods(["GET", "POST"])
def training(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    status = 200
    if request.method == "POST":
        form = TrainingForm(request.POST, request.FILES)
        form.fields["topics"].queryset = Topic.objects.filter(task=task)  # type: ignore[attr-defined]
        people = User.objects.filter(is_active=True)
        form.fields["assessors"].queryset = people  # type: ignore[attr-defined]
        form.fields["expert"].queryset = people  # type: ignore[attr-defined]
        form.fields["machine_judge"].queryset = MachineJudge.objects.filter(task=task)  # type: ignore[attr-defined]
        try:
            if not form.is_valid():
                raise TrainingError(form_problems(form))
            training_round = _create_round(request, task, form.cleaned_data)
            messages.success(request, f"Created {training_round.name}.")
            return redirect("assessment:organize_training", task_id=task.pk)
        except TrainingError as error:
            for problem in error.problems:
                messages.error(request, problem)
            status = 400
    rounds = training_rounds_agreement(task=task)
    context = {
        "task": task,
        "rounds": rounds,
        "charts": _kappa_chart(rounds),
        "topics": Topic.objects.filter(task=task).order_by("id"),
        "assessors": assessor_choices(),
        "experts": User.objects.filter(is_active=True).order_by("username"),
        "gold_sources": TrainingRound.GoldSource.choices,
        "machine_judges": MachineJudge.objects.filter(task=task).order_by("name"),
        "guidelines": guidelines_rendered(guidelines_current(task=task)),
        "topic_formats": TOPIC_FORMATS,
        # Rounds on earlier years' topics live in the task's training archive.
        "archives": RetrievalTask.objects.filter(training_for=task)
        .select_related("campaign")
        .prefetch_related("training_rounds"),
    }
    return render(request, "organize/training.html", context, status=status)


def _create_round(request: HttpRequest, task: RetrievalTask, data: dict[str, Any]) -> TrainingRound:
    upload = data.get("qrels")
    top = guidelines_current(task=task).scale.top
    text = upload.read().decode("utf-8", "replace") if upload else ""
    qrels = gold_qrels_parse(text, top=top) if upload else None
    return training_round_create(
        task=task,
        name=data["name"],
        topics=list(data["topics"]),
        assessors=list(data["assessors"]),
        created_by=organizer_of(request),
        gold_source=data["gold_source"],
        expert=data["expert"],
        qrels=qrels,
        items_per_topic=data["items_per_topic"],
        seed=data["seed"],
        show_gold_after_submit=data["show_gold_after_submit"],
        machine_judge=data["machine_judge"],
    )


@organizer_required
def agreement(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    with_ci = request.GET.get("ci") == "1"
    # Machine judges take part unless ?machines=0: the people's agreement alone.
    machines = page_filter(
        request,
        parse_choice,
        request.GET.get("machines"),
        default="1",
        name="machines",
        choices=("0", "1"),
    )
    rounds = training_rounds_agreement(task=task)
    table = task_agreement(task=task, with_ci=with_ci, machine_judges=machines == "1")
    context = {
        "task": task,
        "table": table,
        "with_ci": with_ci,
        "live": not with_ci,
        "rounds": rounds,
        "machines": machines == "1",
        # The task's chart comes last, after one per training round (organize.js draws them).
        "charts": _kappa_chart(rounds) + _kappa_chart([("the task", table)]),
        "task_chart_index": len(rounds),
    }
    return render(request, "organize/agreement.html", context)


def _csv_response(name: str, lines: Any) -> StreamingHttpResponse:
    response = StreamingHttpResponse(lines, content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


@organizer_required
def export_judgments(request: HttpRequest, task_id: int) -> StreamingHttpResponse:
    task = task_for(request.user, task_id)
    name = f"{task.campaign.name}-{task.name}-judgments.csv".replace(" ", "_")
    return _csv_response(name, csv_lines(JUDGMENT_COLUMNS, judgment_rows(task)))


@organizer_required
def export_agreement(request: HttpRequest, task_id: int) -> StreamingHttpResponse:
    task = task_for(request.user, task_id)

    def rows():  # type: ignore[no-untyped-def]
        yield from agreement_rows("task", task_agreement(task=task))
        for training_round, table in training_rounds_agreement(task=task):
            yield from agreement_rows(f"training:{training_round.name}", table)

    name = f"{task.campaign.name}-{task.name}-agreement.csv".replace(" ", "_")
    return _csv_response(name, csv_lines(AGREEMENT_COLUMNS, rows()))


__all__ = [
    "agreement",
    "assignments",
    "export_agreement",
    "export_judgments",
    "form_problems",
    "index",
    "organizer_of",
    "task_overview",
    "training",
]

"""Results pages: staff see every run on any qrels version; a participant sees a published
task's results for their own teams' runs, scored with the official qrels version."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from collection.access import task_for
from collection.models import RetrievalTask
from evaluation import selectors
from evaluation.access import results_open_to
from evaluation.core.official import official_measure_names, unjudged_rule
from evaluation.core.qrels import natural_key
from evaluation.core.reports import (
    AVERAGE_TEXT,
    RENDERERS,
    average_notes,
    incomplete_note,
    per_topic_csv,
    significance_csv,
)
from evaluation.models import EvaluationJob, QrelsVersion
from evaluation.result_sources import result_links
from evaluation.selectors.categories import results_by_category
from evaluation.services.jobs import evaluation_jobs_reap
from kernel.access import is_organizer
from kernel.params import page_filter, parse_choice, parse_id

SIGNIFICANCE_DOWNLOAD = "significance"  # organizers only: every pair of runs' tests
DOWNLOADS = {
    "csv": ("text/csv", "csv"),
    "json": ("application/json", "json"),
    "latex": ("application/x-tex", "tex"),
    "topics": ("text/csv", "topics.csv"),
}


@login_required
@require_GET
def results_index(request: HttpRequest) -> HttpResponse:
    links = result_links(request.user)  # other apps' results: published nugget scores
    tasks = list(
        selectors.tasks_with_results(request.user, also=links).annotate(
            versions=Count("qrels_versions", distinct=True),
            evaluations_count=Count("evaluations", distinct=True),
        )
    )
    for task in tasks:
        setattr(task, "other_results", links.get(task.pk, []))  # noqa: B010 (read by the template)
    return render(request, "evaluation/index.html", {"tasks": tasks})


def qrels_notice(qrels: QrelsVersion | None, task: RetrievalTask) -> str:
    """The warning every page showing results on ``qrels`` (of ``task``) carries when it was
    incomplete, saying how the task scores unjudged items."""
    if qrels is None or not qrels.is_incomplete:
        return ""
    rule = unjudged_rule(task.kind, task.official_measures)
    return incomplete_note(qrels.unjudged_items or 0, qrels.pool_items, rule)


@login_required
@require_GET
def results_page(request: HttpRequest, task_id: int) -> HttpResponse:
    task = task_for(request.user, task_id)
    staff = is_organizer(request.user)
    if not results_open_to(request.user, task):
        return render(request, "evaluation/unpublished.html", {"task": task}, status=403)
    qrels = selectors.results_qrels(task, request.user, request.GET.get("qrels", ""))
    evaluation_jobs_reap()  # a job whose worker died shows as re-queued or failed, not running
    job = selectors.latest_job(task, qrels) if qrels else None
    results = selectors.visible_results(task, qrels, user=request.user) if qrels else None
    columns = selectors.task_columns(task)
    rows = (
        selectors.result_rows(results, job, qrels, columns, task=task)
        if qrels and results is not None
        else []
    )
    keys = [key for key, _, _ in columns]
    measure = page_filter(
        request,
        parse_choice,
        request.GET.get("measure"),
        name="measure",
        choices=keys,
        default=keys[0],
    )
    run = page_filter(request, parse_id, request.GET.get("run"), name="run", default=None)
    chosen = next((r for r in rows if r["id"] == run), rows[0] if rows else None)
    # ARQMath-3 also gave Task 1 runs' AR and P@1 of their first answer, beside Task 3's.
    first_answer = task.kind == "answer" and any("ar" in row for row in rows)
    # ... and LO, MG and UI beside Task 3's AR and P@1 (not tested for significance).
    extras = OPENQA_EXTRAS if task.kind == "openqa" else []
    # LO has a value per topic too (MG and UI are shares of a run's answers: none per topic).
    with_lo = bool(extras) and chosen is not None and "lo" in chosen
    topic_columns = [*columns, *([("lo", "LO", "LO")] if with_lo else [])]
    for row in rows:
        row["extras"] = [
            (row.get(key), None if key == "lo" else _count(row.get(f"{key}_answers")))
            for key, _, _ in extras
        ]
    context = {
        "task": task,
        "qrels": qrels,
        "publication": selectors.publication_of(task) if staff else None,
        "versions": selectors.qrels_versions(task).filter(level="item") if staff else [],
        "job": job,
        "rows": rows,
        "not_scored": (selectors.runs_not_scored(task, qrels, user=request.user) if qrels else []),
        "average_notes": average_notes(rows) or [AVERAGE_TEXT[task.average]],
        "qrels_notice": qrels_notice(qrels, task),
        "unjudged_text": unjudged_rule(task.kind, task.official_measures),
        "first_answer": first_answer,
        "columns": columns,
        "extra_columns": extras,
        "not_scored_span": len(columns) + len(extras) + (4 if first_answer else 2),
        "measures_text": _measures_text(task),
        "measure": measure,
        "chosen": chosen,
        "topics": _topic_rows(chosen, [key for key, _, _ in topic_columns]),
        "topic_columns": topic_columns,
        "by_category": _by_category(task, qrels, rows, measure),
        "chart": _chart_data(rows, columns, chosen, measure),
        "significance": _significance(job, measure, chosen["run"] if chosen else None)
        if staff
        else {"pairs": [], "total": 0, "run": None},
        "reusability": job.reusability if staff and job else [],
        "downloads": list(DOWNLOADS),
    }
    return render(request, "evaluation/results.html", context)


OPENQA_EXTRAS = [
    ("lo", "LO", "Lexical Overlap: token F1 with the best-matching known relevant answer"),
    ("mg", "MG", "Share of the run's answers the assessors marked machine-generated"),
    (
        "ui",
        "UI",
        "Share of the run's answers the assessors marked as holding unrelated information",
    ),
]


def _count(value: object) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def _measures_text(task: RetrievalTask) -> str:
    """How a task with official measures (or a document task) is scored, in one sentence."""
    names = official_measure_names(task.kind, task.official_measures)
    if names is None:
        return ""
    # How unjudged results score is the page's next sentence (unjudged_text), said once.
    return (
        f"Official measures: {', '.join(names)} (trec_eval's; binary measures count grade "
        f"≥ {task.relevance_level} as relevant unless a name sets rel=)."
    )


def _by_category(
    task: RetrievalTask, qrels: QrelsVersion | None, rows: list[dict], measure: str
) -> dict | None:
    """The per-category table: its column groups and, per run, its mean in each subset."""
    subsets = results_by_category(task, qrels, rows, measure) if qrels else []
    if not subsets:
        return None
    groups: dict[str, int] = {}
    for subset in subsets:
        groups[subset.category] = groups.get(subset.category, 0) + 1
    return {
        "groups": list(groups.items()),
        "subsets": subsets,
        "runs": [
            {"run": row["run"], "means": [s.means[i] for s in subsets]}
            for i, row in enumerate(rows)
        ],
    }


def _topic_rows(chosen: dict | None, keys: list[str]) -> list[dict]:
    if chosen is None:
        return []
    answers = chosen.get("answers", {})
    return [
        {
            "topic": topic,
            "values": [values.get(k, 0.0) for k in keys],
            "answer": answers.get(topic, ""),
            **values,
        }
        for topic, values in sorted(chosen["per_topic"].items(), key=lambda tv: natural_key(tv[0]))
    ]


def _chart_data(rows: list[dict], columns: list, chosen: dict | None, measure: str) -> dict:
    topics = _topic_rows(chosen, [measure])
    return {
        "runs": [r["run"] for r in rows],
        "measures": [
            {"key": key, "label": label, "values": [r.get(key) for r in rows]}
            for key, label, _ in columns
        ],
        "topic_run": chosen["run"] if chosen else "",
        "topic_measure": next((label for key, label, _ in columns if key == measure), measure),
        "topics": [t["topic"] for t in topics],
        "topic_values": [t["values"][0] for t in topics],
    }


# Pairs the page lists whole; past that (400 runs make 79,800 pairs) it lists those of the
# chosen run, and the download has them all.
PAIRS_ON_PAGE = 45


def _significance(job: EvaluationJob | None, measure: str, run: str | None) -> dict[str, Any]:
    """The pairs shown for ``measure``, most significant first: all of them when few, else
    those involving ``run`` (the run chosen for the per-topic table)."""
    if job is None or job.status != EvaluationJob.Status.DONE:
        return {"pairs": [], "total": 0, "run": None}
    tests = job.significance.get("measures", {}).get(measure, [])
    shown = run if len(tests) > PAIRS_ON_PAGE else None
    if shown is not None:
        tests = [t for t in tests if shown in (t["a"], t["b"])]
    total = len(job.significance.get("measures", {}).get(measure, []))
    pairs = sorted(tests, key=lambda t: (t["t_p_holm"], t["a"], t["b"]))
    return {"pairs": pairs, "total": total, "run": shown}


@login_required
@require_GET
def results_download(request: HttpRequest, task_id: int, fmt: str) -> HttpResponse:
    task = task_for(request.user, task_id)
    if fmt == SIGNIFICANCE_DOWNLOAD:
        return _significance_download(request, task)
    if fmt not in DOWNLOADS:
        raise Http404("unknown format")
    if not results_open_to(request.user, task):
        raise PermissionDenied("results are not published yet")
    qrels = selectors.results_qrels(task, request.user, request.GET.get("qrels", ""))
    if qrels is None:
        raise Http404("no qrels for this task yet")
    job = selectors.latest_job(task, qrels)
    results = selectors.visible_results(task, qrels, user=request.user)
    columns = selectors.task_columns(task)
    rows = selectors.result_rows(results, job, qrels, columns, task=task)
    kind = task.kind
    body = (
        per_topic_csv(rows, kind, columns)
        if fmt == "topics"
        else RENDERERS[fmt](rows, kind, columns)
    )
    content_type, suffix = DOWNLOADS[fmt]
    response = HttpResponse(body, content_type=f"{content_type}; charset=utf-8")
    name = f"{task.campaign.name}-{task.name}-results-{qrels.checksum[:8]}.{suffix}"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _significance_download(request: HttpRequest, task: RetrievalTask) -> HttpResponse:
    """Every pair's tests of the latest finished evaluation, for organizers (as on the page)."""
    if not is_organizer(request.user):
        raise PermissionDenied("significance tests are for organizers")
    qrels = selectors.results_qrels(task, request.user, request.GET.get("qrels", ""))
    job = selectors.latest_job(task, qrels) if qrels is not None else None
    if qrels is None or job is None or job.status != EvaluationJob.Status.DONE:
        raise Http404("no finished evaluation for this task and qrels")
    body = significance_csv(job.significance.get("measures", {}))
    response = HttpResponse(body, content_type="text/csv; charset=utf-8")
    name = f"{task.campaign.name}-{task.name}-significance-{qrels.checksum[:8]}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response

"""The phases of bench/campaign.py, each through the app's own services.

Each returns (items done, note lines) for the phase's printout and keeps what later phases
need in ``state``; a result that contradicts another (qrels against the judgments submitted,
evaluated runs against uploaded ones) goes to ``state["problems"]``.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bench.campaign import Plan

CAMPAIGN = "ARQMath rehearsal"
State = dict[str, Any]
Result = tuple[int, list[str]]
KINDS = ("answer", "formula", "openqa")


def _problem(state: State, text: str) -> None:
    state.setdefault("problems", []).append(text)


def generate(plan: Plan, folder: Path, seed: int, state: State) -> Result:
    from bench.campaign_data import write_campaign_files
    from bench.collection_dump import write_dump

    start = time.perf_counter()
    dump = write_dump(folder / "collection", posts=plan.posts, formulas=plan.formulas)
    dumped = time.perf_counter() - start
    files = write_campaign_files(
        folder / "campaign",
        topics=plan.topics,
        runs=plan.runs,
        rows=plan.rows,
        openqa_runs=plan.openqa_runs,
        posts=plan.posts,
        formulas=plan.formulas,
        seed=seed,
    )
    state.update(dump=dump, files=files)
    sizes = ", ".join(
        f"{p.name} {p.stat().st_size / 2**20:,.0f} MiB"
        for p in (dump.posts, dump.comments, dump.formulas, dump.slt)
    )
    run_mb = sum(r.path.stat().st_size for r in files.runs) / 2**20
    c = dump.counts
    return 4 + len(files.runs) + len(files.topics), [
        f"collection: {c['threads']:,} threads, {c['posts']:,} posts, {c['comments']:,} "
        f"comments, {c['formulas']:,} formulas ({c['slt']:,} with MathML) in {dumped:.1f} s: "
        f"{sizes}",
        f"{len(files.runs)} run files ({sum(r.rows for r in files.runs):,} rows, "
        f"{run_mb:,.0f} MiB) and 3 topic files",
    ]


def import_file(role: str, state: State) -> Result:
    """One file through ``collection_import`` (its own transaction and ledger entry)."""
    from collection.services import collection_import

    dump = state["dump"]
    report = collection_import(**{role: getattr(dump, role)})
    (outcome,) = report.files
    tables = {"posts": ("threads", "posts"), "comments": ("comments",)}.get(role, (role,))
    counts = [
        f"{change.added:,} {t} added, {change.updated:,} updated"
        for t in tables
        if (change := outcome.changes.get(t)) is not None
    ]
    rows = report.slt if role == "slt" else getattr(report, role)
    return rows, [", ".join(counts)]


def import_topics(plan: Plan, state: State) -> Result:
    """Task 1 and Task 3 read the Task 1 topic file, Task 2 the Task 2 one."""
    from collection.models import Campaign, RetrievalTask
    from collection.services import topics_import

    topics = state["files"].topics
    created = 0
    for kind, path in (
        ("answer", topics["answer"]),
        ("formula", topics["formula"]),
        ("openqa", topics["answer"]),
    ):
        report = topics_import(
            path=path,
            campaign_name=CAMPAIGN,
            task=kind,
            formulas_latex=topics["formulas_latex"],
        )
        created += report.created
    campaign = Campaign.objects.get(name=CAMPAIGN)
    tasks = {t.kind: t for t in campaign.tasks.all()}
    # Organizer settings: pool depths for this scale, Task 3 joins Task 1's pools.
    RetrievalTask.objects.filter(campaign=campaign).update(**plan.depths)
    tasks["openqa"].answer_task = tasks["answer"]
    tasks["openqa"].save(update_fields=["answer_task"])
    state["tasks"] = {t.kind: t for t in campaign.tasks.all()}
    return created, [f"{len(tasks)} tasks of {plan.topics} topics each"]


def upload_runs(state: State) -> Result:
    """Every run file through ``run_submit``, one after another, as uploads arrive."""
    from django.contrib.auth.models import User

    from pooling.services.runs import run_submit, team_ensure

    organizer = User.objects.create(username="organizer", is_staff=True)
    tasks = state["tasks"]
    rows: Counter[str] = Counter()
    seconds: dict[str, float] = dict.fromkeys(KINDS, 0.0)
    state["run_ids"] = {}
    for run_file in state["files"].runs:
        team, _ = team_ensure(name=run_file.team)
        start = time.perf_counter()
        with run_file.path.open("rb") as stream:
            submission = run_submit(
                task=tasks[run_file.task],
                team=team,
                tag=run_file.tag,
                role=run_file.role,
                stream=stream,
                file_name=run_file.path.name,
                uploaded_by=organizer,
                ignore_deadline=True,
            )
        seconds[run_file.task] += time.perf_counter() - start
        rows[run_file.task] += submission.run.row_count
        state["run_ids"][run_file.tag] = submission.run.pk
    notes = [
        f"{kind}: {sum(1 for r in state['files'].runs if r.task == kind)} runs, "
        f"{rows[kind]:,} rows in {seconds[kind]:.2f} s = {rows[kind] / seconds[kind]:,.0f} rows/s"
        for kind in KINDS
    ]
    return sum(rows.values()), notes


def build_pools(kind: str, state: State) -> Result:
    """``pool_build`` of one task; then its pool statistics and hits export, uncached and
    cached (the pool figures at this size)."""
    from bench.pooling import pool_figure_times
    from pooling.models import Hit, PoolItem
    from pooling.services.pools import pool_build

    task = state["tasks"][kind]
    start = time.perf_counter()
    build = pool_build(task=task)
    built = time.perf_counter() - start
    pooled = state["tasks"]["answer"] if kind == "openqa" else task
    items = PoolItem.objects.filter(topic__task=pooled)
    if kind != "formula":
        qa = items.filter(key__startswith="qa-")
        items = qa if kind == "openqa" else items.exclude(key__startswith="qa-")
    hits = Hit.objects.filter(item__in=items).count()
    stats = build.stats
    notes = [
        f"build {built:.2f} s: {items.count():,} items, {hits:,} hits; topics recomputed "
        f"{stats.get('topics_recomputed', 0)}, skipped {stats.get('topics_skipped', 0)}"
    ]
    if kind != "openqa":
        notes += [
            f"pool {label}: uncached {uncached * 1000:,.0f} ms, cached {cached * 1000:,.1f} ms "
            "(goal < 300 ms)"
            for label, uncached, cached in pool_figure_times(task)
        ]
    return hits, notes


def assign(plan: Plan, seed: int, state: State) -> Result:
    from assessment.models import Assignment
    from bench.campaign_judging import assessors_create, assign

    people = assessors_create(plan.assessors, seed)
    tasks = [state["tasks"]["answer"], state["tasks"]["formula"]]
    made = assign(tasks, list(people), dual_share=plan.dual_share, seed=seed)
    state["profiles"] = {user.pk: profile for user, profile in people.items()}
    state["assignments"] = made
    purposes = Counter(a.purpose for a in made)
    dual = purposes[Assignment.Purpose.DUAL]
    return len(made), [
        f"{purposes[Assignment.Purpose.OFFICIAL]} official, {dual} dual over "
        f"{plan.assessors} assessors (Task 3's answers are judged in Task 1's assignments)"
    ]


def judge(seed: int, threads: int, state: State) -> Result:
    from assessment.models import Assignment
    from bench.campaign_judging import database_judgments, judge_all
    from bench.campaign_report import report_backend

    assignments = Assignment.objects.filter(
        pk__in=[a.pk for a in state["assignments"]]
    ).select_related("topic__task")
    start = time.perf_counter()
    tally = judge_all(list(assignments), state["profiles"], seed, threads)
    seconds = time.perf_counter() - start
    for backend in tally.backends:
        report_backend(backend)
    state["tally"] = tally
    stored = database_judgments()
    if stored != tally.judgments:
        _problem(state, f"{tally.judgments:,} judgments submitted, {stored:,} stored")
    ms = sorted(x * 1000 for x in tally.latencies)
    quantiles = statistics.quantiles(ms, n=100, method="inclusive") if len(ms) > 1 else ms * 99
    total = sum(tally.grades.values())
    mix = ", ".join(
        f"{key if isinstance(key, str) else f'grade {key}'} {n / total:.1%}"
        for key, n in sorted(tally.grades.items(), key=lambda kv: str(kv[0]))
    )
    submits = len(ms)
    return tally.judgments, [
        f"{submits:,} item submits by {min(threads, len(state['profiles']))} assessors at once, "
        f"{submits / seconds:,.0f} submits/s, {stored:,} judgments stored; per submit "
        f"p50 {quantiles[49]:.1f} / p95 {quantiles[94]:.1f} / p99 {quantiles[98]:.1f} ms",
        f"grades: {mix}",
    ]


def agreement(state: State) -> Result:
    from assessment.selectors.agreement import task_agreement

    notes = []
    shared = 0
    for kind in ("answer", "formula"):
        start = time.perf_counter()
        table = task_agreement(task=state["tasks"][kind])
        seconds = time.perf_counter() - start
        pooled = table.pooled[0].value if table.pooled else None
        kappa = f"{pooled:.3f}" if pooled is not None else "undefined"
        hits = table.pooled[0].n if table.pooled else 0
        shared += hits
        notes.append(
            f"{kind}: {seconds * 1000:,.0f} ms, {len(table.pairs)} pairs, {len(table.per_topic)} "
            f"topic pairs, {hits:,} shared hits, pooled 4-way kappa {kappa}"
        )
    return shared, notes


def export_qrels(state: State) -> Result:
    """``qrels_export`` of each task, compared row for row with the official verdicts."""
    from bench.campaign_judging import answer_runs_of, expected_qrels
    from evaluation.services.qrels import qrels_export
    from kernel.core.qrels import qrels_parse

    tally = state["tally"]
    answers = answer_runs_of(state["files"].answers, state["run_ids"])
    state["qrels"] = {}
    rows = 0
    notes = []
    for kind in KINDS:
        task = state["tasks"][kind]
        start = time.perf_counter()
        version = qrels_export(task=task)
        seconds = time.perf_counter() - start
        exported = set(qrels_parse(version.content))
        wanted = expected_qrels(
            tally,
            kind,
            min_relevant=task.min_relevant,
            relevant_from=task.relevance_level,
            answer_runs=answers,
        )
        same = exported == wanted
        if not same or not exported:
            _problem(
                state,
                f"{kind} qrels: {len(exported):,} rows exported, {len(wanted):,} expected from "
                f"the judgments ({len(exported - wanted)} unexpected, "
                f"{len(wanted - exported)} missing)",
            )
        state["qrels"][kind] = version
        rows += version.row_count
        notes.append(
            f"{kind}: {seconds * 1000:,.0f} ms, {version.row_count:,} rows over "
            f"{version.topic_count} topics, {len(version.dropped_topics)} dropped; equal to the "
            f"judgments submitted: {'yes' if same else 'NO'}"
        )
    return rows, notes


def evaluate(state: State) -> Result:
    """``evaluation_job_start`` per task: the job runs here (Celery eager) and scores every
    run, then the paired significance tests, bootstrap intervals and reusability."""
    from evaluation.core.measures import MEASURES, OPENQA_MEASURES
    from evaluation.models import EvaluationJob, EvaluationResult
    from evaluation.services.jobs import evaluation_job_start
    from pooling.models import Run

    notes = []
    scored = 0
    for kind in KINDS:
        task = state["tasks"][kind]
        start = time.perf_counter()
        job = evaluation_job_start(task=task, qrels=state["qrels"][kind])
        seconds = time.perf_counter() - start
        job.refresh_from_db()
        results = EvaluationResult.objects.filter(run__task=task, qrels=state["qrels"][kind])
        runs = Run.objects.filter(task=task).count()
        tests = sum(len(v) for v in (job.significance or {}).get("measures", {}).values())
        if job.status != EvaluationJob.Status.DONE or results.count() != runs:
            _problem(state, f"{kind} evaluation: {job.status}, {results.count()} of {runs} runs")
        measure = (OPENQA_MEASURES if kind == "openqa" else MEASURES)[0]
        best = max((r.measures.get(measure, 0.0) for r in results), default=0.0)
        scored += results.count()
        notes.append(
            f"{kind}: {seconds:.2f} s, {results.count()} of {runs} runs scored, {tests:,} paired "
            f"tests; best {measure} {best:.4f}"
        )
    return scored, notes

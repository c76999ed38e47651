"""Any trec_eval / ir_measures measure, by name, for run files: each run read, scored and
dropped in turn, in as many worker processes as there are CPUs."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from evaluation.core.measures import Average, formula_scores_by_visual_id
from evaluation.core.qrels import qrels_grades, qrels_read_path
from evaluation.core.ranking import Precision
from evaluation.core.runfiles.model import RunFileError
from evaluation.core.runfiles.reading import _formula_visual_ids, read_evaluation_run
from evaluation.core.trec_measures import MeasureEvaluator, parse_measures

# What each worker process scores runs with: set before the pool forks, so the workers share
# the parsed qrels and the evaluator instead of each reading them again.
_SCORING: _Scoring | None = None


@dataclass(frozen=True, slots=True)
class _Scoring:
    evaluator: MeasureEvaluator
    kind: str
    visual_ids: Mapping[str, str]
    average: Average
    per_topic: bool


def _measured_file(path: str | Path) -> dict[str, object]:
    """One run file read and scored: only its figures leave the worker, never its rows."""
    job = _SCORING
    if job is None:
        raise RuntimeError("_measured_file runs inside _measured_files only")
    run = read_evaluation_run(path, task_kind=job.kind)
    scores = (
        formula_scores_by_visual_id(run.rows, job.visual_ids)[0]
        if job.kind == "formula"
        else run.scores()
    )
    result = job.evaluator.evaluate(scores, average=job.average)
    return {
        "run": run.tag,
        "file": run.file,
        "format": run.format,
        "measures": result.measures,
        "topics": result.topics,
        "run_topics": result.run_topics,
        "average": job.average,
        "per_topic": {**result.per_topic, **result.missing} if job.per_topic else {},
    }


def default_workers() -> int:
    """The CPUs this process may run on: as many processes score runs at once."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _measured_files(
    paths: Sequence[str | Path], job: _Scoring, workers: int
) -> list[dict[str, object]]:
    """Every file's figures in the given order, ``workers`` processes reading and scoring one
    run each at a time: memory grows with the workers, not with the runs."""
    global _SCORING
    _SCORING = job
    try:
        workers = min(workers, len(paths))
        if workers <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            return [_measured_file(path) for path in paths]
        # fork: the workers inherit the evaluator; a pool of daemon processes, so a worker
        # never outlives the command, and the error of a bad file ends the pool.
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            return list(pool.imap(_measured_file, paths, chunksize=1))
    finally:
        _SCORING = None


def evaluate_run_files_measures(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    measure_names: Sequence[str],
    *,
    kind: str = "answer",
    formula_index: str | Path | None = None,
    average: Average = "all",
    relevance_level: int = 1,
    judged_only: bool = False,
    depth: int | None = None,
    precision: Precision = "double",
    per_topic: bool = True,
    workers: int | None = None,
) -> list[dict[str, object]]:
    """Any trec_eval / ir_measures measures for run files: one dict per run, in order, each
    run read, scored and dropped in turn.

    ``per_topic`` has every topic trec_eval ``-q`` prints: the run's qrels topics and, with
    ``average="all"`` (``-c``), the missing ones with the values they are scored with. Without
    ``per_topic`` it is left out, and what is kept per run is only its means. ``workers``
    processes (default: one per CPU this process may use) score runs at once."""
    if kind == "openqa":
        raise RunFileError("--measure is for ranked runs (--task answer, formula or document)")
    measures = parse_measures(measure_names)  # a bad name fails before any file is read
    grades = qrels_grades(qrels_read_path(qrels_path, trec_eval=True), kind=kind)  # type: ignore[arg-type]
    evaluator = MeasureEvaluator(
        grades,
        measures,
        relevance_level=relevance_level,
        judged_only=judged_only,
        depth=depth,
        precision=precision,
    )
    visual_ids = _formula_visual_ids(run_paths, formula_index) if kind == "formula" else {}
    job = _Scoring(evaluator, kind, visual_ids, average, per_topic)
    return _measured_files(run_paths, job, default_workers() if workers is None else workers)

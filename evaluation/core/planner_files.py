"""The pool planner's files: prior qrels, run files, the list of pool runs and the groups TSV.

Runs are read as ``manage.py evaluate`` reads them (``evaluation.core.runfiles``: any TREC run,
gzip or not); qrels as every qrels file is (``kernel.core.qrels``). Errors name the file, the
line and what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from sys import intern

from evaluation.core.pool_planner import PlannerInput
from evaluation.core.qrels import QrelsFormatError, qrels_grades, qrels_parse, qrels_read_path
from evaluation.core.ranking import trec_ranking
from evaluation.core.runfiles import RunFileError, read_evaluation_run
from evaluation.core.trec_measures import parse_measures


class PlannerFileError(ValueError):
    """A planner input file that cannot be used; the message names file and line."""


def _lines(path: str | Path) -> list[tuple[int, str]]:
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise PlannerFileError(f"{path}: cannot be read ({error})") from None
    return [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]


def read_pool_tags(path: str | Path, known: Sequence[str]) -> list[str]:
    """Run tags, one a line (blank lines and ``#`` comments skipped), each a given run's."""
    tags: list[str] = []
    for number, line in _lines(path):
        tag = line.split("#", 1)[0].strip()
        if not tag:
            continue
        if tag not in known:
            raise PlannerFileError(f"{path}: line {number}: run tag {tag!r} is not a given run")
        if tag not in tags:
            tags.append(tag)
    if not tags:
        raise PlannerFileError(f"{path}: lists no run tag")
    return tags


def read_groups(path: str | Path) -> dict[str, str]:
    """``tag<TAB>group`` lines: run tag -> its group (its team)."""
    groups: dict[str, str] = {}
    for number, line in _lines(path):
        fields = line.rstrip("\r\n").split("\t")
        if len(fields) != 2 or not fields[0].strip() or not fields[1].strip():
            raise PlannerFileError(
                f"{path}: line {number}: expected 'run tag<TAB>group', got {line!r}"
            )
        tag, group = fields[0].strip(), fields[1].strip()
        if groups.get(tag, group) != group:
            raise PlannerFileError(f"{path}: line {number}: run tag {tag!r} is in two groups")
        groups[tag] = group
    return groups


def planner_input_read(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    measure_names: Sequence[str],
    *,
    pool_runs: str | Path | None = None,
    groups: str | Path | None = None,
) -> PlannerInput:
    """Read everything the planner needs; the runs are kept for the qrels' topics only."""
    measures = parse_measures(measure_names)  # a bad name fails before any file is read
    try:
        grades = qrels_grades(qrels_read_path(qrels_path), kind="answer")
    except QrelsFormatError as error:
        raise PlannerFileError(f"{qrels_path}: {error}") from None
    if not grades:
        raise PlannerFileError(f"{qrels_path}: has no judgments")
    runs: dict[str, dict[str, dict[str, float]]] = {}
    files: dict[str, str] = {}
    for path in run_paths:
        run = read_evaluation_run(path, task_kind="document")
        if run.tag in runs:
            raise RunFileError(f"{path}: run tag {run.tag!r} is also the tag of {files[run.tag]}")
        files[run.tag] = str(path)
        scores = run.scores()
        # One string per docno, shared by every run that retrieved it: 143 runs of 30,000
        # rows hold a fraction of the distinct docnos, and the memory follows. Each topic is
        # kept as trec_eval ranks it, what the planner scores many times over.
        runs[run.tag] = {
            t: trec_ranking({intern(d): score for d, score in scores[t].items()})
            for t in grades
            if t in scores
        }
    tags = sorted(runs)
    pool_tags = read_pool_tags(pool_runs, tags) if pool_runs is not None else tags
    group_of = read_groups(groups) if groups is not None else {}
    return PlannerInput(
        grades=grades,
        runs=runs,
        pool_tags=pool_tags,
        groups={tag: group_of.get(tag, tag) for tag in tags},
        measures=measures,
    )


def prior_grades(
    text: str, *, relevance_only: bool, name: str = "the file"
) -> dict[str, dict[str, int]]:
    """The prior judgments of an uploaded file: topic -> docno -> grade.

    A qrels file (``topic iteration docno grade``) is read as every qrels file is. A
    relevance-only file lists the relevant documents alone, ``topic docno`` a line (a qrels
    line is read as its topic and docno): each is graded 1, and a document it does not list
    counts as not relevant, as a document outside any prior qrels does in the planner."""
    if not relevance_only:
        try:
            grades = qrels_grades(qrels_parse(text, trec_eval=True), kind="document")
        except QrelsFormatError as error:
            raise PlannerFileError(f"{name}: {error}") from None
    else:
        grades = {}
        for number, line in enumerate(text.removeprefix("\ufeff").splitlines(), start=1):
            fields = line.split()
            if not fields:
                continue
            if len(fields) not in (2, 4):
                raise PlannerFileError(
                    f"{name}, line {number}: expected 'topic docno' (2 columns) or a qrels line "
                    f"(4), found {len(fields)} columns"
                )
            topic, doc = (fields[0], fields[1]) if len(fields) == 2 else (fields[0], fields[2])
            grades.setdefault(topic, {})[doc] = 1
    if not grades:
        raise PlannerFileError(f"{name}: has no judgments")
    return grades

"""Run files and formula indexes read for evaluation: no Django.

Evaluation needs only (topic, doc, score) in file order, every row kept (the protocol itself
deduplicates: first row wins in Task 1, the last score in Task 2). Valid files take a fast
path (one split per line, ~4x faster than the full validator: 40 runs x 100,000 rows is the
common case); anything the fast path cannot read is handed to the run parser of the pooling
app, ``pooling.core.formats.read_run_path``, whose line-numbered report becomes the error.
"""

from __future__ import annotations

import gzip
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.core.answers import AnswerMap, answer_map_read
from evaluation.core.measures import (
    Average,
    PrimeEvaluator,
    RankedRow,
    RunRow,
    RunScores,
    Scores,
    best_ranked,
    dedup_first,
    evaluate_formula_run,
    evaluate_openqa_answers,
    formula_scores_by_visual_id,
)
from evaluation.core.qrels import TaskKind, qrels_grades, qrels_read_path
from evaluation.core.trec_measures import MeasureEvaluator, parse_measures
from pooling.core.formats import ParsedRun, RunContext, RunFormat, detect_format, read_run_path

# (topic, doc, score, tag) columns of each layout; Task 3's doc is the topic (one answer each).
COLUMNS: dict[RunFormat, tuple[int, int, int, int]] = {
    RunFormat.ARQMATH_ANSWER: (0, 1, 3, 4),
    RunFormat.ARQMATH_FORMULA: (0, 1, 4, 5),
    RunFormat.TREC: (0, 2, 4, 5),
}
WIDTH = {RunFormat.ARQMATH_ANSWER: 5, RunFormat.ARQMATH_FORMULA: 6, RunFormat.TREC: 6}
RANK_COLUMN = {RunFormat.ARQMATH_ANSWER: 2, RunFormat.TREC: 3}  # ranked reads (Task 3 measures)
TOLERATED = "repeated"  # the protocol deduplicates, so repeated docs are not an error here


class RunFileError(ValueError):
    """A run file that cannot be evaluated; the message lists its problems by line."""


@dataclass(slots=True)
class EvaluationRun:
    """A run read for evaluation: its rows in file order, or (answer and open-QA runs read on
    the fast path) already deduplicated scores, first row wins."""

    file: str
    tag: str
    format: str
    rows: list[RunRow] = field(default_factory=list)
    deduplicated: Scores | None = None
    ranked: list[RankedRow] = field(default_factory=list)  # Task 3 measures only

    def scores(self) -> Scores:
        return self.deduplicated if self.deduplicated is not None else dedup_first(self.rows)


def _lines_and_format(path: Path, task_kind: str | None) -> tuple[list[str], RunFormat | None]:
    """The file's lines (gunzipped) and its layout; ``None`` when it cannot be told here."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        text = data.decode("utf-8-sig")  # a byte order mark is not part of the first topic
    except UnicodeDecodeError:
        return [], None
    if not text.isascii():
        return [], None  # float() reads non-ASCII digits; the validator (_validated) does not
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), None)
    return lines, detect_format(first.encode().split(), task_kind) if first is not None else None


def read_evaluation_run(path: str | Path, *, task_kind: str | None = None) -> EvaluationRun:
    """Read a run file (any layout the run parser accepts, gzip or not) for evaluation."""
    path = Path(path)
    lines, run_format = _lines_and_format(path, task_kind)
    if run_format in COLUMNS and task_kind != "formula":
        scored = _fast_scores(lines, run_format)  # type: ignore[arg-type]
        if scored is not None:
            return EvaluationRun(path.name, scored[0], run_format.value, deduplicated=scored[1])  # type: ignore[union-attr]
    elif run_format in COLUMNS:
        fast = _fast_rows(lines, run_format)  # type: ignore[arg-type]
        if fast is not None:
            return EvaluationRun(path.name, fast[0], run_format.value, fast[1])  # type: ignore[union-attr]
    return _validated(path, task_kind)


def _fast_scores(lines: list[str], run_format: RunFormat) -> tuple[str, Scores] | None:
    """Like ``_fast_rows`` but deduplicating as it reads (first row wins): the hot path."""
    t, d, s, g = COLUMNS[run_format]
    width = WIDTH[run_format]
    scores: Scores = {}
    current: str | None = None
    docs: dict[str, float] = {}
    tag: str | None = None
    try:
        for line in lines:
            fields = line.split()
            if len(fields) != width:
                if not fields:
                    continue
                return None
            if fields[g] != tag:
                if tag is not None:
                    return None
                tag = fields[g]
            if fields[t] != current:  # rows come grouped by topic: one lookup per topic
                current = fields[t]
                docs = scores.setdefault(current, {})
            if fields[d] not in docs:
                score = float(fields[s])
                if "_" in fields[s] or score - score:  # 1_000, nan, inf: trec_eval's rule
                    return None
                docs[fields[d]] = score
    except ValueError:
        return None
    return (tag or ""), scores


def _fast_rows(lines: list[str], run_format: RunFormat) -> tuple[str, list[RunRow]] | None:
    """All rows of a well-formed file, or None at the first line that is not."""
    t, d, s, g = COLUMNS[run_format]
    width = WIDTH[run_format]
    rows: list[RunRow] = []
    append = rows.append
    tag: str | None = None
    try:
        for line in lines:
            fields = line.split()
            if len(fields) != width:
                if not fields:
                    continue
                return None
            if fields[g] != tag:
                if tag is not None:
                    return None
                tag = fields[g]
            score = float(fields[s])
            if "_" in fields[s] or score - score:  # 1_000, nan, inf: trec_eval's rule
                return None
            append((fields[t], fields[d], score))
    except ValueError:
        return None
    return (tag or ""), rows


def _parsed(path: Path, task_kind: str | None = None) -> ParsedRun:
    parsed = read_run_path(path, context=RunContext(task_kind=task_kind))
    fatal = [p for p in parsed.errors if TOLERATED not in p.message]
    if fatal or parsed.format is None:
        listed = "; ".join(
            f"line {p.line}: {p.message}" if p.line else p.message for p in fatal[:10]
        )
        raise RunFileError(f"{path.name}: {listed or 'unreadable run file'}")
    return parsed


def _validated(path: Path, task_kind: str | None) -> EvaluationRun:
    parsed = _parsed(path)
    rows = [(r.topic, r.doc, r.score) for r in parsed.rows]
    return EvaluationRun(path.name, parsed.tag, parsed.format.value, rows)  # type: ignore[union-attr]


def read_answer_run(path: str | Path, *, answer_map: AnswerMap | None = None) -> EvaluationRun:
    """Read a run for Task 3 measures, keeping ranks (``EvaluationRun.ranked``).

    A native Task 3 file (``topic rank score run sources answer``) has no answer ids: each
    (run tag, topic) takes its id from ``answer_map``. A Task 1 or TREC run names its answers
    (post ids or answer ids) itself; its best-ranked one per topic is scored."""
    path = Path(path)
    lines, run_format = _lines_and_format(path, None)
    if run_format in RANK_COLUMN:
        fast = _fast_ranked(lines, run_format)  # type: ignore[arg-type]
        if fast is not None:
            return EvaluationRun(path.name, fast[0], run_format.value, ranked=fast[1])  # type: ignore[union-attr]
    try:
        parsed = _parsed(path)
    except RunFileError as error:
        # Told apart from the first line alone, a native Task 3 row with an empty sources
        # column looks like a Task 1 row; read as Task 3 it may be fine.
        try:
            parsed = _parsed(path, "openqa")
        except RunFileError:
            raise error from None
    if parsed.format is not RunFormat.ARQMATH_OPENQA:
        ranked = [(r.topic, r.doc, r.rank, r.score) for r in parsed.rows]
        return EvaluationRun(path.name, parsed.tag, parsed.format.value, ranked=ranked)  # type: ignore[union-attr]
    if answer_map is None:
        raise RunFileError(
            f"{path.name}: a native Task 3 run has no answer ids; "
            "give --answer-map FILE (run tag, topic, answer id)"
        )
    missing = sorted({r.topic for r in parsed.rows if (parsed.tag, r.topic) not in answer_map})
    if missing:
        shown = ", ".join(missing[:10]) + (
            f" and {len(missing) - 10} more" if len(missing) > 10 else ""
        )
        raise RunFileError(
            f"{path.name}: the answer map has no id for run {parsed.tag} topic {shown}"
        )
    ranked = [(r.topic, answer_map[(parsed.tag, r.topic)], r.rank, r.score) for r in parsed.rows]
    return EvaluationRun(path.name, parsed.tag, parsed.format.value, ranked=ranked)


def _fast_ranked(lines: list[str], run_format: RunFormat) -> tuple[str, list[RankedRow]] | None:
    """(topic, doc, rank, score) of a well-formed Task 1 or TREC file, or None."""
    t, d, s, g = COLUMNS[run_format]
    r = RANK_COLUMN[run_format]
    width = WIDTH[run_format]
    rows: list[RankedRow] = []
    tag: str | None = None
    try:
        for line in lines:
            fields = line.split()
            if len(fields) != width:
                if not fields:
                    continue
                return None
            if tag is None:
                tag = fields[g]
            elif fields[g] != tag:
                return None
            rows.append((fields[t], fields[d], int(fields[r]), float(fields[s])))
    except ValueError:
        return None
    return (tag or ""), rows


def formula_ids_of(runs: Collection[EvaluationRun]) -> set[str]:
    return {doc for run in runs for _, doc, _ in run.rows}


def read_formula_index(path: str | Path, wanted: Collection[str] | None = None) -> dict[str, str]:
    """formula id -> visual id from an ARQMath formula index TSV, streamed.

    v3 files have 9 columns (``id post_id thread_id type comment_id old_visual_id visual_id
    issue formula``); the older 5-column form has no visual id, so the LaTeX with white space
    removed stands in for it (docs/runs.md). Only ``wanted`` ids are kept.
    """
    visual_ids: dict[str, str] = {}
    for fields in _index_lines(Path(path)):
        if not fields[0].isdigit() or (wanted is not None and fields[0] not in wanted):
            continue  # header, or a formula no run retrieved
        if len(fields) >= 9:
            visual_ids[fields[0]] = fields[6]
        elif len(fields) == 5:
            visual_ids[fields[0]] = "".join(fields[4].split())
    return visual_ids


def _index_lines(path: Path) -> Iterator[list[str]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8-sig", newline="") as stream:  # type: ignore[operator]
        for line in stream:
            yield line.rstrip("\r\n").split("\t")


def evaluate_run_files(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    *,
    kind: TaskKind = "answer",
    formula_index: str | Path | None = None,
    average: Average = "all",
    answer_map: str | Path | None = None,
) -> list[dict[str, object]]:
    """Evaluate run files against a qrels file: one plain dict per run, in the given order."""
    if answer_map is not None and kind != "openqa":
        raise RunFileError("--answer-map is for --task openqa (native Task 3 run files)")
    grades = qrels_grades(qrels_read_path(qrels_path), kind=kind)
    results: list[RunScores] = []
    if kind == "openqa":
        mapping = answer_map_read(answer_map) if answer_map is not None else None
        runs = [read_answer_run(path, answer_map=mapping) for path in run_paths]
        results = [
            evaluate_openqa_answers(r.tag, best_ranked(r.ranked), grades, average=average)
            for r in runs
        ]
    else:
        runs = [read_evaluation_run(path, task_kind=kind) for path in run_paths]
        evaluator = PrimeEvaluator(grades)
        if kind == "formula":
            if formula_index is None:
                raise RunFileError("formula runs need --formula-index to map ids to visual ids")
            visual_ids = read_formula_index(formula_index, formula_ids_of(runs))
            results = [
                evaluate_formula_run(r.tag, r.rows, evaluator, visual_ids, average=average)
                for r in runs
            ]
        else:
            results = [evaluator.evaluate(r.tag, r.scores(), average=average) for r in runs]
    return [
        {"file": run.file, "format": run.format, **result.as_dict()}
        for run, result in zip(runs, results, strict=True)
    ]


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
) -> list[dict[str, object]]:
    """Any trec_eval / ir_measures measures for run files: one dict per run, in order.

    ``per_topic`` has every topic trec_eval ``-q`` prints: the run's qrels topics and, with
    ``average="all"`` (``-c``), the missing ones with the values they are scored with."""
    if kind == "openqa":
        raise RunFileError("--measure is for ranked runs (--task answer, formula or document)")
    measures = parse_measures(measure_names)  # a bad name fails before any file is read
    # Document qrels follow the answer task's rules (a flag code is unjudged).
    grades = qrels_grades(
        qrels_read_path(qrels_path), kind="formula" if kind == "formula" else "answer"
    )
    runs = [read_evaluation_run(path, task_kind=kind) for path in run_paths]
    evaluator = MeasureEvaluator(
        grades, measures, relevance_level=relevance_level, judged_only=judged_only, depth=depth
    )
    visual_ids: dict[str, str] = {}
    if kind == "formula":
        if formula_index is None:
            raise RunFileError("formula runs need --formula-index to map ids to visual ids")
        visual_ids = read_formula_index(formula_index, formula_ids_of(runs))
    found: list[dict[str, object]] = []
    for run in runs:
        scores = (
            formula_scores_by_visual_id(run.rows, visual_ids)[0]
            if kind == "formula"
            else run.scores()
        )
        result = evaluator.evaluate(scores, average=average)
        found.append(
            {
                "run": run.tag,
                "file": run.file,
                "format": run.format,
                "measures": result.measures,
                "topics": result.topics,
                "run_topics": result.run_topics,
                "average": average,
                "per_topic": {**result.per_topic, **result.missing},
            }
        )
    return found

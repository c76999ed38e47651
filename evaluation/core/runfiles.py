"""Run files and formula indexes read for evaluation: no Django.

Evaluation needs only (topic, doc, score) in file order, every row kept (the protocol itself
deduplicates: first row wins in Task 1, the last score in Task 2). Valid files take a fast
path (one split per line, ~4x faster than the full validator: 40 runs x 100,000 rows is the
common case); anything the fast path cannot read is handed to the run parser of the pooling
app, ``pooling.core.formats.read_run_path``, whose line-numbered report becomes the error.
"""

from __future__ import annotations

import gzip
import io
import multiprocessing
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.core.answer_questions import (
    marks_from_judgments_csv,
    question_shares,
    shares_note,
)
from evaluation.core.answers import AnswerMap, answer_map_read
from evaluation.core.formula_ids import read_formula_index
from evaluation.core.lexical_overlap import DEFAULT_TOKENIZER, Bags, Reference, lexical_overlap
from evaluation.core.measures import (
    Average,
    PrimeEvaluator,
    RankedRow,
    RunRow,
    Scores,
    best_ranked,
    dedup_first,
    evaluate_formula_run,
    evaluate_openqa_answers,
    formula_scores_by_visual_id,
)
from evaluation.core.qrels import TaskKind, qrels_grades, qrels_read_path
from evaluation.core.ranking import Precision
from evaluation.core.trec_measures import MeasureEvaluator, parse_measures
from evaluation.core.trec_runs import first_fields, is_trec_line, trec_eval_lines
from kernel.core.grades import ARQMATH_RELEVANCE_LEVEL, MAX_GRADE
from pooling.core.algorithms.openqa import answer_key
from pooling.core.formats import (
    ParsedRun,
    RunContext,
    RunFormat,
    detect_format,
    read_run,
    read_run_path,
)
from pooling.core.formats.rows import trec_score

try:  # built by `pip install -e .` (setup.py) where a C compiler is; else Python reads alone
    from evaluation.core._run_scores import run_scores
except ImportError:  # pragma: no cover - depends on the install
    run_scores = None  # type: ignore[assignment]

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
    texts: dict[str, str] = field(default_factory=dict)  # native Task 3: answer id -> text

    def scores(self) -> Scores:
        return self.deduplicated if self.deduplicated is not None else dedup_first(self.rows)


def _text_and_format(path: Path, task_kind: str | None) -> tuple[str, RunFormat | None]:
    """The file's text (gunzipped) and its layout; ``("", None)`` when it cannot be told here.

    Read as trec_eval reads a run: ``#`` lines are skipped, and a TREC line (``Q0`` second, or
    any line of a document task) may have columns after the run tag, ignored."""
    data = path.read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        text = data.decode("utf-8-sig")  # a byte order mark is not part of the first topic
    except UnicodeDecodeError:
        return "", None
    if not text.isascii():
        return "", None  # float() reads non-ASCII digits; the validator (_validated) does not
    # The first line that is neither blank nor a comment tells the layout. It is usually near
    # the top: the whole file is split into lines here only when the head's whole lines (a
    # line cut at the head's end would show too few fields) hold none.
    head = text if len(text) <= _HEAD else text[: text.rfind("\n", 0, _HEAD) + 1]
    first = first_fields(head.splitlines()) or first_fields(text.splitlines())
    if first is None:
        return text, None
    if is_trec_line(first, task_kind):
        return text, RunFormat.TREC
    return text, detect_format([f.encode() for f in first], task_kind)


_HEAD = 65_536


def _lines_and_format(path: Path, task_kind: str | None) -> tuple[list[str], RunFormat | None]:
    """``_text_and_format``, the text as lines."""
    text, run_format = _text_and_format(path, task_kind)
    return text.splitlines(), run_format


def read_evaluation_run(path: str | Path, *, task_kind: str | None = None) -> EvaluationRun:
    """Read a run file (any layout the run parser accepts, gzip or not) for evaluation."""
    path = Path(path)
    text, run_format = _text_and_format(path, task_kind)
    if run_format in COLUMNS and task_kind != "formula":
        scored = _compiled_scores(text, run_format)  # type: ignore[arg-type]
        if scored is None:
            scored = _fast_scores(text.splitlines(), run_format)  # type: ignore[arg-type]
        if scored is not None:
            return EvaluationRun(path.name, scored[0], run_format.value, deduplicated=scored[1])  # type: ignore[union-attr]
    lines = text.splitlines()
    if run_format in COLUMNS and task_kind == "formula":
        fast = _fast_rows(lines, run_format)  # type: ignore[arg-type]
        if fast is not None:
            return EvaluationRun(path.name, fast[0], run_format.value, fast[1])  # type: ignore[union-attr]
    return _validated(path, lines, run_format)


def _compiled_scores(text: str, run_format: RunFormat) -> tuple[str, Scores] | None:
    """``_fast_scores`` in C (``_run_scores.c``) when that module is built; None when it is
    not, or when the file holds anything it leaves to the Python readers to decide."""
    if run_scores is None:
        return None
    t, d, s, g = COLUMNS[run_format]
    return run_scores(text, WIDTH[run_format], t, d, s, g, run_format is RunFormat.TREC)


def _fast_scores(lines: list[str], run_format: RunFormat) -> tuple[str, Scores] | None:
    """Like ``_fast_rows`` but deduplicating as it reads (first row wins): the hot path.

    The loop keeps each first score's text; each topic's scores are then converted at once
    (``_topic_scores``), so a row costs one split and two dict lookups, no function call."""
    t, d, s, g = COLUMNS[run_format]
    width = WIDTH[run_format]
    loose = run_format is RunFormat.TREC  # trec_eval ignores columns after the tag
    texts: dict[str, dict[str, str]] = {}
    current: str | None = None
    docs: dict[str, str] = {}
    tag: str | None = None
    for line in lines:
        fields = line.split()
        if len(fields) != width and not (loose and len(fields) > width):
            if not fields or fields[0][0] == "#":
                continue
            return None
        if fields[t] != current:  # rows come grouped by topic: one lookup per topic
            if fields[0][0] == "#":
                continue  # a comment line, as trec_eval skips it
            current = fields[t]
            docs = texts.setdefault(current, {})
        if fields[g] != tag:
            if tag is not None:
                return None
            tag = fields[g]
        if fields[d] not in docs:
            docs[fields[d]] = fields[s]
    scores: Scores = {}
    for topic, found in texts.items():
        converted = _topic_scores(found)
        if converted is None:
            return None
        scores[topic] = converted
    return (tag or ""), scores


def _topic_scores(texts: dict[str, str]) -> dict[str, float] | None:
    """``trec_score`` over a topic's score texts at once: None if any is not a plain finite
    number (the caller then reports the line)."""
    try:
        values = list(map(float, texts.values()))
    except ValueError:
        return None
    total = sum(values)  # finite unless some value is inf or NaN (or the sum overflows)
    if total - total != 0.0 or "_" in "".join(texts.values()):
        return None
    return dict(zip(texts, values, strict=True))


def _fast_rows(lines: list[str], run_format: RunFormat) -> tuple[str, list[RunRow]] | None:
    """All rows of a well-formed file, or None at the first line that is not."""
    t, d, s, g = COLUMNS[run_format]
    width = WIDTH[run_format]
    loose = run_format is RunFormat.TREC
    rows: list[RunRow] = []
    append = rows.append
    tag: str | None = None
    for line in lines:
        fields = line.split()
        if len(fields) != width and not (loose and len(fields) > width):
            if not fields or fields[0][0] == "#":
                continue
            return None
        if fields[0][0] == "#":
            continue
        if fields[g] != tag:
            if tag is not None:
                return None
            tag = fields[g]
        score = trec_score(fields[s])
        if score != score:
            return None
        append((fields[t], fields[d], score))
    return (tag or ""), rows


def _parsed(path: Path, task_kind: str | None = None, lines: list[str] | None = None) -> ParsedRun:
    context = RunContext(task_kind=task_kind)
    if lines:  # read as trec_eval does: comments blanked, TREC lines cut after the tag
        text = "\n".join(trec_eval_lines(lines, trec=task_kind == "document"))
        parsed = read_run(io.BytesIO(text.encode()), name=path.name, context=context)
    else:
        parsed = read_run_path(path, context=context)
    fatal = [p for p in parsed.errors if TOLERATED not in p.message]
    if fatal or parsed.format is None:
        listed = "; ".join(
            f"line {p.line}: {p.message}" if p.line else p.message for p in fatal[:10]
        )
        raise RunFileError(f"{path.name}: {listed or 'unreadable run file'}")
    return parsed


def _validated(path: Path, lines: list[str], run_format: RunFormat | None) -> EvaluationRun:
    parsed = _parsed(path, "document" if run_format is RunFormat.TREC else None, lines)
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
    try:  # a TREC run is read as trec_eval reads it (see _lines_and_format)
        trec = run_format is RunFormat.TREC
        parsed = _parsed(path, "document", lines) if trec else _parsed(path)
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
    rows = parsed.rows
    ranked = [(r.topic, answer_map[(parsed.tag, r.topic)], r.rank, r.score) for r in rows]
    texts = {answer_map[(parsed.tag, r.topic)]: r.answer for r in rows}
    return EvaluationRun(path.name, parsed.tag, parsed.format.value, ranked=ranked, texts=texts)


def _fast_ranked(lines: list[str], run_format: RunFormat) -> tuple[str, list[RankedRow]] | None:
    """(topic, doc, rank, score) of a well-formed Task 1 or TREC file, or None."""
    t, d, s, g = COLUMNS[run_format]
    r = RANK_COLUMN[run_format]
    width = WIDTH[run_format]
    loose = run_format is RunFormat.TREC
    rows: list[RankedRow] = []
    tag: str | None = None
    for line in lines:
        fields = line.split()
        if len(fields) != width and not (loose and len(fields) > width):
            if not fields or fields[0][0] == "#":
                continue
            return None
        if fields[0][0] == "#":
            continue
        if tag is None:
            tag = fields[g]
        elif fields[g] != tag:
            return None
        score = trec_score(fields[s])
        if score != score or not fields[r].isdigit():
            return None
        rows.append((fields[t], fields[d], int(fields[r]), score))
    return (tag or ""), rows


def _formula_visual_ids(
    run_paths: Sequence[str | Path], formula_index: str | Path | None
) -> dict[str, str]:
    """Visual ids of the formulas the runs retrieved: a first pass keeps only their ids."""
    if formula_index is None:
        raise RunFileError("formula runs need --formula-index to map ids to visual ids")
    wanted: set[str] = set()
    for path in run_paths:
        wanted.update(doc for _, doc, _ in read_evaluation_run(path, task_kind="formula").rows)
    return read_formula_index(formula_index, wanted)


def _evaluated_runs(
    run_paths: Sequence[str | Path], kind: str, answer_map: AnswerMap | None
) -> Iterator[EvaluationRun]:
    """Each run read in turn, so only one run's rows are held at a time."""
    for path in run_paths:
        if kind == "openqa":
            yield read_answer_run(path, answer_map=answer_map)
        else:
            yield read_evaluation_run(path, task_kind=kind)


def evaluate_run_files(
    qrels_path: str | Path,
    run_paths: Sequence[str | Path],
    *,
    kind: TaskKind = "answer",
    formula_index: str | Path | None = None,
    average: Average = "all",
    answer_map: str | Path | None = None,
    precision: Precision = "double",
    teams: Mapping[str, str] | None = None,
    tokenizer: str = DEFAULT_TOKENIZER,
    judgments: str | Path | None = None,
) -> list[dict[str, object]]:
    """Evaluate run files against a qrels file: one plain dict per run, in the given order.

    Runs are read, scored and dropped one at a time: memory does not grow with their number
    (native Task 3 runs keep their scored answers' texts, one per topic, for Lexical Overlap:
    ``teams`` maps run tags to teams, whose own answers are no references; a run missing from
    it is a team of its own; ``judgments``, the app's judgments CSV, gives their MG and UI)."""
    if answer_map is not None and kind != "openqa":
        raise RunFileError("--answer-map is for --task openqa (native Task 3 run files)")
    grades = qrels_grades(qrels_read_path(qrels_path, trec_eval=True), kind=kind)
    mapping = answer_map_read(answer_map) if answer_map is not None else None
    evaluator = PrimeEvaluator(grades, precision=precision) if kind != "openqa" else None
    visual_ids = _formula_visual_ids(run_paths, formula_index) if kind == "formula" else {}
    found: list[dict[str, object]] = []
    texts: dict[str, dict[str, str]] = {}  # run tag -> topic -> its scored answer's text
    for run in _evaluated_runs(run_paths, kind, mapping):
        if evaluator is None:
            answers = best_ranked(run.ranked)
            result = evaluate_openqa_answers(run.tag, answers, grades, average=average)
            if run.texts:
                texts[run.tag] = {t: run.texts[a] for t, a in answers.items() if a in run.texts}
        elif kind == "formula":
            result = evaluate_formula_run(run.tag, run.rows, evaluator, visual_ids, average=average)
        else:
            result = evaluator.evaluate(run.tag, run.scores(), average=average)
        found.append({"file": run.file, "format": run.format, **result.as_dict()})
    if texts and len(texts) == len(found):
        _add_lexical_overlap(found, texts, grades, teams or {}, tokenizer, mapping or {})
        if judgments is not None:
            _add_question_shares(found, texts, Path(judgments))
    elif judgments is not None:
        raise RunFileError("--judgments needs native Task 3 runs (their answers' texts)")
    return found


def _add_question_shares(
    found: list[dict[str, object]], texts: Mapping[str, Mapping[str, str]], path: Path
) -> None:
    """MG and UI of every native Task 3 run: its answers are found in the judgments by their
    pool item key (the digest of the text, as the app pools them)."""
    marks, asked = marks_from_judgments_csv(path.read_text(encoding="utf-8"), name=path.name)
    for row in found:
        keys = {topic: answer_key(text) for topic, text in texts[str(row["run"])].items()}
        for code, share in question_shares(keys, marks, dict(asked)).items():
            if share.value is not None:
                row[code] = share.value
            row[f"{code}_answers"] = share.answered
        notes = row.get("notes")
        if isinstance(notes, list) and asked:
            notes.append(shares_note(dict(asked)))


def _add_lexical_overlap(
    found: list[dict[str, object]],
    texts: Mapping[str, Mapping[str, str]],
    grades: Mapping[str, Mapping[str, int]],
    teams: Mapping[str, str],
    tokenizer: str,
    answer_map: Mapping[tuple[str, str], str],
) -> None:
    """LO of every native Task 3 run against the relevant (H+M) answers of the other teams'
    runs given (their texts are all the files hold; Task 1 answers need the collection)."""
    team_ids = {name: i for i, name in enumerate(sorted(set(teams.values())))}

    def team(tag: str) -> int:
        return team_ids[teams[tag]] if tag in teams else len(team_ids) + sorted(texts).index(tag)

    references: dict[str, list[Reference]] = {}
    for tag, answers in texts.items():
        for topic, text in answers.items():
            grade = grades.get(topic, {}).get(answer_map.get((tag, topic), ""))
            if grade is not None and ARQMATH_RELEVANCE_LEVEL <= grade <= MAX_GRADE:
                references.setdefault(topic, []).append(Reference(text, team=team(tag)))
    bags = Bags(tokenizer)
    for row in found:
        tag = str(row["run"])
        topics = sorted(grades) if row.get("average") == "all" else list(texts[tag])
        overlap = lexical_overlap(texts[tag], references, team=team(tag), topics=topics, bags=bags)
        row["lo"] = overlap.value
        per_topic = row.get("per_topic")
        if isinstance(per_topic, dict):
            for topic, value in overlap.per_topic.items():
                per_topic.setdefault(topic, {})["lo"] = value
        note = overlap.description
        if not teams:
            note = note.removesuffix(".") + " (no --teams file: each run is a team of its own)."
        notes = row.get("notes")
        if isinstance(notes, list):
            notes.append(note)


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

"""A run file read for evaluation: in C when it can be, else on the fast path, else through
the validator; and the visual ids of the formulae formula runs retrieved."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evaluation.core.answers import AnswerMap
from evaluation.core.formula_ids import read_formula_index
from evaluation.core.runfiles.compiled_reader import _compiled_scores
from evaluation.core.runfiles.fast import _fast_ranked, _fast_rows, _fast_scores
from evaluation.core.runfiles.layout import (
    COLUMNS,
    RANK_COLUMN,
    _lines_and_format,
    _text_and_format,
)
from evaluation.core.runfiles.model import EvaluationRun, RunFileError
from evaluation.core.runfiles.validated import _parsed, _validated
from pooling.core.formats import RunFormat


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

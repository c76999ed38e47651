"""The slow path: a file the fast path cannot read goes through the run parser of the pooling
app, whose line-numbered report becomes the error."""

from __future__ import annotations

import io
from pathlib import Path

from evaluation.core.runfiles.model import EvaluationRun, RunFileError
from evaluation.core.trec_runs import trec_eval_lines
from pooling.core.formats import ParsedRun, RunContext, RunFormat, read_run, read_run_path

TOLERATED = "repeated"  # the protocol deduplicates, so repeated docs are not an error here


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

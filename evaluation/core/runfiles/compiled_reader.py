"""The glue to the compiled reader (``evaluation/core/_run_scores.c``): it reads what the
fast path reads, in C, and leaves the rest to the Python readers."""

from __future__ import annotations

from evaluation.core.measures import Scores
from evaluation.core.runfiles.layout import COLUMNS, WIDTH
from pooling.core.formats import RunFormat

try:  # built by `pip install -e .` (setup.py) where a C compiler is; else Python reads alone
    from evaluation.core._run_scores import run_scores
except ImportError:  # pragma: no cover - depends on the install
    run_scores = None  # type: ignore[assignment]


def _compiled_scores(text: str, run_format: RunFormat) -> tuple[str, Scores] | None:
    """``_fast_scores`` in C (``_run_scores.c``) when that module is built; None when it is
    not, or when the file holds anything it leaves to the Python readers to decide."""
    if run_scores is None:
        return None
    t, d, s, g = COLUMNS[run_format]
    return run_scores(text, WIDTH[run_format], t, d, s, g, run_format is RunFormat.TREC)

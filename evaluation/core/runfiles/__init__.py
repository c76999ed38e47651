"""Run files and formula indexes read for evaluation: no Django.

Evaluation needs only (topic, doc, score) in file order, every row kept (the protocol itself
deduplicates: first row wins in Task 1, the last score in Task 2). Valid files take a fast
path (one split per line, ~4x faster than the full validator: 40 runs x 100,000 rows is the
common case); anything the fast path cannot read is handed to the run parser of the pooling
app, ``pooling.core.formats.read_run_path``, whose line-numbered report becomes the error.

- ``model``: what a read gives (``EvaluationRun``) or its error (``RunFileError``);
- ``layout``: a file's text and its layout, told from its first whole line;
- ``compiled_reader``: the glue to the C reader (``evaluation/core/_run_scores.c``);
- ``fast``: the fast path in Python; ``validated``: the slow path through the run parser;
- ``reading``: which path a file takes, for evaluation or for Task 3 measures;
- ``arqmath``: ARQMath's figures for run files (``manage.py evaluate``);
- ``trec_eval``: any trec_eval measure by name, runs scored in worker processes.
"""

from evaluation.core.runfiles.arqmath import evaluate_run_files
from evaluation.core.runfiles.layout import COLUMNS, RANK_COLUMN, WIDTH
from evaluation.core.runfiles.model import EvaluationRun, RunFileError
from evaluation.core.runfiles.reading import read_answer_run, read_evaluation_run
from evaluation.core.runfiles.trec_eval import default_workers, evaluate_run_files_measures

__all__ = [
    "COLUMNS",
    "RANK_COLUMN",
    "WIDTH",
    "EvaluationRun",
    "RunFileError",
    "default_workers",
    "evaluate_run_files",
    "evaluate_run_files_measures",
    "read_answer_run",
    "read_evaluation_run",
]

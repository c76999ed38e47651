"""Writes of the evaluation app: qrels exports, evaluation jobs, publication."""

from evaluation.services.jobs import evaluation_job_run, evaluation_job_start
from evaluation.services.publication import PublicationError, results_publish, results_withdraw
from evaluation.services.qrels import (
    QrelsExportError,
    QrelsIncompleteError,
    qrels_export,
    qrels_import,
    qrels_policy,
)

__all__ = [
    "PublicationError",
    "QrelsExportError",
    "QrelsIncompleteError",
    "evaluation_job_run",
    "evaluation_job_start",
    "qrels_export",
    "qrels_import",
    "qrels_policy",
    "results_publish",
    "results_withdraw",
]

"""Writes of the evaluation app: qrels exports and evaluation jobs."""

from evaluation.services.jobs import evaluation_job_run, evaluation_job_start
from evaluation.services.qrels import QrelsExportError, qrels_export, qrels_import

__all__ = [
    "QrelsExportError",
    "evaluation_job_run",
    "evaluation_job_start",
    "qrels_export",
    "qrels_import",
]

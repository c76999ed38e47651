"""Writes of the evaluation app: qrels exports, evaluation jobs, publication."""

from evaluation.services.jobs import evaluation_job_run, evaluation_job_start
from evaluation.services.measures import OfficialMeasuresError, official_measures_set
from evaluation.services.publication import PublicationError, results_publish, results_withdraw
from evaluation.services.qrels import (
    QrelsExportError,
    QrelsIncompleteError,
    qrels_export,
    qrels_import,
    qrels_policy,
)

__all__ = [
    "OfficialMeasuresError",
    "PublicationError",
    "QrelsExportError",
    "QrelsIncompleteError",
    "evaluation_job_run",
    "evaluation_job_start",
    "official_measures_set",
    "qrels_export",
    "qrels_import",
    "qrels_policy",
    "results_publish",
    "results_withdraw",
]

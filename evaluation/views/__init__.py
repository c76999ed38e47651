"""Pages of the evaluation app (a package: results, qrels, publication)."""

from evaluation.views.audit import judge_audit_page
from evaluation.views.human_sample import human_sample_assign_page, human_sample_page
from evaluation.views.publication import publication_page
from evaluation.views.qrels import job_progress, qrels_download, qrels_page
from evaluation.views.results import results_download, results_index, results_page

__all__ = [
    "human_sample_assign_page",
    "human_sample_page",
    "job_progress",
    "judge_audit_page",
    "publication_page",
    "qrels_download",
    "qrels_page",
    "results_download",
    "results_index",
    "results_page",
]

"""HTML pages of the evaluation app."""

from django.urls import path

from evaluation import views
from evaluation.views import planner

app_name = "evaluation"
urlpatterns: list = [
    path("results/", views.results_index, name="index"),
    path("results/<id:task_id>/", views.results_page, name="results"),
    path(
        "results/<id:task_id>/download/<str:fmt>/",
        views.results_download,
        name="results-download",
    ),
    path("results/<id:task_id>/qrels/", views.qrels_page, name="qrels"),
    path("results/<id:task_id>/human-sample/", views.human_sample_page, name="human-sample"),
    path(
        "results/<id:task_id>/human-sample/assign/",
        views.human_sample_assign_page,
        name="human-sample-assign",
    ),
    path("results/<id:task_id>/publication/", views.publication_page, name="publication"),
    path("qrels/<id:version_id>/download/", views.qrels_download, name="qrels-download"),
    path(
        "organize/task/<id:task_id>/machine-judges/<id:judge_id>/audit/",
        views.judge_audit_page,
        name="judge-audit",
    ),
    path("results/jobs/<id:job_id>/progress/", views.job_progress, name="job-progress"),
    path("results/<id:task_id>/pool-planner/", planner.planner_page, name="pool-planner"),
    path(
        "results/<id:task_id>/pool-planner/status/",
        planner.planner_status,
        name="pool-planner-status",
    ),
]

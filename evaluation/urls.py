"""HTML pages of the evaluation app."""

from django.urls import path

from evaluation import views

app_name = "evaluation"
urlpatterns: list = [
    path("results/", views.results_index, name="index"),
    path("results/<int:task_id>/", views.results_page, name="results"),
    path(
        "results/<int:task_id>/download/<str:fmt>/",
        views.results_download,
        name="results-download",
    ),
    path("results/<int:task_id>/qrels/", views.qrels_page, name="qrels"),
    path("results/<int:task_id>/publication/", views.publication_page, name="publication"),
    path("qrels/<int:version_id>/download/", views.qrels_download, name="qrels-download"),
    path("results/jobs/<int:job_id>/progress/", views.job_progress, name="job-progress"),
]

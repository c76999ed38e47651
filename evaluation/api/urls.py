"""REST endpoints of the evaluation app, mounted under /api/."""

from django.urls import path

from evaluation.api import views
from evaluation.api.human_sample import HumanSampleAssignView, HumanSampleView
from evaluation.api.planner import PoolPlanDetailView, PoolPlanListView, PoolPlanResultView

app_name = "evaluation_api"
urlpatterns: list = [
    path("qrels/", views.QrelsListView.as_view(), name="qrels-list"),
    path("qrels/<id:pk>/", views.QrelsDetailView.as_view(), name="qrels-detail"),
    path("qrels/<id:pk>/download/", views.QrelsDownloadView.as_view(), name="qrels-download"),
    path(
        "qrels/readiness/<id:task_id>/",
        views.QrelsReadinessView.as_view(),
        name="qrels-readiness",
    ),
    path("results/", views.ResultListView.as_view(), name="results-list"),
    path(
        "tasks/<id:task_id>/measures/",
        views.OfficialMeasuresView.as_view(),
        name="official-measures",
    ),
    path(
        "tasks/<id:task_id>/human-sample/",
        HumanSampleView.as_view(),
        name="human-sample",
    ),
    path(
        "tasks/<id:task_id>/human-sample/assign/",
        HumanSampleAssignView.as_view(),
        name="human-sample-assign",
    ),
    path("tasks/<id:task_id>/pool-plans/", PoolPlanListView.as_view(), name="pool-plans"),
    path(
        "tasks/<id:task_id>/pool-plans/<id:plan_id>/",
        PoolPlanDetailView.as_view(),
        name="pool-plan",
    ),
    path(
        "tasks/<id:task_id>/pool-plans/<id:plan_id>/result/",
        PoolPlanResultView.as_view(),
        name="pool-plan-result",
    ),
    path(
        "results/<id:task_id>/publication/",
        views.PublicationView.as_view(),
        name="publication",
    ),
]

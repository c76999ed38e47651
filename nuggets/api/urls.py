"""REST endpoints of the nuggets app, mounted under /api/."""

from django.urls import path

from nuggets.api.views import adjudication, labels, nugget_lists, publication, runs, scores

app_name = "nuggets_api"

urlpatterns = [
    path("rag-runs/", runs.RagRunUploadView.as_view(), name="rag-run-upload"),
    path(
        "nuggets/topics/<id:topic_id>/",
        nugget_lists.TopicNuggetsView.as_view(),
        name="topic-nuggets",
    ),
    path(
        "nuggets/assignments/<id:assignment_id>/labels/",
        labels.AssignmentLabelsView.as_view(),
        name="assignment-labels",
    ),
    path(
        "nuggets/assignments/<id:assignment_id>/citations/",
        labels.AssignmentCitationsView.as_view(),
        name="assignment-citations",
    ),
    path("nuggets/tasks/<id:task_id>/scores/", scores.TaskScoresView.as_view(), name="task-scores"),
    path(
        "nuggets/tasks/<id:task_id>/adjudication/",
        adjudication.NuggetAdjudicationView.as_view(),
        name="task-adjudication",
    ),
    path(
        "nuggets/tasks/<id:task_id>/publication/",
        publication.NuggetPublicationView.as_view(),
        name="task-publication",
    ),
]

"""REST endpoints of the assessment app, mounted under /api/."""

from django.urls import path

from assessment.api import judging

app_name = "assessment_api"
urlpatterns: list = [
    path(
        "assignments/<int:assignment_id>/items/<int:item_id>/judgments/",
        judging.ItemJudgmentsView.as_view(),
        name="item-judgments",
    ),
]

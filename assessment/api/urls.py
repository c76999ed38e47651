"""REST endpoints of the assessment app, mounted under /api/."""

from django.urls import path

from assessment.api import assignments, judging, machine_judges, organize

app_name = "assessment_api"
urlpatterns: list = [
    # The assessor's own assignments, items and judgments (a judging script's endpoints).
    path("assignments/", assignments.AssignmentsView.as_view(), name="assignment-list"),
    path(
        "assignments/<id:assignment_id>/",
        assignments.AssignmentView.as_view(),
        name="assignment-detail",
    ),
    path(
        "assignments/<id:assignment_id>/items/",
        assignments.AssignmentItemsView.as_view(),
        name="assignment-items",
    ),
    path(
        "assignments/<id:assignment_id>/items/<id:item_id>/",
        assignments.AssignmentItemView.as_view(),
        name="assignment-item",
    ),
    path(
        "assignments/<id:assignment_id>/items/<id:item_id>/judgments/",
        judging.ItemJudgmentsView.as_view(),
        name="item-judgments",
    ),
    # Organizer endpoints (staff only).
    path(
        "organize/tasks/<id:task_id>/agreement/",
        organize.AgreementView.as_view(),
        name="organize-agreement",
    ),
    path(
        "organize/tasks/<id:task_id>/assignments/",
        organize.AssignmentsView.as_view(),
        name="organize-assignments",
    ),
    path(
        "organize/tasks/<id:task_id>/machine-judges/",
        machine_judges.MachineJudgesView.as_view(),
        name="organize-machine-judges",
    ),
    path(
        "organize/tasks/<id:task_id>/machine-judges/<id:judge_id>/",
        machine_judges.MachineJudgeView.as_view(),
        name="organize-machine-judge",
    ),
    path(
        "organize/assignments/<id:assignment_id>/move/",
        organize.AssignmentActionView.as_view(operation="move"),
        name="organize-assignment-move",
    ),
    path(
        "organize/assignments/<id:assignment_id>/revoke/",
        organize.AssignmentActionView.as_view(operation="revoke"),
        name="organize-assignment-revoke",
    ),
    path(
        "organize/assignments/<id:assignment_id>/scope/",
        organize.ScopeView.as_view(),
        name="organize-assignment-scope",
    ),
]

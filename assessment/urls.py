"""HTML pages of the assessment app."""

from django.urls import path

from assessment.views import (
    adjudication,
    judging,
    machine_judges,
    organize,
    organize_guidelines,
    organize_scope,
    training,
    training_archive,
)

app_name = "assessment"

# The organizer's dashboard (staff only) and an assessor's training round.
organize_urls = [
    path("organize/", organize.index, name="organize"),
    path("organize/task/<id:task_id>/", organize.task_overview, name="organize_task"),
    path(
        "organize/task/<id:task_id>/assignments/",
        organize.assignments,
        name="organize_assignments",
    ),
    path(
        "organize/assignments/<id:assignment_id>/scope/",
        organize_scope.scope_page,
        name="organize_scope",
    ),
    path("organize/task/<id:task_id>/training/", organize.training, name="organize_training"),
    path(
        "organize/task/<id:task_id>/training/archive/",
        training_archive.training_archive_round,
        name="organize_training_archive",
    ),
    path("organize/task/<id:task_id>/agreement/", organize.agreement, name="organize_agreement"),
    path(
        "organize/task/<id:task_id>/guidelines/",
        organize_guidelines.guidelines_page,
        name="organize_guidelines",
    ),
    path(
        "organize/task/<id:task_id>/adjudication/",
        adjudication.adjudication,
        name="organize_adjudication",
    ),
    path(
        "organize/task/<id:task_id>/machine-judges/",
        machine_judges.machine_judges_page,
        name="organize_machine_judges",
    ),
    path(
        "organize/task/<id:task_id>/machine-judges/<id:judge_id>/",
        machine_judges.machine_judge_action,
        name="organize_machine_judge",
    ),
    path(
        "organize/task/<id:task_id>/judgments.csv",
        organize.export_judgments,
        name="organize_export_judgments",
    ),
    path(
        "organize/task/<id:task_id>/agreement.csv",
        organize.export_agreement,
        name="organize_export_agreement",
    ),
    path("training/<id:round_id>/", training.training_round_page, name="training_round"),
]
urlpatterns: list = [
    path("assess/", judging.assess_home, name="home"),
    path("assess/<id:assignment_id>/", judging.assess_continue, name="continue"),
    path("assess/<id:assignment_id>/items/", judging.item_list, name="items"),
    path("assess/<id:assignment_id>/<id:item_id>/", judging.judge_item, name="judge"),
    *organize_urls,
]

"""An assessor's training round: the items to judge, handing the round in, and (if the
organizer allows it) their grades beside the gold ones afterwards.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from assessment.models import Assignment, Judgment, TrainingRound
from assessment.selectors.agreement import training_feedback
from assessment.selectors.guidelines import guidelines_current, guidelines_rendered
from assessment.services.training import TrainingError, training_round_submit

__all__ = ["training_round_page"]


@login_required
@require_http_methods(["GET", "POST"])
def training_round_page(request: HttpRequest, round_id: int) -> HttpResponse:
    """Only an assessor of the round reaches it: to anybody else it does not exist."""
    training_round = get_object_or_404(TrainingRound.objects.select_related("task"), pk=round_id)
    user = request.user
    if not isinstance(user, User):  # login_required ran: only a real user gets here
        raise Http404("No such training round.")
    mine = list(
        Assignment.objects.filter(
            training_round=training_round, assessor=user, revoked_at__isnull=True
        ).select_related("topic")
    )
    if not mine:
        raise Http404("No such training round.")
    if request.method == "POST":
        try:
            training_round_submit(training_round=training_round, assessor=user)
            messages.success(request, "Round handed in. Thank you!")
        except TrainingError as error:
            for problem in error.problems:
                messages.error(request, problem)
        return redirect("assessment:training_round", round_id=round_id)
    items = list(
        training_round.items.order_by("topic_id", "display_order").prefetch_related("hits")
    )
    judged = set(Judgment.objects.filter(assignment__in=mine).values_list("hit_id", flat=True))
    topics = []
    for assignment in mine:
        rows = [
            (item, sum(h.pk in judged for h in item.hits.all()), len(item.hits.all()))
            for item in items
            if item.topic_id == assignment.topic_id
        ]
        topics.append((assignment, rows))
    feedback = training_feedback(training_round=training_round, assessor=user)
    context = {
        "training_round": training_round,
        "topics": topics,
        "submitted": all(a.submitted_at for a in mine),
        "feedback": feedback or [],
        "same": sum(row.grade == row.gold for row in feedback or []),
        # The task's own grades, labels and definitions.
        "guidelines": guidelines_rendered(guidelines_current(task=training_round.task)),
    }
    return render(request, "organize/training_round.html", context)

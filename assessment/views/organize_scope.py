"""The organizer's page of one scoped assignment (/organize/assignments/<id>/scope/): the chosen
items an assessor judges (a drawn human sample's), and taking items out of it. Thin: form, one
service or selector call, render."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from assessment.models import Assignment
from assessment.selectors.scopes import scope_items
from assessment.services.assignments import AssignmentError, scope_items_remove
from kernel.access import organizer_required
from pooling.models import PoolItem

__all__ = ["scope_page"]


class ScopeRemoveForm(forms.Form):
    items = forms.ModelMultipleChoiceField(queryset=PoolItem.objects.none(), required=False)
    unjudged = forms.BooleanField(required=False)

    def __init__(self, *args, assignment: Assignment, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        items = PoolItem.objects.filter(topic_id=assignment.topic_id)
        self.fields["items"].queryset = items  # type: ignore[attr-defined]

    def clean(self) -> dict:  # type: ignore[type-arg]
        data = super().clean() or {}
        if not data.get("items") and not data.get("unjudged"):
            raise forms.ValidationError(
                "Tick the items to take out, or take out every unjudged one."
            )
        return data


def _scoped_or_404(assignment_id: int) -> Assignment:
    found = (
        Assignment.objects.select_related("topic__task__campaign", "assessor")
        .filter(pk=assignment_id, scoped=True, revoked_at__isnull=True)
        .first()
    )
    if found is None:
        raise Http404("No active scoped assignment with this id.")
    return found


@organizer_required
@require_http_methods(["GET", "POST"])
def scope_page(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = _scoped_or_404(assignment_id)
    status = 200
    if request.method == "POST":
        form = ScopeRemoveForm(request.POST, assignment=assignment)
        try:
            if not form.is_valid():
                raise AssignmentError(
                    [" ".join(str(e) for e in errors) for errors in form.errors.values()]
                )
            done = scope_items_remove(
                assignment=assignment,
                item_ids=[item.pk for item in form.cleaned_data["items"]],
                unjudged=form.cleaned_data["unjudged"],
            )
        except AssignmentError as error:
            for problem in error.problems:
                messages.error(request, problem)
            status = 400
        else:
            messages.success(request, done.message)
            return redirect("assessment:organize_scope", assignment_id=assignment.pk)
    items = scope_items(assignment)
    context = {
        "task": assignment.topic.task,
        "assignment": assignment,
        "items": items,
        "judged": sum(1 for i in items if i.judged),
        "unjudged": sum(1 for i in items if not i.judged),
    }
    return render(request, "organize/scope.html", context, status=status)

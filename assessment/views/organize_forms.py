"""Forms of the organizer's pages: choices limited to the task's topics and assignments and to
the people who can be given topics."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from assessment.access import assessor_candidates
from assessment.models import Assignment, MachineJudge, TrainingRound
from collection.core.formats.trec_topics import TOPIC_FORMATS
from collection.models import RetrievalTask, Topic

__all__ = ["ASSIGNMENT_FORMS", "HANDOVERS", "TrainingForm", "bound_assignment_form"]


class AssignForm(forms.Form):
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none())
    assessor = forms.ModelChoiceField(queryset=User.objects.none())


class BalanceForm(forms.Form):
    assessors = forms.ModelMultipleChoiceField(queryset=User.objects.none())


# What the new assessor takes over when a topic moves (the page explains both).
HANDOVERS = [
    (Assignment.Handover.CONTINUE.value, "Continue"),
    (Assignment.Handover.START_OVER.value, "Start over"),
]


class MoveForm(forms.Form):
    assignment = forms.ModelChoiceField(queryset=Assignment.objects.none())
    assessor = forms.ModelChoiceField(queryset=User.objects.none())
    handover = forms.ChoiceField(
        choices=HANDOVERS, required=False, initial=Assignment.Handover.CONTINUE
    )

    def clean_handover(self) -> str:
        return self.cleaned_data.get("handover") or Assignment.Handover.CONTINUE


class RevokeForm(forms.Form):
    assignment = forms.ModelChoiceField(queryset=Assignment.objects.none())


class DualForm(forms.Form):
    assessors = forms.ModelMultipleChoiceField(queryset=User.objects.none())
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none(), required=False)
    sample_size = forms.IntegerField(min_value=1, required=False)
    seed = forms.IntegerField(required=False)


ASSIGNMENT_FORMS: dict[str, type[forms.Form]] = {
    "assign": AssignForm,
    "balance": BalanceForm,
    "move": MoveForm,
    "revoke": RevokeForm,
    "dual": DualForm,
}


def bound_assignment_form(
    form_class: type[forms.Form], task: RetrievalTask, data: Any
) -> forms.Form:
    """A form whose choices are this task's topics and assignments and the active users."""
    form = form_class(data)
    people = assessor_candidates()
    for name, field in form.fields.items():
        if isinstance(field, forms.ModelChoiceField):
            model = field.queryset.model  # type: ignore[union-attr]
            if model is Topic:
                field.queryset = Topic.objects.filter(task=task)
            elif model is Assignment:
                # A machine judge's assignments are its grades' own: not moved nor revoked.
                field.queryset = Assignment.objects.filter(topic__task=task).exclude(
                    purpose=Assignment.Purpose.MACHINE
                )
            elif name.startswith("assessor"):
                field.queryset = people
    return form


class TrainingForm(forms.Form):
    name = forms.CharField(max_length=100)
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none())
    assessors = forms.ModelMultipleChoiceField(queryset=User.objects.none())
    gold_source = forms.ChoiceField(choices=TrainingRound.GoldSource.choices)
    expert = forms.ModelChoiceField(queryset=User.objects.none(), required=False)
    machine_judge = forms.ModelChoiceField(queryset=MachineJudge.objects.none(), required=False)
    qrels = forms.FileField(required=False)
    items_per_topic = forms.IntegerField(min_value=1, max_value=50, initial=5)
    seed = forms.IntegerField(required=False)
    show_gold_after_submit = forms.BooleanField(required=False)


class TrainingArchiveForm(forms.Form):
    """A round on earlier years' topics: their topic file and official qrels."""

    name = forms.CharField(max_length=100)
    topics_file = forms.FileField()
    qrels = forms.FileField()
    topic_format = forms.ChoiceField(choices=[(f, f) for f in TOPIC_FORMATS], required=False)
    topic_numbers = forms.CharField(
        required=False, max_length=10_000, help_text="Topic numbers, separated by spaces or commas"
    )
    assessors = forms.ModelMultipleChoiceField(queryset=User.objects.none())
    items_per_topic = forms.IntegerField(min_value=1, max_value=50, initial=5)
    seed = forms.IntegerField(required=False)
    show_gold_after_submit = forms.BooleanField(required=False)

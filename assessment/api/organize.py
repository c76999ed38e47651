"""Organizer endpoints (staff only): agreement tables and assignments over REST.

GET  /api/organize/tasks/<task>/agreement/        pairwise kappas, means, alpha, training rounds
     (machine judges take part, named "machine: NAME"; see machine_judges.py for their own)
GET  /api/organize/tasks/<task>/assignments/      active official and dual assignments, each
     with "hits" it covers and "judged" of them (a "scoped" one covers chosen items only;
     "closed": every item was taken out of its scope, nothing is left to judge)
POST the same  {"action": "assign" | "balance" | "dual", ...}   → 201 with what was created
POST /api/organize/assignments/<id>/move/  {"assessor": "bob", "handover": "continue"}
     → the new assignment, the one it replaces, and how many judged hits stay with the
       earlier assessor(s) ("kept_judgments") and are left to judge ("hits_left")
POST /api/organize/assignments/<id>/revoke/
GET  /api/organize/assignments/<id>/scope/         a scoped assignment's items, judged or not,
     and "closed" when none is left
POST the same  {"items": [pool item ids], "unjudged": true}   takes items out of the scope
     (judgments already made are kept and still count toward qrels and agreement)

Rule breaks (a topic already assigned, a dual assessor who is the official one) answer 400
with every problem listed; nothing is stored then.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.shortcuts import get_object_or_404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assessment.access import assessor_candidates
from assessment.core.agreement import Agreement
from assessment.models import Assignment, MachineJudge
from assessment.selectors.agreement import AgreementTable, task_agreement, training_rounds_agreement
from assessment.selectors.machine_judges import machine_label
from assessment.selectors.overview import assignment_rows
from assessment.selectors.scopes import scope_items
from assessment.services.assignments import (
    AssignmentError,
    AssignmentMove,
    ScopeItemsRemoved,
    assignment_action_apply,
    scope_items_remove,
)
from collection.access import task_for
from collection.models import RetrievalTask, Topic
from kernel.access import IsOrganizer

__all__ = ["AgreementView", "AssignmentActionView", "AssignmentsView", "ScopeView"]


def _agreement(value: Agreement) -> dict[str, Any]:
    return {"value": value.value, "n": value.n, "reason": value.reason or None}


def _table(table: AgreementTable) -> dict[str, Any]:
    return {
        # The task's scale: kappa is over these grades, binary kappa counts grade >= level.
        "scale": {
            "grades": list(table.scale.categories),
            "relevant_from": table.scale.relevant_from,
        },
        "pairs": [
            {
                "assessors": [first, second],
                "shared_hits": pair.shared,
                "kappa": _agreement(pair.kappa),
                "kappa_binary": _agreement(pair.kappa_binary),
                "kappa_linear": _agreement(pair.kappa_linear),
                "kappa_quadratic": _agreement(pair.kappa_quadratic),
                "percentage": _agreement(pair.percentage),
            }
            for first, second, pair, _ in table.pair_rows
        ],
        "assessors": [
            {
                "assessor": name,
                "partners": mean.partners if mean else 0,
                "mean_kappa": _agreement(mean.mean_kappa) if mean else None,
                "mean_kappa_binary": _agreement(mean.mean_kappa_binary) if mean else None,
                "gold_kappa": _agreement(gold.kappa) if gold else None,
                "gold_kappa_binary": _agreement(gold.kappa_binary) if gold else None,
            }
            for name, mean, gold in table.assessor_rows
        ],
        "topics": [
            {
                "topic": topic,
                "assessors": [first, second],
                "shared_hits": pair.shared,
                "kappa": _agreement(pair.kappa),
                "kappa_binary": _agreement(pair.kappa_binary),
            }
            for topic, first, second, pair in table.topic_rows
        ],
        "alpha_ordinal": _agreement(table.alpha_ordinal),
        "alpha_nominal": _agreement(table.alpha_nominal),
    }


class AgreementView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Live agreement of a task")
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        rounds = [
            {"name": training_round.name, **_table(table)}
            for training_round, table in training_rounds_agreement(task=task)
        ]
        # Machine judges take part as more assessors, named "machine: NAME".
        machines = [
            machine_label(name)
            for name in MachineJudge.objects.filter(task=task).values_list("name", flat=True)
        ]
        return Response(
            {
                "task": task.pk,
                **_table(task_agreement(task=task)),
                "machine_judges": sorted(machines),
                "training": rounds,
            }
        )


class AssignmentRequest(serializers.Serializer):
    action = serializers.ChoiceField(choices=["assign", "balance", "dual"])
    topics = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    assessor = serializers.CharField(required=False)
    assessors = serializers.ListField(child=serializers.CharField(), required=False, default=list)
    sample_size = serializers.IntegerField(min_value=1, required=False)
    seed = serializers.IntegerField(required=False)


class MoveRequest(serializers.Serializer):
    assessor = serializers.CharField()
    handover = serializers.ChoiceField(
        choices=[Assignment.Handover.CONTINUE.value, Assignment.Handover.START_OVER.value],
        default=Assignment.Handover.CONTINUE.value,
        help_text=(
            "continue: the judged hits count as done and the new assessor judges the rest; "
            "start_over: the new assessor judges every hit blind and only their judgments "
            "count toward qrels. Either way the earlier judgments stay with their authors."
        ),
    )


def _assignment_out(assignment: Assignment) -> dict[str, Any]:
    return {
        "id": assignment.pk,
        "topic": assignment.topic.number,
        "assessor": assignment.assessor.get_username(),
        "purpose": assignment.purpose,
        "revoked_at": assignment.revoked_at,
    }


def _move_out(move: AssignmentMove) -> dict[str, Any]:
    return {
        **_assignment_out(move.assignment),
        "handover": move.assignment.handover,
        "replaces": move.previous.pk,
        "previous_assessor": move.previous.assessor.get_username(),
        "kept_judgments": move.kept_judgments,
        "kept_judgments_count_as_done": move.counts_as_done,
        "hits_left": move.hits_left,
    }


def _users(names: list[str]) -> list[User]:
    """The assessors named, from the people who may be given topics (as on the pages)."""
    found = {u.username: u for u in assessor_candidates().filter(username__in=names)}
    missing = [n for n in names if n not in found]
    if missing:
        known = set(User.objects.filter(username__in=missing).values_list("username", flat=True))
        raise AssignmentError(
            [
                f"{n} cannot be given topics (an organizer, a team member or inactive)"
                if n in known
                else f"no such user: {n}"
                for n in missing
            ]
        )
    return [found[n] for n in names]


def _topics(task: RetrievalTask, numbers: list[str]) -> list[Topic]:
    found = {t.number: t for t in Topic.objects.filter(task=task, number__in=numbers)}
    missing = [n for n in numbers if n not in found]
    if missing:
        raise AssignmentError([f"no such topic in this task: {n}" for n in missing])
    return [found[n] for n in numbers]


def _run_action(task: RetrievalTask, data: dict[str, Any], user: Any) -> list[Assignment]:
    assessor = data.get("assessor")
    done = assignment_action_apply(
        task=task,
        action=data["action"],
        by=user,
        topics=_topics(task, data["topics"]),
        assessor=_users([assessor])[0] if assessor else None,
        assessors=_users(data["assessors"]),
        sample_size=data.get("sample_size"),
        seed=data.get("seed"),
    )
    return done.created


class AssignmentsView(APIView):
    permission_classes = [IsOrganizer]

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="Active assignments of a task")
    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        rows = assignment_rows(task=task)
        return Response(
            [
                {
                    "id": r.assignment_id,
                    "topic": r.topic,
                    "assessor": r.assessor,
                    "purpose": r.purpose,
                    "judged": r.judged,
                    # The hits it covers: its topic's, or its scope's when scoped.
                    "hits": r.hits,
                    "scoped": r.scoped,
                    # Every item taken out of its scope: closed for the assessor.
                    "closed": r.closed,
                }
                for r in rows
            ]
        )

    @extend_schema(
        request=AssignmentRequest, responses=OpenApiTypes.OBJECT, summary="Assign, balance, dual"
    )
    def post(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        form = AssignmentRequest(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            created = _run_action(task, dict(form.validated_data), request.user)
        except AssignmentError as error:
            return Response({"problems": error.problems}, status=status.HTTP_400_BAD_REQUEST)
        return Response([_assignment_out(a) for a in created], status=status.HTTP_201_CREATED)


class AssignmentActionView(APIView):
    """Move (``operation="move"``) or revoke (``operation="revoke"``) one assignment."""

    permission_classes = [IsOrganizer]
    operation = "revoke"

    @extend_schema(request=MoveRequest, responses=OpenApiTypes.OBJECT)
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = get_object_or_404(
            Assignment.objects.select_related("topic__task", "assessor"), pk=assignment_id
        )
        try:
            if self.operation == "move":
                form = MoveRequest(data=request.data)
                form.is_valid(raise_exception=True)
                done = assignment_action_apply(
                    task=assignment.topic.task,
                    action="move",
                    by=request.user,  # type: ignore[arg-type]
                    assignment=assignment,
                    assessor=_users([form.validated_data["assessor"]])[0],
                    handover=form.validated_data["handover"],
                )
            else:
                done = assignment_action_apply(
                    task=assignment.topic.task,
                    action="revoke",
                    by=request.user,  # type: ignore[arg-type]
                    assignment=assignment,
                )
        except AssignmentError as error:
            return Response({"problems": error.problems}, status=status.HTTP_400_BAD_REQUEST)
        if done.move is not None:
            return Response(_move_out(done.move))
        assert done.revoked is not None  # noqa: S101 - revoke's result
        return Response(_assignment_out(done.revoked))


class ScopeRemoveRequest(serializers.Serializer):
    items = serializers.ListField(
        child=serializers.IntegerField(min_value=1),
        required=False,
        default=list,
        max_length=100_000,
        help_text="pool item ids to take out of the scope",
    )
    unjudged = serializers.BooleanField(
        default=False, help_text="also take out every item with no judged hit"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if not attrs["items"] and not attrs["unjudged"]:
            raise serializers.ValidationError("name the items to remove, or unjudged: true")
        return attrs


def _scope_out(assignment: Assignment) -> dict[str, Any]:
    items = scope_items(assignment)
    return {
        "id": assignment.pk,
        "topic": assignment.topic.number,
        "assessor": assignment.assessor.get_username(),
        # Nothing left in the scope: the assessor sees the assignment as closed.
        "closed": not items,
        "items": [
            {
                "item": i.item_id,
                "key": i.key,
                "hits": i.status.hits,
                "judged_hits": i.status.judged,
            }
            for i in items
        ],
    }


def _removed_out(done: ScopeItemsRemoved) -> dict[str, Any]:
    return {
        "removed": done.removed,
        "judged_kept": done.judged_kept,
        "already_out": done.already_out,
        "left": done.left,
        "message": done.message,
        "scope": _scope_out(done.assignment),
    }


class ScopeView(APIView):
    """A scoped assignment's items (GET), and taking items out of it (POST)."""

    permission_classes = [IsOrganizer]

    def _assignment(self, assignment_id: int) -> Assignment:
        return get_object_or_404(
            Assignment.objects.select_related("topic", "assessor"),
            pk=assignment_id,
            scoped=True,
            revoked_at__isnull=True,
        )

    @extend_schema(responses=OpenApiTypes.OBJECT, summary="A scoped assignment's items")
    def get(self, request: Request, assignment_id: int) -> Response:
        return Response(_scope_out(self._assignment(assignment_id)))

    @extend_schema(
        request=ScopeRemoveRequest,
        responses=OpenApiTypes.OBJECT,
        summary="Take items out of a scoped assignment (judgments are kept)",
    )
    def post(self, request: Request, assignment_id: int) -> Response:
        assignment = self._assignment(assignment_id)
        form = ScopeRemoveRequest(data=request.data)
        form.is_valid(raise_exception=True)
        try:
            done = scope_items_remove(
                assignment=assignment,
                item_ids=form.validated_data["items"],
                unjudged=form.validated_data["unjudged"],
            )
        except AssignmentError as error:
            return Response({"problems": error.problems}, status=status.HTTP_400_BAD_REQUEST)
        return Response(_removed_out(done))

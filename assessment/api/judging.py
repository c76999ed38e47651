"""The JSON endpoint the judging page talks to: read an item's judgments, submit them.

GET  /api/assignments/<assignment>/items/<item>/judgments/  → the item's current judgments
POST the same                                                → store them (all or nothing)

Scoped like the pages (another assessor's assignment or another topic's item: 404), blind
(only this assignment's own judgments go out; after a continue-move, the hits a previous
assessor judged are listed by id in ``previous_hits``, never with their grade or comment, and
submitting one answers 400), idempotent (send a client_token per attempt and retry with the
same one).
"""

from __future__ import annotations

from django.http import Http404
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assessment.models import COMMENT_MAX_CHARS, Assignment, Judgment
from assessment.selectors.item_state import item_previous_hit_ids, item_state
from assessment.selectors.priority import grows_on_demand
from assessment.selectors.progress import (
    assignment_for,
    item_statuses,
    next_unjudged_item_id,
    progress_of,
)
from assessment.services.judging import (
    MAX_ACTIVE_SECONDS,
    HitVerdict,
    JudgingNotFound,
    JudgmentInvalid,
    item_submit,
)
from kernel.core.grades import MAX_GRADE
from kernel.params import MAX_ID
from pooling.models import PoolItem


class VerdictIn(serializers.Serializer):
    hit = serializers.IntegerField(min_value=1, max_value=MAX_ID)
    # The task's exact scale is the service's check (a clear message per hit).
    grade = serializers.IntegerField(
        min_value=0, max_value=MAX_GRADE, allow_null=True, required=False
    )
    flag = serializers.ChoiceField(
        choices=[v for v in Judgment.Flag.values if v], allow_blank=True, required=False
    )
    comment = serializers.CharField(allow_blank=True, required=False, max_length=COMMENT_MAX_CHARS)
    # The guidelines' extra questions asked on this topic (which ones: the service's check).
    answers = serializers.DictField(
        child=serializers.BooleanField(),
        required=False,
        allow_null=True,
        help_text="Question code -> yes/no (ARQMath-3: mg, ui); left out: kept as stored.",
    )


class SubmitIn(serializers.Serializer):
    judgments = VerdictIn(many=True, allow_empty=False)
    active_seconds = serializers.FloatField(min_value=0, max_value=MAX_ACTIVE_SECONDS, default=0)
    client_token = serializers.CharField(max_length=64, allow_blank=True, default="")


class JudgmentOut(serializers.Serializer):
    hit = serializers.IntegerField(source="hit_id")
    grade = serializers.IntegerField(allow_null=True)
    flag = serializers.CharField()
    comment = serializers.CharField()
    answers = serializers.DictField(child=serializers.BooleanField())
    revision = serializers.IntegerField()
    updated_at = serializers.DateTimeField()


class ItemStateOut(serializers.Serializer):
    """What the page needs after a read or a submit: its own judgments and where to go next."""

    item = serializers.IntegerField()
    judgments = JudgmentOut(many=True)
    previous_hits = serializers.ListField(
        child=serializers.IntegerField(),
        help_text="Hits of this item judged by a previous assessor: done, not to be judged.",
    )
    judged_hits = serializers.IntegerField()
    total_hits = serializers.IntegerField()
    judged_items = serializers.IntegerField(help_text="Items whose every hit is judged.")
    total_items = serializers.IntegerField()
    next_unjudged_url = serializers.CharField(allow_null=True)
    items_url = serializers.CharField()


class ProblemsOut(serializers.Serializer):
    problems = serializers.DictField(child=serializers.CharField(), help_text="hit id → problem")


def _state(assignment: Assignment, item_id: int, judgments: list[Judgment]) -> dict:
    statuses = item_statuses(assignment)
    following = next_unjudged_item_id(statuses, item_id)
    progress = progress_of(statuses)
    return {
        "item": item_id,
        "judgments": JudgmentOut(judgments, many=True).data,
        "previous_hits": item_previous_hit_ids(assignment, item_id),
        "judged_hits": progress.judged_hits,
        "total_hits": progress.hits,
        "judged_items": progress.judged_items,
        "total_items": progress.items,
        "next_unjudged_url": _next_url(assignment, following),
        "items_url": reverse("assessment:items", args=[assignment.pk]),
    }


def _next_url(assignment: Assignment, following: int | None) -> str | None:
    """The next unjudged item; in a pool an adaptive strategy grows, once all are judged, the
    page that asks the strategy for the next one (assessment.services.priority)."""
    if following is not None:
        return reverse("assessment:judge", args=[assignment.pk, following])
    if grows_on_demand(assignment):
        return reverse("assessment:continue", args=[assignment.pk])
    return None


class ItemJudgmentsView(APIView):
    """An assessor's judgments of one pool item of their assignment."""

    def _assignment(self, request: Request, assignment_id: int) -> Assignment:
        assignment = assignment_for(assessor=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
        if assignment is None:
            raise Http404("No such assignment.")
        return assignment

    @extend_schema(responses={200: ItemStateOut})
    def get(self, request: Request, assignment_id: int, item_id: int) -> Response:
        assignment = self._assignment(request, assignment_id)
        judgments = item_state(assignment, item_id)
        if judgments is None:
            raise Http404("No such item in this topic.")
        return Response(_state(assignment, item_id, judgments))

    @extend_schema(
        request=SubmitIn,
        responses={200: ItemStateOut, 400: ProblemsOut},
        description=(
            "Store judgments of hits of this item, all or nothing. Sending a hit again revises "
            "its judgment (a new revision; the same values add none). Send a fresh "
            "`client_token` per attempt and the same one on a retry: it is stored once."
        ),
    )
    def post(self, request: Request, assignment_id: int, item_id: int) -> Response:
        # Scope is the service's: it locks the assessor's own assignment or answers 404.
        given = SubmitIn(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        verdicts = [
            HitVerdict(
                hit_id=v["hit"],
                grade=v.get("grade"),
                flag=v.get("flag", ""),
                comment=v.get("comment", ""),
                answers=v.get("answers"),
            )
            for v in data["judgments"]
        ]
        try:
            stored = item_submit(
                assignment=Assignment(pk=assignment_id),
                item=PoolItem(pk=item_id),
                assessor=request.user,  # type: ignore[arg-type]
                verdicts=verdicts,
                active_seconds=data["active_seconds"],
                client_token=data["client_token"],
            )
        except JudgingNotFound as error:
            raise Http404(str(error)) from error
        except JudgmentInvalid as error:
            problems = {str(hit): text for hit, text in error.problems.items()}
            return Response({"problems": problems}, status=400)
        return Response(_state(stored[0].assignment, item_id, stored))

"""REST for people and machine together (organizers): draw the items people judge beside a
machine judge, and read each run's estimate with its 95% interval."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assessment.access import assessor_candidates
from assessment.models import MachineJudge
from collection.access import task_for
from evaluation.models import HumanSample
from evaluation.selectors.human_sample import SampleEstimates
from evaluation.selectors.sample_routing import (
    SampleRouting,
    samples_with_routing,
)
from evaluation.services.human_sample import (
    MAX_BUDGET,
    SampleError,
    human_sample_assign,
    human_sample_draw,
    routed_message,
)
from kernel.access import IsOrganizer


class HumanSampleRequestSerializer(serializers.Serializer):
    judge = serializers.IntegerField(min_value=1, help_text="the machine judge's id")
    budget = serializers.IntegerField(min_value=1, max_value=MAX_BUDGET)
    seed = serializers.IntegerField(default=0, min_value=-(2**31), max_value=2**31 - 1)
    uncertain_share = serializers.FloatField(default=0.8, min_value=0.0, max_value=1.0)


class SampleAssignRequestSerializer(serializers.Serializer):
    judge = serializers.IntegerField(min_value=1, help_text="the machine judge whose draw to send")
    assessors = serializers.ListField(
        child=serializers.SlugRelatedField(slug_field="username", queryset=assessor_candidates()),
        min_length=1,
        max_length=1000,
        help_text="usernames of the assessors to spread the drawn items over",
    )


def estimates_json(found: SampleEstimates, routing: SampleRouting) -> dict[str, Any]:
    sample = found.sample
    return {
        "id": sample.pk,
        "judge": sample.judge.name,
        "budget": sample.budget,
        "seed": sample.seed,
        "uncertain_share": sample.uncertain_share,
        "machine_items": found.machine_items,
        "drawn": found.drawn,
        "judged": found.judged,
        "in_pool": routing.in_pool,
        "queued": routing.queued,
        # Drawn items no person has judged yet: how many, and how many of them are queued.
        "to_judge": routing.to_judge,
        "to_judge_queued": routing.waiting_queued,
        "measures": found.measures,
        "not_estimated": found.unsupported,
        "strata": [
            {"stratum": h, "items": n, "drawn": d, "judged": j} for h, n, d, j in found.strata
        ],
        "runs": [
            {
                "run": label,
                "estimates": {
                    name: {
                        "value": e.value,
                        "low": e.low,
                        "high": e.high,
                        "std_error": e.std_error,
                        "unbiased": e.unbiased,
                        "machine_only": e.machine_only,
                        "n_human": e.n_human,
                        "n_machine": e.n_machine,
                    }
                    for name, e in values.items()
                },
            }
            for label, values in found.rows
        ],
    }


class HumanSampleView(APIView):
    """GET: the task's human samples with every run's estimates. POST: draw one for a judge
    (replacing that judge's earlier draw)."""

    permission_classes = [IsOrganizer]
    serializer_class = HumanSampleRequestSerializer

    def get(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        samples = HumanSample.objects.filter(task=task).select_related("judge", "task")
        shown = samples_with_routing(samples.order_by("pk"))
        return Response([estimates_json(found, routing) for found, routing in shown])

    def post(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        given = HumanSampleRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        judge = get_object_or_404(MachineJudge, pk=data["judge"], task=task)
        try:
            sample = human_sample_draw(
                task=task,
                judge=judge,
                budget=data["budget"],
                seed=data["seed"],
                uncertain_share=data["uncertain_share"],
                created_by=request.user,
            )
        except SampleError as error:
            raise ValidationError({"detail": str(error)}) from None
        ((found, routing),) = samples_with_routing([sample])
        return Response(estimates_json(found, routing), status=status.HTTP_201_CREATED)


class HumanSampleAssignView(APIView):
    """POST: send a judge's drawn items no person has judged yet to the chosen assessors, as
    scoped official assignments (idempotent: what is queued already is not added again)."""

    permission_classes = [IsOrganizer]
    serializer_class = SampleAssignRequestSerializer

    def post(self, request: Request, task_id: int) -> Response:
        task = task_for(request.user, task_id)
        given = SampleAssignRequestSerializer(data=request.data)
        given.is_valid(raise_exception=True)
        data = given.validated_data
        sample = get_object_or_404(HumanSample, task=task, judge_id=data["judge"])
        try:
            routed = human_sample_assign(
                sample=sample, assessors=data["assessors"], created_by=request.user
            )
        except SampleError as error:
            raise ValidationError({"detail": str(error)}) from None
        numbers = dict(task.topics.values_list("pk", "number"))
        return Response(
            {
                "message": routed_message(routed, numbers),
                "created": [
                    {"id": a.pk, "topic": numbers[a.topic_id], "assessor": a.assessor.username}
                    for a in routed.created
                ],
                "added": routed.added,
                "covered": routed.covered,
                "refused": routed.refused,
                "sample": estimates_json(*samples_with_routing([sample])[0]),
            }
        )

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

from assessment.models import MachineJudge
from collection.access import task_for
from evaluation.models import HumanSample
from evaluation.selectors.human_sample import SampleEstimates, human_sample_estimates
from evaluation.services.human_sample import MAX_BUDGET, SampleError, human_sample_draw
from kernel.access import IsOrganizer


class HumanSampleRequestSerializer(serializers.Serializer):
    judge = serializers.IntegerField(min_value=1, help_text="the machine judge's id")
    budget = serializers.IntegerField(min_value=1, max_value=MAX_BUDGET)
    seed = serializers.IntegerField(default=0, min_value=-(2**31), max_value=2**31 - 1)
    uncertain_share = serializers.FloatField(default=0.8, min_value=0.0, max_value=1.0)


def estimates_json(found: SampleEstimates) -> dict[str, Any]:
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
        return Response(
            [estimates_json(human_sample_estimates(sample=s)) for s in samples.order_by("pk")]
        )

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
        found = human_sample_estimates(sample=sample)
        return Response(estimates_json(found), status=status.HTTP_201_CREATED)

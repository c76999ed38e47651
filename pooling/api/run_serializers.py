"""Serializers of the runs endpoints: the upload form's fields and a run as participants see it."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from collection.core.task_names import TaskNameError
from collection.models import RetrievalTask
from collection.services.tasks import task_named
from kernel.access import is_organizer
from pooling.models import RUN_DESCRIPTION_MAX_CHARS, Run
from pooling.services.runs import ORGANIZER_FIELDS


class RunUploadSerializer(serializers.Serializer):
    """Multipart upload: the file and the run's metadata (ARQMath's submission form)."""

    file = serializers.FileField(help_text="The run file (TSV/TREC, optionally gzip).")
    task = serializers.CharField(
        max_length=100,
        help_text="The task: its id, or its name (with campaign). A kind (answer, task1, "
        "document, …) names the campaign's only task of that kind.",
    )
    campaign = serializers.CharField(
        required=False, max_length=100, help_text="Campaign name; needed when task is a name."
    )
    team = serializers.CharField(
        required=False, help_text="Team name; needed only by members of several teams and staff."
    )
    tag = serializers.CharField(max_length=40)
    role = serializers.ChoiceField(choices=Run.Role.choices)
    is_manual = serializers.BooleanField(default=False)
    declared_data = serializers.ChoiceField(
        choices=Run.DeclaredData.choices, default=Run.DeclaredData.BOTH
    )
    description = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=RUN_DESCRIPTION_MAX_CHARS
    )
    # Organizer-only (staff): a participant sending any of these gets a 400.
    is_baseline = serializers.BooleanField(required=False)
    pool_as_primary = serializers.BooleanField(required=False)
    depth_override = serializers.IntegerField(required=False, min_value=1, max_value=1000)

    def validate_task(self, value: str) -> str:
        return value.strip()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs["task"] = self._task(attrs["task"], attrs.get("campaign"))
        request = self.context["request"]
        sent = [name for name in ORGANIZER_FIELDS if name in self.initial_data]
        if sent and not is_organizer(request.user):
            raise serializers.ValidationError(
                dict.fromkeys(sent, "only organizers may set this field")
            )
        return attrs

    @staticmethod
    def _task(wanted: str, campaign: str | None) -> RetrievalTask:
        if wanted.isdigit():
            found = (
                RetrievalTask.objects.select_related("campaign").filter(pk=int(wanted)).first()
                if len(wanted) < 12
                else None
            )
            if found is None or (campaign and found.campaign.name != campaign):
                raise serializers.ValidationError({"task": f"no task with id {wanted[:20]}"})
            return found
        if not campaign:
            raise serializers.ValidationError(
                {"campaign": "name the campaign when the task is given by name"}
            )
        try:
            return task_named(campaign, wanted)
        except TaskNameError as error:
            raise serializers.ValidationError({"task": str(error)}) from None


class RunSerializer(serializers.ModelSerializer):
    team = serializers.CharField(source="team.name", read_only=True)
    campaign = serializers.CharField(source="task.campaign.name", read_only=True)
    task_name = serializers.CharField(source="task.name", read_only=True)
    task_kind = serializers.CharField(source="task.kind", read_only=True)
    uploaded_by = serializers.CharField(
        source="uploaded_by.get_username", read_only=True, default=None
    )

    class Meta:
        model = Run
        fields = [
            "id",
            "campaign",
            "task",
            "task_name",
            "task_kind",
            "team",
            "tag",
            "role",
            "is_manual",
            "declared_data",
            "description",
            "is_baseline",
            "pool_as_primary",
            "depth_override",
            "file_name",
            "file_format",
            "checksum",
            "row_count",
            "status",
            "version",
            "uploaded_by",
            "uploaded_at",
        ]
        read_only_fields = fields


class RunDetailSerializer(RunSerializer):
    report = serializers.JSONField(read_only=True, help_text="The validation report.")

    class Meta(RunSerializer.Meta):
        fields = [*RunSerializer.Meta.fields, "report"]
        read_only_fields = fields


class RunSubmittedSerializer(serializers.Serializer):
    run = RunDetailSerializer()
    created = serializers.BooleanField(help_text="False when the upload replaced the tag's run.")
    warnings = serializers.ListField(child=serializers.DictField())


class RunRejectedSerializer(serializers.Serializer):
    detail = serializers.CharField()
    report = serializers.DictField(required=False, help_text="Every problem, by line.")

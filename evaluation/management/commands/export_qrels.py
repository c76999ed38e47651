"""``manage.py export_qrels``: freeze a task's qrels from its judgments and write them out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.models import RetrievalTask
from evaluation.qrels import DEFAULT_PRECEDENCE, QrelsPolicy
from evaluation.services import QrelsExportError, qrels_export


class Command(BaseCommand):
    help = (
        "Export a task's qrels from its judgments (adjudicated > official > dual), "
        "freeze them as a qrels version with a checksum, and write them to a file or stdout."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("--task", required=True, choices=[k.value for k in RetrievalTask.Kind])
        parser.add_argument("--out", help="file to write (default: standard output)")
        parser.add_argument(
            "--min-relevant",
            type=int,
            help="drop topics with fewer H+M-relevant items than this (ARQMath: 2)",
        )
        parser.add_argument("--level", choices=["item", "instance"], default="item")
        parser.add_argument(
            "--without-dual", action="store_true", help="ignore dual assessments entirely"
        )
        parser.add_argument("--label", default="", help="a name for this qrels version")

    def handle(self, *args: Any, **options: Any) -> None:
        task = (
            RetrievalTask.objects.select_related("campaign")
            .filter(campaign__name=options["campaign"], kind=options["task"])
            .first()
        )
        if task is None:
            raise CommandError(f"no campaign {options['campaign']!r} with a {options['task']} task")
        precedence = DEFAULT_PRECEDENCE
        if options["without_dual"]:
            precedence = tuple(s for s in precedence if s != "dual")
        policy = QrelsPolicy(precedence, options["min_relevant"])
        try:
            version = qrels_export(
                task=task, policy=policy, level=options["level"], label=options["label"]
            )
        except QrelsExportError as error:
            raise CommandError(str(error)) from error
        if options["out"]:
            Path(options["out"]).write_text(version.content, encoding="utf-8")
        else:
            self.stdout.write(version.content, ending="")
        summary = (
            f"qrels version {version.pk}: {version.topic_count} topics, {version.row_count} rows, "
            f"sha256 {version.checksum[:12]}"
        )
        self.stderr.write(summary)
        for dropped in version.dropped_topics:
            self.stderr.write(f"dropped {dropped['topic']}: {dropped['reason']}")

"""``manage.py export_qrels``: freeze a task's qrels from its judgments and write them out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.management.task_lookup import TASK_HELP, find_task
from evaluation.services import QrelsExportError, QrelsIncompleteError, qrels_export, qrels_policy


class Command(BaseCommand):
    help = (
        "Export a task's qrels from its judgments (adjudicated > official > dual), "
        "freeze them as a qrels version with a checksum, and write them to a file or stdout. "
        "Refused while pool items are unjudged, unless --allow-incomplete."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--out", help="file to write (default: standard output)")
        parser.add_argument(
            "--min-relevant",
            type=int,
            help="drop topics with fewer H+M-relevant items than this "
            "(default: the task's setting, ARQMath's 2; 0 keeps every topic)",
        )
        parser.add_argument("--level", choices=["item", "instance"], default="item")
        parser.add_argument(
            "--without-dual", action="store_true", help="ignore dual assessments entirely"
        )
        parser.add_argument(
            "--allow-incomplete",
            action="store_true",
            help="export although pool items are unjudged (the version records how many)",
        )
        parser.add_argument("--label", default="", help="a name for this qrels version")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        if options["min_relevant"] is not None and options["min_relevant"] < 0:
            raise CommandError("--min-relevant must be 0 or more")
        policy = qrels_policy(
            task=task, use_dual=not options["without_dual"], min_relevant=options["min_relevant"]
        )
        try:
            version = qrels_export(
                task=task,
                policy=policy,
                level=options["level"],
                label=options["label"],
                allow_incomplete=options["allow_incomplete"],
            )
        except QrelsIncompleteError as error:
            raise CommandError(f"{error} (--allow-incomplete)") from error
        except QrelsExportError as error:
            raise CommandError(str(error)) from error
        if options["out"]:
            Path(options["out"]).write_text(version.content, encoding="utf-8")
        else:
            self.stdout.write(version.content, ending="")
        self.stderr.write(_summary(version))
        for dropped in version.dropped_topics:
            self.stderr.write(f"dropped {dropped['topic']}: {dropped['reason']}")


def _summary(version: Any) -> str:
    judged = (
        f"INCOMPLETE: {version.unjudged_items} of {version.pool_items} pool items unjudged"
        if version.is_incomplete
        else f"every one of {version.pool_items} pool items judged"
    )
    return (
        f"qrels version {version.pk}: {version.topic_count} topics, {version.row_count} rows, "
        f"sha256 {version.checksum[:12]}; {judged}"
    )

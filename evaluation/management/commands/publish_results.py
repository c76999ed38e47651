"""``manage.py publish_results``: publish a task's results with its official qrels version,
or withdraw them. The same service as the /results/ page and REST."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.management.task_lookup import TASK_HELP, find_task
from evaluation.models import QrelsVersion
from evaluation.services import PublicationError, results_publish, results_withdraw
from kernel.access import is_organizer


class Command(BaseCommand):
    help = (
        "Publish a task's results to participants (each team its own runs, scored with the "
        "official qrels version), or withdraw them. Every change is recorded."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument(
            "--qrels", type=int, metavar="VERSION_ID", help="the official qrels version"
        )
        parser.add_argument("--withdraw", action="store_true", help="withdraw the results")
        parser.add_argument("--by", metavar="USERNAME", help="the organizer to record")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        by = None
        if options["by"]:
            by = get_user_model().objects.filter(username=options["by"]).first()
            if not is_organizer(by):
                raise CommandError(f"no organizer (staff user) named {options['by']!r}")
        try:
            if options["withdraw"]:
                results_withdraw(task=task, by=by)
                self.stdout.write(f"withdrew the results of {task}")
                return
            if options["qrels"] is None:
                raise CommandError("give --qrels VERSION_ID to publish, or --withdraw")
            qrels = QrelsVersion.objects.filter(pk=options["qrels"], task=task).first()
            if qrels is None:
                raise CommandError(f"{task} has no qrels version {options['qrels']}")
            results_publish(task=task, qrels=qrels, by=by)
        except PublicationError as error:
            raise CommandError(str(error)) from error
        note = (
            f", INCOMPLETE: {qrels.unjudged_items} items were unjudged"
            if qrels.is_incomplete
            else ""
        )
        self.stdout.write(
            f"published {task} with qrels version {qrels.pk} ({qrels.checksum[:12]}, "
            f"{qrels.topic_count} topics, {qrels.row_count} rows{note})"
        )

"""``manage.py publish_nugget_scores``: publish a RAG task's nugget scores (a frozen snapshot,
each team seeing its own runs) or withdraw them. The same service as the published page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.management.task_lookup import TASK_HELP, find_task
from kernel.access import is_organizer
from nuggets.services.publication import (
    NuggetPublicationError,
    nugget_scores_publish,
    nugget_scores_withdraw,
)


class Command(BaseCommand):
    help = (
        "Publish a RAG task's nugget scores to participants as they are now (frozen), or "
        "withdraw them. Every change is recorded."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="campaign name")
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--withdraw", action="store_true", help="withdraw the scores")
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
                nugget_scores_withdraw(task=task, by=by)
                self.stdout.write(f"withdrew the nugget scores of {task}")
                return
            event = nugget_scores_publish(task=task, by=by)
        except NuggetPublicationError as error:
            raise CommandError(str(error)) from error
        runs = len(event.snapshot.scores["runs"])
        topics = len(event.snapshot.scores["topics"])
        self.stdout.write(
            f"published the nugget scores of {task}: {runs} runs over {topics} topics, "
            f"snapshot {event.snapshot.checksum[:12]}"
        )

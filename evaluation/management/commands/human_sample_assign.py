"""``manage.py human_sample_assign --campaign C --task T --judge JUDGE --assessors a,b``: send
the drawn items of a judge's human sample that no person has judged yet to the assessors, as
scoped assignments (what the people-and-machine page's button does)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError, CommandParser

from assessment.access import assessor_candidates
from collection.management.task_lookup import find_task
from evaluation.models import HumanSample
from evaluation.services.human_sample import SampleError, human_sample_assign, routed_message


class Command(BaseCommand):
    help = "Send a drawn human sample's open items to assessors (scoped assignments)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help="answer|formula|document (task1, ...)")
        parser.add_argument("--judge", required=True, help="the machine judge's name")
        parser.add_argument("--assessors", required=True, help="usernames, comma-separated")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        sample = (
            HumanSample.objects.filter(task=task, judge__name=options["judge"])
            .select_related("task", "judge")
            .first()
        )
        if sample is None:
            raise CommandError(f"no human sample drawn for judge {options['judge']!r} of {task}")
        names = [n.strip() for n in options["assessors"].split(",") if n.strip()]
        found = {u.username: u for u in assessor_candidates().filter(username__in=names)}
        unknown = [n for n in names if n not in found]
        if unknown:
            raise CommandError(f"not people who may be given topics: {', '.join(unknown)}")
        people: list[User] = [found[n] for n in dict.fromkeys(names)]
        try:
            routed = human_sample_assign(sample=sample, assessors=people)
        except SampleError as error:
            raise CommandError(str(error)) from error
        self.stdout.write(routed_message(routed, dict(task.topics.values_list("pk", "number"))))
        for problem in routed.refused:
            self.stderr.write(problem)

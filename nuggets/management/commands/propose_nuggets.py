"""``manage.py propose_nuggets --campaign C --endpoint NAME [--task T] [--topic N ...]``.

Ask a registered judge endpoint to propose the nuggets of each topic of a RAG task (or the
topics named) from the documents found relevant so far, here and now (no broker needed), and
print per topic what was asked, taken from the cache, or failed, and the tokens used.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from collection.management.task_lookup import TASK_HELP, find_task
from judges.models import JudgeEndpoint
from judges.services.endpoints import EndpointError
from kernel.core.ordering import natural_key
from nuggets.models import NuggetProposalRun
from nuggets.services.proposing import nugget_proposal_execute, nugget_proposal_prepare


class Command(BaseCommand):
    help = "Ask a judge endpoint to propose the nuggets of a RAG task's topics."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", default="rag", help=TASK_HELP)
        parser.add_argument("--endpoint", required=True, help="a name from judge_endpoint list")
        parser.add_argument("--topic", action="append", default=[], help="a topic number")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        endpoint = JudgeEndpoint.objects.filter(name=options["endpoint"]).first()
        if endpoint is None:
            raise CommandError(f"no endpoint named {options['endpoint']!r} (judge_endpoint list)")
        topics = {t.number: t for t in task.topics.all()}
        unknown = [n for n in options["topic"] if n not in topics]
        if unknown:
            raise CommandError(f"--topic: {', '.join(unknown)} not a topic of {task}")
        numbers = options["topic"] or sorted(topics, key=natural_key)
        counts = {"asked": 0, "cached": 0, "failed": 0, "proposed": 0, "tokens": 0}
        for number in numbers:
            try:
                run = nugget_proposal_prepare(topic=topics[number], endpoint=endpoint)
            except EndpointError as error:
                raise CommandError("; ".join(error.problems)) from error
            run = nugget_proposal_execute(run=run)
            self.stdout.write(f"topic {number}: {_said(run)}")
            answer = run.answer
            counts["cached"] += run.from_cache
            counts["asked"] += not run.from_cache and answer is not None
            counts["failed"] += run.status == NuggetProposalRun.Status.FAILED
            counts["proposed"] += run.proposed
            if answer is not None and not run.from_cache:
                counts["tokens"] += answer.prompt_tokens + answer.completion_tokens
        line = (
            f"{endpoint.name} ({endpoint.model}): {len(numbers)} topics; asked "
            f"{counts['asked']}, from cache {counts['cached']}, failed {counts['failed']}; "
            f"{counts['proposed']} proposals; {counts['tokens']} tokens"
        )
        if counts["failed"]:
            raise CommandError(line)
        self.stdout.write(self.style.SUCCESS(line))


def _said(run: NuggetProposalRun) -> str:
    if run.status == NuggetProposalRun.Status.FAILED:
        return f"failed: {run.error}"
    if run.from_cache:
        return "answered before (from the cache): nothing sent"
    return f"{run.proposed} proposals"

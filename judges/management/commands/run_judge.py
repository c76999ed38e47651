"""``manage.py run_judge --campaign C --task T --endpoint NAME --judge JUDGE
[--prompt-version N] [--limit N [--sample-seed S]] [--logprobs]``: run an LLM judge over a
task's pool items (or a seeded random sample of N of them) here and now (no broker needed), and
print what it asked, took from the cache, and failed."""

from __future__ import annotations

from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from collection.management.task_lookup import find_task
from judges.models import JudgeEndpoint, JudgeRun
from judges.selectors.runs import run_failures_note
from judges.selectors.work import DEFAULT_SAMPLE_SEED
from judges.services.endpoints import EndpointError
from judges.services.runs import judge_run_execute, judge_run_prepare


class Command(BaseCommand):
    help = "Run an LLM judge (a registered endpoint) over a task's pool items."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help="answer|formula|document (task1, ...)")
        parser.add_argument("--endpoint", required=True, help="a name from judge_endpoint list")
        parser.add_argument("--judge", required=True, help="the machine judge's name")
        parser.add_argument("--prompt-version", type=int, default=None, help="default: latest")
        parser.add_argument(
            "--limit", type=int, default=None, help="a random sample of N pool items"
        )
        parser.add_argument(
            "--sample-seed",
            type=int,
            default=DEFAULT_SAMPLE_SEED,
            help=f"the seed of the --limit sample (default {DEFAULT_SAMPLE_SEED})",
        )
        parser.add_argument("--temperature", type=float, default=0.0)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--logprobs", action="store_true", help="keep grade probabilities")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        endpoint = JudgeEndpoint.objects.filter(name=options["endpoint"]).first()
        if endpoint is None:
            raise CommandError(f"no endpoint named {options['endpoint']!r} (judge_endpoint list)")
        try:
            run = judge_run_prepare(
                task=task,
                endpoint=endpoint,
                judge_name=options["judge"],
                prompt_version=options["prompt_version"],
                limit=options["limit"],
                sample_seed=options["sample_seed"],
                temperature=options["temperature"],
                seed=options["seed"],
                logprobs=options["logprobs"],
            )
        except EndpointError as error:
            raise CommandError("; ".join(error.problems)) from error
        except Exception as error:  # the judge's name (assessment's checks)
            problems = getattr(error, "problems", None)
            if problems:
                raise CommandError("; ".join(problems)) from error
            raise
        with tqdm(total=0, unit="item", desc="judging", file=cast(TextIO, self.stderr._out)) as bar:

            def progress(current: JudgeRun) -> None:
                bar.total = current.items_total
                bar.update(max(0, _done(current) - bar.n))

            run = judge_run_execute(run=run, progress=progress)
        limit = run.parameters.get("limit")
        sampled = (
            f"a random sample of {limit} pool items (sample seed {run.parameters['sample_seed']})"
            if limit
            else "every pool item"
        )
        line = (
            f"Judge run {run.pk} ({run.judge.name}, {run.model} at {run.endpoint_name}, prompt "
            f"version {run.prompt_version}) over {sampled} and the probes: "
            f"{run.items_total} questions; "
            f"asked {run.asked}, from cache {run.from_cache}, failed {run.failed}; "
            f"{run.tokens} tokens; {run.retries} retries"
        )
        if run.status != JudgeRun.Status.DONE:
            raise CommandError(f"{line}. {run.status}: {run.error}")
        note = run_failures_note(run)
        if note:
            self.stdout.write(self.style.WARNING(f"{line}. Done {note}."))
            return
        self.stdout.write(self.style.SUCCESS(line))


def _done(run: JudgeRun) -> int:
    fresh = JudgeRun.objects.filter(pk=run.pk).values_list("items_done", flat=True).first()
    return fresh or 0

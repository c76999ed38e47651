"""``manage.py build_pools --campaign C --task T [--seed N] [--full]``: build a task's pools here
and now."""

from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from collection.management.task_lookup import TASK_HELP, find_task
from pooling.services.pools import PoolBuildError, pool_build


class Command(BaseCommand):
    help = "Build (or incrementally rebuild) the judgment pools of a task, showing progress."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True, help="Campaign name, e.g. ARQMath-3")
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--seed", type=int, default=None, help="Default: the task's seed")
        parser.add_argument(
            "--full",
            action="store_true",
            help="Recompute every topic, not only those whose runs or settings changed (e.g. "
            "after the collection's formulas changed, which the topics' fingerprints miss).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        with tqdm(
            total=0, unit="topic", desc="pooling", file=cast(TextIO, self.stderr._out)
        ) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            try:
                build = pool_build(
                    task=task, seed=options["seed"], progress=progress, full=options["full"]
                )
            except PoolBuildError as error:
                raise CommandError(str(error)) from error
        stats = ", ".join(f"{name} {value}" for name, value in build.stats.items()) or "no change"
        self.stdout.write(
            self.style.SUCCESS(f"Build {build.pk}: {build.topics_done} topics; {stats}")
        )

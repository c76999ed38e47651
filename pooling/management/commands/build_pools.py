"""``manage.py build_pools --campaign C --task T [--seed N] [--full]
[--strategy NAME[:PARAM] --budget N [--budget-scope topic|task]]``: build a task's pools here
and now (with a budgeted strategy: docs/pooling.md, "Budgeted pools in the app")."""

from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from collection.management.task_lookup import TASK_HELP, find_task
from collection.models import RetrievalTask
from pooling.core.algorithms.strategies import StrategyError
from pooling.core.algorithms.strategies.priority import BUDGET_SCOPES, PoolStrategy, pool_strategy
from pooling.selectors.strategy_inputs import current_strategy
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

        parser.add_argument(
            "--strategy",
            default=None,
            help="A budgeted strategy for a document or answer task, NAME[:PARAM] (depth, rrf, "
            "rbp, mtf, "
            "mm, mm-ns, hybrid), judged in its priority order; 'rules' goes back to the task's own "
            "rules. Default: the strategy of the task's last build.",
        )
        parser.add_argument(
            "--budget", type=int, default=None, help="Judgments the strategy may spend."
        )
        parser.add_argument(
            "--budget-scope",
            choices=BUDGET_SCOPES,
            default="topic",
            help="Whether --budget is per topic (default) or for the whole task.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        strategy = self._strategy(task, options)
        with tqdm(
            total=0, unit="topic", desc="pooling", file=cast(TextIO, self.stderr._out)
        ) as bar:

            def progress(done: int, total: int) -> None:
                bar.total = total
                bar.update(done - bar.n)

            try:
                build = pool_build(
                    task=task,
                    seed=options["seed"],
                    progress=progress,
                    full=options["full"],
                    strategy=strategy,
                )
            except PoolBuildError as error:
                raise CommandError(str(error)) from error
        stats = ", ".join(f"{name} {value}" for name, value in build.stats.items()) or "no change"
        self.stdout.write(
            self.style.SUCCESS(f"Build {build.pk}: {build.topics_done} topics; {stats}")
        )

    def _strategy(self, task: RetrievalTask, options: dict[str, Any]) -> PoolStrategy | None:
        text, budget = options["strategy"], options["budget"]
        if text is None:
            if budget is not None:
                raise CommandError("--budget needs --strategy")
            return current_strategy(task.pk)
        if text == "rules":
            return None
        if budget is None:
            raise CommandError(f"--strategy {text} needs --budget (a number of judgments)")
        seed = options["seed"] if options["seed"] is not None else task.pool_seed
        try:
            return pool_strategy(text, budget, options["budget_scope"], seed)
        except StrategyError as error:
            raise CommandError(str(error)) from error

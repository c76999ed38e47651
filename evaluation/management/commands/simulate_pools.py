"""``manage.py simulate_pools``: replay budgeted pooling strategies on run files against
prior qrels, no database needed (docs/pooling.md, "Budgeted strategies and the planner")."""

from __future__ import annotations

import time
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.core.official import KIND_DEFAULTS
from evaluation.core.planner_files import PlannerFileError, planner_input_read
from evaluation.core.planner_report import RENDERERS
from evaluation.core.pool_planner import condensed, plan_pools
from evaluation.core.qrels import QrelsFormatError
from evaluation.core.runfiles import RunFileError, default_workers
from evaluation.core.trec_measures import MeasureNameError
from pooling.core.algorithms.strategies import (
    DEFAULT_STRATEGIES,
    STRATEGIES,
    StrategyError,
    parse_strategy,
)

DEFAULT_SHARES = (0.1, 0.2, 0.4)  # of the prior qrels' judgments, without --budget


class Command(BaseCommand):
    help = (
        "Replay pooling strategies at several budgets against prior qrels: judgments, relevant "
        "found, Kendall's tau and tau-AP of the run ranking under each measure, and the "
        "largest drop of a group's best run when its runs are left out of the pool. Reads "
        "files only: no database."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("runs", nargs="+", metavar="RUN", help="TREC run files (gzip allowed)")
        parser.add_argument("--qrels", required=True, help="prior qrels: topic iteration doc grade")
        parser.add_argument(
            "--pool-runs",
            metavar="FILE",
            help="the tags of the runs strategies may pool from, one a line (default: all)",
        )
        known = ", ".join(f"{n} ({what})" for n, (what, _d, _a) in STRATEGIES.items())
        parser.add_argument(
            "--strategy",
            action="append",
            dest="strategies",
            metavar="NAME[:PARAM]",
            help=f"repeatable; default: all of them. Known: {known}",
        )
        parser.add_argument(
            "--budget",
            action="append",
            dest="budgets",
            type=int,
            metavar="N",
            help="total judgments over all topics; repeatable (default: 10%%, 20%% and 40%% "
            "of the prior qrels' judgments)",
        )
        parser.add_argument(
            "--measure",
            action="append",
            dest="measures",
            metavar="NAME",
            help="trec_eval or ir_measures name; repeatable (default: "
            f"{', '.join(KIND_DEFAULTS['document'])})",
        )
        parser.add_argument("--seed", type=int, default=0, help="seed of every random choice")
        parser.add_argument(
            "--groups", metavar="FILE", help="TSV of run tag<TAB>group (default: a run a group)"
        )
        parser.add_argument(
            "--judged-only",
            action="store_true",
            help="condensed replay: every run keeps only the documents the qrels judged, so "
            "the qrels judge all a strategy can pool, as a deep pool would (Sakai's condensed "
            "lists; off by default)",
        )
        parser.add_argument(
            "--workers",
            type=int,
            metavar="N",
            help="processes replaying strategies at once, one strategy each at a time (default: "
            "one per CPU this process may use; 1: all in this process); the rows are the same",
        )
        parser.add_argument("--format", choices=sorted(RENDERERS), default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            strategies = [parse_strategy(s) for s in options["strategies"] or DEFAULT_STRATEGIES]
        except StrategyError as error:
            raise CommandError(str(error)) from error
        budgets = options["budgets"]
        if budgets and min(budgets) < 1:
            raise CommandError(f"--budget must be at least 1, not {min(budgets)}")
        workers = default_workers() if options["workers"] is None else options["workers"]
        if workers < 1:
            raise CommandError(f"--workers must be at least 1, not {workers}")
        started = time.perf_counter()
        try:
            data = planner_input_read(
                options["qrels"],
                options["runs"],
                options["measures"] or list(KIND_DEFAULTS["document"]),
                pool_runs=options["pool_runs"],
                groups=options["groups"],
            )
        except (
            MeasureNameError,
            QrelsFormatError,
            RunFileError,
            PlannerFileError,
            OSError,
        ) as error:
            raise CommandError(str(error)) from error
        if options["judged_only"]:
            data = condensed(data)
        if not budgets:
            judged = sum(len(docs) for docs in data.grades.values())
            budgets = [max(1, round(judged * share)) for share in DEFAULT_SHARES]
        rows = plan_pools(
            data, strategies, sorted(set(budgets)), seed=options["seed"], workers=workers
        )
        self.stdout.write(RENDERERS[options["format"]](rows), ending="")
        if options["format"] == "table":
            self.stderr.write(f"{len(rows)} rows in {time.perf_counter() - started:.1f} s")

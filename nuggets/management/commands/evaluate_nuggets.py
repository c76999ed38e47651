"""``manage.py evaluate_nuggets``: nugget scores of runs from nuggetizer files, no database."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from nuggets.core.evaluate import NuggetFilesDisagree, evaluate_nugget_files
from nuggets.core.nuggetizer import NuggetFile, NuggetList, read_nugget_file
from nuggets.core.reports import RENDERERS, Significance
from nuggets.core.scores import MEASURES
from nuggets.core.significance import DEFAULT_TRIALS, nugget_run_tests


def _read(path: str, *, assignments: bool) -> list[NuggetList]:
    try:
        with Path(path).open("rb") as stream:
            found: NuggetFile = read_nugget_file(stream, name=path, assignments=assignments)
    except OSError as exc:
        raise CommandError(f"{path}: {exc.strerror or exc}") from exc
    if not found.ok:
        raise CommandError("\n".join(found.messages()))
    return found.records


class Command(BaseCommand):
    help = (
        "Score generated answers by nuggets (TREC RAG 2024: all, vital, weighted and their "
        "strict versions) from nuggetizer assignment files. Reads files only: no database."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--assignments",
            nargs="+",
            required=True,
            metavar="FILE",
            help='nuggetizer assignments JSONL: {"qid", "run_id", "nuggets": [{"text", '
            '"importance", "assignment"}]} (gzip allowed)',
        )
        parser.add_argument(
            "--nuggets",
            metavar="FILE",
            help='nuggetizer nuggets JSONL {"qid", "query", "nuggets": [{"text", "importance"}]}:'
            " its topics are those averaged over (a run missing one scores 0 there)",
        )
        parser.add_argument("--format", choices=sorted(RENDERERS), default="table")
        parser.add_argument("--per-topic", action="store_true", help="each topic's scores too")
        parser.add_argument(
            "--significance",
            choices=MEASURES,
            metavar="MEASURE",
            help="test every two runs' difference on this measure (paired randomization test "
            "over the topics averaged over, Holm-corrected; with the t-test's p in JSON)",
        )
        parser.add_argument(
            "--trials",
            type=int,
            default=DEFAULT_TRIALS,
            help=f"randomization trials (default {DEFAULT_TRIALS:,}; 100..1,000,000)",
        )
        parser.add_argument("--seed", type=int, default=0, help="the randomization's seed")

    def handle(self, *args: Any, **options: Any) -> None:
        nuggets = _read(options["nuggets"], assignments=False) if options["nuggets"] else None
        records = [
            record for path in options["assignments"] for record in _read(path, assignments=True)
        ]
        try:
            results = evaluate_nugget_files(records, nuggets)
        except NuggetFilesDisagree as exc:
            raise CommandError(str(exc)) from exc
        significance = None
        if options["significance"]:
            if not 100 <= options["trials"] <= 1_000_000:
                raise CommandError("--trials: between 100 and 1,000,000")
            topics = results[0].scored_topics if results else ()
            tests = nugget_run_tests(
                {r.run: r.per_topic for r in results},
                topics,
                measure=options["significance"],
                seed=options["seed"],
                trials=options["trials"],
            )
            significance = Significance(
                options["significance"], options["trials"], options["seed"], tests
            )
        render = RENDERERS[options["format"]]
        self.stdout.write(render(results, options["per_topic"], significance), ending="")

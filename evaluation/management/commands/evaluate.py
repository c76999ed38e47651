"""``manage.py evaluate``: score run files against a qrels file, no database needed."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.qrels import QrelsFormatError
from evaluation.reports import RENDERERS
from evaluation.runfiles import RunFileError, evaluate_run_files


class Command(BaseCommand):
    help = (
        "Evaluate run files against a qrels file with ARQMath's prime measures "
        "(nDCG', MAP', P'@10; AR and P@1 for open QA). Reads files only: no database."
    )
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (gzip allowed)")
        parser.add_argument("--qrels", required=True, help="qrels file: topic 0 id grade")
        parser.add_argument(
            "--task", choices=["answer", "formula", "openqa"], default="answer", dest="kind"
        )
        parser.add_argument(
            "--formula-index", help="ARQMath formula index TSV (formula task: id -> visual id)"
        )
        parser.add_argument(
            "--average",
            choices=["all", "run"],
            default="all",
            help="mean over all qrels topics, a missing topic scoring 0 (published), "
            "or over the run's own topics",
        )
        parser.add_argument("--format", choices=sorted(RENDERERS), default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            rows = evaluate_run_files(
                options["qrels"],
                options["runs"],
                kind=options["kind"],
                formula_index=options["formula_index"],
                average=options["average"],
            )
        except (QrelsFormatError, RunFileError, OSError) as error:
            raise CommandError(str(error)) from error
        if options["format"] != "json":
            for row in rows:
                for note in row["notes"]:  # type: ignore[attr-defined]
                    self.stderr.write(f"{row['file']}: {note}")
        self.stdout.write(RENDERERS[options["format"]](rows, options["kind"]), ending="")

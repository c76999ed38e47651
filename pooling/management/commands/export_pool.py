"""``manage.py export_pool --campaign C --task T --out FILE [--kind hits|annotated|order]``."""

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from collection.management.task_lookup import TASK_HELP, find_task
from pooling.selectors.pool_export import EXPORT_KINDS, pool_export_lines


class Command(BaseCommand):
    help = "Write a task's pool as TSV: one row per hit, or the annotated pool (run, rank)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--out", required=True, type=Path, help="File to write ('-': stdout)")
        parser.add_argument("--kind", choices=EXPORT_KINDS, default="hits")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], options["task"])
        lines = pool_export_lines(task, options["kind"])
        if str(options["out"]) == "-":
            for line in lines:
                self.stdout.write(line, ending="")
            return
        count = -1  # the header is not a row
        with options["out"].open("w", encoding="utf-8", newline="") as out:
            for line in lines:
                out.write(line)
                count += 1
        self.stderr.write(f"Wrote {count} rows to {options['out']}")

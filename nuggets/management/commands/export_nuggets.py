"""``manage.py export_nuggets --campaign C [--assignments] [-o FILE]``: nuggetizer JSONL.

The task's nuggets (one topic a line), or with ``--assignments`` its final labels (adjudicated,
else official; one run and topic a line), for castorini's nuggetizer or ``evaluate_nuggets``.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand

from collection.management.task_lookup import find_task
from nuggets.selectors import assignments_export_lines, nuggets_export_lines


class Command(BaseCommand):
    help = "Export a rag task's nuggets (or official nugget assignments) as nuggetizer JSONL."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--campaign", required=True)
        parser.add_argument(
            "--assignments",
            action="store_true",
            help="the final labels (adjudicated, else official)",
        )
        parser.add_argument("-o", "--output", type=Path, help="file (default: standard output)")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], "rag")
        lines = (assignments_export_lines if options["assignments"] else nuggets_export_lines)(task)
        if options["output"] is None:
            for line in lines:
                self.stdout.write(line, ending="")
            return
        with options["output"].open("w", encoding="utf-8") as out:
            out.writelines(lines)

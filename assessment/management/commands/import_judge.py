"""``manage.py import_judge FILE --campaign C --task KIND --name NAME [--format auto|qrels|jsonl]
[--counts-in-qrels] [--unlisted-not-relevant] [--description TEXT]``: a machine judge's grades.

The same service as the organizer page and REST: a TREC qrels file or JSONL of topic, id,
grade and an optional rationale; every problem with file, line and field, nothing stored then;
grades for items not in the pool skipped and counted; the same file again changes nothing; a
new file under the same name replaces the judge's grades.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from assessment.core.judge_grades import FORMATS
from assessment.services.machine_judges import MachineJudgeError, machine_judge_import
from collection.management.task_lookup import TASK_HELP, find_task


class Command(BaseCommand):
    help = "Import a machine judge's grades (TREC qrels or JSONL) for a task."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("path", type=Path, metavar="FILE")
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--name", required=True, help="the judge's name, e.g. gpt-judge")
        parser.add_argument("--format", choices=FORMATS, default="auto", dest="file_format")
        parser.add_argument(
            "--counts-in-qrels",
            action="store_true",
            help="its grades fill the hits no person's judgment decides in official qrels",
        )
        parser.add_argument(
            "--unlisted-not-relevant",
            action="store_true",
            help="the file lists only relevant items (classic qrels): grade 0 every pooled hit "
            "of a topic it grades that it does not list",
        )
        parser.add_argument("--description", default="")

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        task = find_task(options["campaign"], options["task"])
        try:
            _, report = machine_judge_import(
                task=task,
                name=options["name"],
                source=path,
                file_format=options["file_format"],
                description=options["description"],
                counts_in_qrels=options["counts_in_qrels"],
                unlisted_not_relevant=options["unlisted_not_relevant"],
            )
        except MachineJudgeError as error:
            for problem in error.problems:
                self.stderr.write(f"  {problem}")
            raise CommandError(f"{path.name} was not stored") from error
        for line in report.lines():
            self.stdout.write(line)

"""``manage.py import_rag_runs FILE... --campaign C [--team TEAM]``: TREC RAG runs for organizers.

Each file is validated and stored as an upload would be (deadline ignored); the team is the
one named, else the file's team_id (2025 layout), else the run_id's part before the first "-".
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collection.management.task_lookup import find_task
from nuggets.services.runs import rag_run_read, rag_run_submit
from pooling.management.commands.import_run import report_problems
from pooling.services.runs import RunValidationError, SubmissionRefused, team_ensure


class Command(BaseCommand):
    help = "Validate and import TREC RAG 2024/2025 JSONL runs into a campaign's rag task."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path, metavar="FILE")
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--team", help="the team of every file (default: from the file)")

    def handle(self, *args: Any, **options: Any) -> None:
        task = find_task(options["campaign"], "rag")
        failed = []
        for path in options["paths"]:
            try:
                with path.open("rb") as stream:
                    team_name = options["team"] or self._team_of(task, stream, path)
                    team, _ = team_ensure(name=team_name)
                    stream.seek(0)
                    submission = rag_run_submit(
                        task=task,
                        team=team,
                        stream=stream,
                        file_name=path.name,
                        uploaded_by=None,
                        ignore_deadline=True,
                    )
            except OSError as exc:
                raise CommandError(f"{path}: {exc.strerror or exc}") from exc
            except RunValidationError as exc:
                self.stderr.write(f"{path.name}: {exc}")
                report_problems(self, exc.report)
                failed.append(path.name)
                continue
            except SubmissionRefused as exc:
                self.stderr.write(f"{path.name}: {exc.message}")
                failed.append(path.name)
                continue
            run = submission.run
            self.stdout.write(
                f"{path.name}: {team.name}/{run.tag} ({run.file_format}), "
                f"{submission.answers} answers"
            )
        if failed:
            raise CommandError(f"not stored: {', '.join(failed)}")

    def _team_of(self, task: Any, stream: Any, path: Path) -> str:
        parsed = rag_run_read(task=task, stream=stream, file_name=path.name, tag=None)
        if not parsed.ok:
            raise RunValidationError(parsed.report())
        return parsed.team_id or parsed.run_id.split("-", 1)[0]

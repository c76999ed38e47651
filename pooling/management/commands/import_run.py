"""``manage.py import_run PATH --campaign C --task T --team TEAM --tag TAG --role ROLE``.

For organizers who receive runs by other means (e-mail, a shared folder): the same validation
and storage as an upload, with the organizer-only fields available.
"""

from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collection.management.task_lookup import TASK_HELP, find_task
from collection.models import RetrievalTask
from pooling.models import Run
from pooling.services.runs import (
    RunValidationError,
    SubmissionRefused,
    run_submit,
    team_ensure,
)


def report_problems(command: BaseCommand, report: dict[str, Any]) -> None:
    for problem in report["errors"]:
        where = f"line {problem['line']}" if problem["line"] else "file"
        command.stderr.write(f"  {where}: {problem['message']}")
    if report["more_errors"]:
        command.stderr.write(f"  ... and {report['more_errors']} more")
    if report.get("stopped_message"):
        command.stderr.write(f"  ({report['stopped_message']})")


def import_one(command: BaseCommand, path: Path, task: RetrievalTask, **fields: Any) -> Run:
    """Import one file, writing its outcome; raise CommandError when it is not stored."""
    try:
        team, created = team_ensure(name=fields.pop("team"))
    except SubmissionRefused as exc:
        raise CommandError(f"{path.name}: {exc.message}") from exc
    if created:
        command.stdout.write(f"created team {team.name}")
    try:
        with path.open("rb") as stream:
            submission = run_submit(
                task=task, team=team, stream=stream, file_name=path.name, uploaded_by=None, **fields
            )
    except RunValidationError as exc:
        command.stderr.write(f"{path.name}: {exc}")
        report_problems(command, exc.report)
        raise CommandError(f"{path.name} was not stored") from exc
    except SubmissionRefused as exc:
        raise CommandError(f"{path.name}: {exc.message}") from exc
    run = submission.run
    verb = "imported" if submission.created else f"replaced (version {run.version})"
    command.stdout.write(
        f"{path.name}: {verb} {team.name}/{run.tag} as {run.role}, {run.row_count} rows "
        f"({run.file_format}, {len(submission.warnings)} warnings)"
    )
    return run


class Command(BaseCommand):
    help = "Validate and import one run file for a team (organizers)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("path", type=Path)
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--team", required=True, help="created when missing")
        parser.add_argument("--tag", required=True)
        parser.add_argument("--role", required=True, choices=Run.Role.values)
        parser.add_argument("--manual", action="store_true")
        parser.add_argument("--data", choices=Run.DeclaredData.values, default="both")
        parser.add_argument("--description", default="")
        parser.add_argument("--baseline", action="store_true")
        parser.add_argument("--pool-as-primary", action="store_true")
        parser.add_argument("--depth", type=int, help="pool depth override")
        parser.add_argument(
            "--ignore-deadline", action="store_true", help="accept after the deadline"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        path: Path = options["path"]
        if not path.is_file():
            raise CommandError(f"no such file: {path}")
        if options["depth"] is not None and options["depth"] < 1:
            raise CommandError("--depth must be a positive number")
        task = find_task(options["campaign"], options["task"])
        import_one(
            self,
            path,
            task,
            team=options["team"],
            tag=options["tag"],
            role=options["role"],
            is_manual=options["manual"],
            declared_data=options["data"],
            description=options["description"],
            ignore_deadline=options["ignore_deadline"],
            organizer_fields={
                "is_baseline": options["baseline"],
                "pool_as_primary": options["pool_as_primary"],
                "depth_override": options["depth"],
            },
        )

"""``manage.py import_runs DIR --campaign C --task T``: a folder of ARQMath-named run files.

File names follow ARQMath's submission convention ``Team-task1-tag-auto-both-P.tsv``: team,
task (the task's name, or its kind's spelling when the campaign has one task of that kind:
``task1``, ``document`` for a document task's TREC runs), tag (may itself contain ``-``),
auto|manual, declared data (text|math|both), P(rimary) or A(lternate). Each file is validated
and stored on its own; the command reports every file and fails at the end if any was not
stored.
"""

from __future__ import annotations

from argparse import ArgumentParser
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from collection.core.task_names import TaskNameError, TaskRef, choose_task, leading_task
from collection.management.task_lookup import TASK_HELP, find_task
from collection.models import RetrievalTask
from pooling.management.commands.import_run import import_one
from pooling.models import Run

SUFFIXES = (".tsv.gz", ".txt.gz", ".tsv", ".txt", ".gz", ".trec")


@dataclass(frozen=True)
class RunFileName:
    team: str
    task: str
    tag: str
    is_manual: bool
    declared_data: str
    role: str


def parse_run_file_name(name: str, task_names: Sequence[str] = ()) -> RunFileName | None:
    """``Team-task1-tag-auto-both-P.tsv`` -> its parts; ``None`` when it does not fit. The task
    part is one of ``task_names`` or a kind spelling, as written (``choose_task`` resolves it)."""
    stem = next((name[: -len(s)] for s in SUFFIXES if name.lower().endswith(s)), None)
    parts = (stem or "").split("-")
    found = leading_task(parts[1:], task_names)
    if found is None or len(parts) < 5 + found[1]:
        return None
    task, taken = found
    team, tag = parts[0], parts[1 + taken : -3]
    mode, data, role = parts[-3:]
    roles = {"P": Run.Role.PRIMARY, "A": Run.Role.ALTERNATE}
    if (
        mode.lower() not in ("auto", "manual")
        or data.lower() not in Run.DeclaredData.values
        or role.upper() not in roles
    ):
        return None
    return RunFileName(
        team=team,
        task=task,
        tag="-".join(tag),
        is_manual=mode.lower() == "manual",
        declared_data=data.lower(),
        role=roles[role.upper()],
    )


class Command(BaseCommand):
    help = "Import every ARQMath-named run file of a folder (Team-task1-tag-auto-both-P.tsv)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("folder", type=Path)
        parser.add_argument("--campaign", required=True)
        parser.add_argument("--task", required=True, help=TASK_HELP)
        parser.add_argument("--ignore-deadline", action="store_true")

    def handle(self, *args: Any, **options: Any) -> None:
        folder: Path = options["folder"]
        if not folder.is_dir():
            raise CommandError(f"no such folder: {folder}")
        task = find_task(options["campaign"], options["task"])
        tasks = [
            TaskRef(t.pk, t.name, t.kind)
            for t in RetrievalTask.objects.filter(campaign=task.campaign).only("name", "kind")
        ]
        names = [t.name for t in tasks]
        # Primaries first: the campaign's run limits are counted per role.
        named = [(path, parse_run_file_name(path.name, names)) for path in sorted(folder.iterdir())]
        named.sort(key=lambda pair: pair[1] is None or pair[1].role != Run.Role.PRIMARY)
        stored, failed = 0, []
        for path, name in named:
            if not path.is_file():
                continue
            if name is None:
                self.stdout.write(
                    f"{path.name}: skipped (not a run named like Team-{task.name}-tag-auto-"
                    "both-P.tsv)"
                )
                continue
            try:
                named_task = choose_task(tasks, name.task, campaign=task.campaign.name)
            except TaskNameError as error:  # a kind the campaign has several tasks of
                self.stdout.write(f"{path.name}: skipped ({error})")
                continue
            if named_task.pk != task.pk:
                self.stdout.write(f"{path.name}: skipped (a run of task {named_task.name})")
                continue
            try:
                import_one(
                    self,
                    path,
                    task,
                    team=name.team,
                    tag=name.tag,
                    role=name.role,
                    is_manual=name.is_manual,
                    declared_data=name.declared_data,
                    ignore_deadline=options["ignore_deadline"],
                )
                stored += 1
            except CommandError as exc:
                self.stderr.write(str(exc))
                failed.append(path.name)
        self.stdout.write(f"{stored} run(s) stored, {len(failed)} not stored")
        if failed:
            raise CommandError(f"not stored: {', '.join(failed)}")

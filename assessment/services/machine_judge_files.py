"""Reading and checking a machine judge's grades file before anything is stored.

The file is bounded in size, parsed as TREC qrels or JSONL, and each grade is checked the way
the judging service checks a person's (``HitVerdict.problem``) on the task's scale; every
problem names file, line and field.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from assessment.core.judge_grades import (
    GradeProblem,
    JudgeGrade,
    JudgeGradesError,
    judge_grades_decode,
    judge_grades_parse,
)
from assessment.models import COMMENT_MAX_CHARS, MachineJudge
from assessment.selectors.guidelines import guidelines_current
from assessment.services.judging import HitVerdict
from collection.models import RetrievalTask

NAME_MAX_CHARS = MachineJudge._meta.get_field("name").max_length or 100
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class MachineJudgeError(Exception):
    """A machine-judge request breaks a rule; ``problems`` lists each (file, line, field)."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


def _max_bytes() -> int:
    return int(settings.MACHINE_JUDGE_FILE_MAX_BYTES)


def machine_file_read(source: str | Path | IO[bytes]) -> tuple[str, bytes]:
    """(file name, bytes) of a path or an uploaded file, refused past the size bound
    (``MACHINE_JUDGE_FILE_MAX_BYTES``; a gzip file counts decompressed when it is decoded)."""
    limit = _max_bytes()
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            with path.open("rb") as stream:
                data = stream.read(limit + 1)
        except OSError as error:
            raise MachineJudgeError([f"{path.name}: cannot read it ({error.strerror})"]) from error
        name = path.name
    else:
        name = Path(str(getattr(source, "name", "") or "upload")).name
        data = source.read(limit + 1)
    if len(data) > limit:
        raise MachineJudgeError([f"{name}: larger than {limit:,} bytes"])
    return name, data


def machine_judge_fields_check(task: RetrievalTask, name: str, description: str) -> list[str]:
    """Problems of a judge's name and description, and of the task it would grade."""
    problems = []
    if task.kind == RetrievalTask.Kind.OPENQA:
        problems.append(
            "open-QA answers are judged in the answer task's topics: machine judges grade "
            "answer, formula and document tasks"
        )
    if not name:
        problems.append("name: give the judge a name")
    elif len(name) > NAME_MAX_CHARS or _CONTROL.search(name):
        problems.append(f"name: at most {NAME_MAX_CHARS} characters, no control characters")
    if len(description) > COMMENT_MAX_CHARS or "\x00" in description:
        problems.append(f"description: at most {COMMENT_MAX_CHARS:,} characters, no NUL")
    return problems


def _grade_problem(grade: JudgeGrade, scale: Any) -> GradeProblem | None:
    """The judging service's check of one grade (HitVerdict.problem), with its line and field."""
    problem = HitVerdict(hit_id=0, grade=grade.grade, comment=grade.rationale).problem(scale)
    if problem is None:
        return None
    where = "rationale" if "comment" in problem else "grade"
    return GradeProblem(grade.line, where, problem.replace("the comment", "the rationale"))


def machine_grades_parse(task: RetrievalTask, file_name: str, data: bytes, file_format: str) -> Any:
    """(format, grades, scale, guidelines version id) of a file checked against the task."""
    current = guidelines_current(task=task)
    try:
        text = judge_grades_decode(data, file_name=file_name, max_bytes=_max_bytes())
        chosen, grades = judge_grades_parse(
            text,
            file_name=file_name,
            file_format=file_format,
            top=current.scale.top,
            max_rationale=COMMENT_MAX_CHARS,
        )
        problems = [p for g in grades if (p := _grade_problem(g, current.scale)) is not None]
        if problems:
            raise JudgeGradesError(file_name, problems[:50])
    except JudgeGradesError as error:
        raise MachineJudgeError(error.messages) from error
    return chosen, grades, current.scale, current.version_id

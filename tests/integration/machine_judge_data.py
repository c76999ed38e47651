"""Machine judge files for the judged answer task of ``evaluation_data``.

``judged_task_with_open_item`` adds A.2 post 203, in the pool but judged by nobody, so a
machine judge that counts in qrels has a hit to fill. ``JUDGE_GRADES`` grade every pool hit,
plus a post not in the pool (A.1 999) and a topic not in the task (Z.9).
"""

from __future__ import annotations

import json
from pathlib import Path

from assessment.models import MachineJudge
from assessment.services.machine_judges import MachineImport, machine_judge_import
from collection.models import RetrievalTask
from tests.factories import HitFactory, PoolItemFactory
from tests.integration.evaluation_data import JudgedTask, judged_answer_task

# (topic, post, grade, rationale)
JUDGE_GRADES = [
    ("A.1", "101", 3, "answers the question directly"),
    ("A.1", "102", 1, ""),
    ("A.1", "103", 2, "a partial proof"),
    ("A.1", "104", 0, ""),
    ("A.1", "105", 2, ""),
    ("A.2", "201", 2, ""),
    ("A.2", "202", 0, "off topic"),
    ("A.2", "203", 1, ""),
    ("A.1", "999", 3, "not in the pool"),
    ("Z.9", "101", 1, "topic not in the task"),
]
IN_POOL = 8


def judged_task_with_open_item() -> JudgedTask:
    data = judged_answer_task()
    item = PoolItemFactory.create(topic=data.topics["A.2"], post_id=203, key="203")
    data.hits[203] = HitFactory.create(item=item, post_id=203)
    return data


def jsonl(grades: list[tuple[str, str, int, str]]) -> str:
    lines = []
    for topic, post, grade, rationale in grades:
        record: dict[str, object] = {"topic": topic, "post_id": post, "grade": grade}
        if rationale:
            record["rationale"] = rationale
        lines.append(json.dumps(record))
    return "\n".join(lines) + "\n"


def qrels(grades: list[tuple[str, str, int, str]]) -> str:
    return "".join(f"{topic} 0 {post} {grade}\n" for topic, post, grade, _ in grades)


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def import_judge(
    task: RetrievalTask, folder: Path, text: str, *, name: str = "oracle", **options: object
) -> tuple[MachineJudge, MachineImport]:
    file_name = str(options.pop("file_name", "judge.jsonl"))
    return machine_judge_import(
        task=task,
        name=name,
        source=write(folder, file_name, text),
        **options,  # type: ignore[arg-type]
    )

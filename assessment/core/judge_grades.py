"""A machine judge's grades file: TREC qrels or JSONL. Pure, no Django.

Two forms, told apart by the first line that is not blank (``auto``):

- TREC qrels, ``topic iter id grade``, read by the one qrels reader (``kernel.core.qrels``),
  so a judge file and an evaluation qrels refuse the same lines;
- JSONL, one object a line: ``topic`` (or ``qid``, ``query_id``), the item's id as ``docno``,
  ``doc_id``, ``item`` or ``post_id``, ``grade``, and an optional ``rationale`` (the judge's
  reason, kept as the judgment's comment). Other fields (a model name, a score) are ignored.

Every problem names the file, the line and the field. Whether an id is in the task's pools is
the caller's question: ids the pools do not hold are skipped there, not refused here.
"""

from __future__ import annotations

import gzip
import io
import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from kernel.core.qrels import QrelsFormatError, qrels_parse

__all__ = [
    "FORMATS",
    "ID_FIELDS",
    "GradeProblem",
    "JudgeGrade",
    "JudgeGradesError",
    "judge_grades_decode",
    "judge_grades_parse",
]

Format = Literal["qrels", "jsonl"]
FORMATS = ("auto", "qrels", "jsonl")
TOPIC_FIELDS = ("topic", "qid", "query_id")
ID_FIELDS = ("docno", "doc_id", "item", "post_id")
MAX_PROBLEMS = 50
# A JSONL line holds a rationale of at most ``max_rationale`` characters (each at most 6 when
# escaped as \uXXXX) and a few short fields. A longer line is refused by its number before it
# is decoded: a file that is one huge line would otherwise be parsed whole into memory.
LINE_OVERHEAD_CHARS = 4096
_INTEGER = re.compile(r"-?[0-9]{1,9}")
_GZIP_MAGIC = b"\x1f\x8b"


@dataclass(frozen=True, slots=True)
class JudgeGrade:
    """One grade of the file: ``item`` is the id as written (a docno, a post or formula id)."""

    topic: str
    item: str
    grade: int
    rationale: str = ""
    line: int = 0


@dataclass(frozen=True, slots=True)
class GradeProblem:
    line: int | None  # None: the file as a whole
    field: str
    message: str

    def text(self, file_name: str) -> str:
        where = f"{file_name} line {self.line}" if self.line is not None else file_name
        return f"{where}, {self.field}: {self.message}"


class JudgeGradesError(ValueError):
    """The file cannot be read as grades; ``messages`` say file, line and field of each."""

    def __init__(self, file_name: str, problems: list[GradeProblem]) -> None:
        self.file_name = file_name
        self.problems = problems
        self.messages = [p.text(file_name) for p in problems]
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__("; ".join(self.messages[:5]) + more)


def _shown(value: object, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def judge_grades_decode(data: bytes, *, file_name: str, max_bytes: int) -> str:
    """The file's text: gunzipped when it is gzip, UTF-8 (a byte order mark allowed), at most
    ``max_bytes`` once unpacked. A byte that is not UTF-8 is reported with its line."""
    if data.startswith(_GZIP_MAGIC):
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(data)) as unpacked:
                data = unpacked.read(max_bytes + 1)
        except (OSError, EOFError) as error:
            problem = GradeProblem(None, "file", f"bad gzip: {error}")
            raise JudgeGradesError(file_name, [problem]) from error
    if len(data) > max_bytes:
        problem = GradeProblem(None, "file", f"larger than {max_bytes:,} bytes")
        raise JudgeGradesError(file_name, [problem])
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problem = GradeProblem(line, "encoding", f"byte {data[error.start]:#04x} is not UTF-8")
        raise JudgeGradesError(file_name, [problem]) from error


def _detect(text: str) -> Format:
    for line in text.splitlines():
        if line.strip():
            return "jsonl" if line.lstrip().startswith("{") else "qrels"
    return "qrels"


def _qrels_field(message: str) -> str:
    """Which field a message of the qrels reader is about."""
    if message.startswith("grade"):
        return "grade"
    if message.startswith("repeated"):
        return "id"
    return "columns"


def _from_qrels(text: str, file_name: str, top: int) -> list[JudgeGrade]:
    try:
        entries = qrels_parse(text, max_grade=top)
    except QrelsFormatError as error:
        problems = [GradeProblem(n, _qrels_field(m), m) for n, m in error.problems]
        raise JudgeGradesError(file_name, problems) from error
    return [JudgeGrade(e.topic, e.doc, e.grade, "", e.line) for e in entries]


def _one_of(record: dict[str, Any], names: tuple[str, ...]) -> tuple[str, Any] | str:
    """(field, value) of the one field of ``names`` the record gives, or why not."""
    given = [(name, record[name]) for name in names if record.get(name) is not None]
    if not given:
        return f"missing: give one of {', '.join(names)}"
    if len({str(value) for _, value in given}) > 1:
        return f"{' and '.join(n for n, _ in given)} differ: give one of them"
    return given[0]


def _identifier(record: dict[str, Any], names: tuple[str, ...], line: int) -> tuple[str, str]:
    found = _one_of(record, names)
    if isinstance(found, str):
        raise _Bad(GradeProblem(line, names[0], found))
    name, value = found
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        raise _Bad(GradeProblem(line, name, f"must be a string or an integer, not {_shown(value)}"))
    text = str(value).strip()
    if not text or any(c.isspace() for c in text):
        raise _Bad(GradeProblem(line, name, f"{_shown(value)} is not an id"))
    return name, text


def _grade(record: dict[str, Any], line: int, top: int) -> int:
    value = record.get("grade")
    if value is None:
        raise _Bad(GradeProblem(line, "grade", "missing"))
    grade: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        grade = value
    elif isinstance(value, float) and value.is_integer():
        grade = int(value)
    elif isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        grade = int(value.strip())
    if grade is None:
        raise _Bad(GradeProblem(line, "grade", f"{_shown(value)} is not an integer"))
    if not 0 <= grade <= top:
        raise _Bad(GradeProblem(line, "grade", f"grade {grade} is outside 0-{top}"))
    return grade


def _rationale(record: dict[str, Any], line: int, max_rationale: int) -> str:
    value = record.get("rationale")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise _Bad(GradeProblem(line, "rationale", f"must be a string, not {_shown(value)}"))
    if "\x00" in value:
        raise _Bad(GradeProblem(line, "rationale", "must not contain NUL characters"))
    text = value.strip()
    if len(text) > max_rationale:
        message = f"has {len(text):,} characters (at most {max_rationale:,})"
        raise _Bad(GradeProblem(line, "rationale", message))
    return text


class _Bad(Exception):
    def __init__(self, problem: GradeProblem) -> None:
        self.problem = problem


def _jsonl_grade(line: str, number: int, top: int, max_rationale: int) -> tuple[str, JudgeGrade]:
    """(the id's field name, the grade) of one JSONL line."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError as error:
        raise _Bad(GradeProblem(number, "json", f"{error.msg} at column {error.colno}")) from error
    if not isinstance(record, dict):
        raise _Bad(GradeProblem(number, "json", "expected an object {...}"))
    _, topic = _identifier(record, TOPIC_FIELDS, number)
    id_field, item = _identifier(record, ID_FIELDS, number)
    grade = _grade(record, number, top)
    rationale = _rationale(record, number, max_rationale)
    return id_field, JudgeGrade(topic, item, grade, rationale, number)


def _jsonl_line_limit(max_rationale: int) -> int:
    return 6 * max_rationale + LINE_OVERHEAD_CHARS


def _jsonl_grade_bounded(
    line: str, number: int, top: int, max_rationale: int
) -> tuple[str, JudgeGrade]:
    limit = _jsonl_line_limit(max_rationale)
    if len(line) > limit:
        message = (
            f"line longer than {limit:,} characters (a rationale has at most {max_rationale:,})"
        )
        raise _Bad(GradeProblem(number, "json", message))
    return _jsonl_grade(line, number, top, max_rationale)


def _from_jsonl(text: str, file_name: str, top: int, max_rationale: int) -> list[JudgeGrade]:
    grades: list[JudgeGrade] = []
    problems: list[GradeProblem] = []
    first_line: dict[tuple[str, str], int] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            id_field, grade = _jsonl_grade_bounded(line, number, top, max_rationale)
        except _Bad as bad:
            problems.append(bad.problem)
        else:
            key = (grade.topic, grade.item)
            if key in first_line:
                message = (
                    f"repeated topic {_shown(grade.topic)} {id_field} {_shown(grade.item)} "
                    f"(first on line {first_line[key]})"
                )
                problems.append(GradeProblem(number, id_field, message))
            else:
                first_line[key] = number
                grades.append(grade)
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise JudgeGradesError(file_name, problems)
    return grades


def judge_grades_parse(
    text: str, *, file_name: str, file_format: str = "auto", top: int, max_rationale: int
) -> tuple[Format, list[JudgeGrade]]:
    """The format read and the grades in file order, each of 0..``top`` (the task's scale).

    Raises JudgeGradesError listing every problem (up to 50) with file, line and field; a
    repeated (topic, id) is one, since only one grade of an item can count.
    """
    if file_format not in FORMATS:
        problem = GradeProblem(None, "format", f"must be one of {', '.join(FORMATS)}")
        raise JudgeGradesError(file_name, [problem])
    chosen: Format = _detect(text) if file_format == "auto" else file_format  # type: ignore[assignment]
    if chosen == "qrels":
        grades = _from_qrels(text, file_name, top)
    else:
        grades = _from_jsonl(text, file_name, top, max_rationale)
    if not grades:
        raise JudgeGradesError(file_name, [GradeProblem(None, "file", "no grades in the file")])
    return chosen, grades

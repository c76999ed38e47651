"""The qrels file format: ``topic 0 id grade`` lines, read and written. Pure, no Django.

The one reader of qrels files (TREC's format, as the ARQMath organizers publish it): the
evaluation module reads official and exported qrels with it and the training rounds read gold
grades with it, so both refuse the same bad lines, each with its number. It sits here, below
every app, because both assessment and evaluation need it and assessment never imports
evaluation. Grades are 0-3 (N, L, M, H); ARQMath-3's Task 3 file also uses 5 for "system
failure" and 6 for "do not know".

``trec_eval=True`` reads a file as trec_eval 9 does (``get_qrels.c``), for qrels that come from
outside (``evaluate``, an imported official file): a line whose first non-blank character is
``#`` is skipped and a grade is any integer from -127 to 127; a negative one means "in the
pool but not judged" (sampled pools, infAP). trec_eval refuses a line with a fifth column, and
so does this reader.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from kernel.core.grades import GRADE_DONT_KNOW

MAX_PROBLEMS = 50
# A qrels line is four short fields (the longest ids, URLs, stay under 2,048 characters). A
# longer line is refused by its number alone: a file that is one huge "line" (an upload may be
# 100 MB) is neither split into fields nor quoted back in the error.
MAX_LINE_CHARS = 4096
# What qrels_parse accepts, in the words of every form and command that takes a qrels file.
QRELS_FILE_HELP = (
    "four columns a line: topic, iteration (usually 0), id, integer grade, "
    "separated by tabs or spaces (any run of either); blank lines are skipped, "
    "LF or CRLF line ends, each (topic, id) at most once"
)

# get_qrels.c: "an integer between -127 and 127"; trec_eval sizes a table by the largest grade.
TREC_GRADE_LIMIT = 127


@dataclass(frozen=True, slots=True)
class QrelsEntry:
    """One qrels line."""

    topic: str
    doc: str
    grade: int
    iteration: str = "0"
    line: int = field(default=0, compare=False)  # where it was read, for messages


class QrelsFormatError(ValueError):
    """A qrels file that cannot be read; ``problems`` lists (line number, message)."""

    def __init__(self, problems: list[tuple[int, str]]) -> None:
        self.problems = problems
        shown = "; ".join(f"line {n}: {m}" for n, m in problems[:5])
        more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
        super().__init__(f"invalid qrels: {shown}{more}")


def qrels_parse(
    text: str, *, max_grade: int = GRADE_DONT_KNOW, trec_eval: bool = False
) -> list[QrelsEntry]:
    """Read qrels text (tabs or spaces, LF or CRLF) into entries in file order.

    Every problem is reported with its line number (up to a cap); a repeated (topic, id)
    is an error because trec_eval refuses one too ("duplicate docs").
    """
    entries: list[QrelsEntry] = []
    problems: list[tuple[int, str]] = []
    seen: set[tuple[str, str]] = set()
    text = text.removeprefix("\ufeff")  # a byte order mark is not part of the first topic
    for number, line in enumerate(text.splitlines(), start=1):
        if len(line) > MAX_LINE_CHARS:
            problems.append((number, f"longer than {MAX_LINE_CHARS:,} characters"))
            if len(problems) >= MAX_PROBLEMS:
                break
            continue
        fields = line.split()
        if not fields or (trec_eval and fields[0].startswith("#")):
            continue
        if len(fields) != 4:
            problems.append((number, f"expected 4 columns, found {len(fields)}"))
        elif not re.fullmatch(r"-?[0-9]+", fields[3]):
            problems.append((number, f"grade {fields[3]!r} is not an integer"))
        elif trec_eval and not -TREC_GRADE_LIMIT <= int(fields[3]) <= TREC_GRADE_LIMIT:
            problems.append((number, f"grade {fields[3]} is outside trec_eval's -127 to 127"))
        elif not trec_eval and not 0 <= int(fields[3]) <= max_grade:
            problems.append((number, f"grade {fields[3]} is outside 0-{max_grade}"))
        elif (fields[0], fields[2]) in seen:
            problems.append((number, f"repeated topic {fields[0]} id {fields[2]}"))
        else:
            seen.add((fields[0], fields[2]))
            entries.append(QrelsEntry(fields[0], fields[2], int(fields[3]), fields[1], number))
        if len(problems) >= MAX_PROBLEMS:
            break
    if problems:
        raise QrelsFormatError(problems)
    return entries


def qrels_read_path(
    path: str | Path, *, max_grade: int = GRADE_DONT_KNOW, trec_eval: bool = False
) -> list[QrelsEntry]:
    """Read a qrels file (UTF-8, a byte order mark allowed; LF or CRLF)."""
    text = Path(path).read_text(encoding="utf-8-sig")
    return qrels_parse(text, max_grade=max_grade, trec_eval=trec_eval)


def qrels_format(entries: Iterable[QrelsEntry], *, line_end: str = "\n") -> str:
    """Write entries tab-separated in the order given (use ``qrels_sorted`` for exports)."""
    return "".join(f"{e.topic}\t{e.iteration}\t{e.doc}\t{e.grade}{line_end}" for e in entries)

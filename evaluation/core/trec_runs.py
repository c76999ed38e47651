"""Run lines as trec_eval 9 reads them (``get_trec_results.c``), for files evaluated from disk:
pure, no Django.

trec_eval skips a line whose first non-blank character is ``#``, and reads six columns
(``topic Q0 doc rank score tag``) ignoring anything after the run tag. Participant uploads
stay strict (``pooling.core.formats``): what they store must be what the file says.
"""

from __future__ import annotations

TREC_WIDTH = 6
TREC_Q0 = frozenset({"Q0", "q0"})


def is_comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def first_fields(lines: list[str]) -> list[str] | None:
    """The fields of the first line that is neither blank nor a comment."""
    for line in lines:
        fields = line.split()
        if fields and not fields[0].startswith("#"):
            return fields
    return None


def is_trec_line(fields: list[str], task_kind: str | None) -> bool:
    """A TREC run line: any for a document task, else ``Q0`` second with six columns or more."""
    return task_kind == "document" or (len(fields) >= TREC_WIDTH and fields[1] in TREC_Q0)


def trec_eval_lines(lines: list[str], *, trec: bool) -> list[str]:
    """``lines`` with comments blanked (line numbers kept for messages) and, for a TREC run,
    each line cut after its sixth column."""
    cleaned: list[str] = []
    for line in lines:
        if "#" in line and is_comment(line):
            cleaned.append("")
        elif trec:
            fields = line.split()
            cleaned.append(" ".join(fields[:TREC_WIDTH]) if len(fields) > TREC_WIDTH else line)
        else:
            cleaned.append(line)
    return cleaned

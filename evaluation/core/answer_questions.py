"""ARQMath-3's per-run shares of answers marked machine-generated (MG) or holding unrelated
information (UI): pure, no Django.

Assessors answered the two questions beside the grade on a subset of topics (73 in ARQMath-3).
A run's MG is the share of its answers on those topics that were marked machine-generated, UI
the share marked as holding unrelated information. An answer counts in a question's share only
where its judgment records an answer to that question (a judgment made before the question was
asked, or an unjudged answer, is left out, and the count of answers counted goes with the
figure).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass

# The questions the results report, in their column order, with how a page names each.
REPORTED = {"mg": "machine-generated", "ui": "unrelated information"}
NOTE_PREFIX = "MG and UI: "

Marks = Mapping[tuple[str, str], Mapping[str, bool]]  # (topic, item key) -> code -> yes/no


@dataclass(frozen=True, slots=True)
class Share:
    marked: int  # answers marked yes
    answered: int  # answers with a recorded answer to the question

    @property
    def value(self) -> float | None:
        return self.marked / self.answered if self.answered else None


def question_shares(
    answers: Mapping[str, str],
    marks: Marks,
    asked: Mapping[str, frozenset[str] | None],
) -> dict[str, Share]:
    """Per question code in ``asked`` (code -> the topics it is asked on, None: every topic):
    of the run's answers (``answers`` topic -> the answer's pool item key) on those topics,
    how many were marked yes, over how many have an answer to it."""
    shares: dict[str, Share] = {}
    for code, topics in asked.items():
        marked = answered = 0
        for topic, key in answers.items():
            if topics is not None and topic not in topics:
                continue
            value = marks.get((topic, key), {}).get(code)
            if value is None:
                continue
            answered += 1
            marked += 1 if value else 0
        shares[code] = Share(marked, answered)
    return shares


def shares_note(asked: Mapping[str, frozenset[str] | None]) -> str:
    """What the MG and UI columns mean, for the results page (one line for every run)."""
    parts = []
    for code, topics in asked.items():
        where = "every topic" if topics is None else f"the {len(topics)} topics where it was asked"
        parts.append(f"{code.upper()} the share marked {REPORTED.get(code, code)} over {where}")
    return (
        f"{NOTE_PREFIX}share of each run's answers the assessors marked so: "
        + "; ".join(parts)
        + " (answers judged without the question are left out; the count is in brackets)."
    )


class JudgmentsFileError(ValueError):
    """A judgments CSV that cannot be read for MG and UI."""


NEEDED = ("topic", "item", "purpose", "updated_at", "answers")
MAX_PROBLEMS = 20


def marks_from_judgments_csv(
    text: str, *, name: str = "judgments file"
) -> tuple[dict[tuple[str, str], dict[str, bool]], dict[str, frozenset[str]]]:
    """The marks (``question_shares``) and the topics each question was asked on, from the
    judgments CSV the app exports (organizer's task page): per (topic, item), the answers of the
    judgment that counts, official before dual, the latest first; training judgments are left
    out. A question counts as asked on a topic where any judgment answered it."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in NEEDED if c not in (reader.fieldnames or [])]
    if missing:
        raise JudgmentsFileError(
            f"{name}: no column {', '.join(missing)} (the app's judgments CSV)"
        )
    chosen: dict[tuple[str, str], tuple[tuple[int, str], dict[str, bool]]] = {}
    problems: list[str] = []
    for number, row in enumerate(reader, start=2):
        purpose = row["purpose"]
        if purpose not in ("official", "dual") or not row["answers"]:
            continue
        answers: dict[str, bool] = {}
        for part in row["answers"].split():
            code, _, value = part.partition("=")
            if value not in ("yes", "no") or not code:
                problems.append(f"line {number}: answers {part[:40]!r} is not code=yes or code=no")
                break
            answers[code] = value == "yes"
        if len(problems) >= MAX_PROBLEMS:
            break
        rank = (0 if purpose == "official" else 1, _negated(row["updated_at"]))
        key = (row["topic"], row["item"])
        if key not in chosen or rank < chosen[key][0]:
            chosen[key] = (rank, answers)
    if problems:
        raise JudgmentsFileError(f"{name}: " + "; ".join(problems))
    marks = {key: answers for key, (_, answers) in chosen.items()}
    asked: dict[str, set[str]] = {}
    for (topic, _), answers in marks.items():
        for code in answers:
            asked.setdefault(code, set()).add(topic)
    return marks, {code: frozenset(topics) for code, topics in asked.items() if code in REPORTED}


def _negated(stamp: str) -> str:
    """An ISO time sorting latest first (the characters' complements)."""
    return "".join(chr(0x10FFFF - ord(c)) for c in stamp)

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

"""Reading a judge's answer: the grade from its final line, strictly, and the probability of
each grade from the answer's log-probabilities.

An answer whose last non-empty line is not ``Grade: N`` with N on the task's scale is a
failure, recorded with its text: a grade is never guessed from the rest of the answer (a
model that writes "Grade: 2 or 3" or stops mid-sentence has not graded).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ParsedAnswer", "answer_parse", "grade_probabilities"]

# "Grade: 2", optionally in Markdown bold, optionally with a closing full stop.
_FINAL = re.compile(r"^\**\s*grade\s*\**\s*:\s*\**\s*(\d{1,3})\s*\**\s*\.?\s*\**$", re.IGNORECASE)
_SHOWN = 200


@dataclass(frozen=True)
class ParsedAnswer:
    grade: int | None
    failure: str = ""
    probabilities: dict[int, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.grade is not None


def answer_parse(content: Any, values: Sequence[int], logprobs: Any = None) -> ParsedAnswer:
    """The grade of ``content`` on a scale of ``values``, or a failure saying why."""
    if not isinstance(content, str) or not content.strip():
        return ParsedAnswer(None, "the answer is empty")
    last = content.strip().splitlines()[-1].strip()
    found = _FINAL.match(last)
    if found is None:
        return ParsedAnswer(None, f"no final line 'Grade: N': the last line is {last[:_SHOWN]!r}")
    grade = int(found.group(1))
    if grade not in values:
        allowed = ", ".join(str(v) for v in sorted(values))
        return ParsedAnswer(None, f"grade {grade} is not on the scale ({allowed})")
    return ParsedAnswer(grade, "", grade_probabilities(logprobs, values, grade))


def _tokens(logprobs: Any) -> list[Mapping[str, Any]]:
    content = logprobs.get("content") if isinstance(logprobs, Mapping) else None
    return [t for t in content if isinstance(t, Mapping)] if isinstance(content, list) else []


def grade_probabilities(logprobs: Any, values: Sequence[int], grade: int) -> dict[int, float]:
    """P(grade) for each grade, from the alternatives the endpoint gave for the token that
    wrote the final grade (OpenAI's ``logprobs.content[i].top_logprobs``), normalised over the
    scale's grades; {} when the answer carries no log-probabilities for that token."""
    wanted = {str(v): v for v in values}
    for token in reversed(_tokens(logprobs)):
        if str(token.get("token", "")).strip() != str(grade):
            continue
        mass: dict[int, float] = {}
        alternatives = token.get("top_logprobs")
        pairs = [*(alternatives if isinstance(alternatives, list) else []), token]
        for alternative in pairs:
            if not isinstance(alternative, Mapping):
                continue
            value = wanted.get(str(alternative.get("token", "")).strip())
            logprob = alternative.get("logprob")
            if value is None or not isinstance(logprob, (int, float)) or math.isnan(logprob):
                continue
            mass[value] = max(mass.get(value, 0.0), math.exp(min(float(logprob), 0.0)))
        total = sum(mass.values())
        if total <= 0:
            return {}
        return {v: round(mass.get(v, 0.0) / total, 6) for v in sorted(values)}
    return {}

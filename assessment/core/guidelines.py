"""A task's judging guidelines: its grade scale, flags, keys and texts. Pure.

A scale has the grades 0..G (G from 1 to 4: binary, 0-2, ARQMath's 0-3, 0-4), each with a
label, one or more keys and a definition, and the flags the task allows (system failure, do
not know), each with the same. Texts are Markdown (``guidelines_markdown`` renders them).

A scale may also carry extra yes/no questions asked beside the grade (ARQMath-3 asked, on 73 of
its topics, whether an answer looks machine-generated and whether it holds information
unrelated to the question): each with a code, label, keys, definition and the topics it is
asked on (none listed: every topic). They ride in the scale's JSON so that a guidelines version
says exactly which questions were asked where, and a judgment's version tells what it answered.

Stored as JSON (``scale_as_json`` / ``scale_from_json``), validated here and nowhere else:
every problem is reported at once, each naming the grade or flag and the field.

Keys are what the judging page listens to. The page's own keys (moving between hits, the
comment box, the definitions, the help) are reserved in ``RESERVED_KEYS``: a scale can never
take them, so a grade key and a navigation key can never collide.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from kernel.core.grades import MAX_GRADE

__all__ = [
    "FLAG_CODES",
    "RESERVED_KEYS",
    "FlagDefinition",
    "GradeDefinition",
    "GradeScale",
    "Guidelines",
    "GuidelinesInvalid",
    "QuestionDefinition",
    "answers_problem",
    "guidelines_problems",
    "keys_parse",
    "scale_as_json",
    "scale_from_json",
]

MIN_TOP_GRADE = 1
# The flag codes Judgment.Flag stores (a unit test holds the two lists equal).
FLAG_CODES: tuple[str, ...] = ("system_failure", "dont_know")
FLAG_LABELS = {"system_failure": "System failure", "dont_know": "Do not know"}

# Keys of the judging page that are not grades or flags, with what they do. Letters are
# compared lower-cased, as the page does. Keep this in step with static/js/judge_keys.js: a key the
# page gives a meaning to must be here (Enter, Tab, Escape and the arrows are not single
# printable characters, so a scale cannot take them anyway).
RESERVED_KEYS: Mapping[str, str] = {
    "j": "next hit",
    "k": "previous hit",
    "c": "write a comment",
    "g": "show the definitions",
    "?": "show the keyboard help",
    "t": "open the focused post's thread",
    "q": "open the topic's thread",
    # Document items (static/js/highlight.js): the query terms highlighted in the document.
    "x": "turn the highlighting of query terms on or off",
    ".": "jump to the next query-term match",
    ",": "jump to the previous query-term match",
}

MAX_LABEL = 40
MAX_DEFINITION = 4000
MAX_INSTRUCTIONS = 20000
MAX_KEYS = 3
MAX_NOTE = 200
MAX_QUESTIONS = 5
MAX_QUESTION_TOPICS = 2000
MAX_TOPIC_NUMBER = 20
QUESTION_CODE = re.compile(r"[a-z][a-z0-9_]{0,19}")


class GuidelinesInvalid(ValueError):
    """Guidelines that cannot be stored; ``problems`` says what and where, each on its own."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("; ".join(self.problems))


@dataclass(frozen=True)
class GradeDefinition:
    value: int
    label: str
    keys: tuple[str, ...]
    definition: str = ""  # Markdown


@dataclass(frozen=True)
class FlagDefinition:
    code: str  # one of FLAG_CODES
    label: str
    keys: tuple[str, ...]
    definition: str = ""  # Markdown


@dataclass(frozen=True)
class QuestionDefinition:
    """A yes/no question asked beside the grade, on ``topics`` (empty: on every topic)."""

    code: str  # what judgments store the answer under (mg, ui)
    label: str
    keys: tuple[str, ...]
    definition: str = ""  # Markdown
    topics: tuple[str, ...] = ()

    def asked_on(self, topic: str) -> bool:
        return not self.topics or topic in self.topics


@dataclass(frozen=True)
class GradeScale:
    """Grades from the top down (as the page shows them), then the flags the task allows, then
    the extra questions it asks."""

    grades: tuple[GradeDefinition, ...]
    flags: tuple[FlagDefinition, ...]
    questions: tuple[QuestionDefinition, ...] = ()

    def questions_on(self, topic: str) -> tuple[QuestionDefinition, ...]:
        """The questions an assessor of ``topic`` answers for each hit."""
        return tuple(q for q in self.questions if q.asked_on(topic))

    @property
    def top(self) -> int:
        """G: the highest grade."""
        return max(g.value for g in self.grades)

    @property
    def values(self) -> tuple[int, ...]:
        """0..G ascending (agreement's categories)."""
        return tuple(range(self.top + 1))

    @property
    def ways(self) -> int:
        """How many grades: the "4-way" of ARQMath's kappa is (G + 1)-way."""
        return self.top + 1

    def grade(self, value: int) -> GradeDefinition | None:
        return next((g for g in self.grades if g.value == value), None)

    def flag(self, code: str) -> FlagDefinition | None:
        return next((f for f in self.flags if f.code == code), None)

    def label(self, value: int | None, flag: str = "") -> str:
        """The label of a grade or a flag, for any page that shows a judgment."""
        if value is not None:
            found = self.grade(value)
            return found.label if found else f"grade {value}"
        known = self.flag(flag)
        return known.label if known else FLAG_LABELS.get(flag, flag)

    def abbreviation(self, value: int) -> str:
        """One character for a grade (H M L N for ARQMath): the label's first letter, or the
        grade itself when two labels share a first letter."""
        firsts = [_first_letter(g.label) for g in self.grades]
        if len(set(firsts)) < len(firsts) or "" in firsts:
            return str(value)
        found = self.grade(value)
        return _first_letter(found.label) if found else str(value)

    def tone(self, value: int, relevant_from: int) -> str:
        """The colour family of a grade: high (top), medium (relevant), low, not (0)."""
        if value <= 0:
            return "not"
        if value >= self.top:
            return "high"
        return "medium" if value >= relevant_from else "low"

    def key_map(self) -> dict[str, str]:
        """key -> choice value (a grade as text, or a flag code), for the judging page."""
        result = {key: str(g.value) for g in self.grades for key in g.keys}
        result.update({key: f.code for f in self.flags for key in f.keys})
        return result

    def verdict_problem(self, grade: int | None, flag: str) -> str | None:
        """Why a grade or flag is not one of this scale's, or None. (Whether a grade and a
        flag are both given, and comments, are the judging service's rules.)"""
        if grade is not None and self.grade(grade) is None:
            return f"a grade is {self.values_text()}"
        if flag and self.flag(flag) is None:
            return f"this task has no {FLAG_LABELS.get(flag, repr(flag))} flag"
        return None

    def range_text(self) -> str:
        """ "0-3" (or "0 or 1" for a binary scale)."""
        return f"0-{self.top}" if self.top > 1 else "0 or 1"

    def values_text(self) -> str:
        """ "0, 1, 2 or 3": every grade, for messages."""
        values = [str(v) for v in self.values]
        return ", ".join(values[:-1]) + f" or {values[-1]}"

    def choices_text(self) -> str:
        """ "High (3), …, System failure (f) or Do not know (d)": what a hit needs."""
        parts = [f"{g.label} ({_keys_text(g.keys)})" for g in self.grades]
        parts += [f"{f.label} ({_keys_text(f.keys)})" for f in self.flags]
        return ", ".join(parts[:-1]) + f" or {parts[-1]}" if len(parts) > 1 else parts[0]


@dataclass(frozen=True)
class Guidelines:
    """What an assessor is told: instructions (Markdown) and the scale."""

    instructions: str
    scale: GradeScale


def _first_letter(label: str) -> str:
    return next((c.upper() for c in label if c.isalnum()), "")


def _keys_text(keys: Sequence[str]) -> str:
    return "/".join(keys)


def keys_parse(text: str) -> list[str]:
    """Keys typed in a form: separated by spaces or commas ("3 h", "3,h")."""
    return [key for key in text.replace(",", " ").split() if key]


def scale_as_json(scale: GradeScale) -> dict[str, Any]:
    """The stored form of a scale (the inverse of ``scale_from_json``)."""
    stored: dict[str, Any] = {
        "grades": [
            {"value": g.value, "label": g.label, "keys": list(g.keys), "definition": g.definition}
            for g in scale.grades
        ],
        "flags": [
            {"code": f.code, "label": f.label, "keys": list(f.keys), "definition": f.definition}
            for f in scale.flags
        ],
    }
    if scale.questions:  # absent when none: scales saved before questions existed compare equal
        stored["questions"] = [
            {
                "code": q.code,
                "label": q.label,
                "keys": list(q.keys),
                "definition": q.definition,
                "topics": list(q.topics),
            }
            for q in scale.questions
        ]
    return stored


def _text(entry: Mapping[str, Any], name: str, where: str, limit: int, problems: list[str]) -> str:
    value = entry.get(name, "")
    if not isinstance(value, str):
        problems.append(f"{where}: the {name} must be text")
        return ""
    value = value.strip()
    if len(value) > limit:
        problems.append(f"{where}: the {name} has {len(value)} characters, at most {limit}")
    return value


def _keys(entry: Mapping[str, Any], where: str, problems: list[str]) -> tuple[str, ...]:
    raw = entry.get("keys", [])
    if isinstance(raw, str):
        raw = keys_parse(raw)
    if not isinstance(raw, list) or not all(isinstance(k, str) for k in raw):
        problems.append(f"{where}: keys must be a list of characters")
        return ()
    keys = []
    for key in raw:
        key = key.strip().lower() if key.strip() else key
        if len(key) != 1 or not key.isprintable() or key.isspace():
            problems.append(
                f"{where}: key {key!r} is not a single printable character "
                "(separate several keys with spaces)"
            )
        elif key in RESERVED_KEYS:
            problems.append(f"{where}: key {key!r} is reserved for '{RESERVED_KEYS[key]}'")
        else:
            keys.append(key)
    if not raw:
        problems.append(f"{where}: give it at least one key")
    if len(raw) > MAX_KEYS:
        problems.append(f"{where}: at most {MAX_KEYS} keys")
    return tuple(keys)


def _label_and_definition(
    entry: Mapping[str, Any], where: str, problems: list[str]
) -> tuple[str, str]:
    """The label (required) and definition every grade, flag and question carries."""
    label = _text(entry, "label", where, MAX_LABEL, problems)
    if not label:
        problems.append(f"{where}: the label is empty")
    return label, _text(entry, "definition", where, MAX_DEFINITION, problems)


def _grade(entry: Any, index: int, problems: list[str]) -> GradeDefinition | None:
    if not isinstance(entry, Mapping):
        problems.append(f"grade #{index + 1}: expected an object with value, label, keys")
        return None
    value = entry.get("value")
    if not isinstance(value, int) or isinstance(value, bool):
        problems.append(f"grade #{index + 1}: the value must be a whole number")
        return None
    where = f"grade {value}"
    label, definition = _label_and_definition(entry, where, problems)
    return GradeDefinition(value, label, _keys(entry, where, problems), definition)


def _flag(entry: Any, index: int, problems: list[str]) -> FlagDefinition | None:
    if not isinstance(entry, Mapping):
        problems.append(f"flag #{index + 1}: expected an object with code, label, keys")
        return None
    code = entry.get("code")
    if code not in FLAG_CODES:
        known = ", ".join(FLAG_CODES)
        problems.append(f"flag #{index + 1}: unknown flag {code!r} (known: {known})")
        return None
    where = f"flag {FLAG_LABELS[code]}"
    label, definition = _label_and_definition(entry, where, problems)
    return FlagDefinition(code, label, _keys(entry, where, problems), definition)


def _question(entry: Any, index: int, problems: list[str]) -> QuestionDefinition | None:
    if not isinstance(entry, Mapping):
        problems.append(f"question #{index + 1}: expected an object with code, label, keys")
        return None
    code = entry.get("code")
    if not isinstance(code, str) or not QUESTION_CODE.fullmatch(code):
        problems.append(
            f"question #{index + 1}: the code {code!r} must be a lower-case letter, then up to "
            "19 letters, digits or underscores"
        )
        return None
    where = f"question {code}"
    label, definition = _label_and_definition(entry, where, problems)
    raw_topics = entry.get("topics", [])
    if isinstance(raw_topics, str):
        raw_topics = keys_parse(raw_topics)
    if not isinstance(raw_topics, list) or not all(isinstance(t, str) for t in raw_topics):
        problems.append(f"{where}: topics must be a list of topic numbers")
        raw_topics = []
    topics = tuple(dict.fromkeys(t.strip() for t in raw_topics if t.strip()))
    if len(topics) > MAX_QUESTION_TOPICS:
        problems.append(f"{where}: at most {MAX_QUESTION_TOPICS:,} topics")
    if any(len(t) > MAX_TOPIC_NUMBER for t in topics):
        problems.append(f"{where}: a topic number has at most {MAX_TOPIC_NUMBER} characters")
    keys = _keys(entry, where, problems)
    return QuestionDefinition(code, label, keys, definition, topics)


def answers_problem(answers: Any, asked: Sequence[QuestionDefinition]) -> str | None:
    """Why ``answers`` (question code -> yes/no) cannot be stored for a hit whose topic asks
    ``asked``, or None."""
    if not isinstance(answers, Mapping):
        return "answers must map question codes to true or false"
    codes = {q.code for q in asked}
    for code, value in answers.items():
        if code not in codes:
            shown = ", ".join(sorted(codes)) or "none"
            return f"question {str(code)[:30]!r} is not asked on this topic (asked: {shown})"
        if not isinstance(value, bool):
            return f"the answer to question {code} must be true or false"
    return None


def _check_values(grades: Sequence[GradeDefinition], problems: list[str]) -> None:
    values = sorted(g.value for g in grades)
    if len(set(values)) != len(values):
        problems.append("each grade value may appear once")
    top = max(values, default=-1)
    if not MIN_TOP_GRADE <= top <= MAX_GRADE:
        problems.append(
            f"the top grade must be {MIN_TOP_GRADE} to {MAX_GRADE} "
            f"(grades 0..G), not {top if values else 'missing'}"
        )
    elif values != list(range(top + 1)):
        missing = sorted(set(range(top + 1)) - set(values))
        extra = sorted(set(values) - set(range(top + 1)))
        if missing:
            problems.append(f"grades 0..{top} must all be defined: missing {missing}")
        if extra:
            problems.append(f"grades must lie in 0..{top}: not {extra}")


def _check_unique(named: Iterable[tuple[str, str, tuple[str, ...]]], problems: list[str]) -> None:
    """Distinct labels (case-insensitive) and distinct keys over all grades and flags."""
    labels: dict[str, str] = {}
    owners: dict[str, str] = {}
    for where, label, keys in named:
        if label and label.casefold() in labels:
            problems.append(f"{where}: the label {label!r} is also {labels[label.casefold()]}'s")
        labels.setdefault(label.casefold(), where)
        for key in keys:
            if key in owners:
                problems.append(f"{where}: key {key!r} is also {owners[key]}'s")
            owners.setdefault(key, where)


def scale_from_json(data: Any) -> GradeScale:
    """A validated scale from its stored (or submitted) JSON, else GuidelinesInvalid with
    every problem. Keys come back lower-cased, texts stripped, grades from the top down."""
    problems: list[str] = []
    if not isinstance(data, Mapping):
        raise GuidelinesInvalid(["the scale must be an object with grades and flags"])
    raw_grades, raw_flags = data.get("grades"), data.get("flags", [])
    raw_questions = data.get("questions", [])
    if not isinstance(raw_grades, list) or not raw_grades:
        raise GuidelinesInvalid(["the scale needs a list of grades"])
    if not isinstance(raw_flags, list):
        raise GuidelinesInvalid(["the scale's flags must be a list"])
    if not isinstance(raw_questions, list) or len(raw_questions) > MAX_QUESTIONS:
        raise GuidelinesInvalid(
            [f"the scale's questions must be a list of at most {MAX_QUESTIONS}"]
        )
    grades = [g for i, e in enumerate(raw_grades) if (g := _grade(e, i, problems)) is not None]
    flags = [f for i, e in enumerate(raw_flags) if (f := _flag(e, i, problems)) is not None]
    questions = [
        q for i, e in enumerate(raw_questions) if (q := _question(e, i, problems)) is not None
    ]
    _check_values(grades, problems)
    if len({f.code for f in flags}) != len(flags):
        problems.append("each flag may appear once")
    if len({q.code for q in questions}) != len(questions):
        problems.append("each question code may appear once")
    _check_unique(
        [(f"grade {g.value}", g.label, g.keys) for g in grades]
        + [(f"flag {FLAG_LABELS[f.code]}", f.label, f.keys) for f in flags]
        + [(f"question {q.code}", q.label, q.keys) for q in questions],
        problems,
    )
    if problems:
        raise GuidelinesInvalid(problems)
    ordered = sorted(grades, key=lambda g: -g.value)
    flags.sort(key=lambda f: FLAG_CODES.index(f.code))
    return GradeScale(tuple(ordered), tuple(flags), tuple(questions))


def guidelines_problems(
    *, instructions: str, top: int, relevance_level: int, note: str = ""
) -> list[str]:
    """What is wrong with guidelines beyond the scale itself, whose top grade is ``top``
    (the scale's own problems are ``scale_from_json``'s)."""
    problems = []
    if len(instructions) > MAX_INSTRUCTIONS:
        problems.append(f"instructions: {len(instructions)} characters, at most {MAX_INSTRUCTIONS}")
    if not 1 <= relevance_level <= top:
        problems.append(
            f"relevance level: {relevance_level} is not one of the grades 1..{top} "
            "(binary measures and binary kappa count grade ≥ level as relevant)"
        )
    if len(note) > MAX_NOTE:
        problems.append(f"note: {len(note)} characters, at most {MAX_NOTE}")
    return problems

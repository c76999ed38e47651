"""The built-in guidelines of each task kind, in qrelsmith's own words. Pure.

A task without a saved guidelines version is judged under these (issue 12 §4). The scale is
ARQMath's: 0-3 with High, Medium, Low, Not relevant (keys 3/h, 2/m, 1/l, 0/n) and the two
flags (f, d). The wording is ours: it describes the same grades without quoting the lab's
published tables. Organizers replace any of it on /organize/task/<id>/guidelines/.
"""

from __future__ import annotations

from assessment.guidelines import (
    FlagDefinition,
    GradeDefinition,
    GradeScale,
    Guidelines,
)

__all__ = ["DEFAULT_RELEVANCE_LEVEL", "default_guidelines"]

DEFAULT_RELEVANCE_LEVEL = 2  # ARQMath's H+M binarization: grade >= 2 is relevant

_ANSWER_GRADES = (
    GradeDefinition(
        3,
        "High",
        ("3", "h"),
        "The answer settles the topic's question on its own: whoever asked would need "
        "nothing else.",
    ),
    GradeDefinition(
        2,
        "Medium",
        ("2", "m"),
        "It takes the asker a real step towards a solution (a key idea, a method worth "
        "trying, a correct part of the argument, a useful restatement) but leaves work to do.",
    ),
    GradeDefinition(
        1,
        "Low",
        ("1", "l"),
        "It is about the question's subject and holds something the asker might use while "
        "looking further, without helping to solve the question itself.",
    ),
    GradeDefinition(
        0,
        "Not relevant",
        ("0", "n"),
        "Nothing in it helps with the question. An answer that only repeats the question "
        "in other words belongs here too.",
    ),
)

_FORMULA_GRADES = (
    GradeDefinition(
        3,
        "High",
        ("3", "h"),
        "Meeting this formula where it stands serves the asker as well as meeting the query "
        "formula itself would.",
    ),
    GradeDefinition(
        2,
        "Medium",
        ("2", "m"),
        "Worth the asker's time, though less so than an occurrence of the query formula.",
    ),
    GradeDefinition(
        1,
        "Low",
        ("1", "l"),
        "A slight chance that following it leads the asker to something of use.",
    ),
    GradeDefinition(
        0,
        "Not relevant",
        ("0", "n"),
        "Following it would not help the asker.",
    ),
)

_FLAGS = (
    FlagDefinition(
        "system_failure",
        "System failure",
        ("f",),
        "Something is broken, so the item cannot be judged: the post or formula is missing, "
        "displays wrongly, or is not what it should be. Say what you saw in the comment.",
    ),
    FlagDefinition(
        "dont_know",
        "Do not know",
        ("d",),
        "You cannot decide, for example because the mathematics is outside what you know. "
        "Say why in the comment.",
    ),
)

_ANSWER_INSTRUCTIONS = (
    "Read the topic's question first, then judge **each answer by how much it helps answer "
    "that question**. Judge what the answer says, not who wrote it or how popular it is, "
    "and keep each grade meaning the same from your first item to your last."
)

_FORMULA_INSTRUCTIONS = (
    "The query formula is highlighted in the topic, and the candidate formula in each post. "
    "Judge the candidate **in the context of its post**: would coming across it there help "
    "someone with the topic's question find what they need about the query formula? "
    "Two formulae that look alike may mean different things, and two that look different "
    "may mean the same."
)

_OPENQA_INSTRUCTIONS = (
    "Some answers here were written by a system rather than taken from the collection. "
    "Judge every answer, generated or not, by how much it helps answer the topic's "
    "question, as you would any posted answer."
)

_DEFAULTS = {
    "answer": Guidelines(_ANSWER_INSTRUCTIONS, GradeScale(_ANSWER_GRADES, _FLAGS)),
    "formula": Guidelines(_FORMULA_INSTRUCTIONS, GradeScale(_FORMULA_GRADES, _FLAGS)),
    "openqa": Guidelines(_OPENQA_INSTRUCTIONS, GradeScale(_ANSWER_GRADES, _FLAGS)),
}


def default_guidelines(kind: str) -> Guidelines:
    """The built-in guidelines of a task kind (answer, formula, openqa); other kinds (such as
    document tasks to come) get the answer task's scale with neutral instructions."""
    found = _DEFAULTS.get(kind)
    if found is not None:
        return found
    return Guidelines(
        "Judge each item by how much it helps with the topic.",
        GradeScale(_ANSWER_GRADES, _FLAGS),
    )

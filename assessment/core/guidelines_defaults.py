"""The built-in guidelines of each task kind, in qrelsmith's own words. Pure.

A task without a saved guidelines version is judged under these. The ARQMath
kinds use ARQMath's scale: 0-3 with High, Medium, Low, Not relevant (keys 3/h, 2/m, 1/l, 0/n)
and the two flags (f, d). Document tasks use a TREC-style 0-2 scale: Highly
relevant, Relevant, Not relevant (keys 2/h, 1/r, 0/n) and the same flags. The wording is
ours: it describes the grades without quoting any lab's published tables. Organizers replace
any of it (a binary or a 0-4 scale, say) on /organize/task/<id>/guidelines/.
"""

from __future__ import annotations

from assessment.core.guidelines import (
    FlagDefinition,
    GradeDefinition,
    GradeScale,
    Guidelines,
    QuestionDefinition,
)

__all__ = ["ARQMATH3_QUESTIONS", "default_guidelines"]

# The content follows the ARQMath overviews' relevance table (judge as an expert in the
# field would; High answers every part of the question; a restatement of the question adds
# nothing and is not relevant), written in our own words.
_ANSWER_GRADES = (
    GradeDefinition(
        3,
        "High",
        ("3", "h"),
        "An expert would accept it as a full answer: it settles the topic's question on its "
        "own, and when the question has several parts it answers every one of them.",
    ),
    GradeDefinition(
        2,
        "Medium",
        ("2", "m"),
        "It gives real help towards an answer (a key idea, a method that works, a correct part "
        "of the argument) but stops short: a part of the question stays unanswered, or work "
        "is left for the asker to do.",
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
        "Nothing in it helps with the question. A post that restates the question, or repeats "
        "what the question already says without adding anything new, belongs here too.",
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

_DOCUMENT_GRADES = (
    GradeDefinition(
        2,
        "Highly relevant",
        ("2", "h"),
        "The document is about what the topic asks for: it meets the narrative's criterion "
        "directly and in substance, so that someone with this information need would be glad "
        "to have found it.",
    ),
    GradeDefinition(
        1,
        "Relevant",
        ("1", "r"),
        "Some part of the document holds information the narrative counts as relevant, even "
        "if it is only a passage or the document is mostly about something else.",
    ),
    GradeDefinition(
        0,
        "Not relevant",
        ("0", "n"),
        "Nothing in it meets the narrative's criterion. Containing the query's words is not "
        "enough, and neither is being about a neighbouring subject.",
    ),
)

_DOCUMENT_FLAGS = (
    FlagDefinition(
        "system_failure",
        "System failure",
        ("f",),
        "Something is broken, so the document cannot be judged: it is missing, empty, "
        "unreadable or displays wrongly. Say what you saw in the comment.",
    ),
    FlagDefinition(
        "dont_know",
        "Do not know",
        ("d",),
        "You cannot decide, for example because the narrative leaves this case open or the "
        "document is in a language you do not read. Say why in the comment.",
    ),
)

_DOCUMENT_INSTRUCTIONS = (
    "Read the topic first: its title, its description and above all its **narrative, which is "
    "your criterion** for what counts as relevant. Then judge **each document on its own** "
    "by whether it holds information the narrative asks for; a document is relevant if any "
    "part of it is. The query's words are highlighted to help you find the passages that "
    "matter (x turns the highlighting off, . and , jump between matches), but a word's "
    "presence is not relevance, and a relevant document may not use the query's words at all."
)

_ANSWER_INSTRUCTIONS = (
    "Read the topic's question first, then judge **each answer by how much it helps answer "
    "that question, as an expert in its mathematics would** (think of a professor who knows "
    "the field and checks the argument). Judge what the answer says, not who wrote it or how "
    "popular it is; a question with several parts is fully answered only when every part is; "
    "and keep each grade meaning the same from your first item to your last."
)

_FORMULA_INSTRUCTIONS = (
    "The query formula is highlighted in the topic, and the candidate formula in each post. "
    "Judge the candidate **in the context of its post**, as an expert in the mathematics "
    "would: would coming across it there help "
    "someone with the topic's question find what they need about the query formula? "
    "Two formulae that look alike may mean different things, and two that look different "
    "may mean the same."
)

_OPENQA_INSTRUCTIONS = (
    "Some answers here were written by a system rather than taken from the collection. "
    "Judge every answer, generated or not, by how much it helps answer the topic's "
    "question, as you would any posted answer."
)

# ARQMath-3's two extra questions (asked beside the grade, on a subset of its topics), in our
# words. They are asked of every answer of the topic, posted or generated, so that asking does
# not tell the assessor which answers a system wrote. None is asked by default: an organizer adds
# them to a task's guidelines (docs/guidelines.md), with the topics to ask them on.
ARQMATH3_QUESTIONS = (
    QuestionDefinition(
        "mg",
        "Machine-generated?",
        ("b",),
        "Does this answer look as if a program rather than a person wrote it? Say what the text "
        "makes you believe; you are not told which answers a system wrote.",
    ),
    QuestionDefinition(
        "ui",
        "Unrelated information?",
        ("u",),
        "Does the answer contain information unrelated to the question? Background about the "
        "question's subject, or about the part of the answer that is relevant, is related: "
        "mark only material that has nothing to do with what was asked.",
    ),
)

_DEFAULTS = {
    "answer": Guidelines(_ANSWER_INSTRUCTIONS, GradeScale(_ANSWER_GRADES, _FLAGS)),
    "formula": Guidelines(_FORMULA_INSTRUCTIONS, GradeScale(_FORMULA_GRADES, _FLAGS)),
    "openqa": Guidelines(_OPENQA_INSTRUCTIONS, GradeScale(_ANSWER_GRADES, _FLAGS)),
    "document": Guidelines(_DOCUMENT_INSTRUCTIONS, GradeScale(_DOCUMENT_GRADES, _DOCUMENT_FLAGS)),
}


def default_guidelines(kind: str) -> Guidelines:
    """The built-in guidelines of a task kind (answer, formula, openqa, document); an unknown
    kind gets the answer task's scale with neutral instructions."""
    found = _DEFAULTS.get(kind)
    if found is not None:
        return found
    return Guidelines(
        "Judge each item by how much it helps with the topic.",
        GradeScale(_ANSWER_GRADES, _FLAGS),
    )
